"""The find bar (Ctrl+F, `/` on a selected message): every match in every prompt and answer,
those in answers far above the view whose segments are asleep included, and those in the start
of a long reopened conversation, not drawn yet; n / N (Enter /
Shift+Enter) jump and scroll to each, with a count (`3 of 17`); Esc closes it and gives the
prompt the focus back. Over the fake provider: in a chat, while an answer streams, and in a
comparison's pane."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from app.demo.frames import Answer, frames
from app.demo.samples import pieces
from app.display.find import find_hits, find_pattern
from app.store import Store
from app.ui.app import TriptychApp
from app.ui.widgets.answer import SegmentPlaceholder
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import shown_messages
from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.find_bar import FindBar, stored_parts
from app.ui.widgets.markdown_view import StreamedMarkdown
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from app.wire.events import (
    END_OF_STREAM,
    ReasoningDelta,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from app.wire.turn import Turn
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import all_drawn, compare_screen, config_for
from tests.ui.compare_helpers import ask as ask_all
from tests.ui.helpers import fake_config, make_app, screen_text, send, wait_drawn, wait_until
from tests.ui.tool_helpers import (
    FINAL,
    answer_by_hand,
    calling,
    cards,
    tools_config,
    wait_idle,
)

SIZE = (100, 30)


def long_answer(sections: int, word: str = "", at: tuple[int, ...] = ()) -> str:
    """Sections of prose, a list and code; `word` once in each section of `at`."""
    filler = " ".join(f"filler{i}" for i in range(40))
    return "".join(
        f"## Part {n}\n\n{filler}{' ' + word if n in at else ''}\n\n- one of {n}\n- two\n\n"
        f"```python\nvalue_{n} = {n}\n```\n\n"
        for n in range(sections)
    )


def bar_of(app: TriptychApp) -> FindBar:
    return app.screen.query_one(FindBar)


async def ask(pilot: Pilot[object], fake_provider: FakeProvider, prompt: str, text: str) -> None:
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=pieces(text))))
    await send(pilot, prompt)
    await wait_drawn(pilot)


def current_row(pane: ChatPane, bar: FindBar) -> int | None:
    """The screen row of the current match, if it is drawn and highlighted as current."""
    hit = bar.found.hit
    if hit is None:
        return None
    number = hit.message - len(bar._earlier)
    if not 0 <= number < len(bar._messages):
        return None  # not drawn yet
    widget = bar._messages[number]
    if isinstance(widget, UserMessage):
        return widget.region.y + 0 if widget.region else None
    assert isinstance(widget, AssistantTurn)
    part = hit.part - widget.reasoning.find_count()  # the reasoning's pieces come first
    if part < 0:
        return None
    segment = widget.answer.segments[part]
    if not isinstance(segment, StreamedMarkdown) or segment.find is None:
        return None
    if segment.find.current != hit.nth or not segment.region:
        return None
    return segment.region.y + segment.found_rows()[hit.nth]


def counted(bar: FindBar, label: str) -> bool:
    return str(bar.count.content) == label


def in_view(pane: ChatPane, bar: FindBar) -> bool:
    row = current_row(pane, bar)
    view = pane.transcript.region
    return row is not None and view.y <= row < view.bottom


async def test_ctrl_f_finds_a_word_in_an_answer_far_above_and_scrolls_to_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, fake_provider, "first", long_answer(30, "zanzibar", at=(3,)))
        await ask(pilot, fake_provider, "second", long_answer(30))
        first = app.pane.transcript.query(AssistantTurn).first()
        assert isinstance(first.answer.segments[3], SegmentPlaceholder)  # asleep, not drawn
        assert "zanzibar" not in screen_text(app)
        await pilot.press("ctrl+f")
        bar = bar_of(app)
        assert bar.is_open
        assert isinstance(app.focused, Input)
        await pilot.press(*"Zanzibar")  # any case
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the match in view")
        assert str(bar.count.content) == "1 of 1"
        assert "zanzibar" in screen_text(app)
        assert "1 of 1" in screen_text(app)
        assert not app.pane.transcript.following  # held there, not pulled to the end
        # Esc closes the bar, takes the highlight off and gives the prompt the focus back.
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.is_open
        assert isinstance(app.focused, PromptInput)
        assert all(
            s.find is None
            for turn in app.pane.transcript.query(AssistantTurn)
            for s in turn.answer.segments
            if isinstance(s, StreamedMarkdown)
        )


async def test_n_and_shift_n_step_through_every_match_with_a_count(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, fake_provider, "kiwi one", long_answer(20, "kiwi", at=(1, 7, 15)))
        await ask(pilot, fake_provider, "two kiwi kiwi", long_answer(20, "KIWI", at=(0, 19)))
        await ask(pilot, fake_provider, "three", long_answer(4, "kiwi", at=(2,)))
        total = 1 + 3 + 2 + 2 + 1
        await pilot.press("ctrl+f", *"kiwi")
        bar = bar_of(app)
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the first match shown")
        # Searched forward from the top of the view: the last answer's match.
        assert str(bar.count.content) == f"{total} of {total}"
        await pilot.press("enter")  # round the end: the first match, in the first prompt
        await wait_until(pilot, lambda: str(bar.count.content) == f"1 of {total}")
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the first prompt")
        assert app.focused is bar  # n and N are keys now
        for number in range(2, total + 1):
            await pilot.press("n")
            await wait_until(pilot, partial(counted, bar, f"{number} of {total}"), what="count")
            await wait_until(pilot, lambda: in_view(app.pane, bar), what=f"match {number}")
        await pilot.press("N", "N")
        await wait_until(pilot, lambda: str(bar.count.content) == f"{total - 2} of {total}")
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="two back")
        await pilot.press("shift+enter")
        await wait_until(pilot, lambda: str(bar.count.content) == f"{total - 3} of {total}")
        # Another character goes back into the query, none is lost.
        await pilot.press("x", "n")  # n too, once a character has gone to the query
        await pilot.pause()
        assert bar.query_input.value == "kiwixn"
        assert str(bar.count.content) == "no matches"


def reasoning_row(turn: AssistantTurn, bar: FindBar) -> int | None:
    """The screen row of the current match when it is in the turn's reasoning, drawn and
    highlighted as current there."""
    hit = bar.found.hit
    if hit is None or not turn.reasoning.region:
        return None
    segments = turn.reasoning.body.segments
    if hit.part >= len(segments):
        return None
    segment = segments[hit.part]
    if not isinstance(segment, StreamedMarkdown) or segment.find is None:
        return None
    if segment.find.current != hit.nth or not segment.region:
        return None
    return segment.region.y + segment.found_rows()[hit.nth]


async def test_a_word_only_in_a_collapsed_reasoning_is_found_and_its_pane_opened(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """The reasoning is searched as the answer is: a match there opens its pane (collapsed
    once the answer began) and is shown there, current, in view; the count covers the
    prompts, the reasoning and the answers, in reading order."""
    thinking = " ".join(f"thought{i}" for i in range(30)) + " kiwi is the key. " * 2
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        answer = Answer(text=pieces(long_answer(6, "kiwi", at=(4,))), reasoning=pieces(thinking))
        fake_provider.push(fake.stream(Api.CHAT, answer))
        await send(pilot, "which fruit")
        await wait_drawn(pilot)
        await ask(pilot, fake_provider, "more", long_answer(12))
        turn = app.pane.transcript.query(AssistantTurn).first()
        assert turn.reasoning.collapsed
        await pilot.press("ctrl+f", *"kiwi")
        bar = bar_of(app)
        # Nothing below the top of the view: round the end, to the first, in the reasoning.
        await wait_until(pilot, lambda: counted(bar, "1 of 3"), what="the first match")

        def shown() -> bool:
            row = reasoning_row(turn, bar)
            view = app.pane.transcript.region
            return row is not None and view.y <= row < view.bottom

        await wait_until(pilot, shown, what="the reasoning's match in view")
        assert not turn.reasoning.collapsed  # opened to show it
        assert "kiwi is the key" in screen_text(app)
        await pilot.press("enter")  # the next; n and N are keys on the bar from now on
        await wait_until(pilot, lambda: counted(bar, "2 of 3"), what="the second")
        await wait_until(pilot, shown, what="the reasoning's second match")
        await pilot.press("n")
        await wait_until(pilot, lambda: counted(bar, "3 of 3"), what="the answer's match")
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the answer's in view")
        await pilot.press("n")
        await wait_until(pilot, lambda: counted(bar, "1 of 3"), what="round again")
        await wait_until(pilot, shown, what="the reasoning's first match again")


async def test_tool_arguments_and_a_long_results_hidden_end_are_found(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """A tool call's arguments and its result are searched as the answer is; a match in the
    part of a long result that is not shown opens the result, current and in view."""
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Quito"}')),
        fake.stream(Api.CHAT, FINAL),
    )
    app = make_app(tools_config(fake_provider), tmp_path)
    long = "\n".join(f"line {n}" for n in range(1, 40)) + "\nquito at the end"
    async with app.run_test(size=SIZE) as pilot:
        await answer_by_hand(pilot, long)
        await wait_idle(pilot)
        (card,) = cards(app)
        outcome = card.outcome
        assert not outcome.expanded
        await pilot.press("ctrl+f", *"quito")
        bar = bar_of(app)
        await wait_until(pilot, lambda: counted(bar, "1 of 2"), what="the arguments' match")
        assert '"Quito"' in screen_text(app)
        assert not outcome.expanded
        await pilot.press("enter")
        await wait_until(pilot, lambda: counted(bar, "2 of 2"), what="the result's match")
        await wait_until(pilot, lambda: outcome.expanded, what="the result opened")

        def in_sight() -> bool:
            body = outcome.query_one(".tool-outcome--body")
            view = app.pane.transcript.region
            row = body.region.y + long.count("\n")
            return bool(body.region) and view.y <= row < view.bottom

        await wait_until(pilot, in_sight, what="the result's last line in view")
        assert "quito at the end" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert not outcome.marked  # the highlight taken off with the bar


def halted(text: str, pause: float) -> fake.Reply:
    """The first half of the answer at once, then `pause` seconds, then the rest."""
    sent = frames(Api.CHAT, Answer(text=pieces(text)))
    half = len(sent) // 2
    return fake.scripted([(0.0, b"".join(sent[:half])), (pause, b"".join(sent[half:]))])


async def test_matches_are_counted_as_an_answer_streams_and_esc_leaves_it_streaming(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, fake_provider, "before", long_answer(3, "mango", at=(1,)))
        await pilot.press("ctrl+f", *"mango")
        bar = bar_of(app)
        await wait_until(pilot, partial(counted, bar, "1 of 1"))
        fake_provider.push(halted(long_answer(12, "mango", at=tuple(range(0, 12, 2))), 3.0))
        await send(pilot, "stream on")  # the bar stays open
        await wait_until(pilot, lambda: len(bar.found.hits) > 2, what="the first half counted")
        assert app.pane.streaming
        assert bar.found.hit == bar.found.hits[0]  # the current match stays current
        await pilot.press("escape")  # closes the bar; the answer goes on
        await pilot.pause()
        assert not bar.is_open
        turn = app.pane.turn
        assert turn is not None
        assert not turn.done
        await wait_drawn(pilot, 30)
        await pilot.press("ctrl+f")  # the query is kept, and counted anew
        await wait_until(pilot, lambda: len(bar.found.hits) == 1 + 6)


async def test_slash_on_a_selected_message_opens_the_bar(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, fake_provider, "hello", "Just one answer about a papaya.")
        await pilot.press("alt+up")
        await pilot.pause()
        await pilot.press("slash")
        await pilot.pause()
        bar = bar_of(app)
        assert bar.is_open
        assert isinstance(app.focused, Input)
        await pilot.press(*"papaya")
        await wait_until(pilot, lambda: str(bar.count.content) == "1 of 1")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.focused, PromptInput)


async def test_find_in_a_comparison_searches_the_selected_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, name in (
        (Api.CHAT, "cc"),
        (Api.MESSAGES, "am"),
        (Api.RESPONSES, "rs"),
    ):
        text = long_answer(25, "quince", at=(2,) if name == "am" else (2, 3))
        fakes[api].push(fake.stream(api, Answer(text=pieces(text))))
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=(160, 40)) as pilot:
        screen = compare_screen(app)
        await ask_all(pilot, "fruit")
        await all_drawn(pilot)
        await pilot.press("alt+right")  # pane 2
        await pilot.pause()
        await pilot.press("ctrl+f", *"quince")
        bar = bar_of(app)
        pane = screen.panes[1]
        await wait_until(pilot, lambda: in_view(pane, bar), what="the match in pane 2")
        assert str(bar.count.content) == "1 of 1"
        assert bar.pane is pane


def long_history(path: Path, *, thought_and_called: bool = False) -> None:
    """A conversation too long to draw whole when reopened: the word is in its first answer
    (with `thought_and_called`, in that turn's reasoning and a tool call's arguments too)."""
    store = Store.open(path, clock=lambda: 1_700_000_000.0)
    conv = store.create_conversation()
    for number in range(6):
        store.add_user_message(conv, f"question {number}")
        turn_id = store.start_turn(conv, provider="fake", model="m-1", api="chat")
        turn = Turn()
        text = long_answer(12, "persimmon", at=(5,) if number == 0 else ())
        extra: list[object] = []
        if thought_and_called and number == 0:
            extra = [
                ReasoningDelta("A persimmon, I think."),
                ToolCallStart(0, "call_1", "lookup"),
                ToolCallArgsDelta(0, '{"fruit": "persimmon"}'),
                ToolCallEnd(0),
            ]
        turn.apply_all([*extra, TextDelta(text), END_OF_STREAM])  # type: ignore[list-item]
        turn.end()
        store.save_turn(turn_id, turn, ttft_ms=300, duration_ms=900, final=True)
    store.close()


async def test_a_match_in_the_undrawn_start_of_a_reopened_conversation_is_drawn_and_shown(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    long_history(db)
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.pane.earlier, what="a conversation drawn in part")
        assert not any(
            "persimmon" in turn.answer.source for turn in app.screen.query(AssistantTurn)
        )
        await pilot.press("ctrl+f", *"persimmon")
        bar = bar_of(app)
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the match drawn and shown")
        assert str(bar.count.content) == "1 of 1"
        first = app.pane.transcript.query(UserMessage).first()
        assert first.text == "question 0"  # drawn down to the start


async def test_the_undrawn_start_is_counted_as_it_will_be_drawn_reasoning_and_calls_too(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Before the start of a reopened conversation is drawn, its stored reasoning and tool
    calls are searched too, in the order they are drawn: drawing it changes no count."""
    db = tmp_path / "history.sqlite3"
    long_history(db, thought_and_called=True)
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.pane.earlier, what="a conversation drawn in part")
        pattern = find_pattern("persimmon")
        assert pattern is not None
        undrawn = [stored_parts(m) for m in shown_messages(app.pane.earlier, app.pane.history.pane)]
        assert len(find_hits(undrawn, pattern)) == 3  # counted before a line of it is drawn
        await pilot.press("ctrl+f", *"persimmon")
        bar = bar_of(app)
        await wait_until(pilot, lambda: counted(bar, "1 of 3"), what="three, the reasoning first")
        await wait_until(pilot, lambda: not app.pane.earlier, what="the start drawn")
        turn = app.pane.transcript.query(AssistantTurn).first()
        await wait_until(pilot, lambda: reasoning_row(turn, bar) is not None, what="shown there")
        assert counted(bar, "1 of 3")
        await pilot.press("enter")
        await wait_until(pilot, lambda: counted(bar, "2 of 3"), what="the answer's")
        await wait_until(pilot, lambda: in_view(app.pane, bar), what="the answer's in view")
        await pilot.press("n")
        await wait_until(pilot, lambda: counted(bar, "3 of 3"), what="the call's")
        (card,) = turn.cards.values()
        assert card.find_parts()[0] == '{\n  "fruit": "persimmon"\n}'
        assert '"persimmon"' in screen_text(app)
