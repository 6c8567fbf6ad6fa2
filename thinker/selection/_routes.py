"""Keyword routes: phrases in a message that point at a group of tools. Pure, no I/O.

A *group* is defined by a pattern over tool names, not by a list, so it covers whatever MCP provides the
function (`gmail_*` or `outlook_*` mail tools alike) and tools added later. A *route* is a regular expression
over the message with the groups it points at and a strength: explicit nouns ("calendar", "inbox") are strong,
hints ("every morning", a question mark) weak. Every MCP also gets an automatic route from its manifest's
keywords, pointing at all of its tools.

Unlike the original, a route does not pull its whole group into the selection: it raises the group's scores,
and the ranking then keeps the group's tools that the message's words and meaning favour.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from thinker.selection._types import McpInfo

TOOL_GROUPS: Mapping[str, str] = {
    "web_search": r".*web_search",
    "news": r".*news.*",
    "images": r".*(image|photo|picture).*",
    "video": r".*video.*",
    "local": r".*(local|place|map).*",
    "fetch": r".*(web_fetch|fetch_url|read_url|scrape).*",
    "email": (
        r"(gmail|outlook|mail)_(?!.*(event|calendar|free_|contact)).*"
        r"|.*_(e?mail|emails|draft|drafts|label|labels|attachment|attachments|filter|filters)(_.*)?"
    ),
    "calendar": r".*(event|calendar|free_time|free_slot|meeting).*",
    "contacts": r".*contact.*",
    "memory": r"memory_.*|.*(fact|memor).*",
    "files": r"filer_.*|.*_(file|files|directory|folder)(_.*)?",
    "telegram": r"telegram_.*",
    "passwords": r"onepassword_.*|.*(password|secret|otp|vault).*",
    "browser": r"(web_)?browser_.*",
    "code": r"codexec_.*|.*(execute_code|run_code|run_script|run_shell|shell).*",
    "reminders": r".*(remind|alarm|recurring|cron|job|skill|todo|task).*",
    "system": r"get_status|system_health_check|get_tool_catalog",
    "subagents": r".*subagent.*",
}
"""Group → full-match pattern over tool names (case-insensitive)."""


@dataclass(frozen=True)
class Route:
    pattern: re.Pattern[str]
    groups: tuple[str, ...]
    weight: float


def _route(pattern: str, groups: tuple[str, ...], weight: float, *, case_sensitive: bool = False) -> Route:
    return Route(re.compile(pattern, 0 if case_sensitive else re.IGNORECASE), groups, weight)


_DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_MONTHS_AND_DAYS = (
    "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July"
    "|August|September|October|November|December|Gmail|Telegram|I"
)

BUILTIN_ROUTES: tuple[Route, ...] = (
    _route(r"\b(e-?mails?|gmail|inbox|mailbox|mail)\b", ("email",), 1.0),
    _route(
        r"\b(calendar|meetings?|appointments?|events?|agenda|invites?|invitations?|rsvp|availability"
        r"|free slots?|free time|busy)\b",
        ("calendar",),
        1.0,
    ),
    _route(r"\b(remind(er|ers)?|alarms?|to-?dos?|wake me|timer)\b", ("reminders",), 1.0),
    _route(
        rf"\b(every (day|morning|afternoon|evening|night|week|month|hour|{_DAYS})|daily|weekly|hourly|monthly"
        r"|recurring|cron)\b",
        ("reminders",),
        0.7,
    ),
    _route(r"\b(telegram|tg)\b", ("telegram",), 1.0),
    _route(r"\b(chats?|group chat|dm|channel)\b", ("telegram",), 0.5),
    _route(r"\b(files?|folders?|director(y|ies)|documents?|pdfs?|docx|spreadsheets?|csv|workspace)\b", ("files",), 0.8),
    # A path or a file name with an extension is about files whatever the words around it.
    _route(
        r"(^|\s)(~|\.{0,2})/[\w.-]+/|\b[\w-]+\.(txt|md|pdf|docx?|xlsx?|csv|json|pptx?|png|jpe?g)\b", ("files",), 0.8
    ),
    _route(
        r"\b(passwords?|passcodes?|credentials?|logins?|1password|vaults?|2fa|otp|one-time code|totp|pin)\b",
        ("passwords",),
        1.0,
    ),
    _route(
        r"\b(remember|memorize|don't forget that|note that|keep in mind|what do you know|about me|forget"
        r"|my (favou?rite|preferences?))\b",
        ("memory",),
        1.0,
    ),
    _route(r"\b(contacts?|phone numbers?|email address(es)?|address book)\b", ("contacts",), 0.8),
    # Mailing someone by name needs their address first: a mail verb, then a capitalised name ("email Tom",
    # "send a mail to Anna"). Case-sensitive on the name; a message that gives an address (an @) needs no lookup.
    _route(
        r"^(?!.*@)(?=.*\b(?i:e-?mail|mail|invite)\b).*\b(?i:to|with|email|mail|invite|cc)\s+"
        rf"(?!(?:{_MONTHS_AND_DAYS})\b)[A-Z][a-z]+\b",
        ("contacts",),
        0.8,
        case_sensitive=True,
    ),
    _route(r"\b(news|headlines?|articles?)\b", ("news",), 1.0),
    _route(r"\b(photos?|pictures?|images?|pics?|wallpapers?|gifs?|illustrations?)\b", ("images",), 1.0),
    _route(r"\b(videos?|youtube|clips?|trailers?|tutorials?)\b", ("video",), 1.0),
    _route(
        r"\b(near me|nearby|nearest|closest|around here|restaurants?|cafes?|coffee shops?|pharmac(y|ies)|hotels?"
        r"|shops?|stores?|bars?|gyms?|dentists?|doctors?|hospitals?|supermarkets?|open now)\b",
        ("local",),
        0.8,
    ),
    _route(r"https?://|www\.|\b\w+\.(com|org|net|io|dev|ai|co|de|uk)\b", ("fetch", "browser"), 0.8),
    _route(r"\b(websites?|web ?pages?|page|site|url|link|article)\b", ("fetch",), 0.5),
    _route(
        r"\b(browse|browser|log ?in|sign ?in|fill (in|out)|form|click|button|navigate|screenshot|scrape|checkout"
        r"|tabs?)\b",
        ("browser",),
        0.8,
    ),
    _route(
        r"\b(code|script|python|program|calculate|compute|plot|chart|graph|regex|equation|statistics|average"
        r"|sum of|convert|qr code|shell|terminal|command line|pip install|execute)\b",
        ("code",),
        0.8,
    ),
    _route(r"\b(search|look ?up|google|find out|research|web|internet|online)\b", ("web_search",), 0.6),
    _route(
        r"\b(weather|forecast|temperature|rain|snow|sunny|stocks?|share price|market|exchange rate|currency"
        r"|bitcoin|crypto|price of|how much (is|does|do)|scores?|who won|results?|election|population|capital of"
        r"|distance|flights?|traffic|recipes?|definition|meaning of|translate|translation|lyrics|movies?"
        r"|showtimes?|reviews?|ratings?|opening hours|open until|how to|wiki|latest|current|trending)\b",
        ("web_search",),
        0.7,
    ),
    # A plain question with nothing more specific is most often a question about the world.
    _route(r"^\s*(what|who|when|where|why|how|which|is|are|does|do|can|did)\b.*\?\s*$", ("web_search",), 0.3),
    _route(r"\b(status|health|diagnos\w*|mcps?)\b", ("system",), 0.8),
    _route(r"\b(sub-?agents?|delegate|spawn|in parallel)\b", ("subagents",), 0.8),
)
"""The built-in routes: general phrasing for a personal assistant's domains, in the spirit of the original's."""

AUTO_ROUTE_WEIGHT = 0.8


def mcp_group(mcp: str) -> str:
    return f"mcp:{mcp}"


def auto_routes(mcps: Iterable[McpInfo]) -> list[Route]:
    """One route per MCP with keywords: any keyword (as a whole word, plural allowed) points at all its tools.

    The original joined keywords without word boundaries, so "mail" fired inside "gmail" and "fact" inside
    "factory"; here they must stand as words.
    """
    routes = []
    for mcp in mcps:
        keywords = sorted({k.strip() for k in mcp.keywords if k.strip()}, key=len, reverse=True)
        if not keywords:
            continue
        alternatives = "|".join(re.escape(k) for k in keywords)
        pattern = rf"(?<!\w)(?:{alternatives})(?:s|es)?(?!\w)"
        routes.append(_route(pattern, (mcp_group(mcp.name),), AUTO_ROUTE_WEIGHT))
    return routes


def group_members(names: Sequence[str], mcp_of: Sequence[str | None]) -> dict[str, np.ndarray]:
    """Group → indices of the tools in it: the built-in groups by name pattern, plus one group per MCP."""
    members: dict[str, list[int]] = {}
    for group, pattern in TOOL_GROUPS.items():
        compiled = re.compile(pattern, re.IGNORECASE)
        members[group] = [i for i, name in enumerate(names) if compiled.fullmatch(name)]
    for index, mcp in enumerate(mcp_of):
        if mcp:
            members.setdefault(mcp_group(mcp), []).append(index)
    return {group: np.array(indices, dtype=np.intp) for group, indices in members.items()}


_QUESTION = re.compile(
    r"^\s*(what|what's|whats|who|who's|when|where|why|how|which|is|are|was|were|does|do|did|can|could|will)\b"
    r"|\?\s*$",
    re.IGNORECASE,
)
_WORLD_GROUPS = frozenset({"web_search", "news", "local", "fetch", "images", "video"})
IMPLIED_WEIGHT = 0.8


def implied_strengths(text: str, strengths: Mapping[str, float]) -> dict[str, float]:
    """What a question implies when nothing ties it to the user's own tools.

    A question that no route ties to mail, calendar, files, reminders, ... is a question about the world: the
    web search group is raised to `IMPLIED_WEIGHT` (a bare question route alone gives 0.3). Only the group is
    raised; words and meaning still choose within it. (Sending questions about the user themselves to the
    memory group instead was tried and lost recall: the memory search is an always-sent essential anyway.)
    """
    if not _QUESTION.search(text) or any(group not in _WORLD_GROUPS for group in strengths):
        return {}
    return {"web_search": max(strengths.get("web_search", 0.0), IMPLIED_WEIGHT)}


def route_strengths(text: str, routes: Iterable[Route]) -> dict[str, float]:
    """Group → the strongest route weight that fires on `text`, plus what a bare question implies."""
    strengths: dict[str, float] = {}
    for route in routes:
        if route.pattern.search(text):
            for group in route.groups:
                strengths[group] = max(strengths.get(group, 0.0), route.weight)
    strengths.update(implied_strengths(text, strengths))
    return strengths


def route_scores(text: str, routes: Iterable[Route], members: Mapping[str, np.ndarray], size: int) -> np.ndarray:
    """Per tool, the strongest route that points at a group containing it (0 when none does)."""
    scores = np.zeros(size, dtype=np.float64)
    for group, weight in route_strengths(text, routes).items():
        indices = members.get(group)
        if indices is not None and indices.size:
            np.maximum.at(scores, indices, weight)
    return scores
