"""Lexing the open code block of a streaming answer again from near its end, not its start.

While its code streams, the open block is highlighted again on every frame, and a Pygments
lexer only lexes a text from its start: lexing was 85% of highlighting a 16-line block (2.5 ms
a frame) and 4.5% of the app's CPU over the render bench's 20,000 tokens (py-spy, 188 of 4,221
busy samples). A `RegexLexer` is one loop over a stack of states, so the loop below, which is
Pygments' own (`RegexLexer.get_tokens_unprocessed`, Pygments 2.21), notes where a line starts
with the lexer at its root state. A text that goes on from one lexed shortly before is lexed
again from the last such line at least one line above the old end, and the tokens before it
are kept. tests/unit/test_code_lexing.py holds the loop to Pygments' own, lexer by lexer.

Why a resumed lex is interim: a rule may look past where the text ended a frame before (Java's
`/* ... */` fails until its `*/` arrives, and the comment is lexed as code till then), and
lexing the text whole then goes another way above the line resumed from. So every 8th lex of
a growing text is whole, and a segment that settles with a block lexed from a line checks it
against the whole lex (`ResumedLex.exact`) and renders again if it differs
(app/ui/widgets/markdown_view.py). Marks are kept only at the root state, which keeps lexes
exact in practice: a string or comment open over lines is lexed again from its first line.
It also means a language whose lines seldom start at the root state (JavaScript pushes a
state at most line ends) is mostly lexed whole.

The loop reads the lexer's compiled rules (`RegexLexer._tokens`), which Pygments does not
offer outside its own loop; the test above fails if they change shape.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pygments.lexer import Lexer, RegexLexer
from pygments.token import Error, Whitespace, _TokenType

Token = tuple[int, Any, str]  # (where it starts, its Pygments token type, its text)

ROOT = "root"


def resumable(lexer: Lexer) -> bool:
    """Whether `lexer` is Pygments' plain loop over states (Python, JavaScript, Rust, Go,
    Bash, SQL, HTML...), with no filter and no preprocessing of its own to repeat. Lexers
    that post-process tokens (C, C++, YAML, Ruby) or are not regex-driven (JSON) are lexed
    whole."""
    kind = type(lexer)
    return (
        isinstance(lexer, RegexLexer)
        and kind.get_tokens_unprocessed is RegexLexer.get_tokens_unprocessed
        and kind.get_tokens is Lexer.get_tokens
        and not lexer.filters
        and not lexer.stripall
        and not lexer.stripnl
    )


def prepared(lexer: Lexer, text: str) -> str:
    """`text` as `Lexer.get_tokens` prepares a `str` before lexing it (a lexer `resumable`
    strips nothing)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if lexer.tabsize > 0:
        text = text.expandtabs(lexer.tabsize)
    if lexer.ensurenl and not text.endswith("\n"):
        text += "\n"
    return text


def lex(
    lexer: RegexLexer, text: str, pos: int, tokens: list[Token], marks: list[tuple[int, int]]
) -> None:
    """Pygments' `RegexLexer.get_tokens_unprocessed` from `pos` at the root state, appending
    to `tokens`; every line start reached at the root state goes in `marks`, with the number
    of tokens before it."""
    tokendefs = lexer._tokens
    statestack = [ROOT]
    statetokens = tokendefs[ROOT]
    append = tokens.append
    end = len(text)
    while True:
        at_line_start = pos == 0 or text[pos - 1] == "\n"
        if at_line_start and pos < end and len(statestack) == 1 and statestack[0] == ROOT:
            marks.append((pos, len(tokens)))
        for rexmatch, action, new_state in statetokens:
            m = rexmatch(text, pos)
            if m:
                if action is not None:
                    if type(action) is _TokenType:
                        append((pos, action, m.group()))
                    else:
                        tokens.extend(action(lexer, m))
                pos = m.end()
                if new_state is not None:
                    if isinstance(new_state, tuple):
                        for state in new_state:
                            if state == "#pop":
                                if len(statestack) > 1:
                                    statestack.pop()
                            elif state == "#push":
                                statestack.append(statestack[-1])
                            else:
                                statestack.append(state)
                    elif isinstance(new_state, int):
                        if abs(new_state) >= len(statestack):
                            del statestack[1:]
                        else:
                            del statestack[new_state:]
                    elif new_state == "#push":
                        statestack.append(statestack[-1])
                    else:
                        raise AssertionError(f"wrong state def: {new_state!r}")
                    statetokens = tokendefs[statestack[-1]]
                break
        else:
            if pos >= end:
                break
            if text[pos] == "\n":  # a line's end that no rule matched: back to the root
                statestack = [ROOT]
                statetokens = tokendefs[ROOT]
                append((pos, Whitespace, "\n"))
            else:
                append((pos, Error, text[pos]))
            pos += 1


