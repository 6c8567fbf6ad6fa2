"""Compose training records from other authors' text (`sources.py`), in the shape of `compose.py`'s records.

- `direct`: an injection typed in chat: a whole public injection, or one of spikee's framings around one of its
  goals (or a PromptInject line); sometimes after an ordinary request from the authored pools.
- `jailbreak`: a public jailbreak prompt (its request slot filled with an authored ask), mostly in chat.
- `indirect`: a public payload, framing + goal, or whole injection, inserted at a random block of an e-mail,
  page, file or tool output whose other paragraphs mix authored sentences and public documents.
- `benign`: public false-positive traps, ordinary requests, task prompts and documentation paragraphs (many
  talk about jailbreaks and injection), alone in chat or as paragraphs of a composed document, on every surface.
- `everyday` (only when `everyday` items are given, `catalogs.py`): benign records made of an application's
  own lines in one language (alerts, account and permission messages, form errors, confirmations): one line in
  chat, or a few as an e-mail, page, file or tool output; half of them in the six composed languages. The
  same lines also become paragraphs of the other documents, attacks' carriers included, so that such a line is
  no sign of a benign text.

The fit/calibration rule is `compose.py`'s: every public item belongs to one part by the CRC-32 of its text, and
a record uses one part's items only (authored and public alike), so calibration texts share no item with
fitted ones. Records carry `source` (the package and file of the public items used).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence

from guardian_mcp.training import attacks, benign
from guardian_mcp.training.compose import LANGS, Composer, draw, training_record
from guardian_mcp.training.sources import ASK, Item
from guardian_mcp.training.split import Pools, part_of

SLOT = "<INSTRUCTION>"
COUNTS = {"direct": 1500, "indirect": 1500, "jailbreak": 800, "benign": 3000}
WITH_EVERYDAY = {**COUNTS, "everyday": 5000}  # with the catalogs' lines (`--everyday`)


class PublicComposer:
    def __init__(self, seed: int, items: Sequence[Item]) -> None:
        self.composer = Composer(seed + 1)
        self.rng = self.composer.rng
        self.pools: dict[tuple[str, str], list[Item]] = defaultdict(list)
        self.everyday: dict[tuple[str, str], list[Item]] = defaultdict(list)  # (part, lang) → everyday lines
        for item in items:
            self.pools[(item.role, part_of(item.text))].append(item)
            if item.role == "everyday":
                self.everyday[(part_of(item.text), item.lang)].append(item)

    def pick(self, role: str, part: str) -> Item:
        pool = self.pools[(role, part)]
        if not pool:
            raise ValueError(f"no public {role} item in the {part} part: the split rule cannot hold")
        return self.rng.choice(pool)

    def carrier_pools(self, part: str, lang: str) -> Pools:
        return Pools(part, lang if lang in LANGS else "en")

    def framed(self, part: str) -> tuple[str, list[Item]]:
        """An attack line: spikee framing around a goal, a bare goal, or a whole public injection."""
        roll = self.rng.random()
        if roll < 0.5:
            wrapper, goal = self.pick("wrapper", part), self.pick("instruction", part)
            return wrapper.text.replace(SLOT, goal.text.rstrip(".")), [wrapper, goal]
        item = self.pick("instruction" if roll < 0.7 else "direct", part)
        return item.text, [item]

    def body(self, pools: Pools, part: str, count: int) -> tuple[list[str], list[Item]]:
        """Paragraphs of a document: public documentation or traps mixed with authored sentences."""
        used: list[Item] = []
        paragraphs: list[str] = []
        for _ in range(count):
            roll = self.rng.random()
            if roll < 0.45:
                item = self.pick("document", part)
            elif roll < 0.6:
                item = self.pick("benign", part)
            elif roll < 0.75 and self.everyday:
                item = self.line(part, pools.lang)
            else:
                paragraphs.extend(self.composer.paragraphs(pools, 1, hard=0.2))
                continue
            used.append(item)
            paragraphs.append(item.text)
        return paragraphs, used

    def line(self, part: str, lang: str) -> Item:
        """An everyday line in `lang` (any language when there is none in it)."""
        pool = self.everyday.get((part, lang)) or self.pools[("everyday", part)]
        if not pool:
            raise ValueError(f"no everyday line in the {part} part: the split rule cannot hold")
        return self.rng.choice(pool)

    def everyday_record(self, part: str) -> dict[str, object]:
        """A benign record of everyday lines in one language: alone in chat, a few in another surface."""
        rng = self.rng
        lang = rng.choice(LANGS) if rng.random() < 0.5 else self.pick("everyday", part).lang
        if not self.everyday.get((part, lang)):
            lang = self.pick("everyday", part).lang
        surface = rng.choices(["chat", "email", "web", "file", "tool"], [0.2, 0.25, 0.2, 0.15, 0.2])[0]
        used = [self.line(part, lang) for _ in range(1 if surface == "chat" else rng.randint(1, 5))]
        pools = self.carrier_pools(part, lang)
        text = self.place(surface, pools, [item.text for item in used])
        return training_record(text, "benign", surface, lang, part, "", source=sorted({i.source for i in used}))

    def place(self, surface: str, pools: Pools, paragraphs: list[str]) -> str:
        if surface == "chat":
            return "\n\n".join(paragraphs)
        return self.composer.carrier(surface)(pools, paragraphs)

    def record(self, kind: str, part: str) -> dict[str, object]:
        composer, rng = self.composer, self.rng
        if kind == "everyday":
            return self.everyday_record(part)
        payload = ""
        used: list[Item]
        if kind == "direct":
            text, used = self.framed(part) if rng.random() < 0.6 else ((item := self.pick("direct", part)).text, [item])
            lang, surface = used[-1].lang, "chat"
            if rng.random() < 0.25:
                pools = self.carrier_pools(part, lang)
                text = f"{composer.fill(pools.pick(rng, benign.REQUESTS), pools.lang)} {text}"
        elif kind == "jailbreak":
            item = self.pick("jailbreak", part)
            used, lang = [item], item.lang
            text = item.text.replace(ASK, self.carrier_pools(part, "en").pick_list(rng, attacks.JAILBREAK_ASKS))
            surface = rng.choices(["chat", "file", "web"], [0.8, 0.1, 0.1])[0]
        elif kind == "indirect":
            surface = rng.choices(["email", "web", "file", "tool", "chat"], [0.3, 0.25, 0.15, 0.25, 0.05])[0]
            if rng.random() < 0.35:
                item = self.pick("payload", part)
                line, used = item.text, [item]
            else:
                line, used = self.framed(part)
                line = rng.choice(attacks.WRAPPERS).replace("{p}", line)
            lang = used[-1].lang
            pools = self.carrier_pools(part, lang)
            paragraphs, others = self.body(pools, part, rng.randint(1, 4))
            used += others
            payload = line
            paragraphs.insert(rng.randint(0, len(paragraphs)), payload)
            if surface == "chat":
                paragraphs.insert(0, composer.fill(pools.pick(rng, benign.REQUESTS), pools.lang))
            text = self.place(surface, pools, paragraphs)
            if surface == "tool" and payload not in text:
                payload = json.dumps(payload, ensure_ascii=False)[1:-1]
        else:
            surface = rng.choices(["chat", "email", "web", "file", "tool"], [0.25, 0.2, 0.2, 0.15, 0.2])[0]
            item = self.pick("benign" if rng.random() < 0.4 else "document", part)
            lang = item.lang
            pools = self.carrier_pools(part, lang)
            if surface == "chat":
                paragraphs = [item.text]
                if rng.random() < 0.2:
                    paragraphs.insert(0, composer.fill(pools.pick(rng, benign.REQUESTS), pools.lang))
                used = [item]
            else:
                paragraphs, used = self.body(pools, part, rng.randint(0, 3))
                paragraphs.insert(rng.randint(0, len(paragraphs)), item.text)
                used.append(item)
            text = self.place(surface, pools, paragraphs)
        return training_record(text, kind, surface, lang, part, payload, source=sorted({item.source for item in used}))


def compose(seed: int, items: Sequence[Item], counts: dict[str, int] = COUNTS) -> list[dict[str, object]]:
    """`counts[kind]` public records of each kind (`everyday`: benign records of everyday lines), a fifth in the
    calibration part (by item), each text once."""
    return draw(PublicComposer(seed, items), counts)
