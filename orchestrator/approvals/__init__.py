"""Approvals: in a tainted turn, calls that could change something or carry data out wait for the owner.

- `policy`: which calls wait (pure), and the policy file that lets some run anyway.
- `store`: the records (SQLite) and the audit log of every decision.
- `gate`: holding a call until the owner approves or denies it, or time runs out.

See docs/security.md for the model as a whole.
"""
