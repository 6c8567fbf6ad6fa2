"""The Markdown a model writes, as the HTML subset Telegram reads (`parse_mode=HTML`). Pure.

Models answer in Markdown (`**bold**`, lists, `code`, links); sent as plain text it shows raw asterisks. The text
is parsed by markdown-it (CommonMark, plus strikethrough and tables) and written back with only what Telegram's
HTML mode knows: `<b> <i> <s> <code> <pre> <a href> <blockquote>`. Everything else becomes text:

- paragraphs are separated by a blank line, headings are bold lines, list items get `•` or their number
  (nested ones indented), a rule is a line of dashes, a table is its rows in a `<pre>` block;
- every `<`, `>`, `&` of the text is escaped, so nothing the model (or a web page it quotes) writes can open a
  tag; raw HTML in the Markdown is shown as text;
- links keep their target only for `http`, `https`, `mailto` and `tg` (anything else is left as the link's text).

Telegram still refuses some markup it cannot parse; the sender then falls back to the plain text
(`telegram_mcp.service`). `split_markdown` cuts a long reply into parts Telegram accepts without cutting a code
block in two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from telegram_mcp.text import MAX_MESSAGE_CHARS, split_message

_PARSER = MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])
_LINK_SCHEMES = ("http://", "https://", "mailto:", "tg://")
_LANGUAGE = re.compile(r"^[A-Za-z0-9_+#.-]{1,32}$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^`\n]*)$", re.MULTILINE)
# Room left in each part for a code fence closed at its end and reopened at the next part's start.
_FENCE_ROOM = 48


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _attribute(text: str) -> str:
    return escape(text).replace('"', "&quot;")


@dataclass
class _List:
    ordered: bool
    number: int


def _inline(children: Sequence[Token]) -> str:
    out: list[str] = []
    links: list[bool] = []  # for each open link: whether an <a> was written for it
    for token in children:
        kind = token.type
        if kind == "text":
            out.append(escape(token.content))
        elif kind in ("softbreak", "hardbreak"):
            out.append("\n")
        elif kind == "code_inline":
            out.append(f"<code>{escape(token.content)}</code>")
        elif kind in ("strong_open", "strong_close", "em_open", "em_close", "s_open", "s_close"):
            tag = {"strong": "b", "em": "i", "s": "s"}[kind.rsplit("_", 1)[0]]
            out.append(f"<{tag}>" if kind.endswith("_open") else f"</{tag}>")
        elif kind == "link_open":
            href = str(token.attrGet("href") or "")
            allowed = href.lower().startswith(_LINK_SCHEMES)
            links.append(allowed)
            if allowed:
                out.append(f'<a href="{_attribute(href)}">')
        elif kind == "link_close":
            if links.pop() if links else False:
                out.append("</a>")
        elif kind == "image":
            out.append(escape(token.content or str(token.attrGet("alt") or "")))
        elif kind == "html_inline":
            out.append(escape(token.content))
        else:  # a token type this renderer does not know: keep its text
            out.append(escape(token.content))
    return "".join(out)


def _cell_text(token: Token) -> str:
    return "".join(child.content for child in token.children or [] if child.type in ("text", "code_inline"))


def to_telegram_html(markdown: str) -> str:
    """`markdown` as Telegram HTML: only tags Telegram accepts, all other text escaped."""
    tokens = _PARSER.parse(markdown)
    out: list[str] = []
    lists: list[_List] = []
    row: list[str] = []
    rows: list[str] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        if kind == "inline":
            out.append(_inline(token.children or []))
        elif kind == "paragraph_close" and not token.hidden:
            out.append("\n\n")
        elif kind == "heading_open":
            out.append("<b>")
        elif kind == "heading_close":
            out.append("</b>\n\n")
        elif kind in ("bullet_list_open", "ordered_list_open"):
            start = int(token.attrGet("start") or 1) if kind == "ordered_list_open" else 1
            if lists and out and not out[-1].endswith("\n"):
                out.append("\n")
            lists.append(_List(kind == "ordered_list_open", start))
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            if not lists:
                out.append("\n")
        elif kind == "list_item_open" and lists:
            current = lists[-1]
            marker = f"{current.number}." if current.ordered else "•"
            current.number += 1
            out.append("  " * (len(lists) - 1) + marker + " ")
        elif kind == "list_item_close":
            if out and not out[-1].endswith("\n"):
                out.append("\n")
        elif kind == "blockquote_open":
            out.append("<blockquote>")
        elif kind == "blockquote_close":
            while out and out[-1] == "\n\n":
                out.pop()
            out.append("</blockquote>\n\n")
        elif kind in ("fence", "code_block"):
            language = token.info.strip().split(" ", 1)[0] if kind == "fence" else ""
            code = escape(token.content.rstrip("\n"))
            if _LANGUAGE.match(language):
                out.append(f'<pre><code class="language-{language}">{code}</code></pre>\n\n')
            else:
                out.append(f"<pre>{code}</pre>\n\n")
        elif kind == "hr":
            out.append("——————\n\n")
        elif kind == "html_block":
            out.append(escape(token.content) + "\n")
        elif kind == "table_open":
            rows = []
        elif kind == "tr_open":
            row = []
        elif kind in ("th_open", "td_open"):
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            row.append(_cell_text(inline) if inline is not None and inline.type == "inline" else "")
            index += 2  # the cell's inline token and its close are consumed here
            continue
        elif kind == "tr_close":
            rows.append(" | ".join(row))
        elif kind == "table_close":
            out.append("<pre>" + escape("\n".join(rows)) + "</pre>\n\n")
        index += 1
    text = "".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def split_markdown(text: str, limit: int = MAX_MESSAGE_CHARS) -> list[str]:
    """Parts of at most `limit` characters cut on paragraph, line or word boundaries (`split_message`); a code
    block that a cut runs through is closed at the end of one part and opened again at the start of the next."""
    parts = split_message(text, max(1, limit - _FENCE_ROOM))
    fixed: list[str] = []
    reopen = ""
    for part in parts:
        part = reopen + part
        fences = _FENCE.findall(part)
        reopen = ""
        if len(fences) % 2 == 1:
            marker, info = fences[-1]
            part += "\n" + marker
            reopen = f"{marker}{info.strip()[:32]}\n"
        fixed.append(part)
    return fixed


__all__ = ["escape", "split_markdown", "to_telegram_html"]
