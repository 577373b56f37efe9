"""Code blocks of a Markdown answer, as raw text, for "copy code block N".

What is copied is exactly the fence's content: CommonMark removes from each line only as many
leading spaces as the opening fence was indented (a fence in a list item), never more, so a
fence at the margin keeps every line as it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_CLOSE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})[ \t]*$")


@dataclass(frozen=True, slots=True)
class CodeBlock:
    language: str
    code: str

    def label(self, number: int, answer: int | None = None) -> str:
        """`Copy code block 2 (python, 4 lines)`; of an earlier answer than the last,
        `Copy code block 2 of answer 3 (python, 4 lines)`, answers counted from the first."""
        lines = self.code.count("\n") + 1 if self.code else 0
        language = self.language or "text"
        of = "" if answer is None else f" of answer {answer}"
        return f"Copy code block {number}{of} ({language}, {lines} lines)"


def _dedent(line: str, indent: int) -> str:
    """`line` without up to `indent` leading spaces (CommonMark's rule for fence content)."""
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


def _closes(line: str, fence: str, indent: int) -> bool:
    """A run of the fence's character, at least as long, indented less than four columns more
    than the opening fence (more is code inside the block)."""
    match = _CLOSE.match(line)
    return bool(
        match
        and match["fence"][0] == fence[0]
        and len(match["fence"]) >= len(fence)
        and len(match["indent"]) < indent + 4
    )


def code_blocks(markdown: str) -> list[CodeBlock]:
    """Fenced blocks in order; an unterminated last fence counts (a stopped answer has them)."""
    blocks: list[CodeBlock] = []
    fence = ""
    indent = 0
    language = ""
    body: list[str] = []
    for line in markdown.split("\n"):
        if not fence:
            match = _OPEN.match(line)
            if match and not (match["fence"][0] == "`" and "`" in match["info"]):
                fence, indent = match["fence"], len(match["indent"])
                language = match["info"].strip().split(" ")[0] if match["info"].strip() else ""
                body = []
            continue
        if _closes(line, fence, indent):
            blocks.append(CodeBlock(language, "\n".join(body)))
            fence = ""
            continue
        body.append(_dedent(line, indent))
    if fence:
        blocks.append(CodeBlock(language, "\n".join(body).rstrip("\n")))
    return blocks


__all__ = ["CodeBlock", "code_blocks"]
