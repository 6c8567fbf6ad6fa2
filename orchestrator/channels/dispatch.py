"""One incoming chat message, from any channel, to its answer: slash command, halt, Guardian, then the agent.

Every channel (the Telegram poller, `POST /message`, `annabelle chat` through it) goes through `Dispatcher`,
so the rules are the same everywhere: slash commands answer without an LLM; a halted Thinker answers with the
halt notice; the message is scanned by Guardian (see `inbound.py` for what a verdict means); the agent bound
to the channel and chat answers.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from orchestrator.agents import AgentError
from orchestrator.channels.inbound import blocked_reply, judge_inbound
from orchestrator.commands.registry import CommandContext, is_command, run_command
from shared.contracts.thinker_api import TurnAnswer, paused_reason
from shared.traces import current_trace, elapsed_ms, trace_event, traced

if TYPE_CHECKING:
    from orchestrator.agents import AgentManager
    from orchestrator.halt import HaltState
    from orchestrator.hub import Hub
    from orchestrator.settings import OrchestratorSettings

log = logging.getLogger(__name__)

Kind = Literal["command", "answer", "blocked", "halted", "paused", "failed"]


@dataclass(frozen=True)
class InboundMessage:
    channel: str
    chat_id: str
    text: str
    owner: bool
    message_id: str = ""
    private: bool = True
    """Only the sender reads this chat (a private chat, the HTTP API): what a secret may be shown in."""


@dataclass(frozen=True)
class Outcome:
    kind: Kind
    reply: str
    agent_id: str | None = None
    tools_used: list[str] = field(default_factory=list)
    notice: str | None = None
    tainted: bool = False

    @property
    def success(self) -> bool:
        return self.kind in ("command", "answer")


class Dispatcher:
    def __init__(self, hub: Hub, agents: AgentManager, halt: HaltState, settings: OrchestratorSettings) -> None:
        self.hub = hub
        self.agents = agents
        self.halt = halt
        self.settings = settings

    def command_context(self, channel: str, chat_id: str, *, owner: bool = True) -> CommandContext:
        return CommandContext(self.hub, self.agents, self.halt, self.settings, channel, chat_id, owner=owner)

    async def dispatch(self, message: InboundMessage) -> Outcome:
        """Answer one message, traced under the caller's trace id (POST /message's X-Trace-Id) or a new one."""
        with traced(current_trace()):
            started = time.perf_counter()
            # Lengths and ids only: the text itself never goes into the trace file.
            trace_event("message_received", channel=message.channel, chat=message.chat_id, length=len(message.text))
            try:
                outcome = await self._dispatch(message)
            except Exception as exc:
                trace_event("error", stage="dispatch", error=type(exc).__name__, ms=elapsed_ms(started))
                raise
            if outcome.kind == "failed":
                trace_event("error", stage="agent", error=outcome.reply[:300])
            trace_event(
                "reply",
                kind=outcome.kind,
                agent=outcome.agent_id,
                length=len(outcome.reply),
                tools=outcome.tools_used,
                ms=elapsed_ms(started),
            )
            return outcome

    async def _dispatch(self, message: InboundMessage) -> Outcome:
        if is_command(message.text):
            # The command's name only: its arguments may be a pairing code or a secret.
            trace_event("command", name=message.text.split(maxsplit=1)[0][:40])
            context = self.command_context(message.channel, message.chat_id, owner=message.owner)
            reply = await run_command(message.text, context)
            return Outcome("command", reply.text if reply is not None else "")
        if self.halt.halted("thinker"):
            trace_event("halted")
            return Outcome("halted", self.halt.notice("thinker"))
        decision = await self.hub.gate.scan(message.text, source=f"{message.channel}:inbound")
        verdict = judge_inbound(decision, owner=message.owner, owner_block_risk=self.settings.guardian_owner_block_risk)
        where = {"channel": message.channel, "chat": message.chat_id, "risk": round(verdict.risk, 3)}
        if verdict.action == "block":
            log.warning("inbound message blocked by guardian", extra={**where, "reason": verdict.reason})
            trace_event("blocked", risk=where["risk"], reason=verdict.reason[:200])
            return Outcome("blocked", blocked_reply(verdict))
        tainted = verdict.action == "tainted"
        if tainted:
            log.warning("inbound message passed tainted", extra={**where, "reason": verdict.reason})
            trace_event("tainted", risk=where["risk"], reason=verdict.reason[:200])
        try:
            agent_id = self.agents.resolve(message.channel, message.chat_id)
            trace_event("agent_selected", agent=agent_id)
            turn = self.hub.turns.mint(
                agent_id,
                tainted_by=untrusted_origin(message),
                # Only the owner's words name the records a turn may change without asking.
                said=[message.text] if message.owner else [],
                conversation=f"{message.channel}:{message.chat_id}",
            )
            answer = await self.agents.process_message(
                agent_id,
                text=message.text,
                chat_id=message.chat_id,
                channel=message.channel,
                tainted=tainted,
                message_id=message.message_id,
                # A secret the agent read is shown only to the owner, and only where no one else reads along.
                owner=message.owner and message.private,
                turn_id=turn.id,
            )
        except (AgentError, LookupError) as exc:
            return Outcome("failed", f"Sorry, I could not answer: {exc}", tainted=tainted)
        return _outcome(agent_id, answer, tainted)


def untrusted_origin(message: InboundMessage) -> str | None:
    """Why a turn starts tainted: its message is not the owner's. The owner's own words start a clean turn, even
    when Guardian found them odd (the Thinker is told to be careful; what the turn reads may still taint it)."""
    if not message.owner:
        return f"a {message.channel} message from someone other than the owner"
    return None


def _outcome(agent_id: str, answer: TurnAnswer, tainted: bool) -> Outcome:
    tools = list(answer.toolsUsed)
    if answer.paused:
        notice = answer.error or paused_reason(agent_id)
        if "resume" not in notice:
            notice = f"{notice} Send /resume thinker or POST /agents/{agent_id}/resume to resume."
        if answer.success and answer.response:
            # The turn that tripped the cap was already paid for: deliver it, with the pause notice beside it.
            return Outcome("answer", answer.response, agent_id, tools, notice, tainted)
        return Outcome("paused", notice, agent_id, notice=notice, tainted=tainted)
    if not answer.success:
        error = answer.error or "the agent could not answer"
        return Outcome("failed", f"Sorry, I could not answer: {error}", agent_id, tools, tainted=tainted)
    return Outcome("answer", answer.response, agent_id, tools, tainted=tainted)
