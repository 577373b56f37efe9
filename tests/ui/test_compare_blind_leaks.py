"""Blind comparison: nothing on screen names a provider or model until the vote:
every screen captured through a round is searched, while one pane streams, once a pane failed
with an error naming its provider and model (and a code of its own) and another was cut off, with
the footer, the keys sheet, the palette and the notices the refused keys give. After the vote the
error is shown whole and the keys come back."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot

from app.demo.frames import Answer, frames
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.screens.compare_wire import visible_rows
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import answer, ask, compare_screen
from tests.ui.helpers import footer_text, screen_text, wait_until
from tests.ui.test_compare_blind import SECRETS, WHO, blind_app

WIDE = (170, 40)
ERROR = "zebra-model at zebra is overloaded"
CODE = "zebra_overloaded"  # the server's own code names it too
LEAKY = [*SECRETS, CODE]


def leaks(text: str) -> list[str]:
    return [secret for secret in LEAKY if secret in text]


def notices(app: TriptychApp) -> str:
    return "\n".join(notification.message for notification in app._notifications)


class Captures:
    """Every screen (and every notice) seen before the vote, by what was on it."""

    def __init__(self, pilot: Pilot[Any]) -> None:
        self.pilot = pilot
        self.seen: dict[str, str] = {}

    async def take(self, what: str) -> str:
        await self.pilot.pause()
        app = self.pilot.app
        assert isinstance(app, TriptychApp)
        text = self.seen[what] = f"{screen_text(app)}\n{notices(app)}"
        return text

    def leaked(self) -> dict[str, list[str]]:
        return {what: found for what, text in self.seen.items() if (found := leaks(text))}


def push_round(fakes: dict[Api, FakeProvider]) -> None:
    """zebra fails naming itself, quokka streams slowly, okapi's stream is cut off."""
    fakes[Api.CHAT].push(fake.http_error(Api.CHAT, 500, CODE, ERROR))
    # 3 s of streaming: its state word comes from the status line, which a loaded machine's
    # render clock may redraw only about once a second (0.6 s of it was missed at times)
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer(*(["word "] * 12)), delay=0.25))
    fakes[Api.RESPONSES].push(fake.cut_mid_event(Api.RESPONSES, answer("some ", "words")))


async def test_nothing_names_a_provider_before_the_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        shots = Captures(pilot)
        await shots.take("before the first prompt")
        push_round(fakes)
        await ask(pilot, "which one")
        slow = next(p for p in screen.panes if p.provider.name == WHO[Api.MESSAGES])
        await wait_until(pilot, lambda: slow.state == "streaming", what="quokka streaming")
        await shots.take("while a pane streams")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        failed = await shots.take("every pane done")
        assert "✖ failed" in failed  # the failure itself shows: it is a fair criterion
        assert "⚠ interrupted" in failed
        assert "why shows after the vote" in failed
        assert "continue alone" not in footer_text(app)  # it would name the pane's provider

        for key in ("ctrl+g", "ctrl+o", "f2"):  # refused, with a notice that names nobody
            await pilot.press(key)
            await shots.take(f"after {key}")
            assert app.screen is screen
            assert screen.hidden
        assert "vote first" in notices(app)

        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen is not screen, what="the keys sheet")
        await shots.take("the keys sheet")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="back")

        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        palette = app.screen
        await wait_until(pilot, lambda: palette.has_class("-ready"), what="the palette's list")
        await shots.take("the palette")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="back")
        screen.vote_bar.focus()
        assert shots.leaked() == {}

        await pilot.press("1")
        await pilot.pause()
        after = screen_text(app)
        assert ERROR in after.replace("\n", " ") or "zebra-model at zebra" in after
        assert CODE in after
        zebra = next(p for p in screen.panes if p.provider.name == WHO[Api.CHAT])
        assert CODE in zebra.status_bar.render().plain  # its status line says it again too
        assert all(name in after for name in WHO.values())
        assert "continue alone" in footer_text(app)
        assert not screen.hidden


