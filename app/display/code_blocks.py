"""Code blocks of a Markdown answer, as raw text, for "copy code block N"."""

from __future__ import annotations

import re
from dataclasses import dataclass

_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True, slots=True)
class CodeBlock:
    language: str
    code: str

    def label(self, number: int) -> str:
        lines = self.code.count("\n") + 1 if self.code else 0
        language = self.language or "text"
        return f"Copy code block {number} ({language}, {lines} lines)"


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
        stripped = line.strip()
        if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
            blocks.append(CodeBlock(language, "\n".join(body)))
            fence = ""
            continue
        body.append(line[indent:] if line[:indent].isspace() else line.lstrip())
    if fence:
        blocks.append(CodeBlock(language, "\n".join(body).rstrip("\n")))
    return blocks


__all__ = ["CodeBlock", "code_blocks"]
