"""A comparison's panes branch each on its own: a shared prompt has a parent
in every pane's tree, an edit or a regenerated answer lives in its pane's tree only, each pane
reopens and exports its chosen path, and a comparison from before migration 10 keeps its flat
order until a pane first branches."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from app.store import Store, export_conversation
from app.store.schema import LATEST_VERSION, MIGRATIONS
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn


def answer(store: Store, conv: int, pane: int, text: str, *, parent: int | None = -1) -> int:
    turn_id = store.start_turn(
        conv, provider=f"p{pane}", model="m", api="chat", pane=pane, parent=parent
    )
    turn = Turn()
    turn.apply_all([TextDelta(text), END_OF_STREAM])
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    return turn_id


def path(store: Store, conv: int, pane: int) -> list[str]:
    return [m.text for m in store.load(conv).pane_paths[pane]]


def two_rounds(store: Store) -> tuple[int, list[int]]:
    conv = store.create_conversation(kind="compare")
    p1 = store.add_user_message(conv, "first")
    a10, a11 = answer(store, conv, 0, "0 one"), answer(store, conv, 1, "1 one")
    p2 = store.add_user_message(conv, "teh typo")
    a20, a21 = answer(store, conv, 0, "0 typo"), answer(store, conv, 1, "1 typo")
    return conv, [p1, a10, a11, p2, a20, a21]


def test_each_pane_shows_the_shared_prompts_and_its_own_answers(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, ids = two_rounds(store)
    assert path(store, conv, 0) == ["first", "0 one", "teh typo", "0 typo"]
    assert path(store, conv, 1) == ["first", "1 one", "teh typo", "1 typo"]
    loaded = store.load(conv)
    assert [m.id for m in loaded.messages] == ids  # the flat reading order, as before
    # The shared prompt has one parent per pane: that pane's answer before it.
    assert loaded.pane_paths[0][2].parent_id == ids[1]
    assert loaded.pane_paths[1][2].parent_id == ids[2]


def test_an_edit_in_one_pane_leaves_the_other_untouched(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a10, a11, p2, _a20, a21) = two_rounds(store)
    p2b = store.add_user_message(conv, "the fix", parent=a10, pane=0)
    a2b = answer(store, conv, 0, "0 fix")
    assert path(store, conv, 0) == ["first", "0 one", "the fix", "0 fix"]
    assert path(store, conv, 1) == ["first", "1 one", "teh typo", "1 typo"]
    loaded = store.load(conv)
    assert [m.siblings for m in loaded.pane_paths[0]] == [(p1,), (a10,), (p2, p2b), (a2b,)]
    assert [m.siblings for m in loaded.pane_paths[1]] == [(p1,), (a11,), (p2,), (a21,)]
    # Shown (and exported): what lies on either pane's path; pane 0's old answer is hidden.
    assert [m.id for m in loaded.messages] == [p1, a10, a11, p2, a21, p2b, a2b]
    assert loaded.messages[-2].pane == 0  # the edit is pane 0's own prompt
    # The next shared prompt follows each pane's own branch.
    p3 = store.add_user_message(conv, "third")
    a30, a31 = answer(store, conv, 0, "0 three"), answer(store, conv, 1, "1 three")
    loaded = store.load(conv)
    assert [m.id for m in loaded.pane_paths[0]] == [p1, a10, p2b, a2b, p3, a30]
    assert [m.id for m in loaded.pane_paths[1]] == [p1, a11, p2, a21, p3, a31]
    assert [(p.pane, p.provider) for p in loaded.last_round] == [(0, "p0"), (1, "p1")]
    # Switching pane 0 back shows its first branch, which P3 never followed; pane 1 keeps its.
    store.choose(p2, pane=0)
    assert path(store, conv, 0) == ["first", "0 one", "teh typo", "0 typo"]
    assert path(store, conv, 1)[-2:] == ["third", "1 three"]
    assert [p.pane for p in store.load(conv).last_round] == [0, 1]
    store.choose(p2b, pane=0)
    assert path(store, conv, 0)[-2:] == ["third", "0 three"]


def test_a_regenerated_answer_is_a_sibling_in_its_pane_only(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, _a10, a11, p2, a20, a21) = two_rounds(store)
    b21 = answer(store, conv, 1, "1 again", parent=p2)
    loaded = store.load(conv)
    assert [m.text for m in loaded.pane_paths[1]][-1] == "1 again"
    assert loaded.pane_paths[1][-1].siblings == (a21, b21)
    assert loaded.pane_paths[0][-1].siblings == (a20,)
    store.choose(a21, pane=1)
    assert path(store, conv, 1)[-1] == "1 typo"
    assert path(store, conv, 0)[-1] == "0 typo"
    assert store.load(conv).conversation(1).messages[-1].text == "1 typo"
    assert [m.id for m in store.load(conv).pane_paths[1]][:2] == [p1, a11]  # untouched


def test_export_writes_each_panes_chosen_path(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a10, a11, p2, _a20, a21) = two_rounds(store)
    p2b = store.add_user_message(conv, "the fix", parent=a10, pane=0)
    a2b = answer(store, conv, 0, "0 fix")
    document = json.loads(export_conversation(store, conv, "json"))
    assert [(m["text"], m.get("pane")) for m in document["messages"]] == [
        ("first", None), ("0 one", 0), ("1 one", 1), ("teh typo", None), ("1 typo", 1),
        ("the fix", 0), ("0 fix", 0),
    ]  # fmt: skip
    assert document["pane_paths"] == {"0": [p1, a10, p2b, a2b], "1": [p1, a11, p2, a21]}
    markdown = export_conversation(store, conv, "md")
    assert "## You (pane 0)\n\nthe fix" in markdown
    assert "0 typo" not in markdown  # off both paths
    everything = export_conversation(store, conv, "md", all_branches=True)
    assert "0 typo" in everything


def test_a_pane_added_carries_on_the_sources_chosen_path(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (p1, a10, _a11, _p2, _a20, _a21) = two_rounds(store)
    p2b = store.add_user_message(conv, "the fix", parent=a10, pane=0)
    answer(store, conv, 0, "0 fix")
    store.carry_pane(conv, 0, 2)
    assert path(store, conv, 2) == ["first", "0 one", "the fix", "0 fix"]
    p3 = store.add_user_message(conv, "third")
    answer(store, conv, 2, "2 three")
    assert path(store, conv, 2)[-2:] == ["third", "2 three"]
    assert [m.id for m in store.load(conv).pane_paths[2]][::2] == [p1, p2b, p3]


def test_a_batch_stays_flat(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv = store.create_conversation(kind="batch")
    store.add_user_message(conv, "q")
    answer(store, conv, 0, "a0")
    answer(store, conv, 1, "a1")
    loaded = store.load(conv)
    assert loaded.pane_paths == {}
    assert [m.text for m in loaded.messages] == ["q", "a0", "a1"]
    with sqlite3.connect(tmp_path / "h.sqlite3") as conn:
        assert conn.execute("SELECT count(*) FROM pane_links").fetchone()[0] == 0


OLD_COMPARISON = """
INSERT INTO conversations (id, title, created_at, updated_at, kind)
    VALUES (1, '', 1, 1, 'compare');
