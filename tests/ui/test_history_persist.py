"""Nothing is lost: over the fake provider, the prompt is in the history file before the server
sees the request, a streaming answer is saved while it streams, a stopped one is saved stopped
with its partial text, `--continue` shows the old turns, and a damaged file leaves the app
chatting without history."""

from __future__ import annotations

import sqlite3
import time
from dataclasses import replace
from pathlib import Path

from app.demo.loopback import Reply, SeenRequest
from app.store import Store
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.history_turn import EarlierMessages, StoredTurnInfo
from app.ui.widgets.user_message import UserMessage
from app.ui.widgets.welcome import Welcome
from app.wire.engine import Api
from app.wire.events import EndOfStream, Finish, TextDelta
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import ANSWER, FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, screen_text, send, wait_drawn, wait_until

PLAIN = replace(ANSWER, reasoning=(), tool=None)


def rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    """Read the history file with a connection of our own, as another process would."""
    with sqlite3.connect(path) as conn:
        return list(conn.execute(sql))


def answers(path: Path) -> list[tuple[str, str]]:
    """Each answer's status and text as another instance reads them (a streaming answer's
    saves are parts appended beside its row, put together when read)."""
    store = Store.open(path)
    try:
        return [
            (str(m.turn.status), m.text)
            for summary in store.list_conversations()
            for m in store.load(summary.id).messages
            if m.turn is not None
        ]
    finally:
        store.close()


