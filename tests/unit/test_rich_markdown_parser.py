"""AnswerMarkdown sets Rich's Markdown attributes itself, with one shared markdown-it parser:
if Rich's own __init__ starts setting something else, or parses differently, this fails."""

from __future__ import annotations

from rich.markdown import Markdown

from app.display.rich_markdown import AnswerMarkdown

SOURCE = (
    "# Title\n\nSome *text* ~~gone~~ and `code`.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n"
    "```py\nx = 1\n```\n"
)


def test_the_same_attributes_as_rich_sets() -> None:
    theirs = Markdown(SOURCE, code_theme="monokai", hyperlinks=False)
    ours = AnswerMarkdown(SOURCE, code_theme="monokai")
    own = {"joins", "code_rows", "_tables", "_lists", "_seen_tables", "_seen_lists", "_seen_code"}
    own |= {"code_lines", "code_lexes", "resumed"}
    assert set(vars(ours)) - own == set(vars(theirs))
    for name, value in vars(theirs).items():
        if name != "parsed":
            assert getattr(ours, name) == value, name


def test_the_shared_parser_parses_as_rich_s_own() -> None:
    for source in (SOURCE, "plain", "1. one\n2. two\n", "~~strike~~ | not a table"):
        theirs = Markdown(source, hyperlinks=False).parsed
        ours = AnswerMarkdown(source, code_theme="monokai").parsed
        assert [(t.type, t.content, t.tag) for t in ours] == [
            (t.type, t.content, t.tag) for t in theirs
        ]
        # and again: the parser keeps nothing from one document to the next
        again = AnswerMarkdown(source, code_theme="monokai").parsed
        assert [(t.type, t.content) for t in again] == [(t.type, t.content) for t in ours]