INSERT INTO messages (id, conversation_id, role, text, status, pane, reply_to, parent_id,
                      chosen, created_at, updated_at)
    VALUES (1, 1, 'user', 'q one', NULL, NULL, NULL, NULL, 1, 1, 1),
           (2, 1, 'assistant', 'left one', 'complete', 0, NULL, NULL, 2, 2, 2),
           (3, 1, 'assistant', 'right one', 'complete', 1, NULL, NULL, 3, 3, 3),
           (4, 1, 'user', 'q two', NULL, NULL, NULL, NULL, 4, 4, 4),
           (5, 1, 'assistant', 'left two', 'complete', 0, NULL, NULL, 5, 5, 5),
           (6, 1, 'assistant', 'right two', 'complete', 1, NULL, NULL, 6, 6, 6),
           (7, 1, 'assistant', 'added one', 'complete', 2, 1, NULL, 7, 7, 7);
"""


def test_a_comparison_from_before_pane_branches_keeps_its_order_and_branches(
    tmp_path: Path,
) -> None:
    before = next(m.version for m in MIGRATIONS if "pane_links" in m.sql) - 1
    original = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(original)
    for migration in MIGRATIONS:
        if migration.version <= before:
            conn.executescript(migration.sql)
    conn.executescript(f"PRAGMA user_version = {before:d};" + OLD_COMPARISON)
    conn.close()
    copy = tmp_path / "history.sqlite3"
    shutil.copyfile(original, copy)

    store = Store.open(copy)

    assert sqlite3.connect(copy).execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    loaded = store.load(1)
    assert [m.id for m in loaded.messages] == [1, 2, 3, 7, 4, 5, 6]  # as before
    assert path(store, 1, 0) == ["q one", "left one", "q two", "left two"]
    assert path(store, 1, 2) == ["q one", "added one", "q two"]  # carried, then asked nothing
    # Pane 1 regenerates its second answer: its flat past becomes its tree first.
    again = answer(store, 1, 1, "right again", parent=4)
    assert path(store, 1, 1) == ["q one", "right one", "q two", "right again"]
    assert store.load(1).pane_paths[1][-1].siblings == (6, again)
    assert path(store, 1, 0) == ["q one", "left one", "q two", "left two"]
    assert sqlite3.connect(original).execute("PRAGMA user_version").fetchone()[0] == before


def test_opening_a_search_hit_on_a_hidden_pane_branch_shows_it_in_that_pane(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path / "h.sqlite3")
    conv, (_p1, a10, _a11, _p2, _a20, _a21) = two_rounds(store)
    store.add_user_message(conv, "the fix", parent=a10, pane=0)
    answer(store, conv, 0, "0 fix")
    hit = store.search("typo")[0]
    assert hit.id == conv
    assert store.reveal(_a20, "typo") is True  # pane 0's old answer: its branch again
    assert path(store, conv, 0) == ["first", "0 one", "teh typo", "0 typo"]
    assert path(store, conv, 1) == ["first", "1 one", "teh typo", "1 typo"]
    assert store.reveal(_a20, "typo") is False  # shown already
    store.choose(store.load(conv, all_branches=True).messages[-2].id, pane=0)  # "the fix"
    assert store.reveal(_a21, "typo") is False  # pane 1 shows it: nothing to change
