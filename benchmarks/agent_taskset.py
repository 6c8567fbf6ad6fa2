"""The tasks of `agent_tasks.py`: what a user asks, what must be true afterwards, and a perfect model's moves.

Each `Task` is one conversation (one chat id): its `turns` are the user's messages as a person would write them,
`setup` puts what the task needs in place (files, mail, events, facts), `check` looks at the END STATE - a file
with the right content, a fact stored, a skill with the right schedule, the right call received by the fake
Google or Brave server, a file operation in the Filer's audit log - never at the wording of a reply. `script`
holds, per turn, the tool calls a perfect model makes (each a name and arguments, or a function of the world for
ids it must look up) before its final words; the scripted "perfect model" of `agent_tasks.py --perfect` plays
them, so a failure there is a broken task, not a weak model.

Dates are relative to the run's clock (`World.now`, UTC; the stack runs with ANNABELLE_TIMEZONE=UTC): "tomorrow"
is checked against tomorrow. Every task writes things no other task writes (its own file names, people, facts),
so tasks can share one stack in any order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import Any, Protocol

from croniter import croniter

from shared.timeutil import parse_timestamp

# -- what checks and set-ups can see -----------------------------------------------------------------------------


class World(Protocol):
    """The running stack as tasks see it (implemented by `agent_tasks.Stack`)."""

    now: datetime
    workspace: Path

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tool through the hub's POST /tools/call (as the owner): the envelope."""
        ...

    def file(self, path: str) -> str | None: ...

    def write_file(self, path: str, content: str) -> None: ...

    def facts(self) -> list[dict[str, Any]]: ...

    def skills(self) -> list[dict[str, Any]]: ...

    def sent_mail(self) -> list[Message]: ...

    def drafts(self) -> list[Message]: ...

    def add_mail(self, sender: str, subject: str, body: str) -> str: ...

    def add_event(self, summary: str, start: datetime, minutes: int = 60) -> str: ...

    def events(self) -> list[dict[str, Any]]: ...

    def google_calls(self) -> list[tuple[str, str, dict[str, list[str]], Any]]:
        """(method, path, query, json body) of this task's Gmail/Calendar API calls."""
        ...

    def searches(self) -> list[tuple[str, str]]:
        """(kind, q) of this task's Brave requests: kind is web, news or images."""
        ...

    def file_operations(self) -> list[dict[str, Any]]:
        """This task's lines of the Filer's audit log."""
        ...

    def tools_used(self) -> list[str]:
        """The tools the model called in this task, as the hub's answers listed them."""
        ...


Check = Callable[[World], str | None]
"""None when the end state is right, else what is wrong (one line)."""
Setup = Callable[[World], None]
Arguments = dict[str, Any] | Callable[[World], dict[str, Any]]


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Arguments = field(default_factory=dict)


@dataclass(frozen=True)
class Task:
    id: str
    category: str
    turns: tuple[str, ...]
    check: Check
    script: tuple[tuple[Call, ...], ...]
    """Per turn, the tool calls of the perfect model, one per model reply, in order, before its final answer."""
    lang: str = "en"
    setup: Setup | None = None


# -- helpers for checks ------------------------------------------------------------------------------------------


def fold(text: str) -> str:
    return text.casefold()


def has_any(text: str, words: Iterable[str]) -> bool:
    folded = fold(text)
    return any(fold(word) in folded for word in words)


def missing_words(text: str, groups: Sequence[Sequence[str]]) -> list[str]:
    """For each group of alternatives, whether one of them is in `text`; the groups none of whose words is."""
    return ["/".join(group) for group in groups if not has_any(text, group)]


def file_with(path: str, *groups: Sequence[str]) -> Check:
    def check(world: World) -> str | None:
        content = world.file(path)
        if content is None:
            return f"no file {path}"
        missing = missing_words(content, groups)
        return f"{path} lacks {', '.join(missing)}" if missing else None

    return check


def no_file(path: str) -> Check:
    def check(world: World) -> str | None:
        return f"{path} still exists" if world.file(path) is not None else None

    return check


def file_operation(operation: str, path_end: str) -> Check:
    def check(world: World) -> str | None:
        for entry in world.file_operations():
            if entry.get("operation") == operation and entry.get("success") and entry["path"].endswith(path_end):
                return None
        return f"no successful {operation} of {path_end} in the Filer's audit log"

    return check


def lines_about(path: str, about: Sequence[str], says: Sequence[str]) -> Check:
    """The file has a line about `about`, and every such line says one of `says`: a changed figure written over the
    old one, however the rest of the file was kept."""

    def check(world: World) -> str | None:
        content = world.file(path)
        if content is None:
            return f"no file {path}"
        lines = [line for line in content.splitlines() if has_any(line, about)]
        if not lines:
            return f"{path} has no line about {'/'.join(about)}"
        stale = [line for line in lines if not has_any(line, says)]
        return f"{path} still says {stale[0].strip()!r}" if stale else None

    return check


