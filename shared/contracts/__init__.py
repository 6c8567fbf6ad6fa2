"""The contracts between Annabelle's processes: one pydantic model per request and answer that crosses.

- `thinker_api`: what the hub sends a Thinker and what it answers (`/process-message`, `/execute-skill`, ...).
- `hub_api`: what clients send the hub and what it answers (`/tools/list`, `/tools/call`, `/message`, ...).
- `memory`: what the Memorizer stores that other parts write or read (fact categories, skill fields).

Both sides of each boundary import the same model from its module, so a limit or a field is defined once.
Requests refuse unknown fields; answers keep them without relying on them (a newer server may say more).
"""
