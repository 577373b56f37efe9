"""The history store against real SQLite files in a temp dir."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.store import ConversationNotFound, Store, history_path
from app.store.queries import snippet
from app.store.schema import LATEST_VERSION
from app.wire.events import (
    END_OF_STREAM,
    Finish,
    ReasoningDelta,
    ReasoningSignature,
    RedactedReasoning,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.turn import Turn, TurnStatus


class FakeClock:
    """Wall clock the test moves by hand, so 'newest first' does not depend on timer resolution."""

    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "data" / "history.sqlite3", clock=FakeClock())
    yield opened
    opened.close()


def rich_turn() -> Turn:
    turn = Turn()
    turn.apply_all(
        [
            ReasoningDelta("Let me "),
            ReasoningDelta("think."),
            ReasoningSignature("sig-123"),
            RedactedReasoning("opaque-blob"),
            TextDelta("The answer "),
            TextDelta("is 42."),
            ToolCallStart(0, "call_a", "lookup"),
            ToolCallArgsDelta(0, '{"q": '),
            ToolCallArgsDelta(0, '"x"}'),
            ToolCallEnd(0),
            ToolCallStart(1, "call_b", "broken"),
            ToolCallArgsDelta(1, '{"oops'),
            ToolCallEnd(1),
            Sources((Source("https://a.example", "A"), Source("https://b.example"))),
            Usage(10, 20, 5),
            Finish("tool_calls", "because"),
            END_OF_STREAM,
        ]
    )
    turn.end()
    return turn


def test_open_creates_the_folder_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "history.sqlite3"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION


def test_a_turn_round_trips_with_every_part(store: Store) -> None:
    conv = store.create_conversation(title="t", system="be brief")
    store.add_user_message(conv, "What is it?")
    turn_id = store.start_turn(conv, provider="anthropic", model="claude-x", api="messages")
    original = rich_turn()
    store.save_turn(turn_id, original, ttft_ms=120, duration_ms=3400, final=True)

    loaded = store.load(conv)
    assert loaded.system == "be brief"
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    answer = loaded.messages[1]
    assert (answer.provider, answer.model, answer.api, answer.pane) == (
        "anthropic",
        "claude-x",
        "messages",
        0,
    )
    assert (answer.ttft_ms, answer.duration_ms) == (120, 3400)
    turn = answer.turn
    assert turn is not None
    assert turn.status is TurnStatus.COMPLETE
    assert turn.text == original.text == "The answer is 42."
    assert turn.reasoning == "Let me think."
    assert turn.reasoning_signature == "sig-123"
    assert turn.redacted_reasoning == ["opaque-blob"]
    assert [(c.index, c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        (0, "call_a", "lookup", '{"q": "x"}'),
        (1, "call_b", "broken", '{"oops'),
    ]
    assert turn.calls[0].value == {"q": "x"}
    assert turn.calls[1].invalid_json
    assert turn.sources == original.sources
    assert turn.usage == Usage(10, 20, 5)
    assert (turn.finish_reason, turn.finish_detail) == ("tool_calls", "because")
    assert turn.terminal_seen


def test_failed_and_stopped_turns_keep_their_partial_text_and_error(store: Store) -> None:
    conv = store.create_conversation()
    store.add_user_message(conv, "q")
    failed_id = store.start_turn(conv, provider="p", model="m", api="chat")
    failed = Turn()
    failed.apply_all([TextDelta("half an ans"), StreamError("overloaded", "try later")])
    failed.end()
    store.save_turn(failed_id, failed, final=True)
    stopped_id = store.start_turn(conv, provider="p", model="m", api="chat")
    stopped = Turn()
    stopped.apply(TextDelta("partial"))
    stopped.end(stopped=True)
    store.save_turn(stopped_id, stopped, final=True)

    turns = [m.turn for m in store.load(conv).messages[1:]]
    assert turns[0] is not None
    assert turns[1] is not None
    assert (turns[0].status, turns[0].text) == (TurnStatus.FAILED, "half an ans")
    assert turns[0].error == StreamError("overloaded", "try later")
    assert (turns[1].status, turns[1].text) == (TurnStatus.STOPPED, "partial")


def test_a_final_save_of_an_unsettled_turn_is_refused(store: Store) -> None:
    conv = store.create_conversation()
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    with pytest.raises(ValueError, match="settled"):
        store.save_turn(turn_id, Turn(), final=True)


def test_the_prompt_is_committed_before_anything_else_happens(store: Store) -> None:
    conv = store.create_conversation()
    store.add_user_message(conv, "saved at once")
    other = sqlite3.connect(store.path)  # another connection sees it: it is committed
    rows = other.execute("SELECT role, text FROM messages").fetchall()
    assert rows == [("user", "saved at once")]


def test_list_is_newest_first_with_provider_and_first_line(store: Store) -> None:
    first = store.create_conversation()
    store.add_user_message(first, "\n  Old question\nmore")
    store.start_turn(first, provider="openai", model="m", api="chat")
    second = store.create_conversation(title="Named")
    store.add_user_message(second, "New question")
    store.start_turn(second, provider="kimi", model="m", api="chat")
    store.start_turn(second, provider="anthropic", model="m", api="messages")

    summaries = store.list_conversations()
    assert [s.id for s in summaries] == [second, first]
    assert summaries[0].title == "Named"
    assert summaries[0].providers == ("kimi", "anthropic")
    assert summaries[1].title == "Old question"
    assert summaries[1].message_count == 2
    assert store.last_conversation_id() == second

    store.add_user_message(first, "follow-up")  # activity moves it to the top
    assert store.last_conversation_id() == first
    assert [s.id for s in store.list_conversations(limit=1)] == [first]


def test_last_conversation_of_an_empty_history_is_none(store: Store) -> None:
    assert store.last_conversation_id() is None
    assert store.list_conversations() == []


def test_search_finds_prompts_and_answers_by_word_prefix(store: Store) -> None:
    cats = store.create_conversation()
    store.add_user_message(cats, "Tell me about cats")
    dogs = store.create_conversation()
    store.add_user_message(dogs, "And dogs?")
    turn_id = store.start_turn(dogs, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply_all([TextDelta("Dogs are loyal companions."), END_OF_STREAM])
    turn.end()
    store.save_turn(turn_id, turn, final=True)

    assert [s.id for s in store.search("cat")] == [cats]
    hits = store.search("loyal comp")
    assert [s.id for s in hits] == [dogs]
    assert "loyal" in hits[0].snippet
    assert store.search("parrots") == []
    # FTS5 syntax typed by a user is treated as words, never as a query error.
    for odd in ['"', "NEAR(", "a AND", "-", "*", "dogs:", "(x"]:
        assert isinstance(store.search(odd), list)


def test_search_sees_text_saved_while_streaming_and_titles(store: Store) -> None:
    conv = store.create_conversation()
    store.add_user_message(conv, "q")
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta("first draft"))
    store.save_turn(turn_id, turn)
    turn.apply(TextDelta(" rewritten"))
    store.save_turn(turn_id, turn)
    assert [s.id for s in store.search("rewritten")] == [conv]
    assert [s.id for s in store.search("draft rewritten")] == [conv]

    store.rename(conv, "Holiday planning")
    assert [s.id for s in store.search("holiday")] == [conv]
    assert store.search("holiday")[0].title == "Holiday planning"


def test_rename_and_delete(store: Store) -> None:
    keep = store.create_conversation()
    store.add_user_message(keep, "keep me")
    gone = store.create_conversation()
    store.add_user_message(gone, "remove me")
    store.start_turn(gone, provider="p", model="m", api="chat")

    store.rename(keep, "Kept")
    store.delete(gone)

    assert [(s.id, s.title) for s in store.list_conversations()] == [(keep, "Kept")]
    assert store.search("remove") == []
    with pytest.raises(ConversationNotFound):
        store.load(gone)
    with pytest.raises(ConversationNotFound):
        store.delete(gone)
    with pytest.raises(ConversationNotFound):
        store.add_user_message(gone, "too late")
    count = sqlite3.connect(store.path).execute("SELECT count(*) FROM messages").fetchone()[0]
    assert count == 1


def test_retry_and_edit_drop_the_tail_of_a_conversation(store: Store) -> None:
    conv = store.create_conversation()
    store.add_user_message(conv, "one")
    store.start_turn(conv, provider="p", model="m", api="chat")
    second = store.add_user_message(conv, "two")
    store.start_turn(conv, provider="p", model="m", api="chat")

    assert store.delete_messages_from(conv, second) == 2
    store.add_user_message(conv, "two, edited")
    store.start_turn(conv, provider="other", model="m2", api="responses")

    loaded = store.load(conv)
    assert [m.text for m in loaded.messages if m.role == "user"] == ["one", "two, edited"]
    assert [(m.provider, m.api) for m in loaded.messages if m.role == "assistant"] == [
        ("p", "chat"),
        ("other", "responses"),
    ]


def test_a_comparison_reopens_as_panes(store: Store) -> None:
    conv = store.create_conversation(kind="compare")
    store.add_user_message(conv, "Same prompt")
    for pane, provider in enumerate(["openai", "anthropic", "kimi"]):
        turn_id = store.start_turn(conv, provider=provider, model=f"m{pane}", api="chat", pane=pane)
        turn = Turn()
        turn.apply_all([TextDelta(f"answer from {provider}"), END_OF_STREAM])
        turn.end()
        store.save_turn(turn_id, turn, final=True)
    store.add_user_message(conv, "Follow-up")
    store.start_turn(conv, provider="anthropic", model="m1b", api="messages", pane=1)

    loaded = store.load(conv)
    assert loaded.kind == "compare"
    assert [(p.pane, p.provider, p.model, p.api) for p in loaded.panes] == [
        (0, "openai", "m0", "chat"),
        (1, "anthropic", "m1b", "messages"),
        (2, "kimi", "m2", "chat"),
    ]
    pane1 = loaded.conversation(1)
    assert [(m.role, m.text) for m in pane1.messages] == [
        ("user", "Same prompt"),
        ("assistant", "answer from anthropic"),
        ("user", "Follow-up"),
        ("assistant", ""),
    ]
    assert [m.text for m in loaded.conversation(2).messages] == [
        "Same prompt",
        "answer from kimi",
        "Follow-up",
    ]
    assert store.list_conversations()[0].kind == "compare"


def answered(store: Store, conv: int, text: str, pane: int, provider: str) -> int:
    turn_id = store.start_turn(conv, provider=provider, model="m", api="chat", pane=pane)
    turn = Turn()
    turn.apply_all([TextDelta(text), Usage(3, 4, None), END_OF_STREAM])
    turn.end()
    store.save_turn(turn_id, turn, ttft_ms=120, duration_ms=900, final=True)
    return turn_id


def test_a_copied_answer_reads_under_the_prompt_it_answers(store: Store) -> None:
    """A pane added after the first prompt carries on pane 0: the copy is written later, but
    reads (and reopens) as pane 2's answer to that first prompt, keeping who answered."""
    conv = store.create_conversation(kind="compare")
    first = store.add_user_message(conv, "one")
    original = answered(store, conv, "a says one", 0, "a")
    answered(store, conv, "b says one", 1, "b")
    copy = store.copy_turn(original, pane=2, reply_to=first)
    store.add_user_message(conv, "two")
    for pane, name in enumerate("abc"):
        answered(store, conv, f"{name} says two", pane, name)

    loaded = store.load(conv)
    assert [(m.id, m.pane) for m in loaded.messages][:4] == [
        (first, None),
        (original, 0),
        (original + 1, 1),
        (copy, 2),
    ]
    carried = loaded.messages[3]
    assert (carried.provider, carried.text, carried.reply_to) == ("a", "a says one", first)
    assert (carried.ttft_ms, carried.duration_ms) == (120, 900)
    assert carried.turn is not None
    assert carried.turn.usage == Usage(3, 4, None)
    assert carried.turn.status is TurnStatus.COMPLETE
    assert [(m.role, m.text) for m in loaded.conversation(2).messages] == [
        ("user", "one"),
        ("assistant", "a says one"),
        ("user", "two"),
        ("assistant", "c says two"),
    ]
    assert loaded.last_round[2].provider == "c"
    with pytest.raises(ConversationNotFound):
        store.copy_turn(first, pane=2, reply_to=first)  # a prompt is not an answer