def fact_with(*groups: Sequence[str]) -> Check:
    def check(world: World) -> str | None:
        texts = [str(f.get("fact", "")) for f in world.facts()]
        if any(not missing_words(text, groups) for text in texts):
            return None
        return f"no stored fact mentions {' + '.join('/'.join(g) for g in groups)}"

    return check


def no_fact_with(*words: str) -> Check:
    def check(world: World) -> str | None:
        left = [f["fact"] for f in world.facts() if has_any(str(f.get("fact", "")), words)]
        return f"still stored: {left[0]!r}" if left else None

    return check


def no_fact_saying(*groups: Sequence[str], unless: Sequence[str] = ()) -> Check:
    """No stored fact says all of `groups` (a word of each) without a word of `unless`: the old version of a
    corrected fact is gone, while a fact that names the new value beside the old ("with Gerrit, not Henk") is fine."""

    def check(world: World) -> str | None:
        for fact in world.facts():
            text = str(fact.get("fact", ""))
            if not missing_words(text, groups) and not (unless and has_any(text, unless)):
                return f"still stored: {text!r}"
        return None

    return check


def same_cron(schedule: str, expected: str) -> bool:
    """Two cron expressions that fire at the same times (next five from a fixed start)."""
    if not croniter.is_valid(schedule):
        return False
    start = datetime(2026, 1, 1, tzinfo=UTC)
    ours, theirs = croniter(schedule, start), croniter(expected, start)
    return all(ours.get_next(datetime) == theirs.get_next(datetime) for _ in range(5))


def user_skills(world: World) -> list[dict[str, Any]]:
    """Skills the user made: not the hub's seeded playbooks (event skills)."""
    return [s for s in world.skills() if s.get("trigger_type") != "event"]


def skill_text(skill: dict[str, Any]) -> str:
    return " ".join(str(skill.get(key) or "") for key in ("name", "description", "instructions"))