@dataclass(slots=True)
class _Lexed:
    lexer: Lexer
    text: str
    tokens: list[Token]
    marks: list[tuple[int, int]]  # (where, tokens before): lines that start at the root state
    resumed: ResumedLex | None  # lexed from a line of it: how to check it
    since_whole: int  # lexes resumed since the text was last lexed whole


class LexMemory:
    """The last few texts lexed, kept with their marks, so that a text going on from one of
    them (the open code block a frame later) is lexed from near its end. Bounded: `SIZE`
    texts (a few panes streaming at once), none over `LARGEST` characters (its tokens take a
    few times its size; the answer view cuts long blocks across segments anyway)."""

    SIZE = 8
    LARGEST = 256 * 1024
    WHOLE_EVERY = 8  # every 8th lex of a growing text is whole: 2 s at 4 frames a second

    def __init__(self) -> None:
        self._kept: list[_Lexed] = []

    def lexer(self, lexer: Lexer) -> ResumingLexer | None:
        """`lexer` lexing from this memory, for `Syntax`; None when it cannot be resumed."""
        return ResumingLexer(lexer, self) if resumable(lexer) else None

    def tokens(self, lexer: RegexLexer, text: str) -> tuple[list[Token], ResumedLex | None]:
        """`text`'s tokens, and, if they were lexed from a line of it rather than its start,
        what to check them by (see the module's docstring)."""
        text = prepared(lexer, text)
        kept = self._goes_on_from(lexer, text)
        if kept is not None and kept.text == text:  # drawn again unchanged (another width)
            return kept.tokens, kept.resumed
        tokens: list[Token] = []
        marks: list[tuple[int, int]] = []
        start = since_whole = 0
        if kept is not None:
            self._kept.remove(kept)
            cut = bisect_right(kept.marks, _line_above_end(kept.text), key=_where) - 1
            if cut > 0 and kept.since_whole + 1 < self.WHOLE_EVERY:
                start, count = kept.marks[cut]
                tokens, marks = kept.tokens[:count], kept.marks[:cut]
                since_whole = kept.since_whole + 1
        lex(lexer, text, start, tokens, marks)
        resumed = ResumedLex(lexer, text, tokens) if start > 0 else None
        if len(text) <= self.LARGEST:
            self._kept.append(_Lexed(lexer, text, tokens, marks, resumed, since_whole))
            del self._kept[: -self.SIZE]
        return tokens, resumed

    def _goes_on_from(self, lexer: Lexer, text: str) -> _Lexed | None:
        """The longest kept text of `lexer` that `text` goes on from (each was lexed with a
        line end added, which a text going on from it may have replaced)."""
        best: _Lexed | None = None
        for kept in self._kept:
            if (
                kept.lexer is lexer
                and len(kept.text) <= len(text)
                and (best is None or len(kept.text) > len(best.text))
                and text.startswith(kept.text[:-1])
            ):
                best = kept
        return best


def _where(mark: tuple[int, int]) -> int:
    return mark[0]


def _line_above_end(text: str) -> int:
    """Where the line above `text`'s last line starts: lexing again starts there at the latest,
    since the last line may have ended in the middle of a token."""
    last = text.rfind("\n", 0, len(text) - 1) + 1
    return text.rfind("\n", 0, last - 1) + 1 if last > 0 else 0


@dataclass(eq=False)
class ResumedLex:
    """A text lexed from a line of it: exact if lexing it whole gives the same tokens."""

    lexer: RegexLexer
    text: str
    tokens: list[Token]
    _exact: bool | None = None

    def exact(self) -> bool:
        """Checked once, when first asked (a segment settling), by lexing the text whole."""
        if self._exact is None:
            self._exact = self.tokens == list(self.lexer.get_tokens_unprocessed(self.text))
        return self._exact


class ResumingLexer(Lexer):  # type: ignore[misc]  # Pygments is untyped
    """A resumable lexer as `Syntax` calls it (`get_tokens`), lexing from a `LexMemory`."""

    def __init__(self, lexer: RegexLexer, memory: LexMemory) -> None:
        super().__init__()
        self.name = lexer.name
        self._lexer = lexer
        self._memory = memory
        self.resumed: ResumedLex | None = None  # the last text, if lexed from a line of it

    def get_tokens(self, text: str, unfiltered: bool = False) -> Iterator[tuple[Any, str]]:
        tokens, self.resumed = self._memory.tokens(self._lexer, text)
        return ((kind, value) for _, kind, value in tokens)
