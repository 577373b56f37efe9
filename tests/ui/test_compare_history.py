"""A comparison in the history and back: it is stored as one conversation of kind "compare"
(each prompt once, each pane's answers under its pane index), reopens as a comparison whose
panes carry on their own conversations, and one pane can continue alone in a normal chat. Also
the palette's compare commands, and quitting closes every pane's connection."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

from textual import events
from textual.command import CommandPalette
from textual.geometry import Size

from app.store import Store
from app.ui.flows.comparing import leave_comparison
from app.ui.screens.chat import ChatScreen
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.answer import SegmentPlaceholder
from app.wire.engine import Api
from app.wire.turn import TurnStatus
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
    run_palette,
)
from tests.ui.helpers import make_app, screen_text, wait_until

WIDE = (160, 48)


async def test_a_comparison_is_stored_and_reopens_as_one(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    push_each(fakes, "says one.")
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
    stored = load_last(db)
    conv_id = stored.id
    assert stored.kind == "compare"
    assert [m.text for m in stored.messages if m.role == "user"] == ["first"]  # stored once
    assert [(p.pane, p.provider, p.model, p.api) for p in stored.panes] == [
        (0, "cc", "cc-model", "chat"),
        (1, "am", "am-model", "messages"),
        (2, "rs", "rs-model", "responses"),
    ]
    assert stored.conversation(1).messages[-1].text == "am says one."

    # --continue reopens it as a comparison; each pane carries on its own conversation.
    push_each(fakes, "says two.")
    app = make_app(config_for(fakes), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=WIDE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="reopened")
        screen = compare_screen(app)
        await wait_until(pilot, lambda: "rs says one." in screen_text(app), what="old answers")
        assert [p.provider.name for p in screen.panes] == ["cc", "am", "rs"]
        await ask(pilot, "second")
        await all_drawn(pilot)
        for api, name in NAMES.items():
            body = fakes[api].requests[-1].body.decode()
            assert f"{name} says one." in body, name
            assert all(
                f"{other} says one." not in body for other in NAMES.values() if other != name
            )
    store = Store.open(db)
    try:
        again = store.load(conv_id)
    finally:
        store.close()
    assert [m.text for m in again.messages if m.role == "user"] == ["first", "second"]
    assert again.conversation(2).messages[-1].text == "rs says two."


async def test_ctrl_g_continues_the_selected_pane_alone_in_a_chat(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    push_each(fakes, "says one.")
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am goes on.")))
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
        await pilot.press("alt+right")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: isinstance(app.screen, ChatScreen), what="the chat")
        assert (app.pane.provider.name, app.pane.model) == ("am", "am-model")
        await wait_until(pilot, lambda: "am says one." in screen_text(app))
        assert "cc says one." not in screen_text(app)
        await ask(pilot, "and then")
        await wait_until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await pilot.pause()
        body = fakes[Api.MESSAGES].requests[-1].body.decode()
        assert "am says one." in body
        assert "first" in body
        assert "and then" in body
        assert len(fakes[Api.CHAT].requests) == 1  # the others were not asked again
    store = Store.open(db)
    try:
        kinds = [s.kind for s in store.list_conversations()]
        chat_id = store.last_conversation_id()
        assert chat_id is not None
        chat = store.load(chat_id)
    finally:
        store.close()
    assert sorted(kinds) == ["chat", "compare"]
    assert chat.kind == "chat"
    assert [m.text for m in chat.messages] == ["first", "am says one.", "and then", "am goes on."]


async def test_palette_compare_with_from_a_chat_then_add_a_pane(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    fakes[Api.CHAT].push(
        fake.stream(Api.CHAT, answer("cc alone.")), fake.stream(Api.CHAT, answer("cc again."))
    )
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, answer("am joins.")))
    app = make_app(config_for(fakes), tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "hello")
        await wait_until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await run_palette(pilot, "Compare with", "am")
        await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="compare")
        screen = compare_screen(app)
        assert [p.provider.name for p in screen.panes] == ["cc", "am"]
        await wait_until(pilot, lambda: screen_text(app).count("cc alone.") == 2)
        await ask(pilot, "next")
        await all_drawn(pilot)
        body = fakes[Api.MESSAGES].requests[-1].body.decode()
        assert "cc alone." in body  # the new pane carries on the chat so far
        await run_palette(pilot, "Add pane", "rs")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette), what="models")
        await pilot.pause(0.3)
        await pilot.press("enter")  # the first listed: rs's configured model
        await wait_until(pilot, lambda: len(screen.panes) == 3, what="a third pane")
        assert screen.panes[2].provider.name == "rs"
        assert "3 · rs · rs-model · responses" in screen_text(app)


async def test_quit_closes_every_panes_connection(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    for api, server in fakes.items():
        server.push(fake.paced_forever(api, PLAIN, delay=0.03))
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "go on")
        panes = compare_screen(app).panes
        await wait_until(
            pilot, lambda: all(p.current and "word2" in p.current.answer.source for p in panes)
        )
        await pilot.press("ctrl+q")
        await pilot.pause(0.2)
    assert [p.turn.status for p in panes if p.turn] == [TurnStatus.STOPPED] * 3
    for server in fakes.values():
        request = server.last_request()
        deadline = time.monotonic() + 3
        while request.disconnected is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert request.disconnected is not None


async def test_leaving_while_panes_rebuild_after_a_resize_does_not_crash(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """A width change makes every pane rebuild its sleeping segments; leaving the comparison
    while they are at it must not mount into panes that are gone."""
    long_text = tuple(f"Paragraph {i} " + "words " * 40 + "\n\n" for i in range(120))
    for api, server in fakes.items():
        server.push(fake.stream(api, replace(PLAIN, text=long_text)))
    app = make_app(config_for(fakes), tmp_path, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "long")
        await all_drawn(pilot)
        await pilot.pause(0.5)
        panes = compare_screen(app).panes
        assert any(p.transcript.query(SegmentPlaceholder) for p in panes), "nothing slept"
        for pane in panes:  # what a resize does, left running while the screen goes
            resized = events.Resize(Size(30, 40), Size(30, 400), Size(30, 40))
            app.run_worker(pane.transcript.on_resize(resized))
        await leave_comparison(app)
        await pilot.pause(0.5)
        assert app.is_running
        assert isinstance(app.screen, ChatScreen)


async def test_a_comparison_exports_from_its_palette(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    push_each(fakes, "exported.")
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=["cc", "am", "rs"])
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "first")
        await all_drawn(pilot)
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Export comparison as Markdown")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: list((tmp_path / "exports").glob("*.md")), what="file")
    text = next((tmp_path / "exports").glob("*.md")).read_text()
    assert all(f"{name} exported." in text for name in NAMES.values())
