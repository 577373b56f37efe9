"""Votes and batch runs in the history: migration 4, recording and reading votes, and what
deleting a conversation does to them."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.store import Store, Vote, VotePane
from tests.unit.test_store_schema import V1_SCHEMA

V3_UPGRADE = """
ALTER TABLE conversations ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat'
    CHECK (kind IN ('chat', 'compare'));
ALTER TABLE messages ADD COLUMN pane INTEGER;
UPDATE messages SET pane = 0 WHERE role = 'assistant';
ALTER TABLE messages ADD COLUMN reply_to INTEGER;
PRAGMA user_version = 3;
INSERT INTO conversations (id, title, kind, created_at, updated_at)
    VALUES (2, 'side by side', 'compare', 1600000200, 1600000300);
INSERT INTO messages (conversation_id, role, text, created_at, updated_at)
    VALUES (2, 'user', 'q', 1600000200, 1600000200);
INSERT INTO messages (conversation_id, role, text, provider, status, pane, created_at,
                      updated_at)
    VALUES (2, 'assistant', 'from a', 'a', 'complete', 0, 1600000201, 1600000201);
"""


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "history.sqlite3")


def test_a_v3_database_migrates_keeping_kinds_messages_and_their_cascade(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(V1_SCHEMA)
    old.executescript(V3_UPGRADE)
    old.close()

    store = Store.open(path)
    assert [(s.id, s.kind) for s in store.list_conversations()] == [(2, "compare"), (1, "chat")]
    assert [m.text for m in store.load(2).messages] == ["q", "from a"]
    assert [m.text for m in store.load(1).messages] == [
        "Migrate the penguins",
        "Penguins migrated.",
    ]
    # The rebuilt table is still the one messages reference: deleting cascades, as before.
    store.delete(2)
    count = sqlite3.connect(path).execute("SELECT count(*) FROM messages WHERE conversation_id = 2")
    assert count.fetchone()[0] == 0
    batch = store.create_batch(source="prompts.txt", tag="t", providers=["a:m", "b:m"])
    conv = store.create_conversation(kind="batch", batch_id=batch)
    assert (store.load(conv).kind, store.load(conv).batch_id) == ("batch", batch)
    assert store.batch_conversations(batch) == [conv]
    info = store.batch(batch)
    assert (info.source, info.tag, info.providers) == ("prompts.txt", "t", ("a:m", "b:m"))
    with pytest.raises(LookupError):
        store.batch(batch + 1)
    store.close()


def test_a_vote_round_trips_with_its_panes(store: Store) -> None:
    conv = store.create_conversation(kind="compare")
    store.add_user_message(conv, "which?")
    answer = store.start_turn(conv, provider="kenari", model="m1", api="chat")
    store.clock = lambda: 1_700_000_000.0
    panes = (
        VotePane("kenari", "m1", message_id=answer, ttft_ms=200, tok_s=50.0, cost=0.001),
        VotePane("kimi", "k2"),
    )
    vote_id = store.record_vote(
        Vote("which?", panes, "winner", winner=1, conversation_id=conv, tag="run1")
    )

    (vote,) = store.votes()
    assert vote.id == vote_id
    assert (vote.prompt, vote.outcome, vote.winner, vote.conversation_id, vote.tag) == (
        "which?",
        "winner",
        1,
        conv,
        "run1",
    )
    assert vote.panes == panes
    assert vote.created_at == 1_700_000_000.0
    assert [p.key for p in vote.panes] == ["kenari:m1", "kimi:k2"]


def test_votes_are_filtered_by_time_tag_and_conversation(store: Store) -> None:
    panes = (VotePane("a", "m"), VotePane("b", "m"))
    conv = store.create_conversation()
    times = iter([100.0, 200.0, 300.0])
    store.clock = lambda: next(times)
    store.record_vote(Vote("1", panes, "tie"))
    store.record_vote(Vote("2", panes, "all_bad", tag="x", conversation_id=conv))
    store.record_vote(Vote("3", panes, "skipped", tag="x"))

    assert [v.prompt for v in store.votes()] == ["1", "2", "3"]
    assert [v.prompt for v in store.votes(since=200.0)] == ["2", "3"]
    assert [v.prompt for v in store.votes(tag="x")] == ["2", "3"]
    assert [v.prompt for v in store.votes(conversation_id=conv)] == ["2"]
    assert [v.prompt for v in store.votes(since=300.0, tag="x")] == ["3"]


def test_deleting_a_conversation_keeps_its_votes_unless_asked(store: Store) -> None:
    panes = (VotePane("a", "m"), VotePane("b", "m"))
    kept = store.create_conversation()
    store.add_user_message(kept, "q")
    answer = store.start_turn(kept, provider="a", model="m", api="chat")
    store.record_vote(
        Vote("q", (VotePane("a", "m", message_id=answer), panes[1]), "winner", 0, kept)
    )
    gone = store.create_conversation()
    store.record_vote(Vote("r", panes, "tie", conversation_id=gone))

    store.delete(kept)
    store.delete(gone, votes=True)

    (vote,) = store.votes()
    assert (vote.prompt, vote.conversation_id, vote.winner) == ("q", None, 0)
    assert vote.panes[0].message_id is None  # the answer went with its conversation
    assert vote.panes[0].key == "a:m"


def test_a_vote_taken_back_is_gone_with_its_panes(store: Store, tmp_path: Path) -> None:
    panes = (VotePane("a", "m"), VotePane("b", "m"))
    kept = store.record_vote(Vote("kept", panes, "tie"))
    undone = store.record_vote(Vote("undone", panes, "all_bad"))

    assert store.delete_vote(undone)
    assert not store.delete_vote(undone)  # once only
    assert [(v.id, v.prompt) for v in store.votes()] == [(kept, "kept")]
    rows = sqlite3.connect(tmp_path / "history.sqlite3").execute(
        "SELECT count(*) FROM vote_panes WHERE vote_id = ?", (undone,)
    )
    assert rows.fetchone()[0] == 0


@pytest.mark.parametrize(
    ("outcome", "winner", "why"),
    [
        ("winner", None, "exactly when"),
        ("tie", 0, "exactly when"),
        ("winner", 2, "not one of the 2 panes"),
        ("best", None, "unknown vote outcome"),
    ],
)
def test_an_impossible_vote_is_refused(outcome: str, winner: int | None, why: str) -> None:
    panes = (VotePane("a", "m"), VotePane("b", "m"))
    with pytest.raises(ValueError, match=why):
        Vote("q", panes, outcome, winner)  # type: ignore[arg-type]
