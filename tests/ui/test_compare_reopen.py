"""Reopening a stored comparison (`--continue`, or the history screen) shows it as it was when
left: the ranking line and each pane's figures once every pane's last answer is in, the panes
that were on screen (one removed is not brought back, one added comes back), and each pane with
its own conversation, including what an added pane carried on from the pane it was added from.

Every test runs the real app over the fake provider (loopback HTTP) with a history file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.command import CommandPalette
from textual.pilot import Pilot

from app.compare.stats import format_cost, turn_cost
from app.display.speed import format_seconds
from app.settings.config import Config
from app.ui.flows.comparing import leave_comparison
from app.ui.screens.chat import ChatScreen
from app.ui.screens.compare import CompareScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import (
    NAMES,
    PLAIN,
    all_drawn,
    answer,
    ask,
    compare_screen,
    config_for,
    load_last,
    push_each,
    reached,
    run_palette,
)
from tests.ui.helpers import make_app, screen_text, wait_until

WIDE = (180, 48)


def priced_config(fakes: dict[Api, FakeProvider]) -> Config:
    """Priced, so the ranking's cost part and each pane's cost are among what must come back."""
    return config_for(fakes, price_in=3.0, price_out=15.0)


async def reopened(pilot: Pilot[Any], shown: str) -> CompareScreen:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="a comparison")
    await wait_until(pilot, lambda: shown in screen_text(app), what=repr(shown))  # type: ignore[arg-type]
    await pilot.pause()
    return compare_screen(app)  # type: ignore[arg-type]


def body_messages(server: FakeProvider) -> list[tuple[str, str]]:
    """(role, text) of the messages the last Chat Completions request sent."""
    body = json.loads(server.requests[-1].body)
    return [(m["role"], m["content"]) for m in body["messages"] if m["role"] != "system"]


def sections(ranking: str) -> dict[str, str]:
    """The ranking line by part: {"first token": "cc 0.01s › am 0.02s", ...}."""
    named = (part.split(": ", 1) for part in ranking.split(" · "))
    return dict(named)


async def test_a_reopened_comparison_ranks_and_shows_its_figures_as_it_did_live(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("cc ", "says ", "one.")))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am says one.")))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, answer("rs says ", "one.")))
    config = priced_config(fakes)
    app = make_app(config, tmp_path, history_file=db, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
        live = compare_screen(app)
        assert live.ranking.display
        live_ranking = sections(live.ranking.text)
        live_status = [p.status_bar.segments for p in live.panes]
    assert live_ranking["output tokens"] == "am 1 › rs 2 › cc 3"

    stored = load_last(db)
    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "rs says one.")
        assert screen.ranking.display, "a reopened comparison shows no ranking line"
        ranking = sections(screen.ranking.text)
        # Counts and prices are stored exactly: those parts read as they did live.
        assert ranking["output tokens"] == live_ranking["output tokens"]
        assert ranking["cost"] == live_ranking["cost"]
        # Times come back from the saved milliseconds, each pane's own.
        answers = {m.provider: m for m in stored.messages if m.role == "assistant"}
        for name, message in answers.items():
            assert message.ttft_ms is not None
            assert message.duration_ms is not None
            assert f"{name} {message.ttft_ms} ms" in ranking["first token"]
            assert f"{name} {format_seconds(message.duration_ms / 1000)}" in ranking["total"]
        for pane, segments in zip(screen.panes, live_status, strict=True):
            shown = pane.status_bar.plain
            message = answers[pane.provider.name]
            assert message.ttft_ms is not None
            assert message.turn is not None
            assert shown.startswith("complete · "), shown
            assert f"TTFT {message.ttft_ms} ms" in shown
            cost = turn_cost(pane.provider, message.turn.usage)
            assert cost is not None
            assert format_cost(cost) in shown
            for text, _ in segments:  # the exact figures read as they did live
                if text.startswith(("in ", "finish ", "$", "TTFT ", "total ")) or "tok/s" in text:
                    assert text in shown, (text, shown)


async def test_no_ranking_when_the_last_prompt_is_not_answered_in_every_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """Stopped is settled, and ranks; a pane that never answered the last prompt is not."""
    db = tmp_path / "history.sqlite3"
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("cc says one.")))
    fakes[Api.MESSAGES].push(fake.paced_forever(Api.MESSAGES, PLAIN, delay=0.03))
    app = make_app(priced_config(fakes), tmp_path, history_file=db, compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        screen = compare_screen(app)
        am = screen.panes[1]
        await reached(pilot, am, "word2")
        await pilot.press("escape")
        await all_drawn(pilot)
        live = screen.ranking.text
    assert "am stopped" in sections(live)["total"]

    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "cc says one.")
        assert screen.ranking.display
        assert "am stopped" in sections(screen.ranking.text)["total"]
        # Now a prompt is stored that no pane answered (as a crash right after sending it
        # leaves it): the figures on screen are the previous prompt's, so nothing is ranked.
        record = screen.record
        assert record is not None
        record.prompt("unanswered")
    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "unanswered")
        assert not screen.ranking.display


async def test_an_added_pane_reopens_with_the_conversation_it_carried_on(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fakes[Api.CHAT].push(
        fake.json_answer({"data": [{"id": "cc-model"}]}),  # GET /models, for the new pane
        fake.stream(Api.CHAT, answer("cc says two.")),
    )
    fakes[Api.MESSAGES].push(
        fake.stream(Api.MESSAGES, answer("am says one.")),
        fake.stream(Api.MESSAGES, answer("am says two.")),
    )
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, answer("rs says one.")))
    config = priced_config(fakes)
    app = make_app(config, tmp_path, history_file=db, compare=["am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
        screen = compare_screen(app)
        assert screen.selected_pane.provider.name == "am"
        await run_palette(pilot, "Add pane", "cc")
        await wait_until(pilot, lambda: len(fakes[Api.CHAT].requests) == 1, what="its models")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="models")
        await pilot.pause(0.3)
        await pilot.press("enter")  # the first listed: cc's configured model
        await wait_until(pilot, lambda: len(screen.panes) == 3, what="a third pane")
        added = screen.panes[2]
        assert [m.text for m in added.conversation.messages] == ["first", "am says one."]
        fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, answer("rs says two.")))
        await ask(pilot, "second")
        await all_drawn(pilot)
        live_sent = body_messages(fakes[Api.CHAT])
    assert live_sent == [("user", "first"), ("assistant", "am says one."), ("user", "second")]

    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("cc says three.")))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am says three.")))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, answer("rs says three.")))
    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "cc says two.")
        assert [p.provider.name for p in screen.panes] == ["am", "rs", "cc"]
        cc = screen.panes[2]
        shown = [
            line for line in screen_text(app).splitlines() if "am says one." in line
        ]  # the panes sit side by side: the carried answer shows in am's pane and in cc's
        assert sum(line.count("am says one.") for line in shown) == 2
        assert [(m.role, m.text) for m in cc.conversation.messages] == [
            ("user", "first"),
            ("assistant", "am says one."),
            ("user", "second"),
            ("assistant", "cc says two."),
        ]
        assert screen.ranking.display  # every pane answered the last prompt itself
        assert sorted(sections(screen.ranking.text)["output tokens"].split(" = ")) == [
            "am 1",
            "cc 1",
            "rs 1",
        ]
        await ask(pilot, "third")
        await all_drawn(pilot)
        assert body_messages(fakes[Api.CHAT]) == [
            ("user", "first"),
            ("assistant", "am says one."),
            ("user", "second"),
            ("assistant", "cc says two."),
            ("user", "third"),
        ]


async def test_a_removed_pane_stays_removed_when_reopened(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    push_each(fakes, "says one.")
    app = make_app(priced_config(fakes), tmp_path, history_file=db, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
        screen = compare_screen(app)
        assert "am " in screen.ranking.text
        await pilot.press("alt+right")
        assert screen.selected_pane.provider.name == "am"
        assert await screen.remove_pane()
        await pilot.pause()
        # The ranking line names only the panes still on screen.
        assert screen.ranking.display
        assert "am " not in screen.ranking.text
        assert {"cc", "rs"} <= set(screen.ranking.text.replace("›", " ").split())
        for api in (Api.CHAT, Api.RESPONSES):
            fakes[api].push(fake.stream(api, answer(f"{NAMES[api]} says two.")))
        await ask(pilot, "second")
        await all_drawn(pilot)

    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "rs says two.")
        assert [p.provider.name for p in screen.panes] == ["cc", "rs"]
        assert screen.ranking.display


async def test_compare_with_left_before_asking_stores_no_comparison(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """Its panes' answers are all copies of the chat's: stored as they were, every pane would
    reopen as the chat's provider. What is stored is the chat; the comparison is stored once it
    asks something, and then reopens with the providers it compared."""
    db = tmp_path / "history.sqlite3"
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("cc alone.")))
    app = make_app(priced_config(fakes), tmp_path, history_file=db)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "hello")
        await wait_until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await run_palette(pilot, "Compare with", "am")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")
        await wait_until(pilot, lambda: screen_text(app).count("cc alone.") == 2)
        await leave_comparison(app)
        await pilot.pause()
    assert load_last(db).kind == "chat"

    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: "cc alone." in screen_text(app), what="the chat")
        assert isinstance(app.screen, ChatScreen)
        fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("cc compared.")))
        fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am compared.")))
        await run_palette(pilot, "Compare with", "am")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")
        await wait_until(pilot, lambda: screen_text(app).count("cc alone.") == 2)
        await ask(pilot, "now both")
        await all_drawn(pilot)

    stored = load_last(db)
    assert stored.kind == "compare"
    assert [(p.pane, p.provider) for p in stored.panes] == [(0, "cc"), (1, "am")]
    app = make_app(priced_config(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = await reopened(pilot, "am compared.")
        assert [p.provider.name for p in screen.panes] == ["cc", "am"]
        assert screen_text(app).count("cc alone.") == 2


async def test_a_pane_is_added_only_from_a_pane_that_is_done(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """The new pane carries on the selected pane's whole conversation, stored with the next
    prompt; from a pane still answering, that conversation is not whole yet."""
    fakes[Api.CHAT].push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.03))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am says one.")))
    config = priced_config(fakes)
    app = make_app(config, tmp_path, compare=["cc", "am"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        screen = compare_screen(app)
        cc = screen.panes[0]
        await reached(pilot, cc, "word1")
        assert await screen.add_pane(config.providers["rs"], "rs-model") is None
        assert len(screen.panes) == 2
        await pilot.press("escape")
        await all_drawn(pilot)
        added = await screen.add_pane(config.providers["rs"], "rs-model")
        assert added is not None
        assert [m.role for m in added.conversation.messages] == ["user", "assistant"]
