"""Diagnostics: the checks behind `/diagnose`, `GET /diagnose` and `annabelle doctor`, and their periodic run.

The registry (`check`, `run_checks`, `format_report`) stays in `orchestrator.commands.diagnose`; this package holds
the finding type (`findings`), the pure judgements (`judge`), the data gathering (`probes`), the checks that
register themselves (`checks`) and the periodic run (`periodic`). Nothing is imported here, so importing a
submodule never drags the hub in.
"""
