"""Tools as a request carries them: what the model is offered, and what a call got back. Pure.

A `ToolSpec` is one tool in the provider's terms (the name the model must call, a description,
a JSON Schema for the arguments); each format wraps it its own way (app/providers/requests.py).
A `ToolResult` is the answer to one call, kept on the call itself (`ToolCall.result`), so the
history, an export and the next request all see the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str  # as the provider sees it: letters, digits, _ and - only
    description: str
    parameters: dict[str, Any] = field(default_factory=dict)


class ResultOrigin(StrEnum):
    MANUAL = "manual"  # typed or given on the command line by the user
    MCP = "mcp"  # what an MCP server answered
    TRIPTYCH = "triptych"  # Triptych's own word: unknown tool, bad arguments, denied, timeout


@dataclass(frozen=True, slots=True)
class ToolResult:
    content: str  # the text sent back to the model
    is_error: bool = False
    origin: ResultOrigin = ResultOrigin.MANUAL
    size: int = 0  # bytes the tool produced before any cut (0: not measured)
    arguments: str | None = None  # the arguments it ran with, when the user edited them

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "content": self.content,
            "is_error": self.is_error,
            "origin": self.origin.value,
        }
        if self.size:
            document["size"] = self.size
        if self.arguments is not None:
            document["arguments"] = self.arguments
        return document

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> ToolResult:
        return cls(
            content=str(document.get("content", "")),
            is_error=bool(document.get("is_error", False)),
            origin=ResultOrigin(document.get("origin", ResultOrigin.MANUAL)),
            size=int(document.get("size", 0)),
            arguments=document.get("arguments"),
        )


__all__ = ["ResultOrigin", "ToolResult", "ToolSpec"]
