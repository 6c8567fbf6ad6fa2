from __future__ import annotations

import os
import time
from typing import Annotated, Any

import anyio
from pydantic import Field

from shared.mcp_tools import LOCAL_OVERWRITE, LOCAL_WRITE, READ_ONLY, EnvelopeServer, envelope_tool

server: EnvelopeServer[None] = EnvelopeServer("echo")


@envelope_tool(server, annotations=READ_ONLY)
async def echo(text: Annotated[str, Field(description="Text to send back")], repeat: int = 1) -> dict[str, Any]:
    """Send the text back."""
    return {"text": text * repeat, "pid": os.getpid()}


@envelope_tool(server, annotations=READ_ONLY)
async def sleep(
    seconds: Annotated[float, Field(ge=0, le=60)],
    whole_process: Annotated[bool, Field(description="Block the process, as one long GIL-holding step")] = False,
) -> dict[str, float]:
    """Sleep, then answer."""
    if whole_process:
        time.sleep(seconds)  # noqa: ASYNC251 - blocking the loop on purpose
    else:
        await anyio.sleep(seconds)
    return {"slept": seconds}


@envelope_tool(server, annotations=LOCAL_WRITE)
async def crash() -> None:
    """Exit the process at once, as a crash would."""
    os._exit(3)


@envelope_tool(server, annotations=LOCAL_WRITE)
async def freeze() -> None:
    """Block the whole process (no pings answered), as a hung server would."""
    time.sleep(3600)  # noqa: ASYNC251 - blocking the loop on purpose


@envelope_tool(server, annotations=LOCAL_OVERWRITE)
async def delete_everything() -> str:
    """A destructive tool: hidden by the hub because the manifest does not allow destructive tools."""
    return "deleted"
