"""Branches in the chat, over the fake provider with the history in a temp
dir: select a message with Alt+Up / Alt+Down or a click, `e` edits a prompt and `r` regenerates
an answer as a sibling branch, `[` / `]` switch, the marker says `‹ 2/2 ›`, what is sent is the
chosen path only, and a reopened conversation shows the chosen branch."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from app.store import Store
from app.ui.app import TriptychApp
from app.ui.screens.branching import EDIT_TITLE, NOT_STORED, STILL_ANSWERING
from app.ui.screens.history import HistoryScreen
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import BranchMarker
from app.ui.widgets.history_list import HistoryList
from app.ui.widgets.history_turn import EarlierMessages
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.user_message import UserMessage
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import (
    SIZE,
    fake_config,
    footer_text,
    make_app,
    screen_text,
    send,
    wait_drawn,
    wait_until,
)

PLAIN = replace(ANSWER, reasoning=(), tool=None)
SAID = "".join(PLAIN.text)
TALL = "one\n\n" + "\n\n".join(f"paragraph {n}" for n in range(40))  # taller than the screen


def answered(text: str) -> fake.Reply:
    return fake.stream(Api.CHAT, replace(PLAIN, text=(text,)))


def prompts(app: TriptychApp) -> list[str]:
    return [m.text for m in app.pane.transcript.query(UserMessage)]


def answers(app: TriptychApp) -> list[str]:
    return [v.turn.text for v in app.pane.transcript.query(AssistantTurn)]


def markers(app: TriptychApp) -> list[str]:
    return [f"{m.number}/{m.count}" for m in app.pane.transcript.query(BranchMarker)]


def notices(app: TriptychApp) -> list[str]:
    return [n.message for n in app._notifications]


def selected(app: TriptychApp) -> list[str]:
    found = app.pane.transcript.query(".-selected")
    texts = [w.text for w in found if isinstance(w, UserMessage)]
    return texts + [w.turn.text for w in found if isinstance(w, AssistantTurn)]


LOADED = 20.0  # seconds a wait may take on a loaded machine (each test is far faster alone)


async def until(pilot: Pilot[Any], predicate: Callable[[], object], what: str = "") -> None:
    await wait_until(pilot, predicate, LOADED, what)


async def two_exchanges(pilot: Pilot[Any]) -> None:
    await send(pilot, "first")
    await wait_drawn(pilot, LOADED)
    await send(pilot, "teh typo")
    await wait_drawn(pilot, LOADED)


async def settle(pilot: Pilot[Any], fake_provider: FakeProvider, requests: int) -> None:
    await until(pilot, lambda: len(fake_provider.requests) == requests, what="the request")
    await wait_drawn(pilot, LOADED)


async def test_edit_an_earlier_prompt_sends_the_new_branch_and_keeps_the_old(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(answered("one"), answered("typo answer"), answered("fix answer"))
    fake_provider.push(answered("third answer"))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await two_exchanges(pilot)
        prompt = app.screen.query_one("#prompt", PromptInput)
        prompt.load_text("a draft")
        await pilot.press("alt+up")
        assert selected(app) == ["typo answer"]
        assert "regenerate" in footer_text(app)
        await pilot.press("alt+up")
        assert selected(app) == ["teh typo"]
        await pilot.press("e")
        await pilot.pause()
        assert prompt.text == "teh typo"
        assert prompt.border_title == EDIT_TITLE
        assert app.focused is prompt
        prompt.load_text("the fix")
        await pilot.press("enter")
        await settle(pilot, fake_provider, 3)
        assert fake_provider.requests[-1].json["messages"] == [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": "the fix"},
        ]
        assert prompts(app) == ["first", "the fix"]
        assert answers(app) == ["one", "fix answer"]
        assert markers(app) == ["2/2"]
        assert "‹ 2/2 ›" in screen_text(app)
        assert prompt.text == "a draft"  # what was typed before the edit is back
        # Switch back to the original prompt: its answer comes back with it.
        await pilot.press("alt+up", "alt+up")
        assert selected(app) == ["the fix"]
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: prompts(app) == ["first", "teh typo"], what="switch")
        assert answers(app) == ["one", "typo answer"]
        assert markers(app) == ["1/2"]
        assert selected(app) == ["teh typo"]  # still selected: ] goes back
        await pilot.press("right_square_bracket")
        await until(pilot, lambda: prompts(app) == ["first", "the fix"], what="switch back")
        await pilot.press("escape")
        assert app.focused is prompt
        assert selected(app) == []
        prompt.load_text("third")
        await pilot.press("enter")
        await settle(pilot, fake_provider, 4)
        assert fake_provider.requests[-1].json["messages"] == [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": "the fix"},
            {"role": "assistant", "content": "fix answer"},
            {"role": "user", "content": "third"},
        ]
        await pilot.press("alt+up", "alt+up", "alt+up", "alt+up")
        await pilot.press("left_square_bracket")  # the original branch, as it was left
        await until(pilot, lambda: prompts(app) == ["first", "teh typo"], what="switch")
    # Reopened, the conversation shows the branch chosen last.
    again = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: prompts(again) == ["first", "teh typo"], what="reopen")
        await until(pilot, lambda: markers(again) == ["1/2"], what="the marker")
        assert answers(again) == ["one", "typo answer"]


async def test_regenerate_an_earlier_answer_sends_only_what_came_before_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(answered(TALL), answered("typo answer"), answered("one again"))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await two_exchanges(pilot)
        first_answer = app.pane.transcript.query(AssistantTurn).first()
        app.pane.transcript.scroll_home(animate=False)  # the tall answer's top, to click on
        await pilot.pause()
        await pilot.click(first_answer, offset=(4, 2))  # a click selects it too
        assert selected(app) == [TALL]
        await pilot.press("r")
        await settle(pilot, fake_provider, 3)
        assert fake_provider.requests[-1].json["messages"] == [{"role": "user", "content": "first"}]
        assert prompts(app) == ["first"]
        assert answers(app) == ["one again"]
        assert markers(app) == ["2/2"]
        await pilot.press("alt+up")
        await pilot.press("left_square_bracket")
        await until(pilot, lambda: prompts(app) == ["first", "teh typo"], what="switch")
        assert answers(app) == [TALL, "typo answer"]
        assert markers(app) == ["1/2"]
        assert selected(app) == [TALL]
        await pilot.pause()
        assert "‹ 1/2 ›  [ ] switch branch" in screen_text(app)  # the tall answer's top in view


async def test_an_edit_or_a_switch_while_an_answer_streams_is_refused_and_loses_nothing(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(answered("one"), answered("one again"))
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot, LOADED)
        await pilot.press("alt+up")
        await pilot.press("r")  # a second branch of the first answer, so [ has somewhere to go
        await settle(pilot, fake_provider, 2)
        await send(pilot, "a long one")
        await until(pilot, lambda: "word3" in app.pane.turn.text if app.pane.turn else False)
        prompt = app.screen.query_one("#prompt", PromptInput)
        prompt.load_text("typed meanwhile")
        await pilot.press("alt+up", "alt+up")
        assert selected(app) == ["a long one"]
        await pilot.press("e")
        await until(pilot, lambda: notices(app) == [STILL_ANSWERING.format(what="edit")])
        await pilot.press("alt+up")
        assert selected(app) == ["one again"]  # the first answer, which has two branches
        await pilot.press("left_square_bracket")
        refused = STILL_ANSWERING.format(what="switch branches")
        await until(pilot, lambda: notices(app)[-1:] == [refused], what="the notice")
        assert refused.startswith("Still answering — press Esc to stop it first")
        await pilot.press("escape")  # back to the prompt: the stream goes on
        assert app.focused is prompt
        assert app.pane.streaming
        assert prompt.text == "typed meanwhile"
        assert prompts(app) == ["first", "a long one"]
        assert len(fake_provider.requests) == 3
        await pilot.press("escape")  # now Esc stops the stream
        await until(pilot, lambda: not app.pane.streaming, what="the stop")
    with sqlite3.connect(db) as conn:
        texts = [row[0] for row in conn.execute("SELECT text FROM messages ORDER BY id")]
    assert texts[:3] == ["first", "one", "one again"]
    assert texts[3] == "a long one"
    assert texts[4].startswith("word0 word1 word2 word3")


async def test_the_keys_need_a_selection_and_say_what_they_do(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(answered("one"))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=tmp_path / "h.sqlite3")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot, LOADED)
        prompt = app.screen.query_one("#prompt", PromptInput)
        await pilot.press("e", "r")  # typed: nothing is selected
        assert prompt.text == "er"
        prompt.clear()
        await pilot.press("up")  # Up in the prompt still recalls the earlier prompt
        assert prompt.text == "first"
        prompt.clear()
        await pilot.press("alt+up")
        await pilot.press("e")  # an answer is selected: e says what it does instead
        said = "That is an answer: r regenerates it; e edits a prompt."
        await until(pilot, lambda: notices(app) == [said], what="notice")
        await pilot.press("left_square_bracket")
        said = "This message has no other branches."
        await until(pilot, lambda: notices(app)[-1:] == [said], what="notice")
        await pilot.press("alt+down")  # below the last message: back to the prompt
        assert app.focused is prompt
        assert selected(app) == []
        await pilot.press("alt+up")
        assert selected(app) == ["one"]
        await pilot.click(prompt)  # typing again: the selection ends, and e is a letter
        assert selected(app) == []
        await pilot.press("e")
        assert prompt.text == "e"


async def test_ctrl_l_on_an_edited_branch_replaces_that_branch_only(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(answered("one"), answered("typo answer"), answered("fix answer"))
    fake_provider.push(answered("fix 2 answer"))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await two_exchanges(pilot)
        await pilot.press("alt+up", "alt+up", "e")
        prompt = app.screen.query_one("#prompt", PromptInput)
        await until(pilot, lambda: prompt.text == "teh typo", what="the edit")
        prompt.load_text("the fix")
        await pilot.press("enter")
        await settle(pilot, fake_provider, 3)
        await pilot.press("ctrl+l")  # the old way: replace the last exchange
        await until(pilot, lambda: prompt.text == "the fix", what="the last prompt")
        prompt.load_text("the fix 2")
        await pilot.press("enter")
        await settle(pilot, fake_provider, 4)
        assert fake_provider.requests[-1].json["messages"] == [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "one"},
            {"role": "user", "content": "the fix 2"},
        ]
        assert prompts(app) == ["first", "the fix 2"]
        assert markers(app) == []  # the replaced prompt's marker went with it
    with sqlite3.connect(db) as conn:
        texts = [row[0] for row in conn.execute("SELECT text FROM messages ORDER BY id")]
    assert {"teh typo", "typo answer"} <= set(texts)  # the other branch stays
    assert not {"the fix", "fix answer"} & set(texts)  # the replaced one went
    again = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: prompts(again) == ["first", "the fix 2"], what="reopen")
        await until(pilot, lambda: markers(again) == ["2/2"], what="the marker")
        assert answers(again) == ["one", "fix 2 answer"]


async def test_without_history_the_branch_keys_say_why_they_cannot(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(answered("one"))
    app = make_app(fake_config(fake_provider), tmp_path)  # no history file: history is off
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "first")
        await wait_drawn(pilot, LOADED)
        prompt = app.screen.query_one("#prompt", PromptInput)
        prompt.load_text("kept")
        await pilot.press("alt+up", "alt+up", "e")
        await until(pilot, lambda: NOT_STORED in notices(app), what="the notice")
        assert prompt.text == "kept"
        assert prompt.border_title is None


async def test_a_long_chat_marks_the_branches_of_its_earlier_part_when_shown(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    conv = store.create_conversation()
    store.add_user_message(conv, "early")
    store.add_user_message(conv, "early edited", parent=None)  # a second root: 2 branches
    for number in range(6):  # far more than a screen's worth after the fork
        store.add_user_message(conv, f"later {number}")
        turn_id = store.start_turn(conv, provider="fake", model="m-1", api="chat")
        store.save_columns(turn_id, {"text": "x" * 3000, "status": "complete"}, final=True)
    store.close()
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pane.transcript.query(EarlierMessages), what="top")
        assert markers(app) == []
        app.pane.transcript.query_one(EarlierMessages).press()  # at the top, out of view
        await until(pilot, lambda: markers(app) == ["2/2"], what="the early marker")
        assert prompts(app)[0] == "early edited"


async def test_a_search_hit_on_a_hidden_branch_opens_on_that_branch(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    conv = store.create_conversation()
    store.add_user_message(conv, "first")
    store.add_user_message(conv, "zebra crossing", parent=None)  # a second root
    store.add_user_message(conv, "plain start", parent=None)  # the third, chosen last
    store.close()
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="history")
        listed = app.screen.query_one(HistoryList)
        await pilot.press(*"zebra")
        await until(pilot, lambda: len(listed.summaries) == 1, what="the search")
        await pilot.press("enter")
        await until(pilot, lambda: prompts(app) == ["zebra crossing"], what="the hit")
        assert markers(app) == ["2/3"]
