"""A comparison's panes as trees, one per pane: each pane branches on its own.

A comparison stores each shared prompt once and each pane's answers under its pane index; the
`pane_links` table (migration 10) gives every message a parent and a `chosen` number *per pane*,
so a prompt every pane shares has one parent in each pane's tree, and a prompt a pane edited on
its own (a user row with that `pane`) or an answer it regenerated lives in its tree only. Each
pane's chosen path follows its chosen children exactly as a chat's does (app/store/branches.py).

A comparison stored before migration 10, or a pane no write has linked yet, has no links: its
tree is its flat reading order (every prompt, its own answers, one after another), which is
what it showed before. The first branching write to such a pane stores that chain first, so the
tree it then holds is what it showed. Batches stay flat.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from app.store.branches import AT_END, Node, Tree
from app.store.records import StoredMessage, in_reading_order


@dataclass(frozen=True, slots=True)
class Row:
    """What ordering a comparison's messages needs of each (ids only, no text)."""

    id: int
    role: str
    pane: int | None
    reply_to: int | None


def is_pane_tree(conn: sqlite3.Connection, conv_id: int) -> bool:
    """A comparison: its panes branch; a chat is one tree, a batch stays flat."""
    row = conn.execute("SELECT kind FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    return row is not None and row[0] == "compare"


def reading_order(rows: Iterable[Row]) -> list[Row]:
    """As records.in_reading_order: an answer with `reply_to` goes after that prompt's answers."""
    prompt = 0
    keyed: list[tuple[tuple[int, int, int], Row]] = []
    for r in sorted(rows, key=lambda r: r.id):
        if r.role == "user":
            prompt = r.id
            keyed.append(((r.id, 0, r.id), r))
        else:
            keyed.append(((r.reply_to if r.reply_to is not None else prompt, 1, r.id), r))
    keyed.sort(key=lambda pair: pair[0])
    return [r for _, r in keyed]


def belongs(role: str, owner: int | None, pane: int) -> bool:
    """In `pane`'s flat view: a shared prompt, a prompt of its own, or one of its answers."""
    if role == "user":
        return owner is None or owner == pane
    return owner == pane


def flat_chain(rows: Sequence[Row], pane: int) -> list[Node]:
    """A pane that has no links: its flat view as one chain (what it showed before branches)."""
    nodes: list[Node] = []
    parent: int | None = None
    for number, r in enumerate(reading_order(rows), 1):
        if belongs(r.role, r.pane, pane):
            nodes.append(Node(r.id, parent, number))
            parent = r.id
    return nodes


def _rows(conn: sqlite3.Connection, conv_id: int) -> list[Row]:
    found = conn.execute(
        "SELECT id, role, pane, reply_to FROM messages WHERE conversation_id = ?", (conv_id,)
    )
    return [Row(r[0], r[1], r[2], r[3]) for r in found]


def linked_panes(conn: sqlite3.Connection, conv_id: int) -> set[int]:
    rows = conn.execute(
        "SELECT DISTINCT pane FROM pane_links WHERE conversation_id = ?", (conv_id,)
    )
    return {r[0] for r in rows}


def known_panes(conn: sqlite3.Connection, conv_id: int) -> set[int]:
    """Every pane the comparison has: one that answered, or one already linked."""
    rows = conn.execute(
        "SELECT DISTINCT pane FROM messages WHERE conversation_id = ? AND role = 'assistant' "
        "AND pane IS NOT NULL",
        (conv_id,),
    )
    return {r[0] for r in rows} | linked_panes(conn, conv_id)


def _linked_tree(conn: sqlite3.Connection, conv_id: int, pane: int) -> Tree:
    rows = conn.execute(
        "SELECT message_id, parent_id, chosen FROM pane_links "
        "WHERE conversation_id = ? AND pane = ?",
        (conv_id, pane),
    )
    return Tree.of(Node(r[0], r[1], r[2]) for r in rows)


def pane_tree(conn: sqlite3.Connection, conv_id: int, pane: int) -> Tree:
    """A pane's tree: its links, or its flat chain while it has none."""
    tree = _linked_tree(conn, conv_id, pane)
    return tree if tree.nodes else Tree.of(flat_chain(_rows(conn, conv_id), pane))


def _next_chosen(conn: sqlite3.Connection, conv_id: int) -> int:
    row = conn.execute(
        "SELECT COALESCE(MAX(chosen), 0) + 1 FROM pane_links WHERE conversation_id = ?",
        (conv_id,),
    ).fetchone()
    return int(row[0])


def ensure_linked(conn: sqlite3.Connection, conv_id: int, pane: int) -> None:
    """Store a pane's flat chain as its links, if it has none yet (before its first branch)."""
    if pane in linked_panes(conn, conv_id):
        return
    base = _next_chosen(conn, conv_id)
    conn.executemany(
        "INSERT INTO pane_links (message_id, pane, conversation_id, parent_id, chosen) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            (n.id, pane, conv_id, n.parent, base + n.chosen)
            for n in flat_chain(_rows(conn, conv_id), pane)
        ],
    )


