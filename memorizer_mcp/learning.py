"""The tools that ask the utility model: store_conversation (with fact extraction), backfill_extract_facts and
synthesize_facts.

A conversation is always logged, whatever the model does; the answer says whether facts were extracted and,
if not, why (disabled, too short, no model configured, model unreachable, unreadable answer). Extracted facts go
through the same store path as store_fact. Secrets in a logged exchange are redacted before it is stored or
shown to the model.

The hub gives a Memorizer call 60 s, and a local model can take most of that for one answer, so the batch tools
work within a time budget: they stop starting new model calls when it runs out and report what is left.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

from memorizer_mcp import claims, decision_prompt, extraction, synthesis
from memorizer_mcp.decisions import Candidate, Judgement
from memorizer_mcp.llm import NOT_CONFIGURED, CompletionFn, LlmConfig, LlmUnavailable
from memorizer_mcp.params import limit_text, require_text
from memorizer_mcp.provenance import DEFAULT_PROVENANCE, PROVENANCES
from memorizer_mcp.secret_filter import redact
from memorizer_mcp.service import Memory
from shared.contracts.memory import FACT_CATEGORIES
from shared.mcp_tools import ToolFailure

log = logging.getLogger(__name__)

TIME_BUDGET = 50.0
"""Seconds a batch tool may spend before it stops starting model calls (the hub's limit is 60)."""
DECISION_TIMEOUT = 20.0
"""Seconds a store may wait for the model's opinion on a related fact before the rules decide alone."""


class Budget:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.deadline = clock() + seconds

    def left(self) -> float:
        return self.deadline - self.clock()


@dataclass
class ExtractionReport:
    status: str
    """`extracted`, `skipped` or `failed`."""
    reason: str | None = None
    facts_stored: int = 0
    duplicates: int = 0
    rejected_secrets: int = 0
    fact_ids: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.status == "extracted":
            out.update(
                facts_stored=self.facts_stored, duplicates=self.duplicates, rejected_secrets=self.rejected_secrets
            )
        return out


class Learning:
    def __init__(self, memory: Memory, config: LlmConfig | None, completion: CompletionFn) -> None:
        self.memory = memory
        self.config = config
        self.completion = completion

    async def decide_with_model(self, new_fact: str, candidates: list[Candidate]) -> dict[int, Judgement] | None:
        """The utility model's verdicts on related facts the rules could not settle; None when it cannot answer
        (the rules' verdicts then stand, and the store goes on)."""
        config = self._require_model()
        call = replace(config, max_tokens=decision_prompt.MAX_TOKENS, timeout=min(config.timeout, DECISION_TIMEOUT))
        try:
            answer = await self.completion(decision_prompt.build_messages(new_fact, candidates), call)
        except LlmUnavailable as exc:
            log.warning("model decision skipped; rules decide", extra={"reason": str(exc)})
            return None
        verdicts = decision_prompt.read_answer(answer, candidates)
        if verdicts is None:
            log.warning("model decision answer was not the JSON asked for; rules decide")
        return verdicts

    def _require_model(self) -> LlmConfig:
        if self.config is None:
            raise LlmUnavailable(NOT_CONFIGURED)
        return self.config

    async def _extract(
        self,
        agent_id: str,
        conversation_id: str,
        user_message: str,
        agent_response: str,
        time_left: float,
        provenance: str = DEFAULT_PROVENANCE,
    ) -> ExtractionReport:
        """Ask the model for facts in one exchange and store them. Raises LlmUnavailable if it cannot answer."""
        memory = self.memory
        if not extraction.long_enough(user_message, agent_response):
            await memory.offload(memory.conversations.mark_extracted, conversation_id, memory.now())
            return ExtractionReport("skipped", f"exchange shorter than {extraction.MIN_EXCHANGE_CHARS} characters")
        config = self._require_model()
        call = replace(config, timeout=max(1.0, min(config.timeout, time_left)))
        answer = await self.completion(extraction.build_messages(user_message, agent_response), call)
        facts = extraction.parse_answer(answer)
        # Marked even when the answer is unreadable: a backfill must be able to finish, and asking again rarely helps.
        await memory.offload(memory.conversations.mark_extracted, conversation_id, memory.now())
        if facts is None:
            log.warning("extraction answer was not the JSON asked for", extra={"conversation_id": conversation_id})
            return ExtractionReport("failed", "the model's answer was not the JSON asked for")
        report = ExtractionReport("extracted")
        for fact in facts:
            outcome = await memory.store(
                agent_id,
                fact.fact,
                fact.category,
                source=conversation_id,
                source_type="conversation",
                provenance=provenance,
                confidence=fact.confidence,
            )
            if outcome.status == "stored":
                report.facts_stored += 1
                report.fact_ids.append(outcome.fact_id or 0)
            elif outcome.status == "duplicate":
                report.duplicates += 1
            else:
                report.rejected_secrets += 1
        return report

    async def store_conversation(
        self,
        agent_id: str,
        user_message: str,
        agent_response: str,
        session_id: str | None,
        tags: list[str] | None,
        provenance: str = DEFAULT_PROVENANCE,
    ) -> dict[str, Any]:
        memory = self.memory
        user_message = require_text("user_message", user_message)
        agent_response = require_text("agent_response", agent_response)
        limit_text("session_id", session_id)
        for tag in tags or []:
            limit_text("tags", tag)
        user_message, user_secrets = redact(user_message)
        agent_response, agent_secrets = redact(agent_response)
        now = memory.now()
        conversation_id = await memory.offload(
            memory.conversations.insert,
            agent_id,
            user_message,
            agent_response,
            session_id=session_id,
            tags=tags,
            now=now,
        )
        if not memory.settings.fact_extraction_enabled:
            report = ExtractionReport("skipped", "fact extraction is off (FACT_EXTRACTION_ENABLED=false)")
        else:
            try:
                report = await self._extract(
                    agent_id, conversation_id, user_message, agent_response, TIME_BUDGET, provenance
                )
            except LlmUnavailable as exc:
                log.warning("fact extraction skipped", extra={"conversation_id": conversation_id, "reason": str(exc)})
                report = ExtractionReport("skipped", str(exc))
        result: dict[str, Any] = {
            "conversation_id": conversation_id,
            "facts_extracted": report.facts_stored,
            "stored_at": now,
            "extraction": report.as_dict(),
        }
        redacted = sorted(set(user_secrets + agent_secrets))
        if redacted:
            result["redacted"] = redacted
        return result

    async def backfill_extract_facts(self, agent_id: str, batch_size: int) -> dict[str, Any]:
        memory = self.memory
        try:
            self._require_model()
        except LlmUnavailable as exc:
            raise_tool(exc)
        budget = Budget(TIME_BUDGET)
        rows, _ = await memory.offload(memory.conversations.unprocessed, agent_id, batch_size)
        processed = extracted = failed = 0
        stopped = None
        for row in rows:
            if budget.left() < 5:
                stopped = "time budget used up; call again to continue"
                break
            try:
                report = await self._extract(
                    agent_id, row["id"], row["user_message"], row["agent_response"], budget.left()
                )
            except LlmUnavailable as exc:
                if processed == 0:
                    raise_tool(exc)
                stopped = str(exc)
                break
            processed += 1
            extracted += report.facts_stored
            failed += report.status == "failed"
        _, remaining = await memory.offload(memory.conversations.unprocessed, agent_id, 1)
        result: dict[str, Any] = {
            "processed": processed,
            "facts_extracted": extracted,
            "failed": failed,
            "remaining": remaining,
        }
        if stopped:
            result["stopped"] = stopped
        return result

    async def synthesize_facts(self, agent_id: str, category: str | None, max_facts: int) -> dict[str, Any]:
        memory = self.memory
        try:
            config = self._require_model()
        except LlmUnavailable as exc:
            raise_tool(exc)
        budget = Budget(TIME_BUDGET)
        categories = [category] if category else list(FACT_CATEGORIES)
        merges = deletions = updates = 0
        summaries: dict[str, str] = {}
        dropped: dict[str, list[str]] = {}
        remaining: list[str] = []
        for position, name in enumerate(categories):
            if budget.left() < 5:
                remaining = categories[position:]
                break
            # Each provenance class is reviewed apart: the model never sees an untrusted fact beside the owner's,
            # so text from a stranger can neither be merged into the owner's facts nor get them deleted.
            groups = [
                await memory.offload(memory.facts.oldest, agent_id, name, provenance, max_facts)
                for provenance in PROVENANCES
            ]
            groups = [facts for facts in groups if len(facts) >= 2]
            if not groups:
                summaries[name] = "Skipped: fewer than 2 current facts of one provenance"
                continue
            notes: list[str] = []
            for facts in groups:
                call = replace(config, max_tokens=synthesis.MAX_TOKENS, timeout=min(config.timeout, budget.left()))
                try:
                    answer = await self.completion(synthesis.build_messages(name, facts), call)
                except LlmUnavailable as exc:
                    if not summaries and not notes:
                        raise_tool(exc)
                    remaining = categories[position:]
                    notes.append(str(exc))
                    break
                plan = synthesis.plan_actions(answer, {row["id"] for row in facts})
                if plan is None:
                    notes.append("No changes: the model's answer was not the JSON asked for")
                    continue
                texts = {fact_id: (text, claims.keys(claims.parse(text))) for fact_id, text in plan.updates.items()}
                updated, deleted = await memory.offload(
                    memory.facts.apply_plan, agent_id, texts, plan.deletes, plan.merged_into, memory.now()
                )
                memory.index.remove(agent_id, [*updated, *deleted])
                await memory.embed_facts(agent_id, [(fact_id, plan.updates[fact_id]) for fact_id in updated])
                merges += plan.merges
                deletions += len(deleted)
                updates += len(updated)
                notes.append(plan.summary or "Done")
                if plan.dropped:
                    dropped.setdefault(name, []).extend(plan.dropped)
            summaries[name] = " ".join(notes)
            if remaining:
                break
        result: dict[str, Any] = {
            "categories_processed": len(summaries),
            "merges": merges,
            "deletions": deletions,
            "updates": updates,
            "summaries": summaries,
        }
        if dropped:
            result["dropped_actions"] = dropped
        if remaining:
            result["remaining_categories"] = remaining
        return result


def raise_tool(exc: LlmUnavailable) -> NoReturn:
    raise ToolFailure(str(exc)) from None
