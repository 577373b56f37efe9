"""Nothing the user types for the prompt is taken by something else: a blind round's vote bar,
a tool's approval row or result editor, a transcript or tab row that has the focus, or an
Enter refused while an answer streams. Votes and approvals come from deliberate keys only (Alt
chords, or plain keys once the user moved to the bar or row), and a cast vote can be undone.
All over loopback with the fake providers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import events
from textual.pilot import Pilot

from app.ui.app import TriptychApp
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import all_drawn, ask, compare_screen
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until
from tests.ui.test_compare_blind import WHO, blind_app, push_answers, read_votes
from tests.ui.tool_helpers import (
    FINAL,
    PROMPT,
    ApprovalRow,
    ToolTextEditor,
    calling,
    server,
    tools_config,
    wait_for,
    wait_idle,
)

WIDE = (170, 40)


def prompt_of(app: TriptychApp) -> PromptInput:
    return app.screen.query_one("#prompt", PromptInput)


async def typed(pilot: Pilot[Any], text: str) -> None:
    """Keys as a user types them, wherever the focus is."""
    await pilot.press(*(" " if c == " " else c for c in text))
    await pilot.pause()


# -- the vote bar ------------------------------------------------------------------------------


async def test_typing_after_a_blind_round_reaches_the_prompt_and_casts_no_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        push_answers(fakes)
        await ask(pilot, "first")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.pause()
        assert app.focused is screen.prompt
        await typed(pilot, "explain this = 1 x")  # every vote key of the bar, typed
        assert screen.prompt.text == "explain this = 1 x"
        assert screen.vote_bar.asking  # still asking: nothing was voted
        assert screen.hidden
        await pilot.press("alt+x")
        await pilot.pause()
        assert "vote: all bad · undo" in screen_text(app)
        assert screen.prompt.text == "explain this = 1 x"  # the chord typed nothing
    votes = read_votes(tmp_path / "history.db")
    assert [(v.prompt, v.outcome) for v in votes] == [("first", "all_bad")]


async def test_undo_takes_the_vote_out_of_the_store(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path, blind=True)
    db = tmp_path / "history.db"
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        push_answers(fakes)
        await ask(pilot, "judge me")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.press("alt+1")
        await pilot.pause()
        assert screen.vote_bar.undoable
        assert screen.record is not None
        await wait_until(pilot, lambda: len(read_votes(db)) == 1, what="the vote stored")
        assert "undo vote" in screen_text(app).splitlines()[-1]  # the footer says the key
        await pilot.press("alt+u")
        await pilot.pause()
        assert not screen.vote_bar.display
        assert "Vote undone" in " ".join(str(n.message) for n in app._notifications)
        await wait_until(pilot, lambda: read_votes(db) == [], what="the vote gone")
        await pilot.press("alt+u")  # nothing left to undo: nothing happens, nothing typed
        assert screen.prompt.text == ""
    assert read_votes(db) == []


# -- focus away from the prompt ----------------------------------------------------------------


async def test_a_new_chat_after_a_selection_leaves_typing_and_esc_with_the_prompt(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        await pilot.press("alt+up")  # a message selected: the transcript has the focus
        await pilot.pause()
        assert app.focused is app.pane.transcript
        await pilot.press("ctrl+n")
        await pilot.pause()
        await typed(pilot, "abc")
        assert prompt_of(app).text == "abc"
        assert app.focused is prompt_of(app)

        app.pane.transcript.focus()  # as a click on it does
        await pilot.pause()
        await typed(pilot, "d")
        assert prompt_of(app).text == "abcd"  # typed at the prompt's cursor
        app.pane.transcript.focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is prompt_of(app)


def burst(app: TriptychApp, *keys: str) -> None:
    """Keys in one read, as a terminal hands over a fast typist's: all are queued before the
    first is handled (Pilot's `press` waits for the app after each)."""
    assert app._driver is not None
    for key in keys:
        app._driver.send_message(events.Key(key, key if len(key) == 1 else None))


async def test_letters_typed_with_ctrl_n_in_one_read_all_reach_the_prompt(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """The letters were sent to the selected message before Ctrl+N moved the focus: each
    goes to the prompt, even `c` (the message's copy key, gone with its selection)."""
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        await pilot.press("alt+up")
        await pilot.pause()
        assert app.focused is app.pane.transcript
        burst(app, "ctrl+n", "a", "b", "c", "e", "d")
        await wait_until(pilot, lambda: prompt_of(app).text == "abced", what="every letter")
        await pilot.pause(0.2)
        assert prompt_of(app).text == "abced"
        assert app.focused is prompt_of(app)
        assert not any("Copied" in str(n.message) for n in app._notifications)


async def test_letters_typed_with_esc_or_after_a_first_letter_in_one_read_reach_the_prompt(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Esc leaves a selected message, and so does a letter it does not bind: the letters
    already on their way to the message (its `c` and `e` among them) are the prompt's."""
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        for first, typed_text in (("escape", "cease"), ("a", "acec")):
            prompt_of(app).clear()
            await pilot.press("alt+up")
            await pilot.pause()
            assert app.focused is app.pane.transcript
            burst(app, first, *typed_text[first != "escape" :])
            await wait_until(pilot, lambda t=typed_text: prompt_of(app).text == t, what=typed_text)
            await pilot.pause(0.2)
            assert prompt_of(app).text == typed_text
            assert app.focused is prompt_of(app)
        assert not any("Copied" in str(n.message) for n in app._notifications)
        assert app.screen.branches.edit is None  # type: ignore[attr-defined]  # no `e` took it


async def test_prompt_keys_typed_before_a_chord_that_moves_the_focus_act_on_the_prompt(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Ctrl+U, Backspace or Enter queued for the prompt when Alt+Up (a priority chord) takes the
    focus to a message: each still does its work on the prompt, as typed before the chord."""
    fake_provider.push(fake.stream(Api.CHAT))
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        prompt = prompt_of(app)
        prompt.insert("draft")
        burst(app, "ctrl+u", "alt+up")
        await wait_until(pilot, lambda: app.focused is app.pane.transcript, what="the selection")
        await pilot.pause(0.2)
        assert prompt.text == ""  # Ctrl+U cleared the line
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is prompt
        prompt.insert("abc")
        burst(app, "backspace", "alt+up")
        await wait_until(pilot, lambda: app.focused is app.pane.transcript, what="the selection")
        await pilot.pause(0.2)
        assert prompt.text == "ab"
        await pilot.press("escape")
        await pilot.pause()
        burst(app, "enter", "alt+up")  # "ab" is sent
        await wait_until(pilot, lambda: len(fake_provider.requests) == 2, what="the second ask")
        await wait_drawn(pilot)
        assert prompt.text == ""
        assert fake_provider.requests[-1].json["messages"][-1]["content"] == "ab"


async def test_tab_in_a_comparison_then_typing_reaches_the_prompt(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=(90, 30)) as pilot:  # narrow: the panes under a tab row
        screen = compare_screen(app)
        await pilot.pause()
        assert screen.tabs.display
        for _ in range(4):  # through the tab row and the panes
            await pilot.press("tab")
            await pilot.pause()
            assert app.focused is not screen.prompt
            await typed(pilot, "h")
        assert screen.prompt.text == "hhhh"
        assert app.focused is screen.prompt
        await pilot.press("tab")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is screen.prompt
    assert all(name for name in WHO.values())


async def test_letters_typed_with_ctrl_n_in_a_comparison_in_one_read_reach_the_prompt(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    push_answers(fakes)
    app = blind_app(fakes, tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await ask(pilot, "first")
        await all_drawn(pilot)
        await pilot.press("alt+up")
        await pilot.pause()
        assert screen.branches.selected is not None
        assert app.focused is not screen.prompt
        burst(app, "ctrl+n", "c", "a", "t", "e")
        await wait_until(pilot, lambda: screen.prompt.text == "cate", what="every letter")
        await pilot.pause(0.2)
        assert screen.prompt.text == "cate"
        assert app.focused is screen.prompt
        assert not any("Copied" in str(n.message) for n in app._notifications)


# -- Enter while an answer streams ---------------------------------------------------------------


async def test_a_refused_enter_leaves_the_draft_and_the_cursor_as_they_were(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.paced_forever(Api.CHAT))
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on forever")
        await wait_until(pilot, lambda: app.pane.streaming, what="the stream")
        prompt = prompt_of(app)
        await typed(pilot, "tell me more")
        await pilot.press("left", "left", "left", "left")  # the cursor before "more"
        assert prompt.cursor_location == (0, 8)
        await pilot.press("enter")
        await pilot.pause()
        assert prompt.text == "tell me more"
        assert prompt.cursor_location == (0, 8)
        assert "Still answering" in " ".join(str(n.message) for n in app._notifications)
        await typed(pilot, "a lot ")
        assert prompt.text == "tell me a lot more"
        assert len(fake_provider.requests) == 1
        app.pane.stop()


# -- a tool call's row and editor --------------------------------------------------------------


async def test_the_next_prompt_typed_while_a_row_waits_answers_nothing(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    config = tools_config(fake_provider, local=(), servers=(server(),))
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        row = await wait_for(pilot, ApprovalRow, "the approval row")
        assert app.focused is prompt_of(app)  # the row asks with an empty prompt too
        await typed(pilot, "tell me more")  # `t` was "Always for this tool", `r` "Run"
        assert prompt_of(app).text == "tell me more"
        assert not row.answer.done()
        await pilot.press("enter")  # refused while the call waits: the draft stays
        await pilot.pause()
        assert prompt_of(app).text == "tell me more"
        assert not row.answer.done()
        assert len(fake_provider.requests) == 1  # the tool did not run, nothing was sent
        await pilot.press("alt+r")  # the deliberate key
        await wait_idle(pilot)
        assert len(fake_provider.requests) == 2
        assert prompt_of(app).text == "tell me more"


async def test_a_prompt_typed_while_a_result_editor_waits_is_not_the_tools_result(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather")), fake.stream(Api.CHAT, FINAL))
    app = make_app(tools_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, PROMPT)
        editor = await wait_for(pilot, ToolTextEditor, "the result editor")
        assert "shift+tab" in str(editor.border_title)  # how to reach it, on screen
        await typed(pilot, "tell me more")
        await pilot.press("enter")
        await pilot.pause()
        assert prompt_of(app).text == "tell me more"
        assert editor.text == ""
        assert not editor.answer.done()
        assert len(fake_provider.requests) == 1  # no result went back to the model
        await pilot.press("shift+tab")  # moved to it on purpose: now it takes the typing
        await pilot.pause()
        assert app.focused is editor
        await typed(pilot, "21")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert fake_provider.requests[1].json["messages"][-1]["content"] == "21"
        assert prompt_of(app).text == "tell me more"
