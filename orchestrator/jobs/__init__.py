"""Background jobs: `queue_task`, `get_job_status`, `trigger_backfill` on APScheduler 3 with its SQLite job store.

- `model`   what a job is, which steps may start, its status and progress (pure)
- `store`   the job records (SQLite, same file as APScheduler's store)
- `runner`  APScheduler, the run of each job through `Hub.call` with its caller
- `tools`   the three hub-native tools
"""
