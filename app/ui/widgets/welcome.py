"""The card an empty chat shows, so the first screen says what this is and what to press.

On the offline demo it lists the words the demo answers to and, when there is no config file
yet, the exact file to create. With a real provider it names the provider and model. Either way
it says which API key variables it found (an exported key is all a provider needs). Only the
few keys that matter are here; F1 lists them all (the key sheet, built from the bindings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from app.display.sanitize import clean_line
from app.settings.paths import create_config_hint

DEMO_WORDS = (
    ("think", "reasoning streams first"),
    ("tool", "a tool call builds live"),
    ("long", "a long answer: Esc stops it"),
    ("cut", "the connection drops mid-answer"),
    ("error", "the provider fails mid-stream"),
)
KEYS = (
    ("Enter", "send"),
    ("Esc", "stop"),
    ("Ctrl+P", "commands"),
    ("Ctrl+O", "history"),
    ("F1", "all keys"),
)


@dataclass(frozen=True, slots=True)
class WelcomeFacts:
    provider: str
    model: str
    demo: bool
    create: Path | None = None  # the config file to create; None when one was read
    keys: tuple[str, ...] = ()  # the key variables found set (names, never values)


def welcome_content(facts: WelcomeFacts) -> Content:
    """Literal text (a model id is never markup), keys and words picked out by style."""
    lines: list[Content] = []
    if facts.demo:
        lines.append(Content("This is the offline demo: sample answers, no key, no network."))
        lines.append(Content("Try a prompt with one of its words:"))
        lines += [
            Content.assemble("  ", (f"{word:<7}", "bold $text-accent"), (what, "$text-muted"))
            for word, what in DEMO_WORDS
        ]
    else:
        lines.append(
            Content.assemble(
                "Chatting with ",
                (clean_line(f"{facts.provider} · {facts.model}"), "bold"),
                ". Ctrl+P switches provider or model.",
            )
        )
    if facts.demo:
        lines.append(Content(""))
    if facts.keys or facts.demo:
        lines.append(_keys_line(facts.keys, facts.demo))
    lines.append(Content(""))
    keys: list[str | Content | tuple[str, str]] = []
    for index, (key, what) in enumerate(KEYS):
        if index:
            keys.append((" · ", "$text-muted"))
        keys += [(key, "bold $text-accent"), f" {what}"]
    lines.append(Content.assemble(*keys))
    if facts.create is not None:
        lines.append(Content(""))
        lines.append(Content(create_config_hint(facts.create)))  # as `providers` says it
    return Content("\n").join(lines)


def _keys_line(found: tuple[str, ...], demo: bool) -> Content:
    """Which key variables were found: each makes its providers usable with no config."""
    if not found:
        return Content.assemble(
            ("No API key found. ", "$text-muted"),
            "Export one (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) and start again.",
        )
    names: list[str | tuple[str, str]] = ["Keys found: "]
    for index, name in enumerate(found):
        names += [", "] if index else []
        names.append((name, "bold"))
    names.append(" — Ctrl+P switches provider." if demo else ".")
    return Content.assemble(*names)


class Welcome(Static):
    DEFAULT_CSS = """
    Welcome {
        width: auto;
        max-width: 100%;
        height: auto;
        margin: 1 1;
        padding: 0 1;
        border: round $primary 60%;
        border-title-color: $text-primary;
        border-title-style: bold;
        color: $foreground;
        background: $background;
    }
    """

    def __init__(self, facts: WelcomeFacts) -> None:
        self._card = welcome_content(facts)
        super().__init__(self._card, markup=False)
        self.facts = facts
        self.border_title = "Welcome to Triptych"

    @property
    def plain(self) -> str:
        return self._card.plain


__all__ = ["DEMO_WORDS", "KEYS", "Welcome", "WelcomeFacts", "welcome_content"]
