"""Markdown as Telegram HTML (telegram_mcp/markup.py): what each construct becomes, and that nothing escapes."""

from __future__ import annotations

import pytest

from telegram_mcp.markup import split_markdown, to_telegram_html
from tests.fakes.telegram_server import parse_html


@pytest.mark.parametrize(
    ("markdown", "html"),
    [
        ("**bold** and __bold__", "<b>bold</b> and <b>bold</b>"),
        ("*it* and _it_", "<i>it</i> and <i>it</i>"),
        ("~~gone~~", "<s>gone</s>"),
        ("`a < b`", "<code>a &lt; b</code>"),
        ("# Title\ntext", "<b>Title</b>\n\ntext"),
        ("- one\n- two", "• one\n• two"),
        ("3. c\n4. d", "3. c\n4. d"),
        ("- a\n  - b", "• a\n  • b"),
        ("> said", "<blockquote>said</blockquote>"),
        ("```py\nx = 1 < 2\n```", '<pre><code class="language-py">x = 1 &lt; 2</code></pre>'),
        ("```\nplain\n```", "<pre>plain</pre>"),
        ("[site](https://example.com/?a=1&b=2)", '<a href="https://example.com/?a=1&amp;b=2">site</a>'),
        ("| a | b |\n|---|---|\n| 1 | 2 |", "<pre>a | b\n1 | 2</pre>"),
        ("one\n\ntwo", "one\n\ntwo"),
        ("line\nbreak", "line\nbreak"),
        ("2 * 3 * 4 = 24, snake_case_name", "2 * 3 * 4 = 24, snake_case_name"),
    ],
)
def test_markdown_becomes_the_html_telegram_reads(markdown: str, html: str) -> None:
    assert to_telegram_html(markdown) == html


@pytest.mark.parametrize(
    "hostile",
    [
        "<b>not bold</b> <script>alert(1)</script>",
        "[x](javascript:alert(1))",
        '[x](https://e.com/" onclick="y)',
        "a & b < c > d &amp;",
        "**unclosed *mixed ~~markup",
        "```\nunclosed fence <b>",
        "<a href='https://e.com'>raw link</a>",
    ],
)
def test_whatever_the_model_writes_is_markup_telegram_accepts(hostile: str) -> None:
    html = to_telegram_html(hostile)
    visible = parse_html(html)  # raises as Telegram would refuse
    assert "<script" not in html and "javascript:" not in html.split('href="')[-1][:12]
    assert visible.strip()


def test_raw_html_in_the_markdown_is_shown_as_text() -> None:
    assert parse_html(to_telegram_html("<b>hi</b>")) == "<b>hi</b>"


def test_a_link_to_another_scheme_keeps_only_its_text() -> None:
    assert to_telegram_html("[call](ftp://files.example.com)") == "call"


def test_long_text_is_split_on_paragraphs_under_the_limit() -> None:
    paragraphs = [f"Paragraph {n}: " + "word " * 150 for n in range(12)]
    parts = split_markdown("\n\n".join(paragraphs), limit=2_000)
    assert len(parts) > 1 and all(len(part) <= 2_000 for part in parts)
    assert all(part.startswith("Paragraph") for part in parts)
    assert " ".join(parts).split() == "\n\n".join(paragraphs).split()


def test_a_code_block_cut_by_the_split_is_closed_and_reopened() -> None:
    code = "\n".join(f"print({n})" for n in range(300))
    parts = split_markdown(f"Here:\n\n```python\n{code}\n```\n\nDone.", limit=1_000)
    assert len(parts) > 2
    for part in parts:
        assert part.count("```") % 2 == 0, part[:80]
    assert all("<pre>" in to_telegram_html(part) or part == "Done." for part in parts[1:])
    assert parts[1].startswith("```python\n")
