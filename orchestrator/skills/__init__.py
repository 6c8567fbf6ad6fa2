"""Skills: the pure building blocks of scheduled and on-demand work (no I/O here; the hub wires them).

- `normalizer`  repair and check memory_store_skill / memory_update_skill arguments at creation
- `triggers`    when a skill is due: cron with zones and DST, intervals, one-shots, missed runs, failure backoff
- `file_sync`   what to create, update or disable in Memorizer for scheduled SKILL.md files
- `seeds`       the shipped playbooks and scheduled skills, and what to upsert for them
- `errors`      the exception tree
"""
