"""Blind comparison: which pane hides behind which letter, shuffled again for every prompt.

Panes keep their own places and streams; only what the screen calls them changes. `order[i]` is
the pane shown as letter `LETTERS[i]`, so the panes are laid out in letter order and nothing on
screen (position, title) says who is who until the vote reveals it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass

from app.store.records import StoredConversation
from app.store.votes import Outcome, Vote

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


def last_answers(stored: StoredConversation, panes: Iterable[int]) -> dict[int, int]:
    """Each of `panes`' answer to the conversation's last prompt: pane index -> message id
    (a pane that did not answer it is left out)."""
    wanted = set(panes)
    answers: dict[int, int] = {}
    for message in reversed(stored.messages):
        if message.role == "user" and message.pane is None:  # not a pane's own edit
            break
        if message.role == "assistant" and message.pane in wanted and message.pane not in answers:
            answers[message.pane] = message.id
    return answers


def vote_on(votes: Iterable[Vote], answers: Iterable[int]) -> Vote | None:
    """The latest of `votes` given on any of these answers (message ids), if one was."""
    ids = set(answers)
    found = None
    for vote in votes:
        if any(pane.message_id in ids for pane in vote.panes):
            found = vote
    return found


def vote_text(vote: Vote) -> str:
    """A vote given earlier, as a reopened comparison shows it once the names are back."""
    if vote.outcome == "winner" and vote.winner is not None:
        return f"Your vote: {vote.panes[vote.winner].key} was better"
    words = {"tie": "a tie", "all_bad": "all bad", "skipped": "skipped"}
    return f"Your vote: {words.get(vote.outcome, vote.outcome)}"


def naming(texts: Iterable[str], words: Iterable[str]) -> tuple[list[str], list[str]]:
    """`texts` split into those naming none of `words` (the compared providers and models) and
    those naming one: a blind comparison shows the first at once, the rest after the vote."""
    # whole names only (`providers.zebra.x` names zebra): a model called "m" names no "model"
    patterns = [re.compile(rf"(?<![\w-]){re.escape(w)}(?![\w-])", re.I) for w in words if w]
    free: list[str] = []
    named: list[str] = []
    for text in texts:
        (named if any(p.search(text) for p in patterns) else free).append(text)
    return free, named


__all__ = [
    "LETTERS",
    "BlindRound",
    "Verdict",
    "last_answers",
    "naming",
    "verdict",
    "vote_on",
    "vote_prompt",
    "vote_text",
]