def test_dropping_the_last_exchange_keeps_copies_of_earlier_answers(store: Store) -> None:
    conv = store.create_conversation(kind="compare")
    first = store.add_user_message(conv, "one")
    original = answered(store, conv, "a says one", 0, "a")
    second = store.add_user_message(conv, "two")
    answered(store, conv, "a says two", 0, "a")
    store.copy_turn(original, pane=1, reply_to=first)  # written after "two", answers "one"
    late = store.copy_turn(original, pane=2, reply_to=second)

    assert store.delete_messages_from(conv, second) == 3
    loaded = store.load(conv)
    assert [(m.text, m.pane) for m in loaded.messages] == [
        ("one", None),
        ("a says one", 0),
        ("a says one", 1),
    ]
    assert late not in {m.id for m in loaded.messages}


def test_last_round_is_the_panes_that_answered_the_last_answered_prompt(store: Store) -> None:
    conv = store.create_conversation(kind="compare")
    store.add_user_message(conv, "one")
    for pane, name in enumerate("abc"):
        answered(store, conv, f"{name} one", pane, name)
    store.add_user_message(conv, "two")  # pane 1 was removed before this prompt
    answered(store, conv, "a two", 0, "a")
    answered(store, conv, "c two", 2, "c")
    store.add_user_message(conv, "three")  # stored, then nothing answered it
    loaded = store.load(conv)
    assert [(p.pane, p.provider) for p in loaded.last_round] == [(0, "a"), (2, "c")]
    assert [p.pane for p in loaded.panes] == [0, 1, 2]


