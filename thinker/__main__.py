"""`python -m thinker --agent-id ID`: run one agent's Thinker in the foreground (the hub starts it this way)."""

from thinker.cli import main

raise SystemExit(main())
