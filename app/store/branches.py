"""A chat conversation as a tree: each message points at the one it follows (`parent_id`).

Editing an earlier prompt or regenerating an answer adds a sibling (same parent) instead of
replacing anything, so the original stays. Which sibling a conversation shows is the one chosen
last: every message has a `chosen` number, the conversation's highest when it was added or
switched to, and the chosen child of a message is its child with the highest one. The chosen
path (what is shown, reopened, exported and sent) follows the chosen child from the chosen root
down to a leaf. Each subtree keeps its own choice, so switching back to a branch shows it as it
was left.

Comparisons and batches keep their old flat order (no parent pointers): their prompts are
shared by every pane.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

    from app.store.records import StoredMessage

# `parent` of a new message when none is named: after the end of the chosen path.
AT_END = -1


@dataclass(frozen=True, slots=True)
class Node:
    id: int
    parent: int | None
    chosen: int


@dataclass(frozen=True, slots=True)
class Tree:
    """The shape of one conversation's messages (ids only)."""

    nodes: dict[int, Node]
    children: dict[int | None, list[int]]  # by parent (None: the roots), oldest first

    @classmethod
    def of(cls, nodes: Iterable[Node]) -> Tree:
        by_id = {n.id: n for n in nodes}
        children: dict[int | None, list[int]] = {}
        for node in sorted(by_id.values(), key=lambda n: n.id):
            parent = node.parent if node.parent in by_id else None  # a lost parent: a root
            children.setdefault(parent, []).append(node.id)
        return cls(by_id, children)

    def chosen_child(self, parent: int | None) -> int | None:
        kids = self.children.get(parent)
        if not kids:
            return None
        return max(kids, key=lambda i: (self.nodes[i].chosen, i))

    def chosen_path(self) -> list[int]:
        path: list[int] = []
        node = self.chosen_child(None)
        while node is not None:
            path.append(node)
            node = self.chosen_child(node)
        return path

    def end(self) -> int | None:
        path = self.chosen_path()
        return path[-1] if path else None

    def siblings(self, message_id: int) -> list[int]:
        """The message and its siblings, oldest first (a message alone: just itself)."""
        node = self.nodes[message_id]
        parent = node.parent if node.parent in self.nodes else None
        return list(self.children.get(parent, [message_id]))

    def ancestry(self, message_id: int) -> list[int]:
        """The message and the ones it follows, up to its root (a loop is cut where it closes)."""
        found: list[int] = []
        node: int | None = message_id
        while node is not None and node in self.nodes and node not in found:
            found.append(node)
            node = self.nodes[node].parent
        return found

    def subtree(self, message_id: int) -> list[int]:
        """The message and everything that follows it on any branch."""
        found: list[int] = []
        seen: set[int] = set()  # a damaged file's parent pointers may loop
        todo = [message_id]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            found.append(node)
            todo.extend(self.children.get(node, ()))
        return found

    def depth_first(self) -> list[tuple[int, int]]:
        """Every message, parents before children, with its level: how many forks (messages
        with more than one child, or several roots) lie above it."""
        out: list[tuple[int, int]] = []
        todo: list[tuple[int | None, int]] = [(None, 0)]
        while todo:
            parent, level = todo.pop()
            kids = self.children.get(parent, [])
            if parent is not None:
                out.append((parent, level))
            inner = level + 1 if len(kids) > 1 else level
            for kid in reversed(kids):
                todo.append((kid, inner))
        return out


def branch_view(messages: list[StoredMessage], *, all_branches: bool) -> list[StoredMessage]:
    """A chat's messages as shown (the chosen path) or as exported with every branch, each
    given its siblings (and, for every branch, its level)."""
    tree = Tree.of(Node(m.id, m.parent_id, m.chosen) for m in messages)
    by_id = {m.id: m for m in messages}
    order = tree.depth_first() if all_branches else [(i, 0) for i in tree.chosen_path()]
    return [replace(by_id[i], siblings=tuple(tree.siblings(i)), level=level) for i, level in order]


def tree_of(conn: sqlite3.Connection, conv_id: int) -> Tree:
    rows = conn.execute(
        "SELECT id, parent_id, chosen FROM messages WHERE conversation_id = ?", (conv_id,)
    )
    return Tree.of(Node(r[0], r[1], r[2]) for r in rows)


def next_chosen(conn: sqlite3.Connection, conv_id: int) -> int:
    """The number a message just added or switched to takes: higher than any in its conversation."""
    row = conn.execute(
        "SELECT COALESCE(MAX(chosen), 0) + 1 FROM messages WHERE conversation_id = ?", (conv_id,)
    ).fetchone()
    return int(row[0])


def is_tree(conn: sqlite3.Connection, conv_id: int) -> bool:
    """A chat conversation (a tree); comparisons and batches stay flat."""
    row = conn.execute("SELECT kind FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    return row is not None and row[0] == "chat"


def parent_for(conn: sqlite3.Connection, conv_id: int, parent: int | None) -> int | None:
    """What a new message of `conv_id` follows: `parent` as named (None: a new root), or the
    end of the chosen path for AT_END; None in a flat conversation."""
    if not is_tree(conn, conv_id):
        return None
    if parent == AT_END:
        return tree_of(conn, conv_id).end()
    return parent


__all__ = [
    "AT_END",
    "Node",
    "Tree",
    "branch_view",
    "is_tree",
    "next_chosen",
    "parent_for",
    "tree_of",
]