def trigger(skill: dict[str, Any]) -> dict[str, Any]:
    config = skill.get("trigger_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            config = {}
    return config if isinstance(config, dict) else {}


def cron_skill(expected: str, *words: str) -> Check:
    def check(world: World) -> str | None:
        for skill in user_skills(world):
            schedule = str(trigger(skill).get("schedule") or "")
            if has_any(skill_text(skill), words) and same_cron(schedule, expected):
                return None
        found = [
            (s.get("name"), trigger(s).get("schedule")) for s in user_skills(world) if has_any(skill_text(s), words)
        ]
        return f"no skill about {'/'.join(words)} on {expected!r} (found {found})"

    return check


def once_skill(when: Callable[[World], datetime], tolerance: timedelta, *words: str) -> Check:
    def check(world: World) -> str | None:
        target = when(world)
        for skill in user_skills(world):
            at = parse_timestamp(trigger(skill).get("at"))
            if at is not None and has_any(skill_text(skill), words) and abs(at - target) <= tolerance:
                return None
        found = [(s.get("name"), trigger(s).get("at")) for s in user_skills(world) if has_any(skill_text(s), words)]
        return f"no one-off skill about {'/'.join(words)} at {target:%Y-%m-%d %H:%M} (found {found})"

    return check


def no_skill_with(*words: str) -> Check:
    def check(world: World) -> str | None:
        left = [s["name"] for s in user_skills(world) if has_any(skill_text(s), words) and s.get("enabled", True)]
        return f"still scheduled: {left[0]!r}" if left else None

    return check


def cron_skills_together(expected: str, *words: str) -> Check:
    """Skills about `words` that together fire when `expected` does: one skill on "0 6 * * 1,4" or one for Monday
    and one for Thursday alike (the next ten times of each, merged, against the next ten of `expected`)."""

    def check(world: World) -> str | None:
        schedules = [
            str(trigger(s).get("schedule") or "")
            for s in user_skills(world)
            if has_any(skill_text(s), words) and s.get("enabled", True)
        ]
        valid = [schedule for schedule in schedules if croniter.is_valid(schedule)]
        start = datetime(2026, 1, 1, tzinfo=UTC)
        times: set[datetime] = set()
        for schedule in valid:
            runs = croniter(schedule, start)
            times.update(runs.get_next(datetime) for _ in range(10))
        wanted = croniter(expected, start)
        if valid and sorted(times)[:10] == [wanted.get_next(datetime) for _ in range(10)]:
            return None
        return f"no skills about {'/'.join(words)} that fire on {expected!r} together (found {schedules})"

    return check


def skill_paused(*words: str) -> Check:
    """A skill about `words` is kept but switched off, and none about them is on: paused, not deleted."""

    def check(world: World) -> str | None:
        about = [s for s in user_skills(world) if has_any(skill_text(s), words)]
        if not about:
            return f"no skill about {'/'.join(words)} is left"
        on = [s["name"] for s in about if s.get("enabled", True)]
        return f"still enabled: {on[0]!r}" if on else None

    return check


def mail_text(message: Message) -> str:
    body = message.get_body(preferencelist=("plain", "html")) if hasattr(message, "get_body") else None
    content = body.get_content() if body is not None else ""
    return f"{message['Subject'] or ''} {content}"


def mail_to(address: str, *groups: Sequence[str], drafts: bool = False) -> Check:
    def check(world: World) -> str | None:
        box = world.drafts() if drafts else world.sent_mail()
        to_them = [m for m in box if fold(address) in fold(str(m["To"] or ""))]
        if not to_them:
            return f"no {'draft' if drafts else 'mail sent'} to {address}"
        if any(not missing_words(mail_text(m), groups) for m in to_them):
            return None
        return f"the mail to {address} lacks {', '.join(missing_words(mail_text(to_them[-1]), groups))}"

    return check


def google_call(
    method: str, path_part: str, predicate: Callable[[dict[str, list[str]], Any], bool] | None = None
) -> Check:
    def check(world: World) -> str | None:
        for called_method, path, query, body in world.google_calls():
            if called_method == method and path_part in path and (predicate is None or predicate(query, body)):
                return None
        return f"the fake Google got no {method} {path_part} call of the right kind"

    return check


def searched(kinds: Sequence[str], *groups: Sequence[str]) -> Check:
    def check(world: World) -> str | None:
        queries = world.searches()
        if any(kind in kinds and not missing_words(q, groups) for kind, q in queries):
            return None
        return f"no {'/'.join(kinds)} search for {' + '.join('/'.join(g) for g in groups)} (got {queries})"

    return check


def used_tool(*names: str) -> Check:
    def check(world: World) -> str | None:
        used = world.tools_used()
        return None if any(name in used for name in names) else f"none of {', '.join(names)} was called ({used})"

    return check


def all_of(*checks: Check) -> Check:
    def check(world: World) -> str | None:
        for one in checks:
            problem = one(world)
            if problem:
                return problem
        return None

    return check


def any_of(*checks: Check) -> Check:
    """One of several end states is right (a weekday that may be today or a week on); else the first's problem."""

    def check(world: World) -> str | None:
        problems = [one(world) for one in checks]
        return None if None in problems else problems[0]

    return check


def not_(check: Check, problem: str) -> Check:
    """The opposite of `check`: what must no longer be true (a line removed, an old reminder or fact replaced)."""

    def negated(world: World) -> str | None:
        return problem if check(world) is None else None

    return negated


def fact_gone(text: str) -> Check:
    """The fact stored with exactly this text is no longer current: deleted, corrected or superseded alike."""

    def check(world: World) -> str | None:
        left = [f for f in world.facts() if fold(str(f.get("fact", ""))) == fold(text)]
        return f"still stored: {text!r}" if left else None

    return check


# -- dates -------------------------------------------------------------------------------------------------------


def day(world: World, offset: int) -> datetime:
    return (world.now + timedelta(days=offset)).replace(hour=0, minute=0, second=0, microsecond=0)


def next_weekday(world: World, weekday: int) -> datetime:
    """The next such day after today (Monday = 0)."""
    ahead = (weekday - world.now.weekday() - 1) % 7 + 1
    return day(world, ahead)


def on_weekday(weekday: int, hour: int, minute: int = 0) -> tuple[Callable[[World], datetime], ...]:
    """The times "on <weekday> at h:m" may mean: the next such day, and today as well when today is that day."""

    def next_one(world: World) -> datetime:
        return next_weekday(world, weekday) + timedelta(hours=hour, minutes=minute)

    def today_or_next(world: World) -> datetime:
        if world.now.weekday() != weekday:
            return next_one(world)
        return day(world, 0) + timedelta(hours=hour, minutes=minute)

    return (next_one, today_or_next)


def event_at(summary_words: Sequence[str], when: Callable[[World], datetime]) -> Check:
    """A created event whose title has one of the words, starting at `when` (wall time as written), or a quick-add
    text naming it (the real Google parses that text; the fake cannot)."""

    def check(world: World) -> str | None:
        target = when(world)
        for method, path, query, body in world.google_calls():
            if method != "POST" or "/calendar/v3/calendars/" not in path:
                continue
            if path.endswith("/quickAdd"):
                text = " ".join(query.get("text", []))
                if has_any(text, summary_words):
                    return None
                continue
            if not isinstance(body, dict) or not has_any(str(body.get("summary", "")), summary_words):
                continue
            start = str((body.get("start") or {}).get("dateTime") or "")
            if start[:16] == target.strftime("%Y-%m-%dT%H:%M"):
                return None
            return f"the event starts at {start!r}, not {target:%Y-%m-%dT%H:%M}"
        return f"no event about {'/'.join(summary_words)} was created"

    return check


def event_moved(summary_words: Sequence[str], when: Callable[[World], datetime]) -> Check:
    def check(world: World) -> str | None:
        target = when(world)
        for event in world.events():
            if has_any(str(event.get("summary", "")), summary_words):
                start = str((event.get("start") or {}).get("dateTime") or "")
                if start[:16] == target.strftime("%Y-%m-%dT%H:%M"):
                    return None
                return f"the event starts at {start!r}, not {target:%Y-%m-%dT%H:%M}"
        return f"no event about {'/'.join(summary_words)}"

    return check


def no_event(*words: str) -> Check:
    def check(world: World) -> str | None:
        left = [e["summary"] for e in world.events() if has_any(str(e.get("summary", "")), words)]
        return f"the event {left[0]!r} is still there" if left else None

    return check


def listed_events_on(offset: int) -> Check:
    """A list-events call whose range covers that day (its timeMin on or before the day's end)."""

    def predicate_for(world: World) -> Callable[[dict[str, list[str]], Any], bool]:
        start, end = day(world, offset), day(world, offset + 1)

        def predicate(query: dict[str, list[str]], _: Any) -> bool:
            low = parse_timestamp((query.get("timeMin") or [""])[0])
            high = parse_timestamp((query.get("timeMax") or [""])[0])
            return (low is None or low < end) and (high is None or high > start)

        return predicate

    def check(world: World) -> str | None:
        return google_call("GET", "/events", predicate_for(world))(world)

    return check


def mail_query(*words: str) -> Check:
    def predicate(query: dict[str, list[str]], _: Any) -> bool:
        return has_any(" ".join(query.get("q", [])), words)

    return google_call("GET", "/gmail/v1/users/me/messages", predicate)


# -- perfect-model arguments that look things up ------------------------------------------------------------------


def fact_id(*words: str) -> Callable[[World], int]:
    def find(world: World) -> int:
        return next(int(f["id"]) for f in world.facts() if has_any(str(f.get("fact", "")), words))

    return find


def skill_id(*words: str) -> Callable[[World], int]:
    def find(world: World) -> int:
        return next(int(s["id"]) for s in user_skills(world) if has_any(skill_text(s), words))

    return find


def event_id(*words: str) -> Callable[[World], str]:
    def find(world: World) -> str:
        return next(str(e["id"]) for e in world.events() if has_any(str(e.get("summary", "")), words))

    return find


def at(world: World, offset_days: int, hour: int, minute: int = 0) -> str:
    return (day(world, offset_days) + timedelta(hours=hour, minutes=minute)).strftime("%Y-%m-%dT%H:%M:%S")


def weekday_at(world: World, weekday: int, hour: int) -> str:
    return (next_weekday(world, weekday) + timedelta(hours=hour)).strftime("%Y-%m-%dT%H:%M:%S")


# -- set-ups -----------------------------------------------------------------------------------------------------


def seed_files(pairs: dict[str, str]) -> Setup:
    def setup(world: World) -> None:
        for path, content in pairs.items():
            world.write_file(path, content)

    return setup


def seed_facts(*facts: tuple[str, str]) -> Setup:
    def setup(world: World) -> None:
        for fact, category in facts:
            world.call("memory_store_fact", {"fact": fact, "category": category})

    return setup


def seed_skill(name: str, schedule: str, instructions: str) -> Setup:
    def setup(world: World) -> None:
        arguments = {
            "name": name,
            "trigger_type": "cron",
            "trigger_config": {"schedule": schedule},
            "instructions": instructions,
        }
        envelope = world.call("memory_store_skill", arguments)
        if not envelope.get("success"):
            raise RuntimeError(f"seeding the skill {name!r} failed: {envelope.get('error')}")

    return setup


def seed_mail(*mails: tuple[str, str, str]) -> Setup:
    def setup(world: World) -> None:
        for sender, subject, body in mails:
            world.add_mail(sender, subject, body)

    return setup


def seed_events(*events: tuple[str, int, int]) -> Setup:
    """(summary, days from today, hour)."""

    def setup(world: World) -> None:
        for summary, offset, hour in events:
            world.add_event(summary, day(world, offset) + timedelta(hours=hour))

    return setup


# -- the tasks ---------------------------------------------------------------------------------------------------


def tool_call(name: str, arguments: Arguments | None = None) -> Call:
    """One call of a task's script."""
    return Call(name, arguments or {})


def reminder_call(name: str, config: dict[str, Any], instructions: str) -> Call:
    """A script's `memory_store_skill` call for a timed reminder."""
    arguments = {"name": name, "trigger_type": "cron", "trigger_config": config, "instructions": instructions}
    return tool_call("memory_store_skill", arguments)


TASKS: tuple[Task, ...] = (
    # files ---------------------------------------------------------------------------------------------------------
    Task(
        "files-create",
        "files",
        ("Create a file called groceries.txt with milk, eggs and bread",),
        file_with("groceries.txt", ["milk"], ["eggs"], ["bread"]),
        ((tool_call("filer_create_file", {"path": "groceries.txt", "content": "milk\neggs\nbread\n"}),),),
    ),
    Task(
        "files-read",
        "files",
        ("What does my todo.txt say?",),
        file_operation("read_file", "todo.txt"),
        ((tool_call("filer_read_file", {"path": "todo.txt"}),),),
        setup=seed_files({"todo.txt": "1. renew passport\n2. book the car service\n"}),
    ),
    Task(
        "files-list",
        "files",
        ("Which files are in my projects folder?",),
        file_operation("list_files", "projects"),
        ((tool_call("filer_list_files", {"path": "projects"}),),),
        setup=seed_files({"projects/garden-plan.md": "# Garden\n", "projects/budget-2027.csv": "item,cost\n"}),
    ),
    Task(
        "files-note",
        "files",
        ("Jot this down in a note called parking.md: car is on level 3, spot B12",),
        file_with("parking.md", ["level 3"], ["B12"]),
        ((tool_call("filer_create_file", {"path": "parking.md", "content": "Car is on level 3, spot B12.\n"}),),),
    ),
    Task(
        "files-delete",
        "files",
        ("Delete old-draft.txt from my workspace, I don't need it anymore",),
        no_file("old-draft.txt"),
        ((tool_call("filer_delete_file", {"path": "old-draft.txt"}),),),
        setup=seed_files({"old-draft.txt": "an old draft\n"}),
    ),
    Task(
        "files-create-pt",
        "files",
        ("Cria um ficheiro ideias.txt com a frase: viajar para o Japão em abril",),
        file_with("ideias.txt", ["Japão", "Japao", "Japan"]),
        ((tool_call("filer_create_file", {"path": "ideias.txt", "content": "Viajar para o Japão em abril.\n"}),),),
        lang="pt",
    ),
    # memory --------------------------------------------------------------------------------------------------------
    Task(
        "memory-sister",
        "memory",
        ("Remember that my sister Ana's birthday is on March 3rd",),
        fact_with(["Ana"], ["March", "3"]),
        ((tool_call("store_fact", {"fact": "Sister Ana's birthday is on March 3rd", "category": "contact"}),),),
    ),
    Task(
        "memory-preference",
        "memory",
        ("Please keep in mind that I'm vegetarian",),
        fact_with(["vegetarian"]),
        ((tool_call("store_fact", {"fact": "Is vegetarian", "category": "preference"}),),),
    ),
    Task(
        "memory-work",
        "memory",
        ("Note that I started a new job at Contoso as a data engineer",),
        fact_with(["Contoso"]),
        ((tool_call("store_fact", {"fact": "Works at Contoso as a data engineer", "category": "background"}),),),
    ),
    Task(
        "memory-forget",
        "memory",
        ("Forget that I like sushi, that's not true anymore",),
        no_fact_with("sushi"),
        (
            (
                tool_call("memory_list_facts"),
                tool_call("memory_delete_fact", lambda w: {"fact_id": fact_id("sushi")(w)}),
            ),
        ),
        setup=seed_facts(("Likes sushi", "preference")),
    ),
    Task(
        "memory-ru",
        "memory",
        ("Запомни, что мой любимый цвет — синий",),
        fact_with(["синий", "blue"]),
        ((tool_call("store_fact", {"fact": "Любимый цвет — синий", "category": "preference"}),),),
        lang="ru",
    ),
    # reminders and skills --------------------------------------------------------------------------------------------
    Task(
        "skills-weekly",
        "skills",
        ("Remind me every Monday at 9 to send the weekly report",),
        cron_skill("0 9 * * 1", "report"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Weekly report reminder",
                        "trigger_type": "cron",
                        "trigger_config": {"schedule": "0 9 * * 1"},
                        "instructions": "Remind the user to send the weekly report.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "skills-daily",
        "skills",
        ("Every day at 7:30 in the morning remind me to take my vitamins",),
        cron_skill("30 7 * * *", "vitamin"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Vitamins",
                        "trigger_type": "cron",
                        "trigger_config": {"schedule": "30 7 * * *"},
                        "instructions": "Remind the user to take their vitamins.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "skills-in-hours",
        "skills",
        ("Remind me in 3 hours to call the plumber",),
        once_skill(lambda w: w.now + timedelta(hours=3), timedelta(minutes=15), "plumber"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Call the plumber",
                        "trigger_type": "cron",
                        "trigger_config": {"in_minutes": 180},
                        "instructions": "Remind the user to call the plumber.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "skills-tomorrow",
        "skills",
        ("Remind me tomorrow at 8am to water the plants",),
        once_skill(lambda w: day(w, 1) + timedelta(hours=8), timedelta(minutes=5), "plant"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    lambda w: {
                        "name": "Water the plants",
                        "trigger_type": "cron",
                        "trigger_config": {"at": at(w, 1, 8)},
                        "instructions": "Remind the user to water the plants.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "skills-list",
        "skills",
        ("What reminders do I have set up?",),
        used_tool("memory_list_skills"),
        ((tool_call("memory_list_skills"),),),
        setup=seed_skill("Gym reminder", "0 18 * * 2", "Remind the user to go to the gym."),
    ),
    Task(
        "skills-cancel",
        "skills",
        ("Cancel my reminder about the dentist floss",),
        no_skill_with("floss"),
        (
            (
                tool_call("memory_list_skills"),
                tool_call("memory_delete_skill", lambda w: {"skill_id": skill_id("floss")(w)}),
            ),
        ),
        setup=seed_skill("Dentist floss", "0 22 * * *", "Remind the user to floss (the dentist said so)."),
    ),
    Task(
        "skills-de",
        "skills",
        ("Erinnere mich jeden Freitag um 17 Uhr daran, die Blumen zu gießen",),
        cron_skill("0 17 * * 5", "Blumen", "flower", "gieß", "water"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Blumen gießen",
                        "trigger_type": "cron",
                        "trigger_config": {"schedule": "0 17 * * 5"},
                        "instructions": "Erinnere den Nutzer daran, die Blumen zu gießen.",
                    },
                ),
            ),
        ),
        lang="de",
    ),
    Task(
        "skills-it",
        "skills",
        ("Ricordami tra 2 ore di chiamare Marco",),
        once_skill(lambda w: w.now + timedelta(hours=2), timedelta(minutes=15), "Marco"),
        (
            (
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Chiamare Marco",
                        "trigger_type": "cron",
                        "trigger_config": {"in_minutes": 120},
                        "instructions": "Ricorda all'utente di chiamare Marco.",
                    },
                ),
            ),
        ),
        lang="it",
    ),
    # email -----------------------------------------------------------------------------------------------------------
    Task(
        "email-send",
        "email",
        ("Send an email to ann@example.com saying that I'll be 10 minutes late for our lunch",),
        mail_to("ann@example.com", ["late"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "ann@example.com",
                        "subject": "Running late",
                        "body": "Hi Ann, I'll be 10 minutes late for our lunch.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "email-unread",
        "email",
        ("Do I have any new emails?",),
        google_call("GET", "/gmail/v1/users/me/messages"),
        ((tool_call("gmail_list_emails", {"query": "is:unread"}),),),
        setup=seed_mail(("news@shop.example", "Your order shipped", "It is on its way.")),
    ),
    Task(
        "email-from",
        "email",
        ("Find the emails from bob@example.com",),
        mail_query("bob"),
        ((tool_call("gmail_list_emails", {"query": "from:bob@example.com"}),),),
        setup=seed_mail(("bob@example.com", "Quarterly numbers", "See the attached figures.")),
    ),
    Task(
        "email-draft",
        "email",
        ("Write a draft email to carla@example.com asking if the contract is ready, don't send it yet",),
        mail_to("carla@example.com", ["contract"], drafts=True),
        (
            (
                tool_call(
                    "gmail_create_draft",
                    {"to": "carla@example.com", "subject": "Contract", "body": "Hi Carla, is the contract ready?"},
                ),
            ),
        ),
    ),
    Task(
        "email-fr",
        "email",
        ("Envoie un e-mail à paul@example.com pour lui dire que la réunion de jeudi est annulée",),
        mail_to("paul@example.com", ["annul", "cancel"]),
        (
            (
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "paul@example.com",
                        "subject": "Réunion de jeudi",
                        "body": "Bonjour Paul, la réunion de jeudi est annulée.",
                    },
                ),
            ),
        ),
        lang="fr",
    ),
    # calendar --------------------------------------------------------------------------------------------------------
    Task(
        "calendar-create",
        "calendar",
        ("Add a dentist appointment on Friday at 3pm to my calendar",),
        event_at(["dentist"], lambda w: next_weekday(w, 4) + timedelta(hours=15)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Dentist appointment",
                        "start_date_time": weekday_at(w, 4, 15),
                        "end_date_time": weekday_at(w, 4, 16),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
    ),
    Task(
        "calendar-tomorrow",
        "calendar",
        ("What's on my calendar tomorrow?",),
        listed_events_on(1),
        ((tool_call("gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}),),),
        setup=seed_events(("Team standup", 1, 9)),
    ),
    Task(
        "calendar-cancel",
        "calendar",
        ("Cancel the yoga class on my calendar the day after tomorrow",),
        no_event("yoga"),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 2, 0) + "Z", "time_max": at(w, 3, 0) + "Z"}
                ),
                tool_call("gmail_delete_event", lambda w: {"event_id": event_id("yoga")(w)}),
            ),
        ),
        setup=seed_events(("Yoga class", 2, 18)),
    ),
    Task(
        "calendar-es",
        "calendar",
        ("Pon en mi calendario una cena con Laura el sábado a las 20:00",),
        event_at(["Laura"], lambda w: next_weekday(w, 5) + timedelta(hours=20)),
        (
            (
                tool_call(
                    "gmail_create_event",
                    lambda w: {
                        "summary": "Cena con Laura",
                        "start_date_time": weekday_at(w, 5, 20),
                        "end_date_time": weekday_at(w, 5, 22),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        lang="es",
    ),
    Task(
        "calendar-de-list",
        "calendar",
        ("Was steht morgen in meinem Kalender?",),
        listed_events_on(1),
        ((tool_call("gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}),),),
        lang="de",
    ),
    # web search ------------------------------------------------------------------------------------------------------
    Task(
        "search-weather",
        "search",
        ("What's the weather like in Lisbon today?",),
        searched(("web", "news"), ["Lisbon", "Lisboa"]),
        ((tool_call("searcher_web_search", {"query": "weather Lisbon today"}),),),
    ),
    Task(
        "search-news",
        "search",
        ("Any news about the Artemis moon mission?",),
        searched(("news", "web"), ["Artemis"]),
        ((tool_call("searcher_news_search", {"query": "Artemis moon mission"}),),),
    ),
    Task(
        "search-fact",
        "search",
        ("Look up who won the 2026 Tour de France",),
        searched(("web", "news"), ["Tour de France"]),
        ((tool_call("searcher_web_search", {"query": "2026 Tour de France winner"}),),),
    ),
    Task(
        "search-es",
        "search",
        ("Busca noticias sobre el Real Madrid",),
        searched(("news", "web"), ["Madrid"]),
        ((tool_call("searcher_news_search", {"query": "Real Madrid"}),),),
        lang="es",
    ),
    Task(
        "search-pt",
        "search",
        ("Pesquisa na internet o horário do museu Gulbenkian",),
        searched(("web", "news"), ["Gulbenkian"]),
        ((tool_call("searcher_web_search", {"query": "horário museu Gulbenkian"}),),),
        lang="pt",
    ),
    # multi-step ------------------------------------------------------------------------------------------------------
    Task(
        "multi-search-save",
        "multistep",
        ("Search the web for the opening hours of the Louvre and save what you find in louvre.txt",),
        all_of(searched(("web", "news"), ["Louvre"]), file_with("louvre.txt", ["Louvre"])),
        (
            (
                tool_call("searcher_web_search", {"query": "Louvre opening hours"}),
                tool_call(
                    "filer_create_file", {"path": "louvre.txt", "content": "Louvre opening hours: see louvre.fr."}
                ),
            ),
        ),
    ),
    Task(
        "multi-read-email",
        "multistep",
        ("Read meeting-notes.txt and email a short summary of it to kim@example.com",),
        all_of(file_operation("read_file", "meeting-notes.txt"), mail_to("kim@example.com", ["budget", "launch"])),
        (
            (
                tool_call("filer_read_file", {"path": "meeting-notes.txt"}),
                tool_call(
                    "gmail_send_email",
                    {
                        "to": "kim@example.com",
                        "subject": "Meeting summary",
                        "body": "We agreed the budget and moved the launch to May.",
                    },
                ),
            ),
        ),
        setup=seed_files(
            {"meeting-notes.txt": "Budget approved at 40k.\nLaunch moved to May.\nNext review in June.\n"}
        ),
    ),
    Task(
        "multi-calendar-file",
        "multistep",
        ("Check my calendar for tomorrow and write the events into agenda.md",),
        all_of(listed_events_on(1), file_with("agenda.md", ["Board meeting", "board"])),
        (
            (
                tool_call(
                    "gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}
                ),
                tool_call("filer_create_file", {"path": "agenda.md", "content": "# Tomorrow\n- 10:00 Board meeting\n"}),
            ),
        ),
        setup=seed_events(("Board meeting", 1, 10)),
    ),
    Task(
        "multi-fact-remind",
        "multistep",
        ("My mother's birthday is on June 12, remember it and remind me every year on June 11 at 10am to buy a gift",),
        all_of(fact_with(["June", "12"]), cron_skill("0 10 11 6 *", "gift", "birthday")),
        (
            (
                tool_call("store_fact", {"fact": "Mother's birthday is on June 12", "category": "contact"}),
                tool_call(
                    "memory_store_skill",
                    {
                        "name": "Mother's birthday gift",
                        "trigger_type": "cron",
                        "trigger_config": {"schedule": "0 10 11 6 *"},
                        "instructions": "Remind the user to buy a birthday gift for their mother.",
                    },
                ),
            ),
        ),
    ),
    Task(
        "multi-ru",
        "multistep",
        ("Найди в интернете рецепт борща и сохрани его в файл borsch.txt",),
        all_of(searched(("web", "news"), ["борщ", "borsch", "borscht"]), file_with("borsch.txt", ["борщ", "borsch"])),
        (
            (
                tool_call("searcher_web_search", {"query": "рецепт борща"}),
                tool_call(
                    "filer_create_file", {"path": "borsch.txt", "content": "Рецепт борща: свёкла, капуста, картофель."}
                ),
            ),
        ),
        lang="ru",
    ),
    # follow-ups in one conversation ----------------------------------------------------------------------------------
    Task(
        "follow-file",
        "followup",
        ("Create shopping.txt with apples", "Add bananas to it too"),
        file_with("shopping.txt", ["apple"], ["banana"]),
        (
            (tool_call("filer_create_file", {"path": "shopping.txt", "content": "apples\n"}),),
            (tool_call("filer_update_file", {"path": "shopping.txt", "content": "apples\nbananas\n"}),),
        ),
    ),
    Task(
        "follow-search",
        "followup",
        ("Search for good ramen places in Porto", "And in Lisbon?"),
        all_of(searched(("web",), ["Porto"]), searched(("web", "news"), ["Lisbon", "Lisboa"])),
        (
            (tool_call("searcher_web_search", {"query": "best ramen Porto"}),),
            (tool_call("searcher_web_search", {"query": "best ramen Lisbon"}),),
        ),
    ),
    Task(
        "follow-event",
        "followup",
        ("What do I have on my calendar tomorrow?", "Move the design review to 4pm"),
        event_moved(["design review"], lambda w: day(w, 1) + timedelta(hours=16)),
        (
            (tool_call("gmail_list_events", lambda w: {"time_min": at(w, 1, 0) + "Z", "time_max": at(w, 2, 0) + "Z"}),),
            (
                tool_call(
                    "gmail_update_event",
                    lambda w: {
                        "event_id": event_id("design review")(w),
                        "start_date_time": at(w, 1, 16),
                        "end_date_time": at(w, 1, 17),
                        "time_zone": "UTC",
                    },
                ),
            ),
        ),
        setup=seed_events(("Design review", 1, 14)),
    ),
    Task(
        "follow-fact",
        "followup",
        ("Remember that I'm allergic to peanuts", "Also to shellfish"),
        all_of(fact_with(["peanut"]), fact_with(["shellfish"])),
        (
            (tool_call("store_fact", {"fact": "Allergic to peanuts", "category": "background"}),),
            (tool_call("store_fact", {"fact": "Allergic to shellfish", "category": "background"}),),
        ),
    ),
    Task(
        "follow-mail",
        "followup",
        ("I need to tell dan@example.com that the report is done", "Yes, send it to him by email now"),
        mail_to("dan@example.com", ["report"]),
        (
            (),
            (
                tool_call(
                    "gmail_send_email",
                    {"to": "dan@example.com", "subject": "Report", "body": "Hi Dan, the report is done."},
                ),
            ),
        ),
    ),
    Task(
        "follow-de",
        "followup",
        ("Erstelle eine Datei packliste.txt mit Zahnbürste", "Füge noch Ladekabel hinzu"),
        file_with("packliste.txt", ["Zahnbürste", "toothbrush"], ["Ladekabel", "charger"]),
        (
            (tool_call("filer_create_file", {"path": "packliste.txt", "content": "Zahnbürste\n"}),),
            (tool_call("filer_update_file", {"path": "packliste.txt", "content": "Zahnbürste\nLadekabel\n"}),),
        ),
        lang="de",
    ),
)

CATEGORIES = ("files", "memory", "skills", "email", "calendar", "search", "multistep", "followup")


def task_by_id(task_id: str) -> Task:
    return next(task for task in TASKS if task.id == task_id)


__all__ = ["CATEGORIES", "TASKS", "Call", "Task", "World", "task_by_id"]
