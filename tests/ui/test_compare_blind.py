"""A blind comparison over three fake providers on loopback: the panes are
called A, B, C in a shuffled order, nothing on screen names a provider, model or price until the
vote, the vote bar's keys vote, the vote is stored, and the next prompt reshuffles."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandPalette
from textual.pilot import Pilot

from app.cli import main
from app.compare.blind import BlindRound, naming
from app.settings.config import Config, ProviderConfig
from app.store import Store
from app.store.votes import Vote
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.compare_pane import ComparePane
from app.ui.widgets.compare_tabs import Tab
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import all_drawn, answer, ask, compare_screen
from tests.ui.helpers import make_app, screen_text, wait_until

WIDE = (170, 40)
# Names that no other word on screen contains, so their absence means something.
WHO = {Api.CHAT: "zebra", Api.MESSAGES: "quokka", Api.RESPONSES: "okapi"}
# Also the price and the finish reason (each api has its own words for it).
SECRETS = [*WHO.values(), *(f"{name}-model" for name in WHO.values()), "$", "finish "]


def blind_config(fakes: dict[Api, FakeProvider]) -> Config:
    providers: dict[str, ProviderConfig] = {
        name: fakes[api].provider(
            api, name=name, model=f"{name}-model", price_in=1.0, price_out=2.0
        )
        for api, name in WHO.items()
    }
    return Config(path=None, default="zebra", providers=providers)


def push_answers(fakes: dict[Api, FakeProvider]) -> None:
    """Answers that name nobody, of different lengths."""
    for n, api in enumerate(WHO, 1):
        fakes[api].push(fake.stream(api, answer(*(["word "] * n))))


def blind_app(fakes: dict[Api, FakeProvider], tmp_path: Path, **kwargs: Any) -> TriptychApp:
    return make_app(
        blind_config(fakes),
        tmp_path,
        history_file=tmp_path / "history.db",
        compare=list(WHO.values()),
        **kwargs,
    )


def differing_seed(panes: int) -> int:
    """A seed whose first two rounds differ (so the reshuffle is visible)."""
    for seed in range(100):
        rng = random.Random(seed)
        if BlindRound.shuffled(panes, rng).order != BlindRound.shuffled(panes, rng).order:
            return seed
    raise AssertionError("no seed reshuffles")


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def on_screen_order(app: TriptychApp) -> list[ComparePane]:
    screen = compare_screen(app)
    return [child for child in screen.container.children if isinstance(child, ComparePane)]


async def voted_round(pilot: Pilot[Any], fakes: dict[Api, FakeProvider], prompt: str) -> str:
    """Ask, wait for every pane and the vote bar; returns the screen as it was before the vote."""
    push_answers(fakes)
    await ask(pilot, prompt)
    await all_drawn(pilot)
    screen = compare_screen(pilot.app)  # type: ignore[arg-type]
    await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
    await pilot.pause()
    return screen_text(pilot.app)  # type: ignore[arg-type]


def read_votes(db: Path) -> list[Vote]:
    store = Store.open(db)
    try:
        return store.votes()
    finally:
        store.close()


async def test_blind_panes_hide_who_is_who_until_the_vote_and_the_vote_is_stored(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    seed = differing_seed(3)
    expected = random.Random(seed)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        base = list(screen._round_panes)  # the panes in the order the comparison named them
        assert [p.provider.name for p in base] == list(WHO.values())
        assert leaks(screen_text(app)) == []  # not even before the first prompt
        screen.rng = random.Random(seed)

        before = await voted_round(pilot, fakes, "first question")
        first = BlindRound.shuffled(3, expected).order
        assert screen.round is not None
        assert screen.round.order == first
        assert on_screen_order(app) == [base[i] for i in first]  # laid out in letter order
        assert [p.header.render().plain for p in on_screen_order(app)] == ["A", "B", "C"]
        assert leaks(before) == []
        assert "TTFT" in before
        assert "tok/s" in before
        assert "out " in before
        asked = "Which is better?  alt+1 A  alt+2 B  alt+3 C  ·  alt+= tie  ·  alt+x all bad"
        assert asked in before
        assert app.focused is screen.prompt  # the bar asks without taking the keyboard

        await pilot.press("alt+2")
        await pilot.pause()
        after = screen_text(app)
        assert not screen.vote_bar.asking
        assert app.focused is screen.prompt
        assert f"vote: B ({base[first[1]].label}) · undo" in after
        for pane in on_screen_order(app):  # revealed in the pane titles
            assert pane.provider.name in pane.header.render().plain
        assert all(name in after for name in WHO.values())
        assert "$" in after
        record = screen.record
        assert record is not None

        before = await voted_round(pilot, fakes, "second question")
        second = BlindRound.shuffled(3, expected).order
        assert second != first
        assert screen.round.order == second
        assert on_screen_order(app) == [base[i] for i in second]
        assert leaks(before) == []  # hidden again
        await pilot.press("shift+tab")  # to the bar, where the plain keys vote
        await pilot.pause()
        assert app.focused is screen.vote_bar
        assert "Which is better?  1 A  2 B  3 C  ·  = tie  ·  x all bad  ·  Esc skip" in (
            screen_text(app)
        )
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is screen.prompt
        assert all(name in screen_text(app) for name in WHO.values())
        conv_id = record.conv_id

    votes = read_votes(tmp_path / "history.db")
    assert [(v.prompt, v.outcome) for v in votes] == [
        ("first question", "winner"),
        ("second question", "skipped"),
    ]
    assert votes[0].winner == first[1]  # key 2: the pane shown as B
    assert votes[1].winner is None
    for vote in votes:
        assert [p.key for p in vote.panes] == [f"{n}:{n}-model" for n in WHO.values()]
        assert vote.conversation_id == conv_id is not None
        assert all(p.message_id is not None and p.ttft_ms is not None for p in vote.panes)
        assert all(p.cost is not None for p in vote.panes)  # kept, though never shown


async def test_tie_and_all_bad_keys_vote(fakes: dict[Api, FakeProvider], tmp_path: Path) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        await voted_round(pilot, fakes, "one")
        await pilot.press("alt+equals_sign")
        await pilot.pause()
        assert "vote: tie · undo" in screen_text(app)
        await voted_round(pilot, fakes, "two")
        await pilot.press("alt+x")
        await pilot.pause()
        assert "vote: all bad · undo" in screen_text(app)
        assert not compare_screen(app).vote_bar.asking
    votes = read_votes(tmp_path / "history.db")
    assert [(v.outcome, v.winner) for v in votes] == [("tie", None), ("all_bad", None)]


async def test_a_comparison_that_is_not_blind_names_its_panes_and_asks_no_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        push_answers(fakes)
        await ask(pilot, "plain")
        await all_drawn(pilot)
        text = screen_text(app)
        assert all(name in text for name in WHO.values())
        assert not compare_screen(app).vote_bar.asking
    assert read_votes(tmp_path / "history.db") == []


def test_blind_without_compare_is_a_usage_error(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path))
    config = tmp_path / "config.toml"
    config.write_text('[providers.x]\napi = "chat"\nbase_url = "http://127.0.0.1:9"\nmodel = "m"\n')
    code = main(["--config", str(config), "--blind"])
    assert code == 2
    assert "--blind" in capsys.readouterr().err


async def test_the_palette_turns_a_comparison_blind_for_the_next_prompt(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        push_answers(fakes)
        await ask(pilot, "named")
        await all_drawn(pilot)
        screen = compare_screen(app)
        assert not screen.hidden
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.press(*"Blind comparison")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen and screen.hidden, what="blind")
        await pilot.pause()
        assert leaks(screen_text(app)) == []

        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="palette")
        await pilot.pause(0.3)
        offered = screen_text(app)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        assert leaks(offered) == []  # the palette names no pane either

        before = await voted_round(pilot, fakes, "blind now")
        assert leaks(before) == []
        await pilot.press("alt+1")
        await pilot.pause()
        assert all(name in screen_text(app) for name in WHO.values())
    votes = read_votes(tmp_path / "history.db")
    assert [(v.prompt, v.outcome) for v in votes] == [("blind now", "winner")]


# More pane selections than a test of two rounds could ever make: past it, tabs and panes are
# activating each other in turn (a livelock), and the test fails instead of spinning forever.
SELECTIONS = 60


@pytest.fixture
def bounded_selections(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every pane selection the comparison makes, failing the app once there are too many."""
    made: list[int] = []
    select = CompareScreen._select

    def counted(screen: CompareScreen, index: int) -> None:
        made.append(index)
        if len(made) > SELECTIONS:
            raise AssertionError(f"{len(made)} pane selections: tabs and panes ping-pong")
        select(screen, index)

    monkeypatch.setattr(CompareScreen, "_select", counted)
    return made