class WitnessProvider(FakeProvider):
    """Looks in the history file at the moment each request arrives, before answering it."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.prompts_at_arrival: list[list[object]] = []
        super().__init__()

    def _route(self, request: SeenRequest) -> Reply:
        found = rows(self.db, "SELECT text FROM messages WHERE role = 'user' ORDER BY id")
        self.prompts_at_arrival.append([text for (text,) in found])
        return super()._route(request)


async def test_the_prompt_is_stored_before_the_server_receives_the_request(
    tmp_path: Path,
) -> None:
    db = tmp_path / "history.sqlite3"
    with WitnessProvider(db) as witness:
        witness.push(fake.stream(Api.CHAT, PLAIN), fake.stream(Api.CHAT, PLAIN))
        app = make_app(fake_config(witness), tmp_path, history_file=db)
        async with app.run_test(size=SIZE) as pilot:
            await send(pilot, "first question")
            await wait_drawn(pilot)
            await send(pilot, "second question")
            await wait_drawn(pilot)
        assert witness.prompts_at_arrival == [
            ["first question"],
            ["first question", "second question"],
        ]
    saved = rows(db, "SELECT role, status, text FROM messages ORDER BY id")
    assert saved == [
        ("user", None, "first question"),
        ("assistant", "complete", "Hello, world."),
        ("user", None, "second question"),
        ("assistant", "complete", "Hello, world."),
    ]


async def test_a_streaming_answer_is_saved_as_it_streams_and_a_stop_keeps_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        started = time.monotonic()
        await wait_until(pilot, lambda: time.monotonic() - started > 1.5, what="1.5 s of stream")

        def saved() -> tuple[str, str]:
            [(status, text)] = answers(db)
            return status, text

        # Saves come about once a second while it streams: within a few more seconds (a loaded
        # CI machine stretches the render tick) the row holds a good part of the answer.
        await wait_until(pilot, lambda: len(saved()[1].split()) >= 10, 4.0, "a save mid-stream")
        status, text = saved()
        on_screen = app.pane.turn.text if app.pane.turn else ""
        assert status == "streaming"
        assert text.startswith("word0 word1 ")
        assert on_screen.startswith(text)
        await pilot.press("escape")
        await wait_drawn(pilot)
        turn = app.pane.turn
        assert turn is not None
        assert turn.status is TurnStatus.STOPPED
        final = rows(db, "SELECT status, text, duration_ms FROM messages WHERE role = 'assistant'")
        assert final == [("stopped", turn.text, final[0][2])]
        assert isinstance(final[0][2], int)


async def test_continue_reopens_the_last_conversation_with_its_turns(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(
        fake.stream(Api.CHAT),
        fake.http_error(Api.CHAT, 429, "rate_limit_exceeded", "Slow down, please."),
        fake.stream(Api.CHAT, PLAIN),
    )
    config = fake_config(fake_provider)
    first = make_app(config, tmp_path, history_file=db)
    async with first.run_test(size=SIZE) as pilot:
        await send(pilot, "an old question")
        await wait_drawn(pilot)
        await send(pilot, "a refused one")
        await wait_drawn(pilot)
    again = make_app(config, tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        transcript = again.pane.transcript
        await wait_until(pilot, lambda: len(transcript.query(StoredTurnInfo)) == 2, what="reload")
        await pilot.pause()
        prompts = [m.text for m in transcript.query(UserMessage)]
        assert prompts == ["an old question", "a refused one"]
        views = list(transcript.query(AssistantTurn))
        assert views[0].answer.source == "Hello, world."
        assert views[0].cards, "the tool call card is shown again"
        assert views[0].reasoning.chars == len("Thinking briefly.")
        assert views[1].turn.status is TurnStatus.FAILED
        infos = [info.plain for info in transcript.query(StoredTurnInfo)]
        assert "complete" in infos[0]
        assert "in 11 out" in infos[0]
        assert "rate_limit_exceeded" in infos[1]  # the short form; the message is above it
        text = screen_text(again)
        assert "✖ failed" in text
        assert "Slow down, please." in text
        # and the conversation carries on where it was, in the same file
        await send(pilot, "a new question")
        await wait_drawn(pilot)
        body = fake_provider.last_request().json
        roles = [m["role"] for m in body["messages"]]
        assert roles == ["user", "assistant", "tool", "user", "user"]
        assert body["messages"][0]["content"] == "an old question"
        assert body["messages"][1]["content"] == "Hello, world."
    assert rows(db, "SELECT count(*) FROM conversations") == [(1,)]
    assert rows(db, "SELECT count(*) FROM messages") == [(6,)]


async def test_continue_with_an_empty_history_starts_a_new_chat(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: "No earlier conversation" in screen_text(app))
        assert [type(c) for c in app.pane.transcript.children] == [Welcome]  # only the card


async def test_a_damaged_history_file_is_reported_and_chatting_still_works(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    db.write_bytes(b"not a database at all " * 200)
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_until(pilot, lambda: "History is off" in screen_text(app), what="the notice")
        assert "damaged" in screen_text(app)
        await send(pilot, "still there?")
        await wait_drawn(pilot)
        assert app.pane.turn is not None
        assert app.pane.turn.status is TurnStatus.COMPLETE
        assert app.pane.current is not None
        assert app.pane.current.answer.source == "Hello, world."
        await pilot.press("ctrl+o")
        await wait_until(pilot, lambda: "History is off in this session" in screen_text(app))
        await pilot.press("escape")
    assert db.read_bytes().startswith(b"not a database")  # left alone for the user to move


async def test_a_long_conversation_is_drawn_from_its_end_and_earlier_parts_on_request(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    conv = store.create_conversation()
    answer = "A paragraph that goes on for a while. " * 80  # about 3 KB
    for number in range(12):
        store.add_user_message(conv, f"question {number}")
        turn_id = store.start_turn(conv, provider="fake", model="m-1", api="chat")
        turn = Turn()
        turn.apply_all([TextDelta(f"{number}: {answer}"), Finish("stop"), EndOfStream()])
        turn.end()
        store.save_turn(turn_id, turn, final=True)
    store.close()
    fake_provider.push(fake.stream(Api.CHAT, PLAIN))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        transcript = app.pane.transcript
        await wait_until(pilot, lambda: app.pane.current is not None, what="the reopened end")

        def prompts() -> list[str]:
            return [m.text for m in transcript.query(UserMessage)]

        shown = prompts()
        assert 1 <= len(shown) < 12
        assert shown[-1] == "question 11"
        assert len(app.pane.conversation.messages) == 24  # the model still gets all of it
        while transcript.query(EarlierMessages):
            before = len(prompts())
            transcript.query_one(EarlierMessages).press()
            await wait_until(pilot, lambda: len(prompts()) > before, what="earlier messages")  # noqa: B023
            await pilot.pause()
        assert prompts() == [f"question {n}" for n in range(12)]
        await send(pilot, "and one more")
        await wait_drawn(pilot)
        body = fake_provider.last_request().json
        assert len(body["messages"]) == 25


async def test_many_short_messages_open_from_the_end_and_the_rest_is_drawn_as_scrolled_to(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    """Short messages cost their widgets whatever their text: a window of 12,000 characters
    drew 1,000 of 6,000 one-line messages at once. At most SHOWN_MESSAGES are drawn; scrolling
    to the top draws the part before, and what was at the top stays in view."""
    db = tmp_path / "history.sqlite3"
    store = Store.open(db)
    conv = store.create_conversation()
    for number in range(60):
        store.add_user_message(conv, f"q {number}")
        turn_id = store.start_turn(conv, provider="fake", model="m-1", api="chat")
        turn = Turn()
        turn.apply_all([TextDelta(f"a {number}"), Finish("stop"), EndOfStream()])
        turn.end()
        store.save_turn(turn_id, turn, final=True)
    store.close()
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db, continue_last=True)
    async with app.run_test(size=SIZE) as pilot:
        transcript = app.pane.transcript
        await wait_until(pilot, lambda: app.pane.current is not None, what="the reopened end")

        def prompts() -> list[str]:
            return [m.text for m in transcript.query(UserMessage)]

        assert prompts() == [f"q {n}" for n in range(40, 60)]  # 40 messages of 120
        assert len(app.pane.conversation.messages) == 120  # the model still gets all of it
        for drawn_from in (20, 0):
            await pilot.pause(0.2)
            top = transcript.query(UserMessage).first()
            transcript.scroll_home(animate=False, immediate=True)  # as the wheel or Home would
            await wait_until(
                pilot,
                lambda: prompts()[0] == f"q {drawn_from}",  # noqa: B023
                what="the part before, drawn on reaching the top",
            )
            below = int(top.text.split()[1])
            await wait_until(
                pilot,
                lambda: f"a {below}" in screen_text(app),  # noqa: B023
                what="the answer of what was at the top, drawn (not left asleep)",
            )
            assert top.region.overlaps(transcript.region)  # what was at the top is still in view
        assert prompts() == [f"q {n}" for n in range(60)]
        assert not transcript.query(EarlierMessages)  # all drawn: the button is gone
        transcript.scroll_home(animate=False, immediate=True)
        await wait_until(pilot, lambda: "a 0" in screen_text(app), what="the first answer")


async def test_quitting_mid_answer_saves_it_as_stopped(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(fake.paced_forever(Api.CHAT, PLAIN, delay=0.02))
    app = make_app(fake_config(fake_provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go on")
        await wait_until(pilot, lambda: app.pane.turn is not None and "word5" in app.pane.turn.text)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, what="the app to exit")
    [(status, text)] = rows(db, "SELECT status, text FROM messages WHERE role = 'assistant'")
    assert status == "stopped"
    assert isinstance(text, str)
    assert "word5" in text