def test_unknown_kind_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="kind"):
        store.create_conversation(kind="group")  # type: ignore[arg-type]


def test_saving_a_turn_whose_conversation_was_deleted_reports_it_gone(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    streaming, other_instance = Store.open(path), Store.open(path)
    conv = streaming.create_conversation()
    turn_id = streaming.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply(TextDelta("abc"))
    assert streaming.save_turn(turn_id, turn)
    other_instance.delete(conv)
    assert not streaming.save_turn(turn_id, turn)
    assert other_instance.list_conversations() == []


def test_two_connections_writing_at_once_do_not_lock(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    a, b = Store.open(path), Store.open(path)
    conv_a, conv_b = a.create_conversation(), b.create_conversation()
    turn_a = a.start_turn(conv_a, provider="p", model="m", api="chat")
    turn_b = b.start_turn(conv_b, provider="p", model="m", api="chat")
    turn = Turn()
    for i in range(50):
        turn.apply(TextDelta(f"{i} "))
        a.add_user_message(conv_a, f"a{i}")
        b.add_user_message(conv_b, f"b{i}")
        a.save_turn(turn_a, turn)
        b.save_turn(turn_b, turn)
        assert len(b.list_conversations()) == 2  # reads interleave with the other's writes
    assert len(a.load(conv_b).messages) == 51
    saved = b.load(conv_a).messages[0].turn
    assert saved is not None
    assert saved.text == "".join(f"{i} " for i in range(50))
    a.close()
    b.close()


def test_snippet_centres_on_the_first_query_word() -> None:
    text = "intro " * 30 + "the Penguins\nwaddle " + "outro " * 40
    piece = snippet(text, "waddle penguin")
    assert piece.startswith("…")
    assert piece.endswith("…")
    assert "the Penguins waddle" in piece  # whitespace collapsed to one line
    assert snippet("short text", "absent") == "short text"


def test_the_history_files_are_private_to_their_owner(store: Store) -> None:
    store.add_user_message(store.create_conversation(), "a private thought")
    files = sorted(store.path.parent.iterdir())
    assert [f.name for f in files] == [
        "history.sqlite3",
        "history.sqlite3-shm",
        "history.sqlite3-wal",
    ]
    for file in files:
        assert file.stat().st_mode & 0o077 == 0, file


def test_the_history_lives_in_the_data_dir(tmp_path: Path) -> None:
    path = history_path({"TRIPTYCH_DATA_DIR": str(tmp_path / "data")})
    assert path == tmp_path / "data" / "history.sqlite3"
    Store.open(path).close()
    assert path.is_file()
