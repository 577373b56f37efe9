"""Votes from blind comparisons: what was asked, who answered in which pane, and the verdict.

A vote outlives its conversation (deleting the conversation sets `conversation_id` to NULL,
unless the deletion asks for its votes to go too), so a leaderboard keeps every verdict given.
Each pane keeps its own figures (first token, speed, cost) as the voter saw them, so the
leaderboard's medians need neither the answers nor today's prices.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from typing import Literal, get_args

Outcome = Literal["winner", "tie", "all_bad", "skipped"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)


@dataclass(frozen=True, slots=True)
class VotePane:
    """One pane of a voted comparison, in the order the comparison numbers its panes."""

    provider: str
    model: str
    message_id: int | None = None  # the stored answer, when there is one
    ttft_ms: int | None = None
    tok_s: float | None = None
    cost: float | None = None

    @property
    def key(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass(frozen=True, slots=True)
class Vote:
    """`winner` is an index into `panes`, set only when `outcome` is "winner"."""

    prompt: str
    panes: tuple[VotePane, ...]
    outcome: Outcome
    winner: int | None = None
    conversation_id: int | None = None
    tag: str | None = None  # the batch's --tag, for `leaderboard --tag`
    created_at: float = 0.0  # wall clock, set by the store
    id: int | None = None

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise ValueError(f"unknown vote outcome {self.outcome!r}")
        if (self.outcome == "winner") != (self.winner is not None):
            raise ValueError("a winner is given exactly when the outcome is 'winner'")
        if isinstance(self.winner, bool) or not isinstance(self.winner, int | None):
            raise ValueError(f"winner {self.winner!r} is not a pane's number")
        if self.winner is not None and not 0 <= self.winner < len(self.panes):
            raise ValueError(f"winner {self.winner} is not one of the {len(self.panes)} panes")
        if len(self.panes) < 2:
            raise ValueError("a vote compares at least two panes")


def insert_vote(conn: sqlite3.Connection, vote: Vote, now: float) -> int:
    cur = conn.execute(
        "INSERT INTO votes (conversation_id, prompt, outcome, winner, tag, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (vote.conversation_id, vote.prompt, vote.outcome, vote.winner, vote.tag, now),
    )
    vote_id = cur.lastrowid
    assert vote_id is not None
    conn.executemany(
        "INSERT INTO vote_panes (vote_id, pane, provider, model, message_id, ttft_ms, tok_s, "
        "cost) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (vote_id, index, p.provider, p.model, p.message_id, p.ttft_ms, p.tok_s, p.cost)
            for index, p in enumerate(vote.panes)
        ],
    )
    return vote_id


def delete_vote(conn: sqlite3.Connection, vote_id: int) -> bool:
    """Take a vote back (the voter's undo): no leaderboard counts it any more. False when it
    was not there."""
    conn.execute("DELETE FROM vote_panes WHERE vote_id = ?", (vote_id,))
    return conn.execute("DELETE FROM votes WHERE id = ?", (vote_id,)).rowcount > 0


def select_votes(
    conn: sqlite3.Connection,
    *,
    since: float | None = None,
    tag: str | None = None,
    conversation_id: int | None = None,
    damaged: list[int] | None = None,
) -> list[Vote]:
    """Oldest first; each filter given narrows the set. A row that is not a vote (edited by
    hand or damaged: a winner past its panes, an unknown outcome, one pane) is left out, its id
    added to `damaged`; a pane's figure that is not a finite number reads as not known."""
    where: list[str] = []
    args: list[object] = []
    if since is not None:
        where.append("votes.created_at >= ?")
        args.append(since)
    if tag is not None:
        where.append("votes.tag = ?")
        args.append(tag)
    if conversation_id is not None:
        where.append("votes.conversation_id = ?")
        args.append(conversation_id)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    rows = conn.execute(
        f"SELECT * FROM votes{clause} ORDER BY votes.created_at, votes.id", args
    ).fetchall()
    panes: dict[int, list[VotePane]] = {row["id"]: [] for row in rows}
    if panes:
        for pane in conn.execute(
            f"SELECT p.* FROM vote_panes p JOIN votes ON votes.id = p.vote_id{clause} "
            "ORDER BY p.vote_id, p.pane",
            args,
        ):
            ttft = _figure(pane["ttft_ms"])
            panes[pane["vote_id"]].append(
                VotePane(
                    provider=str(pane["provider"]),
                    model=str(pane["model"]),
                    message_id=pane["message_id"],
                    ttft_ms=None if ttft is None else round(ttft),
                    tok_s=_figure(pane["tok_s"]),
                    cost=_figure(pane["cost"]),
                )
            )
    votes: list[Vote] = []
    for row in rows:
        try:
            votes.append(
                Vote(
                    prompt=str(row["prompt"]),
                    panes=tuple(panes[row["id"]]),
                    outcome=row["outcome"],
                    winner=row["winner"],
                    conversation_id=row["conversation_id"],
                    tag=row["tag"],
                    created_at=row["created_at"],
                    id=row["id"],
                )
            )
        except (ValueError, TypeError):
            if damaged is not None:
                damaged.append(row["id"])
    return votes


def _figure(value: object) -> float | None:
    """A stored figure as a finite number, or None (NULL, text, NaN, an infinite speed)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


__all__ = [
    "OUTCOMES",
    "Outcome",
    "Vote",
    "VotePane",
    "delete_vote",
    "insert_vote",
    "select_votes",
]