async def test_a_failed_pane_says_why_at_once_when_the_comparison_is_not_blind(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        assert isinstance(screen, CompareScreen)
        push_round(fakes)
        await ask(pilot, "named")
        await wait_until(
            pilot, lambda: all(p.turn is not None and p.turn.done for p in screen.panes)
        )
        await wait_until(pilot, lambda: CODE in screen_text(app), what="the error code")
        assert "zebra-model at zebra" in screen_text(app)


# Round one's answers, one per provider: words no other text on screen contains.
FIRST = {Api.CHAT: "aardvark striped", Api.MESSAGES: "bison hopping", Api.RESPONSES: "civet tall"}
HIDDEN_NOTE = "earlier rounds hidden until the vote"


async def test_a_second_blind_round_hides_the_first_rounds_answers_until_its_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """After round one's vote each pane's answers say who it is: in round two, before its vote,
    no pane shows round one's answers (nor any name); the vote brings them back."""
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        shots = Captures(pilot)
        for api, text in FIRST.items():
            fakes[api].push(fake.stream(api, answer(text)))
        await ask(pilot, "round one")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="round one's vote bar")
        await pilot.press("alt+1")
        await pilot.pause()
        revealed = screen_text(app)
        assert all(text in revealed for text in FIRST.values())  # named and seen
        assert all(name in revealed for name in WHO.values())

        for api in WHO:  # round two: the same words from everyone, one pane slow
            fakes[api].push(fake.stream(api, answer(*(["word "] * 8)), delay=0.2))
        await ask(pilot, "round two")
        await wait_until(pilot, lambda: bool(screen.busy), what="round two streaming")
        during = await shots.take("round two streaming")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="round two's vote bar")
        waiting = await shots.take("round two's vote bar")
        assert shots.leaked() == {}
        for text in (during, waiting):
            assert [t for t in FIRST.values() if t in text] == []
            assert "round one" not in text
            assert "round two" in text  # this round's prompt and answers do show
            assert HIDDEN_NOTE in text
        for _ in range(4):  # Alt+Up selects up to this round's prompt, not a hidden one
            await pilot.press("alt+up")
        selected = screen.branches.selected
        assert selected is not None
        assert not selected.has_class("-earlier-round")
        screen.vote_bar.focus()

        await pilot.press("2")
        await pilot.pause()
        after = screen_text(app)
        assert all(text in after for text in FIRST.values())  # restored after the vote
        assert HIDDEN_NOTE not in after


# One prompt's input as each format counts it (the demo's were 9, 14 and 16), no cache hit:
# Responses alone reports its cache (`cache 0%`), the others say nothing of one.
INPUT = {Api.CHAT: 9, Api.MESSAGES: 14, Api.RESPONSES: 16}
FIGURE = re.compile(r"[A-Za-z][A-Za-z/]*")


def fields(line: str) -> set[str]:
    """The names of the figures on a status line (`TTFT`, `tok/s`, `in`, `cache`...)."""
    return set(FIGURE.findall(line))


async def test_no_figure_tells_the_formats_apart_before_the_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """Every pane's status line names the same figures, the ranking and the timelines count
    nothing a format reports its own way, and the counts come back with the vote."""
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        for api, tokens in INPUT.items():
            words = answer("the ", "same ", "words")
            fakes[api].push(fake.stream(api, replace(words, input_tokens=tokens, cached_tokens=0)))
        await ask(pilot, "which one")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.press("f4")  # the timelines too
        await wait_until(pilot, lambda: len(visible_rows(screen.panes)) == 3, what="timelines")
        await pilot.pause(0.3)
        lines = [pane.status_bar.render().plain for pane in screen.panes]
        assert all("complete" in line for line in lines), lines
        assert len({frozenset(fields(line)) for line in lines}) == 1, lines
        shown = screen_text(app)
        for tokens in INPUT.values():
            assert f"in {tokens} " not in shown
        assert "cache" not in shown
        assert "ranking" in shown  # it is shown, with nothing a format counts its own way

        screen.vote_bar.focus()
        await pilot.press("1")
        await pilot.pause()
        after = [pane.status_bar.render().plain for pane in screen.panes]
        for pane, line in zip(screen.panes, after, strict=True):
            api = pane.provider.api
            assert f"in {INPUT[api]} out" in line, line
            assert ("cache 0%" in line) is (api is Api.RESPONSES), line


def without_usage(api: Api, reply: Answer) -> Any:
    """The answer's frames with no usage in them: a server that reports no counts."""
    pieces = []
    for frame in frames(api, reply):
        if b'"usage"' in frame and frame.startswith(b"data: "):
            document = json.loads(frame.removeprefix(b"data: "))
            document.pop("usage")
            frame = b"data: " + json.dumps(document).encode() + b"\n\n"
        pieces.append((0.0, frame))
    return fake.scripted(pieces)


async def test_a_format_that_reports_no_counts_shows_the_same_figures_before_the_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        for api in INPUT:
            words = answer("the ", "same ", "words")
            fakes[api].push(
                without_usage(api, words) if api is Api.CHAT else fake.stream(api, words)
            )
        await ask(pilot, "which one")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.pause(0.3)
        lines = [pane.status_bar.render().plain for pane in screen.panes]
        assert all("complete" in line for line in lines), lines
        assert len({frozenset(fields(line)) for line in lines}) == 1, lines
