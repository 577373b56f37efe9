"""Branches in the history: a chat is a tree, the chosen path is what is
shown and exported, every branch is searchable, and an old file migrates into a tree."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from app.store import Store, export_conversation
from app.store.schema import LATEST_VERSION, MIGRATIONS
from app.wire.events import END_OF_STREAM, StreamError, TextDelta
from app.wire.turn import Turn


def answer(store: Store, conv: int, text: str, *, parent: int | None = -1) -> int:
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat", parent=parent)
    turn = Turn()
    turn.apply_all([TextDelta(text), END_OF_STREAM])
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    return turn_id


def texts(store: Store, conv: int) -> list[str]:
    return [m.text for m in store.load(conv).messages]


def two_exchanges(store: Store) -> tuple[int, list[int]]:
    conv = store.create_conversation()
    p1 = store.add_user_message(conv, "first")
    a1 = answer(store, conv, "answer one")
    p2 = store.add_user_message(conv, "teh typo")
    a2 = answer(store, conv, "answer typo")
    return conv, [p1, a1, p2, a2]


def test_an_edit_is_a_sibling_that_becomes_the_chosen_path(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a1, p2, a2) = two_exchanges(store)
    p2b = store.add_user_message(conv, "the fix", parent=a1)
    a2b = answer(store, conv, "answer fix")
    assert texts(store, conv) == ["first", "answer one", "the fix", "answer fix"]
    shown = store.load(conv).messages
    assert [m.siblings for m in shown] == [(p1,), (a1,), (p2, p2b), (a2b,)]
    assert [m.parent_id for m in shown] == [None, p1, a1, p2b]
    # The original is still there, and switching to it brings its answer back.
    store.choose(p2)
    assert texts(store, conv) == ["first", "answer one", "teh typo", "answer typo"]
    store.choose(p2b)
    assert texts(store, conv) == ["first", "answer one", "the fix", "answer fix"]
    assert a2 in {m.id for m in store.load(conv, all_branches=True).messages}


def test_a_regenerated_answer_is_a_sibling_and_each_branch_keeps_its_own_choice(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a1, _p2, _a2) = two_exchanges(store)
    a1b = answer(store, conv, "answer one again", parent=p1)
    assert texts(store, conv) == ["first", "answer one again"]  # a new branch: nothing after it
    store.add_user_message(conv, "on the new branch")
    answer(store, conv, "deep answer")
    # Back to the first answer: its own follow-up shows, as it was left.
    store.choose(a1)
    assert texts(store, conv) == ["first", "answer one", "teh typo", "answer typo"]
    store.choose(a1b)
    assert texts(store, conv)[-1] == "deep answer"
    assert store.load(conv).messages[1].siblings == (a1, a1b)


def test_an_edit_of_the_first_prompt_is_a_second_root(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, *_rest) = two_exchanges(store)
    root2 = store.add_user_message(conv, "another start", parent=None)
    assert texts(store, conv) == ["another start"]
    assert store.load(conv).messages[0].siblings == (p1, root2)
    store.choose(p1)
    assert len(texts(store, conv)) == 4


def test_a_retry_after_a_cut_answer_follows_it_on_the_same_branch(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv = store.create_conversation()
    store.add_user_message(conv, "q")
    cut = store.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn()
    turn.apply_all([TextDelta("half"), StreamError("x", "cut")])
    turn.end()
    store.save_turn(cut, turn, final=True)
    answer(store, conv, "whole")
    shown = store.load(conv).messages
    assert [m.text for m in shown] == ["q", "half", "whole"]  # both on screen, as before
    assert all(len(m.siblings) == 1 for m in shown)


def test_deleting_the_last_exchange_leaves_other_branches(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (_p1, a1, p2, _a2) = two_exchanges(store)
    p2b = store.add_user_message(conv, "the fix", parent=a1)
    answer(store, conv, "answer fix")
    store.choose(p2)
    assert store.delete_messages_from(conv, p2) == 2
    assert texts(store, conv) == ["first", "answer one", "the fix", "answer fix"]
    assert store.load(conv).messages[2].siblings == (p2b,)


def test_search_finds_text_on_a_branch_that_is_not_shown(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (_p1, a1, p2, _a2) = two_exchanges(store)
    store.add_user_message(conv, "zebra crossing", parent=a1)
    store.choose(p2)  # the zebra branch is hidden now
    assert "zebra crossing" not in texts(store, conv)
    assert [s.id for s in store.search("zebra")] == [conv]
    assert [s.id for s in store.search("typo")] == [conv]


def branched(tmp_path: Path) -> tuple[Store, int]:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (_p1, a1, p2, _a2) = two_exchanges(store)
    store.add_user_message(conv, "the fix", parent=a1)
    answer(store, conv, "answer fix")
    store.choose(p2)
    return store, conv


def test_export_writes_the_chosen_path_and_all_branches_indented(tmp_path: Path) -> None:
    store, conv = branched(tmp_path)
    chosen = export_conversation(store, conv, "md")
    assert "teh typo" in chosen
    assert "answer typo" in chosen
    assert "the fix" not in chosen
    assert "branch" not in chosen
    every = export_conversation(store, conv, "md", all_branches=True).splitlines()
    assert "## You" in every
    assert "first" in every
    at = every.index("  *branch 1/2*")
    assert every[at + 2 : at + 5] == ["  ## You", "", "  teh typo"]
    assert "  answer typo" in every
    second = every.index("  *branch 2/2*")
    assert second > at
    assert every[second + 2 : second + 5] == ["  ## You", "", "  the fix"]
    assert "  answer fix" in every
    document = json.loads(export_conversation(store, conv, "json", all_branches=True))
    assert [(m["text"], m["level"], m["branch"]) for m in document["messages"]] == [
        ("first", 0, [1, 1]),
        ("answer one", 0, [1, 1]),
        ("teh typo", 1, [1, 2]),
        ("answer typo", 1, [1, 1]),
        ("the fix", 1, [2, 2]),
        ("answer fix", 1, [1, 1]),
    ]
    plain = json.loads(export_conversation(store, conv, "json"))
    assert [m["text"] for m in plain["messages"]] == [
        "first", "answer one", "teh typo", "answer typo"
    ]  # fmt: skip


def test_the_export_command_takes_all_branches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store, conv = branched(tmp_path)
    store.close()
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path))
    shutil.move(tmp_path / "h.sqlite3", tmp_path / "history.sqlite3")
    assert main(["export", str(conv), "--all-branches"]) == 0
    out = capsys.readouterr().out
    assert "  *branch 2/2*" in out
    assert "  the fix" in out
    assert main(["export", str(conv)]) == 0
    assert "the fix" not in capsys.readouterr().out


# -- migrating a file written before branches ---------------------------------------------------

OLD_ROWS = """
INSERT INTO conversations (id, title, kind, created_at, updated_at)
    VALUES (1, 'Old chat', 'chat', 1600000000, 1600000100),
           (2, 'Old comparison', 'compare', 1600000000, 1600000100);
