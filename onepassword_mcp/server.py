"""The 1Password MCP server (mcpName `onepassword`): the original's four read-only tools over the `op` CLI.

Every tool is read-only and none can change a vault. Sensitive values come back sealed (`shared.secrets`): the
owner's direct call (`POST /tools/call`, `annabelle tools call`) shows them; an agent's model only ever reads a
placeholder it can put in its reply to the owner. Guardian scans the arguments, never the results (a scan would
hand the secrets to the scanner and its audit log). See docs/onepassword.md.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import Field

from onepassword_mcp.cli import OpCli, environment
from onepassword_mcp.items import (
    check_name,
    check_reference,
    compact_item,
    compact_items,
    compact_vaults,
    op_categories,
)
from onepassword_mcp.settings import OnePasswordSettings
from shared.mcp_tools import READ_ONLY_OPEN_WORLD, EnvelopeServer, ServerState, configured_lifespan, envelope_tool
from shared.secrets import seal

log = logging.getLogger(__name__)

OnePasswordState = ServerState[OpCli]


@configured_lifespan(OnePasswordSettings, name="1password", display="1Password")
async def lifespan(settings: OnePasswordSettings) -> AsyncIterator[OnePasswordState]:
    token = settings.op_service_account_token
    cli = OpCli(
        settings.onepassword_cli,
        token.get_secret_value() if token is not None else None,
        settings.onepassword_timeout_seconds,
        environment(),
    )
    log.info("1password ready", extra={"cli": settings.onepassword_cli, "configured": cli.configured})
    yield OnePasswordState(cli)


server: EnvelopeServer[OnePasswordState] = EnvelopeServer(
    "onepassword",
    instructions=(
        "The owner's 1Password vaults, read-only. Secret values come back sealed: you see a placeholder such as "
        "{{secret:1}}; write it in your reply and the owner sees the value there. Never ask for a secret in chat."
    ),
    lifespan=lifespan,
)

OnePasswordContext = Context[OnePasswordState]


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def list_vaults(ctx: OnePasswordContext) -> dict[str, Any]:
    """The 1Password vaults this account can read: id and name.

    For requests like: which password vaults do I have, what is in 1Password.
    """
    vaults = compact_vaults(await server.service(ctx).json(["vault", "list"]))
    return {"vaults": vaults, "count": len(vaults)}


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def list_items(
    vault: Annotated[str, Field(min_length=1, max_length=200, description="Vault name or id (see list_vaults).")],
    ctx: OnePasswordContext,
    categories: Annotated[
        list[str] | None,
        Field(max_length=21, description="Only these categories, e.g. ['Login', 'Password', 'API Credential']."),
    ] = None,
) -> dict[str, Any]:
    """The items of a vault: title, category, tags and URLs (no field values).

    For requests like: which logins do I have in the Private vault, list my API credentials.
    """
    args = ["item", "list", f"--vault={check_name(vault, 'vault')}"]
    if categories:
        args.append(f"--categories={op_categories(categories)}")
    items = compact_items(await server.service(ctx).json(args))
    return {"items": items, "count": len(items)}


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def get_item(
    item: Annotated[str, Field(min_length=1, max_length=200, description="Item title or id (see list_items).")],
    ctx: OnePasswordContext,
    vault: Annotated[
        str | None, Field(max_length=200, description="Vault name or id; needed when titles repeat across vaults.")
    ] = None,
) -> dict[str, Any]:
    """One item's fields: labels, usernames, URLs and each field's op:// reference; secret values come sealed.

    For requests like: what is my username for the bank, what is the wifi password, show the GitHub login.
    """
    args = ["item", "get", check_name(item, "item")]
    if vault is not None:
        args.append(f"--vault={check_name(vault, 'vault')}")
    return compact_item(await server.service(ctx).json(args))


@envelope_tool(server, annotations=READ_ONLY_OPEN_WORLD)
async def read_secret(
    reference: Annotated[
        str, Field(min_length=8, max_length=700, description="A secret reference: op://vault/item/field.")
    ],
    ctx: OnePasswordContext,
) -> dict[str, Any]:
    """Read one secret by its op:// reference; the value comes sealed (shown to the owner, never to you).

    For requests like: give me the API key in op://Work/Stripe/credential.
    """
    reference = check_reference(reference)
    value = await server.service(ctx).run(["read", "--no-newline", reference])
    return {"reference": reference, "secret": seal(value), "characters": len(value)}
