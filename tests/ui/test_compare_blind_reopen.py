"""A blind comparison reopened from the history: left before the vote, it comes
back blind (letters, no name, the vote bar asking) and the vote is stored for its last answers;
left after the vote, it comes back with the names and the vote that was given. Over three fake
providers on loopback, the app started again with `--continue` on the same history file."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from app.store import Store
from app.store.votes import Vote
from app.ui.app import TriptychApp
from app.ui.screens.compare import CompareScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import answer, ask, compare_screen
from tests.ui.helpers import make_app, screen_text, wait_until
from tests.ui.test_compare_blind import (
    WHO,
    blind_app,
    blind_config,
    differing_seed,
    leaks,
    read_votes,
    voted_round,
)

WIDE = (170, 40)


def last_answer_ids(db: Path) -> set[int]:
    store = Store.open(db)
    try:
        conv_id = store.last_conversation_id()
        assert conv_id is not None
        stored = store.load(conv_id)
    finally:
        store.close()
    answers: set[int] = set()
    for message in reversed(stored.messages):
        if message.role == "user":
            break
        answers.add(message.id)
    return answers


def continued(fakes: dict[Api, FakeProvider], tmp_path: Path) -> TriptychApp:
    """`triptych --continue` (no --compare, no --blind): the stored comparison comes back."""
    config = blind_config(fakes)
    return make_app(config, tmp_path, history_file=tmp_path / "history.db", continue_last=True)


async def reopened(app: TriptychApp, pilot: Any) -> CompareScreen:
    await wait_until(pilot, lambda: isinstance(app.screen, CompareScreen), what="a comparison")
    screen = compare_screen(app)
    await wait_until(
        pilot, lambda: all(p.current is not None for p in screen.panes), what="the answers"
    )
    await pilot.pause()
    return screen


async def test_left_before_the_vote_it_reopens_blind_and_asks_the_vote(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.db"
    first = blind_app(fakes, tmp_path, blind=True)
    async with first.run_test(size=WIDE) as pilot:
        compare_screen(first).rng = random.Random(differing_seed(3))
        await voted_round(pilot, fakes, "still to judge")  # left with the vote bar asking
    assert read_votes(db) == []

    again = continued(fakes, tmp_path)
    async with again.run_test(size=WIDE) as pilot:
        screen = await reopened(again, pilot)
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.pause()
        text = screen_text(again)
        assert screen.hidden
        assert leaks(text) == [], text
        assert [p.header.render().plain for p in screen.panes] == ["A", "B", "C"]
        assert "Which is better?  alt+1 A  alt+2 B  alt+3 C" in text
        assert again.focused is screen.prompt
        assert screen.round is not None
        winner = screen.round.order[2]  # the pane shown as C, in the stored pane order
        await pilot.press("alt+3")
        await pilot.pause()
        assert not screen.hidden
        assert all(name in screen_text(again) for name in WHO.values())

    votes = read_votes(db)
    assert [(v.prompt, v.outcome, v.winner) for v in votes] == [
        ("still to judge", "winner", winner)
    ]
    assert [p.key for p in votes[0].panes] == [f"{n}:{n}-model" for n in WHO.values()]
    assert {p.message_id for p in votes[0].panes} == last_answer_ids(db)


async def test_voted_it_reopens_with_the_names_and_the_vote_and_the_next_prompt_is_blind(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.db"
    first = blind_app(fakes, tmp_path, blind=True)
    async with first.run_test(size=WIDE) as pilot:
        screen = compare_screen(first)
        screen.rng = random.Random(differing_seed(3))
        await voted_round(pilot, fakes, "judged")
        assert screen.round is not None
        winner = screen._round_panes[screen.round.order[1]].provider.name
        await pilot.press("alt+2")
        await pilot.pause()
    votes: list[Vote] = read_votes(db)
    assert len(votes) == 1

    again = continued(fakes, tmp_path)
    async with again.run_test(size=WIDE) as pilot:
        screen = await reopened(again, pilot)
        await wait_until(pilot, lambda: "Your vote" in screen_text(again), what="the vote")
        text = screen_text(again)
        assert not screen.hidden
        assert not screen.vote_bar.asking
        assert all(name in text for name in WHO.values())
        assert f"Your vote: {winner}:{winner}-model was better" in text
        assert again.focused is screen.prompt

        before = await voted_round(pilot, fakes, "next one")  # blind again
        assert leaks(before) == []
        await pilot.press("alt+equals_sign")
        await pilot.pause()
    assert [(v.prompt, v.outcome) for v in read_votes(db)] == [
        ("judged", "winner"),
        ("next one", "tie"),
    ]


async def test_reopened_before_its_vote_a_later_round_hides_the_earlier_answers(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    """Round one voted (its answers differ per provider), round two left before its vote: the
    reopened panes show round two only until it is voted, then round one again."""
    first_answers = {api: f"{name[::-1]}xyz said" for api, name in WHO.items()}
    first = blind_app(fakes, tmp_path, blind=True)
    async with first.run_test(size=WIDE) as pilot:
        screen = compare_screen(first)
        for api, text in first_answers.items():
            fakes[api].push(fake.stream(api, answer(text)))
        await ask(pilot, "round one")
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="round one's vote bar")
        await pilot.press("alt+1")
        await voted_round(pilot, fakes, "round two")  # left with the vote bar asking

    again = continued(fakes, tmp_path)
    async with again.run_test(size=WIDE) as pilot:
        screen = await reopened(again, pilot)
        await wait_until(pilot, lambda: screen.vote_bar.asking, what="the vote bar")
        await pilot.pause()
        text = screen_text(again)
        assert leaks(text) == []
        assert [t for t in first_answers.values() if t in text] == []
        assert "round one" not in text
        assert "round two" in text
        assert "earlier rounds hidden until the vote" in text
        await pilot.press("alt+1")
        await pilot.pause()
        after = screen_text(again)
        assert all(t in after for t in first_answers.values())
        assert "earlier rounds hidden until the vote" not in after
