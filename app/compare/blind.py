"""Blind comparison: which pane hides behind which letter, shuffled again for every prompt.

Panes keep their own places and streams; only what the screen calls them changes. `order[i]` is
the pane shown as letter `LETTERS[i]`, so the panes are laid out in letter order and nothing on
screen (position, title) says who is who until the vote reveals it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.store.votes import Outcome

LETTERS = "ABCD"


@dataclass(frozen=True, slots=True)
class BlindRound:
    order: tuple[int, ...]  # order[slot] = the pane shown in that slot, as LETTERS[slot]
    revealed: bool = False

    @classmethod
    def shuffled(cls, panes: int, rng: random.Random) -> BlindRound:
        if not 2 <= panes <= len(LETTERS):
            raise ValueError(f"a blind comparison has 2 to {len(LETTERS)} panes, not {panes}")
        order = list(range(panes))
        rng.shuffle(order)
        return cls(tuple(order))

    def letter(self, pane: int) -> str:
        return LETTERS[self.order.index(pane)]

    def pane(self, letter: str) -> int:
        return self.order[LETTERS.index(letter)]

    def reveal(self) -> BlindRound:
        return BlindRound(self.order, revealed=True)


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: Outcome
    winner: int | None = None  # the winning pane (not its letter), for "winner"


def verdict(key: str, blind: BlindRound) -> Verdict | None:
    """What a key on the vote bar means: 1–4 a winner, = a tie, x all bad, escape skips."""
    if key == "equals_sign" or key == "=":
        return Verdict("tie")
    if key == "x":
        return Verdict("all_bad")
    if key == "escape":
        return Verdict("skipped")
    if key.isdigit() and 1 <= int(key) <= len(blind.order):
        return Verdict("winner", blind.order[int(key) - 1])
    return None


def vote_prompt(blind: BlindRound) -> str:
    """The vote bar's words, exactly as the issue has them."""
    choices = "  ".join(f"{n} {LETTERS[n - 1]}" for n in range(1, len(blind.order) + 1))
    return f"Which is better?  {choices}  ·  = tie  ·  x all bad  ·  Esc skip"


__all__ = ["LETTERS", "BlindRound", "Verdict", "verdict", "vote_prompt"]
