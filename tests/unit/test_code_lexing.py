"""The open code block lexed again from near its end (app/display/code_lexing.py): the loop is
Pygments' own, token for token; a block streamed a character at a time is lexed as lexing it
whole would, for the code models write; and where a rule looked past the old end, the lex
says it is not exact, and is whole again within `WHOLE_EVERY` lexes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers import get_lexer_by_name

from app.display.code_lexing import LexMemory, ResumingLexer, Token, lex, prepared, resumable
from app.display.rich_markdown import code_lexer

# Languages models write code in, each lexer as the answer view builds it (`code_lexer`).
LANGUAGES = [
    "python", "javascript", "typescript", "jsx", "tsx", "bash", "rust", "go", "java",
    "kotlin", "csharp", "sql", "html", "css", "scss", "toml", "diff", "markdown", "latex",
    "scala", "dart", "zig", "haskell", "ocaml", "r", "julia", "powershell", "nix", "clojure",
    "erlang", "xml", "ini", "dockerfile", "perl", "fortran", "graphql", "elm", "vue",
]  # fmt: skip

MIXED = (
    'def f(x):\n    """doc\n    more"""\n    return x * 2  # c\n\tif x:\n\t\tpass\n'
    '<a href="x">y</a>\n<!-- c\n -->\n/* c\n */ int main() { return 0; }\n'
    "$x = `cmd`; echo \"s $x\"\ncat <<EOF\nhere\nEOF\nfn f() -> u8 { 'a' as u8 }\n"
    "s = '''\nopen\n'''\nSELECT a FROM t WHERE b = 'c'; -- note\n"
)

STREAMED = {
    "python": 'import os\n\n\nclass A(B):\n    """Doc\n    over lines."""\n\n    def f(self, x: int = 1) -> str:\n        s = f"{x!r} {os.sep}"  # note\n        return s + """\nraw\n"""\n',  # noqa: E501
    "javascript": "function f(a) {\n  // note\n  const s = `x ${a}\n  y`;\n  return a / 2;\n}\n",
    "rust": 'fn main() {\n    let s = "a\\nb";\n    /* block\n       comment */\n    println!("{}", s);\n}\n',  # noqa: E501
    "go": "package main\n\nfunc f() string {\n\treturn `raw\nstring`\n}\n",
    "bash": 'for f in *.py; do\n  echo "$f" | wc -l  # count\ndone\ncat <<EOF\nx\nEOF\n',
    "html": '<div class="a">\n  <p>text</p>\n  <script>\n    var x = 1;\n  </script>\n</div>\n',
    "css": "/* a\n   b */\np {\n  color: red;\n}\n",
    "sql": "SELECT a,\n       b\nFROM t -- note\nWHERE c = 'd\ne';\n",
}


def whole(lexer_name: str, text: str) -> list[Token]:
    lexer = code_lexer(lexer_name)
    return list(lexer.get_tokens_unprocessed(prepared(lexer, text)))


@pytest.mark.parametrize("name", LANGUAGES)
def test_the_loop_is_pygments_own(name: str) -> None:
    """If Pygments changes how its loop lexes, this fails: the app's copy must follow."""
    lexer = get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    assert resumable(lexer), name
    for text in (MIXED, *STREAMED.values(), "", "\n", "x"):
        tokens: list[Token] = []
        lex(lexer, text, 0, tokens, [])
        assert tokens == list(lexer.get_tokens_unprocessed(text)), name


def test_lexing_again_from_any_mark_gives_the_whole_lex() -> None:
    lexer = code_lexer("python")
    text = STREAMED["python"]
    tokens: list[Token] = []
    marks: list[tuple[int, int]] = []
    lex(lexer, text, 0, tokens, marks)
    assert len(marks) > 5
    for start, count in marks:
        assert start == 0 or text[start - 1] == "\n"
        again = tokens[:count]
        lex(lexer, text, start, again, [])
        assert again == tokens


@pytest.mark.parametrize("name", list(STREAMED))
def test_code_streamed_a_character_at_a_time_is_lexed_as_whole(name: str) -> None:
    memory = LexMemory()
    code = STREAMED[name]
    resumed = 0
    for end in range(1, len(code) + 1):
        text = code[:end].rstrip() + "\n"
        tokens, check = memory.tokens(code_lexer(name), text)
        assert tokens == whole(name, text), (name, end)
        if check is not None:
            resumed += 1
            assert check.exact()
    if name in ("python", "css"):  # lines that start at the root state
        assert resumed > len(code) / 3


def test_a_lex_that_is_not_exact_says_so_and_is_whole_again_soon() -> None:
    """Java's `/* */` fails until `*/` arrives: the lines above were lexed as code, and the
    whole lex then makes them one comment."""
    memory = LexMemory()
    code = "int a = 1;\n/** Doc\n * more\n * more\n */\nint b = 2;\nint c = 3;\n"
    seen_inexact = False
    lexes_since = 0
    texts = dict.fromkeys(code[:end].rstrip() + "\n" for end in range(1, len(code) + 1))
    for text in texts:  # each text once: one drawn again unchanged is not lexed again
        tokens, check = memory.tokens(code_lexer("java"), text)
        exact = tokens == whole("java", text)
        assert (check is None and exact) or (check is not None and check.exact() == exact)
        if not exact:
            seen_inexact = True
            lexes_since += 1
            assert lexes_since < LexMemory.WHOLE_EVERY
        else:
            lexes_since = 0
    assert seen_inexact


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["python", "javascript", "java", "html", "perl", "markdown"]),
    st.lists(
        st.sampled_from(["\n", "    ", '"""', "'", '"', "/*", "*/", "#", "<!--", "-->", "`"])
        | st.text("abc =(){}\n", max_size=5),
        max_size=40,
    ),
)
def test_a_resumed_lex_is_exact_or_says_it_may_not_be(name: str, pieces: list[str]) -> None:
    memory = LexMemory()
    code = ""
    for piece in pieces:
        code += piece
        text = code.rstrip() + "\n"
        tokens, check = memory.tokens(code_lexer(name), text)
        exact = tokens == whole(name, text)
        if check is None:
            assert exact
        else:
            assert check.exact() == exact
            assert check.text == text
            assert check.tokens is tokens


def test_lexers_that_post_process_or_are_not_regex_driven_are_lexed_whole() -> None:
    memory = LexMemory()
    for name in ("c", "cpp", "json", "yaml", "text"):
        assert memory.lexer(code_lexer(name)) is None, name
    assert isinstance(memory.lexer(code_lexer("python")), ResumingLexer)


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LexMemory, "LARGEST", 600)
    memory = LexMemory()
    lexer = code_lexer("python")
    for i in range(LexMemory.SIZE + 5):
        memory.tokens(lexer, f"block_{i} = {i}\n")
    assert len(memory._kept) == LexMemory.SIZE
    huge = "x = 1\n" * (LexMemory.LARGEST // 6 + 1)
    memory.tokens(lexer, huge)
    assert all(len(kept.text) <= LexMemory.LARGEST for kept in memory._kept)


def test_a_block_drawn_again_unchanged_is_not_lexed_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import app.display.code_lexing as code_lexing

    memory = LexMemory()
    lexer = code_lexer("python")
    first, _ = memory.tokens(lexer, "a = 1\nb = 2\n")
    calls: list[int] = []
    real = code_lexing.lex

    def counting(*args: object) -> None:
        calls.append(1)
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(code_lexing, "lex", counting)
    again, _ = memory.tokens(lexer, "a = 1\nb = 2")  # as `Syntax` hands it over, or not
    assert again is first
    assert calls == []
