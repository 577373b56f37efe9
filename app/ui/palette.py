"""The command palette's plumbing: a choice, a provider over choices, a screen's own commands, and
a picker. Names are shown as literal Content and help texts escaped: a model id from
`GET /models` is provider data and must not be parsed as markup (Textual's SimpleProvider would).

Each screen lists its commands through Textual's `Screen.COMMANDS` with a `ScreenCommands`
provider (app/ui/screens/); the App's own COMMANDS keeps only Textual's system commands."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from textual.app import App
from textual.command import CommandPalette, DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape

from app.display.sanitize import clean_line

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


class ScreenCommands(ChoiceProvider):
    """A screen's own commands (one provider per screen, so they list in their own order),
    then the key sheet, which every screen offers."""

    def commands(self) -> Sequence[Choice]:
        return ()

    def choices(self) -> Sequence[Choice]:
        show_keys = partial(self.app.run_action, "app.show_keys")  # the app's F1
        return [*self.commands(), Choice("Keys and help", show_keys, "f1 · every key here")]


Typed = Callable[[str], "Choice | None"]


def show_choices(
    app: App[Any], offered: Sequence[Choice], placeholder: str, typed: Typed | None = None
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


__all__ = ["Choice", "ChoiceProvider", "ScreenCommands", "Typed", "literal_hit", "show_choices"]
