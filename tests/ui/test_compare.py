"""The comparison screen against three fake providers over loopback, one per wire format (each
its own server: concurrent requests arrive in any order). Streams are independent: one pane's
failure, slowness or stop shows in that pane only."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.demo.frames import INTERRUPTED_MESSAGE
from app.display.status_line import ERROR
from app.ui.app import TriptychApp
from app.ui.render_clock import MAX_PERIOD, next_period
from app.ui.screens.compare import longest_period
from app.ui.widgets.assistant_turn import outcome_text
from app.ui.widgets.compare_pane import ComparePane
from app.wire.engine import Api
from app.wire.turn import TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.compare_helpers import (
    NAMES,
    PLAIN,
    all_drawn,
    ask,
    compare_screen,
    config_for,
    reached,
)
from tests.ui.helpers import make_app, screen_text, wait_until

WIDE = (160, 48)
NARROW = (80, 40)
FAILING = replace(PLAIN, text=("Half", " an", " answer", " lost"), error_after=2)


def compare_app(fakes: dict[Api, FakeProvider], tmp_path: Path, **kwargs: Any) -> TriptychApp:
    return make_app(
        config_for(fakes, price_in=1.0, price_out=2.0),
        tmp_path,
        compare=["cc", "am", "rs"],
        **kwargs,
    )


def pane_of(app: TriptychApp, api: Api) -> ComparePane:
    return compare_screen(app).panes[list(Api).index(api)]


def status(pane: ComparePane) -> TurnStatus:
    assert pane.turn is not None
    return pane.turn.status


def disconnected(server: FakeProvider, timeout: float = 3.0) -> float | None:
    request = server.last_request()
    deadline = time.monotonic() + timeout
    while request.disconnected is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return request.disconnected


# -- streaming ---------------------------------------------------------------------------------


async def test_three_formats_stream_at_once_and_a_failure_stays_in_its_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, ANSWER))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, FAILING))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        assert [p.provider.name for p in screen.panes] == ["cc", "am", "rs"]
        assert not screen.ranking.display
        await ask(pilot, "hello all")
        await all_drawn(pilot)
        cc, am, rs = screen.panes
        assert [status(p) for p in (cc, am, rs)] == [
            TurnStatus.COMPLETE,
            TurnStatus.FAILED,
            TurnStatus.COMPLETE,
        ]
        assert cc.current is not None
        assert cc.current.answer.source == "Hello, world."
        assert cc.current.reasoning.chars > 0
        assert list(cc.current.cards) == [0]  # the tool call card
        assert am.current is not None
        assert am.current.answer.source == "Half an"  # the partial answer stays
        assert any(role == ERROR for _, role in am.status_bar.segments)
        # The message once, in the pane under the answer; the status line keeps the code.
        assert INTERRUPTED_MESSAGE not in am.status_bar.plain
        assert INTERRUPTED_MESSAGE[1:] in outcome_text(am.current.turn)
        for pane in (cc, rs):
            assert pane.status_bar.segments[0][0] == "complete"
            assert not any(role == ERROR for _, role in pane.status_bar.segments)
            assert "TTFT" in pane.status_bar.plain
            assert "$0.0000" in pane.status_bar.plain  # priced: 1 and 2 per million
        text = screen_text(app)
        assert "✖ failed" in text
        assert text.count("✖ failed") == 1
        assert "1 · cc · cc-model · chat" in text
        assert "2 · am · am-model · messages" in text
        assert "3 · rs · rs-model · responses" in text
        assert screen.ranking.display
        ranking = screen.ranking.text
        assert ranking.startswith("time and cost: lower is better · first token: ")
        assert "total: " in ranking
        assert "am failed" in ranking.split("total: ")[1]
        assert "cost: " in ranking
        for api, server in fakes.items():
            assert len(server.requests) == 1, api


async def test_a_slow_provider_holds_no_other_back(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.05))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, PLAIN))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "go")
        cc, am, rs = compare_screen(app).panes
        await wait_until(
            pilot,
            lambda: all(p.current is not None and p.current.drawn for p in (am, rs)),
            what="the fast panes",
        )
        assert cc.streaming
        assert status(cc) is TurnStatus.STREAMING
        assert not compare_screen(app).ranking.display  # not until every pane is done
        await pilot.press("escape")
        await all_drawn(pilot)
        assert status(cc) is TurnStatus.STOPPED
        assert [status(am), status(rs)] == [TurnStatus.COMPLETE] * 2
        assert compare_screen(app).ranking.display


async def test_escape_stops_every_pane_and_closes_every_connection(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, server in fakes.items():
        server.push(fake.paced_forever(api, PLAIN, delay=0.03))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "go on")
        panes = compare_screen(app).panes
        await wait_until(
            pilot,
            lambda: all(p.current and "word2" in p.current.answer.source for p in panes),
            what="every pane streaming",
        )
        pressed = time.monotonic()
        await pilot.press("escape")
        await all_drawn(pilot)
        assert [status(p) for p in panes] == [TurnStatus.STOPPED] * 3
        for server in fakes.values():
            gone = disconnected(server)
            assert gone is not None, "a server never saw its client go away"
            assert gone - pressed < 1.0
        assert screen_text(app).count("■ stopped") == 3
        assert compare_screen(app).ranking.text == "every pane was stopped: nothing to rank"


async def test_ctrl_s_stops_the_selected_pane_only(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, server in fakes.items():
        server.push(fake.paced_forever(api, PLAIN, delay=0.03))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "go on")
        screen = compare_screen(app)
        cc, am, rs = screen.panes
        await reached(pilot, am, "word1")
        await pilot.press("alt+right")
        assert screen.selected_pane is am
        assert am.has_class("-selected")
        assert not cc.has_class("-selected")
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: am.current is not None and am.current.drawn)
        assert status(am) is TurnStatus.STOPPED
        assert disconnected(fakes[Api.MESSAGES]) is not None
        assert cc.streaming
        assert rs.streaming
        before = len(cc.current.answer.source) if cc.current else 0
        await wait_until(
            pilot, lambda: cc.current is not None and len(cc.current.answer.source) > before + 20
        )  # the others go on
        await ask(pilot, "next")  # refused while any pane still answers
        assert len(fakes[Api.MESSAGES].requests) == 1
        assert "next" in screen.prompt.text
        await pilot.press("escape")
        await all_drawn(pilot)
        assert [status(p) for p in (cc, rs)] == [TurnStatus.STOPPED] * 2


async def test_follow_ups_continue_each_panes_own_conversation(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    answers = {api: replace(PLAIN, text=(f"I am {name}.",)) for api, name in NAMES.items()}
    for api, server in fakes.items():
        server.push(fake.stream(api, answers[api]), fake.stream(api, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "who are you")
        await all_drawn(pilot)
        await ask(pilot, "and then")
        await wait_until(pilot, lambda: all(len(s.requests) == 2 for s in fakes.values()))
        await all_drawn(pilot)
        for api, server in fakes.items():
            body = server.requests[-1].body.decode()
            assert f"I am {NAMES[api]}." in body, api
            others = [n for a, n in NAMES.items() if a is not api]
            assert all(f"I am {n}." not in body for n in others), api
            assert "who are you" in body
            assert "and then" in body


# -- panes and layout --------------------------------------------------------------------------


async def test_panes_sit_side_by_side_when_wide_and_one_shows_under_tabs_when_narrow(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        panes = compare_screen(app).panes
        await pilot.pause()
        assert not compare_screen(app).container.has_class("-tabbed")
        assert len({p.region.y for p in panes}) == 1
        assert panes[0].region.x < panes[1].region.x < panes[2].region.x
        await pilot.resize_terminal(*NARROW)
        await pilot.pause(0.1)
        assert compare_screen(app).container.has_class("-tabbed")
        assert [p.display for p in panes] == [True, False, False]
        assert panes[0].region.width == NARROW[0]


async def test_add_and_remove_panes_between_two_and_four(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, replace(PLAIN, text=("First.",))))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, PLAIN))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, PLAIN))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "q1")
        await all_drawn(pilot)
        cc = app.config.providers["cc"]
        added = await screen.add_pane(replace(cc, model="other"), "other")
        assert added is not None
        await pilot.pause()
        assert len(screen.panes) == 4
        assert screen.selected_pane is added
        assert "4 · cc · other · chat" in screen_text(app)
        assert [m.text for m in added.conversation.messages] == ["q1", "First."]
        assert [p.label for p in screen.panes] == ["cc:cc-model", "am", "rs", "cc:other"]
        assert await screen.add_pane(cc, cc.model) is None  # five is too many
        assert len(screen.panes) == 4
        assert await screen.remove_pane(screen.panes[1])
        await pilot.pause()
        assert [p.provider.name for p in screen.panes] == ["cc", "rs", "cc"]
        assert [p.number for p in screen.panes] == [1, 2, 3]
        assert await screen.remove_pane()
        assert not await screen.remove_pane()  # two is the least
        assert len(screen.panes) == 2


async def test_every_pane_draws_its_new_text_on_the_same_tick(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """One render tick draws every pane (one layout for all of them), so no pane lags the
    others by a turn while they stream together."""
    long_answer = replace(PLAIN, text=tuple(f"word{i} " for i in range(150)))
    for api, server in fakes.items():
        server.push(fake.stream(api, long_answer, delay=0.004))
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        grew: dict[int, set[int]] = {}

        def spy(pane: ComparePane) -> Callable[[float], Awaitable[bool]]:
            draw = pane.flush

            async def flush(now: float) -> bool:
                before = len(pane.current.answer.source) if pane.current else 0
                done = await draw(now)
                if pane.current is not None and len(pane.current.answer.source) > before:
                    grew.setdefault(app.render_clock.ticks, set()).add(pane.number)
                return done

            return flush

        for pane in screen.panes:
            pane.flush = spy(pane)  # type: ignore[method-assign]
        await ask(pilot, "go")
        await all_drawn(pilot)
        assert [status(p) for p in screen.panes] == [TurnStatus.COMPLETE] * 3
        assert any(len(numbers) == 3 for numbers in grew.values()), grew
        for pane in screen.panes:
            assert pane.current is not None
            assert pane.current.answer.source == "".join(long_answer.text)


async def test_the_render_clock_may_stretch_further_while_a_comparison_shows(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    assert next_period(MAX_PERIOD, load=1.0, longest=2 * MAX_PERIOD) > MAX_PERIOD
    assert next_period(MAX_PERIOD, load=1.0) == MAX_PERIOD
    assert [longest_period(n) for n in (2, 3, 4)] == [MAX_PERIOD, 1.5 * MAX_PERIOD, 2 * MAX_PERIOD]
    app = compare_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert app.render_clock.max_period == longest_period(3)
        await compare_screen(app).remove_pane()
        assert app.render_clock.max_period == longest_period(2)
        app.pop_screen()  # back to the chat
        await pilot.pause()
        assert app.render_clock.max_period == MAX_PERIOD


async def test_a_pane_whose_key_is_missing_says_so_before_enter_and_sends_nothing(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: Any
) -> None:
    """As the chat does: the pane's status says which variable to set before anything is
    sent; on Enter the other panes answer and this one fails with the same words, its
    server never asked."""
    monkeypatch.delenv("TRIPTYCH_TEST_NO_SUCH_KEY", raising=False)
    config = config_for(fakes)
    am = replace(config.providers["am"], api_key_env="TRIPTYCH_TEST_NO_SUCH_KEY")
    config = replace(config, providers={**config.providers, "am": am})
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, ANSWER))
    fakes[Api.RESPONSES].push(fake.stream(Api.RESPONSES, ANSWER))
    app = make_app(config, tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=(170, 40)) as pilot:
        await pilot.pause()
        missing = "key missing: set $TRIPTYCH_TEST_NO_SUCH_KEY"
        await wait_until(pilot, lambda: missing in pane_of(app, Api.MESSAGES).status_bar.plain)
        assert missing not in pane_of(app, Api.CHAT).status_bar.plain
        await ask(pilot, "hello")
        await all_drawn(pilot)
        assert not fakes[Api.MESSAGES].requests
        assert len(fakes[Api.CHAT].requests) == len(fakes[Api.RESPONSES].requests) == 1
        turn = pane_of(app, Api.MESSAGES).turn
        assert turn is not None
        assert turn.status is TurnStatus.FAILED
        assert "TRIPTYCH_TEST_NO_SUCH_KEY" in outcome_text(turn)
