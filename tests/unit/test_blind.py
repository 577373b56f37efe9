"""Blind rounds: letters hide the panes, every prompt reshuffles, keys mean votes."""

from __future__ import annotations

import random

import pytest

from app.compare.blind import BlindRound, Verdict, verdict, vote_prompt


def test_letters_map_to_panes_both_ways() -> None:
    blind = BlindRound((2, 0, 1))
    assert [blind.letter(p) for p in range(3)] == ["B", "C", "A"]
    assert blind.pane("A") == 2
    assert not blind.revealed
    assert blind.reveal().revealed


def test_every_prompt_reshuffles_and_every_order_turns_up() -> None:
    rng = random.Random(7)
    orders = {BlindRound.shuffled(3, rng).order for _ in range(200)}
    assert len(orders) == 6  # all permutations of three panes
    assert all(sorted(order) == [0, 1, 2] for order in orders)
    with pytest.raises(ValueError, match="2 to 4 panes"):
        BlindRound.shuffled(5, rng)


def test_vote_keys() -> None:
    blind = BlindRound((1, 0))
    assert verdict("1", blind) == Verdict("winner", 1)  # A is pane 1
    assert verdict("2", blind) == Verdict("winner", 0)
    assert verdict("3", blind) is None  # no third pane
    assert verdict("equals_sign", blind) == Verdict("tie")
    assert verdict("x", blind) == Verdict("all_bad")
    assert verdict("escape", blind) == Verdict("skipped")
    assert verdict("q", blind) is None


def test_the_vote_bar_words() -> None:
    assert vote_prompt(BlindRound((0, 1, 2, 3))) == (
        "Which is better?  1 A  2 B  3 C  4 D  ·  = tie  ·  x all bad  ·  Esc skip"
    )
    assert vote_prompt(BlindRound((1, 0))).startswith("Which is better?  1 A  2 B  ·  = tie")
