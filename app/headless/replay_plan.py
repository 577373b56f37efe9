"""What `replay FILE --ui` asks, and in which order: the recorded prompts, and which replayed
exchanges answer each (several for one prompt: side by side). Kept apart from `replay.py` so the
app can import it without the headless commands behind it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: the app imports this module on its start-up path
    from app.providers.record import Exchange


def prompt_of(exchange: Exchange) -> str:
    """The last thing the user said in a recorded request, in any of the three formats (its
    text parts joined): what `replay --ui` types into the screen to ask again."""
    body = exchange.request.get("body")
    if not isinstance(body, dict):
        return ""
    items = body.get("messages")
    if items is None:  # Responses: `input` is a string or a list of items
        items = body.get("input")
        if isinstance(items, str):
            return items
    if not isinstance(items, list):
        return ""
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            return _text_of(item.get("content"))
    return ""


def _depth(exchange: Exchange) -> int:
    """How many user turns the request carried (a system message, which Chat Completions sends
    among the messages and the others beside them, does not count)."""
    body = exchange.request.get("body")
    if not isinstance(body, dict):
        return 0
    items = body.get("messages", body.get("input"))
    if not isinstance(items, list):
        return 1
    return sum(1 for item in items if isinstance(item, dict) and item.get("role") == "user")


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


@dataclass(frozen=True, slots=True)
class ReplayPlan:
    """What `replay --ui` asks, in order: each step a prompt and the providers (replayed
    exchanges) that answer it; several providers for one prompt is a comparison."""

    steps: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def side_by_side(self) -> bool:
        return any(len(names) > 1 for _, names in self.steps)


def replay_plan(exchanges: list[Exchange], names: list[str | None]) -> ReplayPlan:
    """Exchanges asking the same prompt at the same depth of conversation are one prompt answered
    side by side (an `ask --compare` recording, each format shaping its body its own way); a
    conversation's exchanges each carry more than the one before, so they follow one another.
    `names[n]` is exchange n's provider (None: not an answer the app can replay, left out)."""
    steps: list[tuple[str, list[str]]] = []
    previous: tuple[str, int] | None = None
    for exchange, name in zip(exchanges, names, strict=True):
        if name is None:
            continue
        asked = (prompt_of(exchange), _depth(exchange))
        if steps and asked == previous and len(steps[-1][1]) < 4:
            steps[-1][1].append(name)
        else:
            steps.append((prompt_of(exchange), [name]))
        previous = asked
    return ReplayPlan(tuple((prompt, tuple(group)) for prompt, group in steps))


__all__ = ["ReplayPlan", "prompt_of", "replay_plan"]
