"""The leaderboard: votes → pairwise outcomes → a Bradley–Terry fit on the Elo-like scale, a
seeded bootstrap interval, and `triptych leaderboard` over a history of hand-counted votes."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli
from app.compare.leaderboard import (
    MIN_VOTES_FOR_INTERVAL,
    Pairwise,
    fit_ratings,
    pairwise_outcomes,
    standings,
    vote_pane,
)
from app.compare.stats import PaneStats
from app.display.speed import Rate
from app.headless.leaderboard import format_table
from app.store import Store, Vote, VotePane, history_path
from app.wire.events import Usage
from app.wire.turn import TurnStatus

FOUR = tuple(
    VotePane(p, "m", ttft_ms=t) for p, t in (("a", 100), ("b", 200), ("c", 300), ("d", 400))
)
ELO = 400 * math.log10(3)  # odds of 3 to 1 on the Elo scale: 190.85 points


def games(a: str, b: str, a_wins: int, b_wins: int) -> list[Pairwise]:
    return [Pairwise(a, b, 1.0)] * a_wins + [Pairwise(a, b, 0.0)] * b_wins


def duel(a: str, b: str, winner: str | None, *, tag: str | None = None) -> Vote:
    panes = (VotePane(a, "m1", ttft_ms=100, tok_s=50.0), VotePane(b, "m1", ttft_ms=300))
    if winner is None:
        return Vote("q", panes, "tie", tag=tag)
    return Vote("q", panes, "winner", winner=0 if winner == a else 1, tag=tag)


# -- votes to pairwise outcomes -----------------------------------------------------------------


def test_a_four_pane_winner_beats_each_other_pane() -> None:
    outcomes = pairwise_outcomes(Vote("q", FOUR, "winner", winner=2))
    assert outcomes == [Pairwise("c:m", "a:m", 1.0), Pairwise("c:m", "b:m", 1.0),
                        Pairwise("c:m", "d:m", 1.0)]  # fmt: skip


@pytest.mark.parametrize("outcome", ["tie", "all_bad"])
def test_a_four_pane_tie_or_all_bad_is_a_tie_between_every_pair(outcome: str) -> None:
    outcomes = pairwise_outcomes(Vote("q", FOUR, outcome))  # type: ignore[arg-type]
    assert len(outcomes) == 6  # 4 choose 2
    assert {o.score for o in outcomes} == {0.5}
    assert {frozenset((o.a, o.b)) for o in outcomes} == {
        frozenset(pair) for pair in [("a:m", "b:m"), ("a:m", "c:m"), ("a:m", "d:m"),
                                     ("b:m", "c:m"), ("b:m", "d:m"), ("c:m", "d:m")]
    }  # fmt: skip


def test_a_skipped_vote_and_a_pane_against_its_twin_count_for_nothing() -> None:
    assert pairwise_outcomes(Vote("q", FOUR, "skipped")) == []
    twins = (VotePane("a", "m"), VotePane("a", "m"), VotePane("b", "m"))
    assert pairwise_outcomes(Vote("q", twins, "winner", winner=0)) == [Pairwise("a:m", "b:m", 1)]
    assert len(pairwise_outcomes(Vote("q", twins, "tie"))) == 2


def test_a_pane_is_kept_with_the_figures_its_voter_saw() -> None:
    stats = PaneStats("kimi", TurnStatus.COMPLETE, 0.4216, 2.0, Rate(61.5, estimated=False),
                      Usage(12, 180), "stop", 0.0012)  # fmt: skip
    assert vote_pane("kimi", "k2", stats, message_id=7) == VotePane(
        "kimi", "k2", 7, ttft_ms=422, tok_s=61.5, cost=0.0012
    )
    assert vote_pane("kimi", "k2", None) == VotePane("kimi", "k2")


# -- the fit ------------------------------------------------------------------------------------


def test_two_models_fit_the_odds_they_won_at() -> None:
    """A wins 2 of 3: π_A / π_B = 2, so they stand 400·log10(2) = 120.41 apart around 1000."""
    ratings = fit_ratings(games("A", "B", 2, 1), prior=0)
    assert ratings["A"] == pytest.approx(1000 + 60.206, abs=1e-3)
    assert ratings["B"] == pytest.approx(1000 - 60.206, abs=1e-3)


def test_a_known_three_model_fit() -> None:
    """A beats B 3:1, B beats C 3:1 and A beats C 9:1: strengths 9, 3, 1 fit every pair
    exactly, so the maximum-likelihood ratings are 1000 ± 400·log10(3), B at the mean."""
    data = games("A", "B", 30, 10) + games("B", "C", 30, 10) + games("A", "C", 45, 5)
    ratings = fit_ratings(data, prior=0)
    assert ratings["A"] == pytest.approx(1000 + ELO, abs=1e-6)
    assert ratings["B"] == pytest.approx(1000, abs=1e-6)
    assert ratings["C"] == pytest.approx(1000 - ELO, abs=1e-6)


def test_a_tie_is_half_a_win_for_each_side() -> None:
    with_ties = [Pairwise("A", "B", 1.0), Pairwise("A", "B", 0.5), Pairwise("A", "B", 0.5)]
    # 2 points of 3, as two wins in three: 120.41 apart.
    ratings = fit_ratings(with_ties, prior=0)
    assert ratings["A"] - ratings["B"] == pytest.approx(400 * math.log10(2), abs=1e-3)


def test_the_prior_keeps_a_clean_sweep_finite_and_satisfies_its_likelihood_equations() -> None:
    """A beats B 3:0, so no finite plain fit exists. With the prior each model also plays one
    imaginary game against a reference player (ln π = 0), half won. At the maximum, expected
    scores equal actual ones: A: 3 + 1/2 = 3 σ(d) + σ(θ_A), B: 1/2 = 3 σ(-d) + σ(θ_B), with
    d = θ_A - θ_B. Summing gives σ(θ_A) + σ(θ_B) = 1, so θ_A = d/2 = -θ_B."""
    ratings = fit_ratings(games("A", "B", 3, 0))
    d = (ratings["A"] - ratings["B"]) / (400 / math.log(10))
    assert 0 < d < 10
    sigmoid = lambda x: 1 / (1 + math.exp(-x))  # noqa: E731
    assert 3 * sigmoid(d) + sigmoid(d / 2) == pytest.approx(3.5, abs=1e-9)
    assert ratings["A"] + ratings["B"] == pytest.approx(2000)


# -- standings ----------------------------------------------------------------------------------


def hand_counted() -> list[Vote]:
    """a beats b 3 times and loses once; b and c tie twice; a beats c once; one skip."""
    votes = [duel("a", "b", "a")] * 3 + [duel("a", "b", "b")]
    votes += [duel("b", "c", None)] * 2 + [duel("a", "c", "a")]
    votes.append(Vote("q", (VotePane("a", "m1"), VotePane("c", "m1")), "skipped"))
    return votes


def test_standings_count_battles_wins_losses_ties_and_medians() -> None:
    rows = {row.provider: row for row in standings(hand_counted(), rounds=50)}
    a, b, c = rows["a"], rows["b"], rows["c"]
    assert (a.battles, a.wins, a.losses, a.ties, a.win_rate) == (5, 4, 1, 0, 0.8)
    assert (b.battles, b.wins, b.losses, b.ties, b.win_rate) == (6, 1, 3, 2, 1 / 6)
    assert (c.battles, c.wins, c.losses, c.ties, c.win_rate) == (3, 0, 1, 2, 0.0)
    # a was the first pane in each of its 5 counted votes (100 ms, 50 tok/s); b first in 2 of 6.
    assert (a.ttft_ms_median, a.tok_s_median, a.cost_median) == (100.0, 50.0, None)
    assert b.ttft_ms_median == 300.0  # 300 ×4, 100 ×2
    assert c.ttft_ms_median == 300.0
    assert c.tok_s_median is None
    assert [row.provider for row in standings(hand_counted(), rounds=50)] == ["a", "b", "c"]
    assert a.model == "m1"


def test_the_bootstrap_interval_is_reproducible_and_holds_the_rating() -> None:
    first = standings(hand_counted() * 4, rounds=200)  # 12 to 24 votes each: intervals
    again = standings(hand_counted() * 4, rounds=200)
    assert first == again  # seeded: the same votes give the same figures
    for row in first:
        assert row.rating_low is not None
        assert row.rating_high is not None
        assert row.rating_low <= row.rating <= row.rating_high
        assert row.rating_low < row.rating_high
    other_seed = standings(hand_counted() * 4, rounds=200, seed=99)
    assert [r.rating for r in other_seed] == [r.rating for r in first]
    assert [r.rating_low for r in other_seed] != [r.rating_low for r in first]


def test_no_counted_votes_give_an_empty_board() -> None:
    skipped = Vote("q", (VotePane("a", "m"), VotePane("b", "m")), "skipped")
    assert standings([]) == []
    assert standings([skipped]) == []


# -- the command --------------------------------------------------------------------------------


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return Store.open(history_path())


def test_leaderboard_json_gives_the_known_fit_for_stored_votes(
    history: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    votes = [duel("A", "B", "A")] * 30 + [duel("A", "B", "B")] * 10
    votes += [duel("B", "C", "B")] * 30 + [duel("B", "C", "C")] * 10
    votes += [duel("A", "C", "A")] * 45 + [duel("A", "C", "C")] * 5
    for vote in votes:
        history.record_vote(vote)
    history.close()

    assert cli.main(["leaderboard", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["provider"] for row in rows] == ["A", "B", "C"]
    assert set(rows[0]) == {
        "provider", "model", "battles", "wins", "losses", "ties", "win_rate", "rating",
        "rating_low", "rating_high", "votes", "rank", "ttft_ms_median", "tok_s_median",
        "cost_median",
    }  # fmt: skip
    a, b, c = rows
    assert (a["battles"], a["wins"], a["losses"], a["ties"]) == (90, 75, 15, 0)
    assert (b["battles"], b["wins"], b["losses"]) == (80, 40, 40)
    assert a["win_rate"] == round(75 / 90, 4)
    # 1000 ± 190.85 by hand; the prior's one imaginary game per model pulls in by < 3 points.
    assert 1000 + ELO - 3 < a["rating"] < 1000 + ELO
    assert b["rating"] == pytest.approx(1000, abs=0.1)
    assert 1000 - ELO < c["rating"] < 1000 - ELO + 3
    assert a["rating_low"] < a["rating"] < a["rating_high"]
    assert a["rating_low"] > b["rating_high"]  # 130 votes tell A from B apart
    assert (a["model"], a["ttft_ms_median"], a["tok_s_median"], a["cost_median"]) == (
        "m1", 100.0, 50.0, None,
    )  # fmt: skip


def test_leaderboard_filters_by_date_and_tag_and_prints_a_table(
    history: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    history.clock = lambda: 1_000_000.0  # 1970: before any --since given below
    history.record_vote(duel("old", "older", "old"))
    history.clock = lambda: 2_000_000_000.0  # 2033
    history.record_vote(duel("x", "y", "x", tag="run1"))
    history.record_vote(duel("x", "z", "z", tag="run2"))
    history.close()

    assert cli.main(["leaderboard", "--json", "--since", "2000-01-01"]) == 0
    assert {r["provider"] for r in json.loads(capsys.readouterr().out)} == {"x", "y", "z"}
    assert cli.main(["leaderboard", "--json", "--tag", "run1"]) == 0
    assert {r["provider"] for r in json.loads(capsys.readouterr().out)} == {"x", "y"}
    assert cli.main(["leaderboard", "--tag", "run1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["#", "provider:model", "rating", "95%"]
    assert lines[1].split()[:2] == ["1", "x:m1"]
    assert lines[2].split()[:2] == ["2", "y:m1"]
    assert cli.main(["leaderboard", "--tag", "nothing"]) == 0
    assert capsys.readouterr().out.startswith("no votes yet")


def test_a_bad_since_date_is_a_usage_error(
    history: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["leaderboard", "--since", "last tuesday"]) == 2
    err = capsys.readouterr().err
    assert "--since" in err
    assert "YYYY-MM-DD" in err
    assert "Traceback" not in err


# -- votes out of shape ------------------------------------------------------------------------


def leaderboard(tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    """`triptych leaderboard` in a process of its own: its real exit status and output."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(TRIPTYCH_DATA_DIR=str(tmp_path / "data"), XDG_CONFIG_HOME=str(tmp_path / "ch"))
    done = subprocess.run(
        [sys.executable, "-m", "app", "leaderboard", *argv],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_votes_out_of_shape_are_left_out_and_said_and_infinite_speeds_are_not_known(
    history: Store, tmp_path: Path
) -> None:
    for _ in range(3):
        history.record_vote(duel("A", "B", "A"))
    history.close()
    with sqlite3.connect(history_path()) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")  # as a hand edit could
        conn.execute("UPDATE votes SET winner = 5 WHERE id = 1")  # past the two panes
        conn.execute("UPDATE votes SET outcome = 'landslide', winner = NULL WHERE id = 2")
        conn.execute("UPDATE vote_panes SET tok_s = 9e999 WHERE vote_id = 3")  # inf
        conn.execute("UPDATE vote_panes SET ttft_ms = 'soon' WHERE vote_id = 3 AND pane = 1")

    code, out, err = leaderboard(tmp_path, "--json")

    assert code == 0, err
    assert err == (
        "triptych: warning: 2 vote(s) in the history cannot be read (damaged or edited by "
        "hand: id 1, 2) and are not counted\n"
    )
    rows = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    assert [(r["provider"], r["battles"], r["tok_s_median"]) for r in rows] == [
        ("A", 1, None), ("B", 1, None),
    ]  # fmt: skip
    assert rows[1]["ttft_ms_median"] is None
    code, out, err = leaderboard(tmp_path)  # the table too
    assert code == 0
    assert "Traceback" not in err
    assert out.splitlines()[1].split()[:2] == ["1", "A:m1"]


@pytest.mark.parametrize("since", ["0001-01-01", "9999-12-31T23:59"])
def test_a_since_date_at_the_ends_of_the_calendar_is_before_or_after_every_vote(
    history: Store, tmp_path: Path, since: str
) -> None:
    history.record_vote(duel("A", "B", "A"))
    history.close()
    code, out, err = leaderboard(tmp_path, "--json", "--since", since)
    assert (code, err) == (0, "")
    assert len(json.loads(out)) == (2 if since.startswith("0001") else 0)


def test_an_infinite_speed_is_kept_as_not_known() -> None:
    stats = PaneStats(
        label="a", status=TurnStatus.COMPLETE, ttft=0.0, duration=0.0,
        rate=Rate(math.inf, estimated=False), usage=None, finish_reason="stop", cost=math.nan,
    )  # fmt: skip
    pane = vote_pane("p", "m", stats)
    assert (pane.tok_s, pane.cost) == (None, None)


def test_an_interval_needs_enough_votes_and_equal_ratings_share_a_rank() -> None:
    """One vote gave a zero-width interval (`1211–1211`); a tie between two models that each
    beat a third gave them ranks 2 and 3."""
    one = standings([duel("a", "b", "a")], rounds=50)
    assert all(row.rating_low is None and row.rating_high is None for row in one)
    assert [row.votes for row in one] == [1, 1]
    assert "n/a (1 vote)" in format_table(one)
    votes = [duel("a", "c", "a"), duel("b", "c", "b"), duel("a", "b", None)]
    many = standings(votes * MIN_VOTES_FOR_INTERVAL, rounds=50)
    assert [(row.provider, row.rank) for row in many] == [("a", 1), ("b", 1), ("c", 3)]
    assert all(row.rating_low is not None for row in many)
    assert "n/a" not in format_table(many)
    few = standings(votes * (MIN_VOTES_FOR_INTERVAL // 2 - 1), rounds=50)
    assert "n/a (8 votes)" in format_table(few)  # each model is in two of every three votes