INSERT INTO messages (id, conversation_id, role, text, status, pane, created_at, updated_at)
    VALUES (1, 1, 'user', 'old question', NULL, NULL, 1, 1),
           (2, 1, 'assistant', 'cut off', 'interrupted', 0, 2, 2),
           (3, 2, 'user', 'side by side', NULL, NULL, 3, 3),
           (4, 1, 'assistant', 'old answer', 'complete', 0, 4, 4),
           (5, 2, 'assistant', 'left', 'complete', 0, 5, 5),
           (6, 2, 'assistant', 'right', 'complete', 1, 6, 6),
           (7, 1, 'user', 'old follow-up', NULL, NULL, 7, 7),
           (8, 1, 'assistant', 'old second answer', 'complete', 0, 8, 8);
"""


def old_file(path: Path, version: int) -> None:
    """A history as the Triptych before branches wrote it: its migrations, then its rows."""
    conn = sqlite3.connect(path)
    for migration in MIGRATIONS:
        if migration.version <= version:
            conn.executescript(migration.sql)
    conn.executescript(f"PRAGMA user_version = {version:d};" + OLD_ROWS)
    conn.close()


def test_a_file_from_before_branches_migrates_into_a_tree(tmp_path: Path) -> None:
    before = next(m.version for m in MIGRATIONS if "parent_id" in m.sql) - 1
    original = tmp_path / "old.sqlite3"
    old_file(original, before)
    copy = tmp_path / "history.sqlite3"
    shutil.copyfile(original, copy)  # the test works on a copy, as a user's upgrade would

    store = Store.open(copy)

    assert sqlite3.connect(copy).execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    chat = store.load(1)
    assert [m.text for m in chat.messages] == [
        "old question", "cut off", "old answer", "old follow-up", "old second answer"
    ]  # fmt: skip
    assert [m.parent_id for m in chat.messages] == [None, 1, 2, 4, 7]
    assert all(len(m.siblings) == 1 for m in chat.messages)
    compare = store.load(2)  # a comparison stays flat, in its reading order
    assert [(m.text, m.pane) for m in compare.messages] == [
        ("side by side", None), ("left", 0), ("right", 1)
    ]  # fmt: skip
    assert all(m.parent_id is None for m in compare.messages)
    # The migrated chat branches like a new one.
    store.add_user_message(1, "new follow-up", parent=4)
    assert [m.text for m in store.load(1).messages][-1] == "new follow-up"
    store.choose(7)
    assert [m.text for m in store.load(1).messages][-1] == "old second answer"
    assert sqlite3.connect(original).execute("PRAGMA user_version").fetchone()[0] == before


def test_parent_pointers_that_loop_in_a_damaged_file_hang_nothing(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (_p1, _a1, p2, a2) = two_exchanges(store)
    store.close()
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        conn.execute("UPDATE messages SET parent_id = ? WHERE id = ?", (a2, p2))  # p2 <-> a2
    store = Store.open(tmp_path / "h.sqlite3")
    assert texts(store, conv) == ["first", "answer one"]  # the loop is out of reach
    assert store.delete_messages_from(conv, p2) == 2  # and deleting it ends
    assert texts(store, conv) == ["first", "answer one"]


def test_opening_a_search_hit_on_a_hidden_branch_shows_that_branch(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a1, p2, _a2) = two_exchanges(store)
    zebra = store.add_user_message(conv, "zebra crossing", parent=a1)
    answer(store, conv, "stripes")
    store.choose(p2)
    (hit,) = store.search("zebra")
    assert hit.hit_id == zebra
    assert store.reveal(zebra, "zebra")
    assert texts(store, conv) == ["first", "answer one", "zebra crossing", "stripes"]
    # A hit the branch shown already holds (here: its first prompt) changes nothing.
    assert not store.reveal(p1, "first")
    store.choose(p2)
    assert not store.reveal(zebra, "answer")  # "answer one" is on the branch shown
    assert texts(store, conv)[2] == "teh typo"
