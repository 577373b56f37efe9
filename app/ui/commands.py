"""Command palette entries. Names are shown as literal Content and help texts escaped: a model
id from `GET /models` is provider data and must not be parsed as markup (Textual's
SimpleProvider would)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape

from app.display.sanitize import clean_line

if TYPE_CHECKING:
    from app.ui.app import TriptychApp


TYPED_SCORE = 1e-6  # below any fuzzy match: what the user typed comes after the listed hits


@dataclass(frozen=True, slots=True)
class Choice:
    name: str
    run: Callable[[], Any]
    help: str = ""


def literal_help(choice: Choice) -> str | None:
    """The palette parses help text as markup: escaped, so a model id in it ("now: …") shows
    as it is."""
    return escape(clean_line(choice.help)) if choice.help else None


def literal_hit(matcher: Matcher, choice: Choice) -> Hit | None:
    name = clean_line(choice.name)
    score, offsets = matcher.fuzzy_search.match(matcher.query, name)
    if score <= 0:
        return None
    content = Content(name)
    for offset in offsets:
        if not name[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return Hit(score, content, choice.run, text=name, help=literal_help(choice))


class ChoiceProvider(Provider):
    """A provider over a fixed list of choices, shown literally."""

    def choices(self) -> Sequence[Choice]:
        return ()

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for choice in self.choices():
            hit = literal_hit(matcher, choice)
            if hit is not None:
                yield hit

    async def discover(self) -> Hits:
        for choice in self.choices():
            name = clean_line(choice.name)
            yield DiscoveryHit(Content(name), choice.run, text=name, help=literal_help(choice))


class TriptychCommands(ChoiceProvider):
    """The app's own commands: provider, model, chat, reasoning, copy, theme."""

    def choices(self) -> Sequence[Choice]:
        app: TriptychApp = self.app  # type: ignore[assignment]
        own = getattr(self.screen, "palette_choices", None)  # e.g. the compare screen's
        found: Sequence[Choice] = own() if callable(own) else app.palette_choices()
        return [*found, Choice("Keys and help", app.action_show_keys, "f1 · every key here")]


Typed = Callable[[str], "Choice | None"]


def show_choices(
    app: Any, offered: Sequence[Choice], placeholder: str, typed: Typed | None = None
) -> None:
    """Open a palette listing `offered` (a provider, model or code-block picker). `typed`
    turns a query that names no choice into one more (e.g. a model id the list lacks); it
    comes last, so Enter takes a listed match first."""

    class Picker(ChoiceProvider):
        items: ClassVar[Sequence[Choice]] = tuple(offered)

        def choices(self) -> Sequence[Choice]:
            return self.items

        async def search(self, query: str) -> Hits:
            async for hit in super().search(query):
                yield hit
            text = query.strip()
            if typed is None or not text or any(c.name == text for c in self.items):
                return
            choice = typed(text)
            if choice is not None:
                name = clean_line(choice.name)
                yield Hit(TYPED_SCORE, Content(name), choice.run, name, literal_help(choice))

    app.push_screen(CommandPalette(providers=[Picker], placeholder=placeholder))


__all__ = ["Choice", "ChoiceProvider", "TriptychCommands", "literal_hit", "show_choices"]