def link(
    conn: sqlite3.Connection, conv_id: int, message_id: int, pane: int, parent: int | None
) -> None:
    """Put a message just added into `pane`'s tree after `parent` (AT_END: the end of its
    chosen path), as the chosen branch. Call `ensure_linked` before adding the message."""
    after = _linked_tree(conn, conv_id, pane).end() if parent == AT_END else parent
    conn.execute(
        "INSERT OR REPLACE INTO pane_links (message_id, pane, conversation_id, parent_id, chosen)"
        " VALUES (?, ?, ?, ?, ?)",
        (message_id, pane, conv_id, after, _next_chosen(conn, conv_id)),
    )


def choose(conn: sqlite3.Connection, conv_id: int, message_id: int, pane: int) -> None:
    """Show the branch through `message_id` in `pane` (its other panes keep their choices)."""
    ensure_linked(conn, conv_id, pane)
    conn.execute(
        "UPDATE pane_links SET chosen = ? WHERE message_id = ? AND pane = ?",
        (_next_chosen(conn, conv_id), message_id, pane),
    )


def reveal(
    conn: sqlite3.Connection,
    conv_id: int,
    message_id: int,
    holds: Callable[[list[int], str], bool],
    query: str,
) -> bool:
    """A search hit opened in a comparison: each pane whose tree holds the message but whose
    chosen path does not shows the branch through it, unless its path already `holds` every
    word of `query`. True when a choice changed."""
    changed = False
    for pane in sorted(known_panes(conn, conv_id)):
        tree = pane_tree(conn, conv_id, pane)
        if message_id not in tree.nodes:
            continue
        path = tree.chosen_path()
        if message_id in path or holds(path, query):
            continue
        ensure_linked(conn, conv_id, pane)
        for node in tree.ancestry(message_id):
            conn.execute(
                "UPDATE pane_links SET chosen = ? WHERE message_id = ? AND pane = ?",
                (_next_chosen(conn, conv_id), node, pane),
            )
        changed = True
    return changed


@dataclass(frozen=True, slots=True)
class PaneViews:
    """A comparison as loaded: each pane's chosen path, and the messages on any of them."""

    paths: dict[int, list[StoredMessage]]
    shown: list[StoredMessage]  # in reading order: what the comparison shows and exports


def pane_views(
    conn: sqlite3.Connection, conv_id: int, messages: list[StoredMessage], *, everything: bool
) -> PaneViews:
    """Each pane's chosen path, every message in it knowing its siblings in that pane's tree.
    `everything`: every message is shown (an export of every branch), not only the paths'."""
    by_id = {m.id: m for m in messages}
    rows = [Row(m.id, m.role, m.pane, m.reply_to) for m in messages]
    panes = {m.pane for m in messages if m.role == "assistant" and m.pane is not None}
    links: dict[int, list[Node]] = {}
    for message_id, pane, parent, chosen in conn.execute(
        "SELECT message_id, pane, parent_id, chosen FROM pane_links WHERE conversation_id = ?",
        (conv_id,),
    ):
        links.setdefault(pane, []).append(Node(message_id, parent, chosen))
    paths: dict[int, list[StoredMessage]] = {}
    in_a_tree: set[int] = set()
    on_a_path: set[int] = set()
    for pane in sorted(panes | set(links)):
        tree = Tree.of(links[pane] if pane in links else flat_chain(rows, pane))
        in_a_tree.update(tree.nodes)
        path = [i for i in tree.chosen_path() if i in by_id]
        on_a_path.update(path)
        paths[pane] = [
            replace(
                by_id[i],
                parent_id=tree.nodes[i].parent,
                chosen=tree.nodes[i].chosen,
                siblings=tuple(tree.siblings(i)),
            )
            for i in path
        ]
    shown = [
        m for m in messages if everything or m.id in on_a_path or m.id not in in_a_tree
    ]  # a prompt stored before any pane answered is in no tree yet
    return PaneViews(paths, in_reading_order(shown))


__all__ = [
    "PaneViews",
    "choose",
    "ensure_linked",
    "flat_chain",
    "is_pane_tree",
    "known_panes",
    "link",
    "pane_tree",
    "pane_views",
    "reveal",
]
