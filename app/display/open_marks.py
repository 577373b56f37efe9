"""Close, for drawing only, the inline marks a streaming answer has opened but not yet closed.

Text arrives a few words at a time, so `_demo: offline` or `This is **real` is on screen for a
moment before its closing `_` or `**` arrives: the reader sees the mark, then sees it vanish
and the words shift. While an answer streams its last paragraph is therefore drawn with the
missing closers appended (and a lone mark at the very end, whose words have not arrived,
left out). The source itself is never changed: once the answer has ended it is drawn exactly as
sent, so a mark that never closed shows as the model wrote it.

Only emphasis (`*`, `_`, `**`, `__`, `~~`) and code spans are handled, outside code blocks, in
the paragraph the text ends in; a mark counts as an opener only at the start of a word, so
snake_case, `2*3` and list bullets are left alone.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
_BLANK = re.compile(r"\n[ \t]*\n")
_RUN = re.compile(r"`+|[*_~]+")


def close_open_marks(source: str) -> str:
    """`source` with the inline marks its last paragraph leaves open closed (see above)."""
    if _in_code_block(source):
        return source
    blanks = list(_BLANK.finditer(source))
    start = blanks[-1].end() if blanks else 0
    tail = source[start:]
    first = tail.split("\n", 1)[0]
    if first.startswith(("    ", "\t")) and start:
        return source  # an indented code block
    closers, cut = _open_marks(tail)
    kept = source[: start + cut]
    return kept.rstrip() + closers if closers else kept  # a closer must touch the last word


def _in_code_block(source: str) -> bool:
    marker = ""
    for line in source.split("\n"):
        found = _FENCE.match(line)
        if not found:
            continue
        run = found.group(1)
        if not marker:
            marker = run
        elif run[0] == marker[0] and len(run) >= len(marker) and not line[found.end() :].strip():
            marker = ""
    return bool(marker)


def _open_marks(text: str) -> tuple[str, int]:
    """The closers `text` lacks (innermost first) and where to cut it: before a mark that ends
    the text with nothing after it yet."""
    stack: list[str] = []
    code = ""  # the backtick run of an open code span
    cut = len(text)
    for found in _RUN.finditer(text):
        run = found.group()
        before = text[found.start() - 1] if found.start() else " "
        after = text[found.end()] if found.end() < len(text) else ""
        if code:
            if run == code:
                code = ""
            continue
        if run[0] == "`":
            if after:
                code = run
            else:
                cut = found.start()
            continue
        closes = not before.isspace() and not after.isalnum()
        if closes and stack and stack[-1] == run:
            stack.pop()
            continue
        opens = (before.isspace() or not before.isalnum()) and after != "" and not after.isspace()
        if opens and run in ("*", "_", "**", "__", "~~", "***", "___"):
            stack.append(run)
        elif not after and (before.isspace() or found.start() == 0):
            cut = found.start()  # a mark whose words have not arrived yet
    if code:
        return code, cut
    return "".join(reversed(stack)), cut


__all__ = ["close_open_marks"]