async def test_on_a_narrow_screen_the_tabs_follow_the_letters(
    fakes: dict[Api, FakeProvider], tmp_path: Path, bounded_selections: list[int]
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = compare_screen(app)
        screen.rng = random.Random(differing_seed(3))
        orders = []
        for prompt in ("one", "two"):
            before = await voted_round(pilot, fakes, prompt)
            assert screen.tabs.display
            assert screen.round is not None
            orders.append(screen.round.order)
            tabs = [str(tab.label)[:3] for tab in screen.tabs.query(Tab)]
            assert tabs == ["1 A", "2 B", "3 C"]
            assert str(screen.tabs.active_tab.label).startswith("1 A")  # type: ignore[union-attr]
            assert leaks(before) == []
            await pilot.press("shift+tab", "escape")  # on the bar, Esc skips the vote
            await pilot.pause()
        assert orders[0] != orders[1]  # two shuffles, each laid out in letter order
        # After the vote the tabs name the panes, still in the round's order.
        names = [str(tab.label) for tab in screen.tabs.query(Tab)]
        assert len(names) == 3
        assert all(p.provider.name in n for p, n in zip(screen.panes, names, strict=True))
        await pilot.press("alt+right")  # the tabs still follow the selection
        await pilot.pause()
        assert screen.selected == 1
        assert screen.tabs.active == screen._tab_ids[id(screen.panes[1])]
    assert len(bounded_selections) <= SELECTIONS


async def test_a_stale_tab_activation_does_not_ping_pong_with_the_selection(
    fakes: dict[Api, FakeProvider], tmp_path: Path, bounded_selections: list[int]
) -> None:
    """Two activations queued before either is handled (as the tab row's own first one and the
    shuffled first pane's are, when a blind comparison opens): the stale one is let go."""
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:
        screen = compare_screen(app)
        await pilot.pause()
        first, second = (screen._tab_ids[id(pane)] for pane in screen.panes[1:])
        screen.tabs.active = first
        screen.tabs.active = second
        for _ in range(10):
            await pilot.pause()
        assert screen.selected == 2
        assert screen.tabs.active == second
    assert len(bounded_selections) <= SELECTIONS


async def test_start_up_warnings_naming_a_pane_wait_for_the_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """A config warning naming a compared provider would say it is among the panes (and, with
    its model, which answer is whose): a blind start shows it after the first vote; one naming
    nobody shows at once."""
    named = "/cfg/triptych.toml:7: providers.quokka.temprature: unknown key, ignored"
    other = "/cfg/triptych.toml:1: colour: unknown key, ignored"
    config = replace(blind_config(fakes), warnings=(named, other))
    app = make_app(
        config, tmp_path, history_file=tmp_path / "h.db", compare=list(WHO.values()), blind=True
    )
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        shown = [n.message for n in app._notifications]
        assert shown == [other]
        before = await voted_round(pilot, fakes, "which")
        assert leaks(before) == []
        assert [n.message for n in app._notifications if n.message == named] == []
        await pilot.press("alt+1")
        await pilot.pause()
        assert named in [n.message for n in app._notifications]


def test_naming_matches_whole_names_only() -> None:
    texts = ["a: providers.cc.x: unknown", "b: model: unknown", "c: cc-model is slow", "d"]
    assert naming(texts, ["cc", "m"]) == (
        ["b: model: unknown", "c: cc-model is slow", "d"],
        ["a: providers.cc.x: unknown"],
    )
    assert naming(texts, ["cc-model"]) == (
        ["a: providers.cc.x: unknown", "b: model: unknown", "d"],
        ["c: cc-model is slow"],
    )
