"""Code lines drawn from the cache (`CodeRows`) are exactly what Rich's `Syntax` draws for the
whole block, segment for segment, whatever the code, its language, the theme and the width;
and a block drawn again draws only its new lines."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.syntax import Syntax

from app.display.markdown_height import CODE_PAD
from app.display.rich_markdown import CodeRows, code_lexer

CODES = [
    "",
    "x = 1",
    'def f(a: int) -> str:\n    """A docstring\n    over lines"""\n    return "s"  # comment',
    "\tif x:\n\t\ty = '''open string\nstill string\n'''\n",
    "漢字 = '全角'  # wide\nemoji = '🐍🐍'",
    "   \n\nblank lines above\n   trailing spaces   ",
    "SELECT *\nFROM t -- note\nWHERE a = 'b';",
    '<div class="a">\n  <p>html</p>\n</div>',
]


def console() -> Console:
    return Console(file=io.StringIO(), color_system="truecolor", force_terminal=True, width=80)


def drawn(code: str, lexer: str, theme: str, width: int, rows: CodeRows | None) -> list[list]:
    con = console()
    syntax = Syntax(code, lexer, theme=theme, word_wrap=False, padding=CODE_PAD)
    options = con.options.update(width=width)
    if rows is None:
        return con.render_lines(syntax, options, new_lines=False)
    return rows.lines(con, syntax, theme, options)


@pytest.mark.parametrize("theme", ["monokai", "friendly"])
@pytest.mark.parametrize("lexer", ["python", "sql", "html", "text", "no-such-language"])
@pytest.mark.parametrize("code", CODES)
def test_the_cached_lines_are_syntaxs_own(code: str, lexer: str, theme: str) -> None:
    rows = CodeRows()
    natural = max(len(line) for line in code.expandtabs(4).split("\n")) * 2  # wide characters
    for width in (natural + 2, natural + 9, 120):
        expected = drawn(code.rstrip(), lexer, theme, width, None)
        assert drawn(code.rstrip(), lexer, theme, width, rows) == expected
        assert drawn(code.rstrip(), lexer, theme, width, rows) == expected  # from the cache


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=6)
        | st.sampled_from(["\n", "\t", '"""', "'", "#", "    ", "def ", "(", "全", "🐍"]),
        max_size=30,
    ).map("".join)
)
def test_any_code_is_drawn_as_syntax_draws_it(code: str) -> None:
    code = code.rstrip()
    rows = CodeRows()
    width = 2 * max(len(line) for line in code.expandtabs(4).split("\n")) + 2 * CODE_PAD + 1
    assert drawn(code, "python", "monokai", width, rows) == drawn(
        code, "python", "monokai", width, None
    )


@pytest.mark.parametrize("lexer", ["python", "sql", "html", "text", "no-such-language", ""])
def test_one_kept_lexer_draws_what_syntax_draws_with_its_own(lexer: str) -> None:
    """A lexer built once and used for block after block (an open string in one, then code)
    carries nothing from one block to the next."""
    assert code_lexer(lexer) is code_lexer(lexer)
    con = console()
    for code in [*CODES, "\n\n\tafter blank lines and a tab", *CODES]:
        code = code.rstrip()
        for theme in ("monokai", "friendly"):
            own = Syntax(code, lexer, theme=theme, word_wrap=False, padding=CODE_PAD)
            kept = Syntax(code, code_lexer(lexer), theme=theme, word_wrap=False, padding=CODE_PAD)
            assert con.render_lines(kept, new_lines=False) == con.render_lines(own, new_lines=False)


def test_a_growing_block_draws_only_its_new_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = CodeRows()
    made: list[object] = []
    original = CodeRows._row

    def counting(self: CodeRows, *args: object) -> object:
        before = len(self._rows)
        row = original(self, *args)  # type: ignore[arg-type]
        if len(self._rows) > before:
            made.append(args[1])
        return row

    monkeypatch.setattr(CodeRows, "_row", counting)
    lines = [f"total_{i} = compute(value_{i}, factor={i})  # step {i}" for i in range(16)]
    for end in range(1, len(lines) + 1):
        drawn("\n".join(lines[:end]), "python", "monokai", 100, rows)
    assert len(made) == 16 + 1  # each line drawn once, and the padding row


def test_the_cache_is_bounded() -> None:
    rows = CodeRows()
    for i in range(CodeRows.SIZE + 50):
        drawn(f"line_{i} = {i}", "python", "monokai", 40, rows)
    assert len(rows._rows) <= CodeRows.SIZE
