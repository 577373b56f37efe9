"""The leaderboard: blind votes turned into pairwise outcomes and a Bradley–Terry rating.

Outcomes. A vote over N panes counts as the pairwise outcomes it implies: a winner beats each
other pane; a tie, and "all bad", is a tie between every pair of panes; a skipped vote counts
for nothing. Two panes asking the same provider:model make no pair. `battles` are these pairwise
outcomes (a four-pane vote gives each pane three), `win_rate` is wins / battles.

Rating. Bradley–Terry, as Chatbot Arena fits it: each provider:model has a strength π, the
chance that i beats j is π_i / (π_i + π_j), and a tie counts as half a win for each side. The
strengths are fitted by maximum likelihood (Newton's method, pure Python), and shown on
an Elo-like scale, rating = 400 / ln 10 · ln π (so 400 points are odds of 10 to 1), shifted so
the mean rating of the models on the board is 1000. With few votes one model may have won (or
lost) every battle, and then no finite fit exists; so every model also plays PRIOR_GAMES
imaginary games against a fixed reference player, half of them won: a gentle pull
towards 1000 that a real battle outweighs many times (`prior=0` gives the plain fit).

Interval. 95% from a bootstrap: the votes (not the pairwise outcomes, which one vote ties
together) are drawn with replacement BOOTSTRAP_ROUNDS times, each sample is fitted, and the
2.5th and 97.5th percentiles of each model's rating are its interval. The generator is seeded
(BOOTSTRAP_SEED), so the same votes always give the same interval.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from app.compare.stats import PaneStats
from app.store.votes import Vote, VotePane

SCALE = 400 / math.log(10)
ANCHOR = 1000.0
PRIOR_GAMES = 1.0
BOOTSTRAP_ROUNDS = 1000
BOOTSTRAP_SEED = 14
# A model's interval is shown from this many votes with it on: the bootstrap resamples the
# votes, and with one vote every resample is that vote (a zero-width "1211–1211"); with a
# handful, the few distinct resamples make the percentile interval far narrower than the truth
# (a percentile bootstrap covers its nominal 95% only from roughly ten observations on). Below
# it the board says `n/a` and the count, not a certainty it does not have.
MIN_VOTES_FOR_INTERVAL = 10
_MAX_ITERATIONS = 100  # Newton steps; a handful suffice
_TOLERANCE = 1e-10  # largest change of any ln π in one step


def vote_pane(
    provider: str, model: str, stats: PaneStats | None, message_id: int | None = None
) -> VotePane:
    """A pane of a comparison as a vote keeps it: who answered, the stored answer, and the
    figures the voter saw (first token in ms, tok/s, cost), for the leaderboard's medians."""
    if stats is None:
        return VotePane(provider, model, message_id)
    tok_s = None if stats.rate is None else stats.rate.tokens_per_second
    return VotePane(
        provider,
        model,
        message_id,
        ttft_ms=None if stats.ttft is None else round(stats.ttft * 1000),
        tok_s=tok_s if tok_s is not None and math.isfinite(tok_s) else None,  # no inf in JSON
        cost=stats.cost if stats.cost is not None and math.isfinite(stats.cost) else None,
    )


@dataclass(frozen=True, slots=True)
class Pairwise:
    """One pairwise outcome: `score` is what `a` scored against `b` (1 win, 0.5 tie, 0 loss)."""

    a: str
    b: str
    score: float


def pairwise_outcomes(vote: Vote) -> list[Pairwise]:
    """The pairwise outcomes a vote implies (see the module's docstring)."""
    keys = [pane.key for pane in vote.panes]
    if vote.outcome == "skipped":
        return []
    if vote.outcome == "winner":
        assert vote.winner is not None
        best = keys[vote.winner]
        return [Pairwise(best, other, 1.0) for other in keys if other != best]
    return [
        Pairwise(keys[i], keys[j], 0.5)
        for i in range(len(keys))
        for j in range(i + 1, len(keys))
        if keys[i] != keys[j]
    ]


def fit_ratings(outcomes: Iterable[Pairwise], *, prior: float = PRIOR_GAMES) -> dict[str, float]:
    """Bradley–Terry ratings on the Elo-like scale, mean ANCHOR, for every model in `outcomes`."""
    outcomes = list(outcomes)
    names = sorted({o.a for o in outcomes} | {o.b for o in outcomes})
    index = {name: i for i, name in enumerate(names)}
    coded = [(index[o.a], index[o.b], o.score) for o in outcomes]
    return _ratings(names, _fit(len(names), _tally(coded), prior))


_Coded = tuple[int, int, float]  # (a, b, a's score) with models as indexes


def _tally(outcomes: Iterable[_Coded]) -> dict[tuple[int, int], list[float]]:
    """{(i, j) with i < j: [i's score against j, games between them]}."""
    table: dict[tuple[int, int], list[float]] = {}
    for a, b, score in outcomes:
        if a > b:
            a, b, score = b, a, 1.0 - score
        cell = table.get((a, b))
        if cell is None:
            table[(a, b)] = [score, 1.0]
        else:
            cell[0] += score
            cell[1] += 1.0
    return table


def _fit(
    count: int,
    table: Mapping[tuple[int, int], Sequence[float]],
    prior: float,
    start: Sequence[float] | None = None,
) -> list[float]:
    """ln π of each model, maximising the likelihood by Newton's method with a step halved
    until the likelihood rises (it is concave in ln π, so this converges in a few steps).

    Without a prior only differences matter: the last model is held at 0 and the rest solved
    against it. Models absent from `table` get NaN."""
    present = sorted({i for pair in table for i in pair})
    theta = [0.0] * count if start is None else list(start)
    free = present if prior > 0 else present[:-1]
    wins = [prior / 2] * count
    for (a, b), (score, games) in table.items():
        wins[a] += score
        wins[b] += games - score
    best = _likelihood(theta, table, wins, prior, present)
    for _ in range(_MAX_ITERATIONS):
        gradient, hessian = _derivatives(theta, table, wins, prior, present)
        step = _solve([[-hessian[i][j] for j in free] for i in free], [gradient[i] for i in free])
        if step is None:
            break
        size = 1.0
        while True:
            trial = list(theta)
            for k, i in enumerate(free):
                trial[i] += size * step[k]
            value = _likelihood(trial, table, wins, prior, present)
            if value >= best or size < 1e-6:
                break
            size /= 2
        change = max((abs(size * x) for x in step), default=0.0)
        theta, best = trial, max(best, value)
        if change < _TOLERANCE:
            break
    known = set(present)
    return [theta[i] if i in known else math.nan for i in range(count)]


def _likelihood(
    theta: Sequence[float],
    table: Mapping[tuple[int, int], Sequence[float]],
    wins: Sequence[float],
    prior: float,
    present: Sequence[int],
) -> float:
    total = sum(wins[i] * theta[i] - prior * _log1pexp(theta[i]) for i in present)
    for (a, b), (_score, games) in table.items():
        high, low = max(theta[a], theta[b]), min(theta[a], theta[b])
        total -= games * (high + _log1pexp(low - high))
    return total


def _derivatives(
    theta: Sequence[float],
    table: Mapping[tuple[int, int], Sequence[float]],
    wins: Sequence[float],
    prior: float,
    present: Sequence[int],
) -> tuple[list[float], list[list[float]]]:
    count = len(theta)
    gradient = list(wins)
    hessian = [[0.0] * count for _ in range(count)]
    for i in present:
        q = _sigmoid(theta[i])  # against the reference, strength 1 (ln π = 0)
        gradient[i] -= prior * q
        hessian[i][i] -= prior * q * (1 - q)
    for (a, b), (_score, games) in table.items():
        p = _sigmoid(theta[a] - theta[b])
        gradient[a] -= games * p
        gradient[b] -= games * (1 - p)
        curve = games * p * (1 - p)
        hessian[a][a] -= curve
        hessian[b][b] -= curve
        hessian[a][b] += curve
        hessian[b][a] += curve
    return gradient, hessian


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    """x with matrix · x = vector (Gaussian elimination, partial pivoting); None if singular."""
    size = len(vector)
    rows = [[*matrix[i], vector[i]] for i in range(size)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        if abs(rows[pivot][col]) < 1e-12:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            if factor:
                for c in range(col, size + 1):
                    rows[r][c] -= factor * rows[col][c]
    solution = [0.0] * size
    for r in range(size - 1, -1, -1):
        done = sum(rows[r][c] * solution[c] for c in range(r + 1, size))
        solution[r] = (rows[r][size] - done) / rows[r][r]
    return solution


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _log1pexp(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _ratings(names: Sequence[str], theta: Sequence[float]) -> dict[str, float]:
    """ln π as ratings, shifted so the models present average ANCHOR."""
    present = [(name, t) for name, t in zip(names, theta, strict=True) if not math.isnan(t)]
    if not present:
        return {}
    mean = statistics.fmean(t for _, t in present)
    return {name: ANCHOR + SCALE * (t - mean) for name, t in present}


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the leaderboard; the JSON object has exactly these fields."""

    provider: str
    model: str
    battles: int
    wins: int
    losses: int
    ties: int
    win_rate: float
    rating: float
    rating_low: float | None  # None below MIN_VOTES_FOR_INTERVAL votes
    rating_high: float | None
    votes: int  # counted votes (not skipped) with this model among their panes
    rank: int  # equal ratings (as shown, whole points) share one: 1, 2, 2, 4
    ttft_ms_median: float | None
    tok_s_median: float | None
    cost_median: float | None


def standings(
    votes: Sequence[Vote],
    *,
    rounds: int = BOOTSTRAP_ROUNDS,
    seed: int = BOOTSTRAP_SEED,
    prior: float = PRIOR_GAMES,
) -> list[Standing]:
    """Every provider:model with at least one battle, best rating first (then by name)."""
    counted = [v for v in votes if v.outcome != "skipped"]
    per_vote = [pairwise_outcomes(v) for v in counted]
    outcomes = [o for found in per_vote for o in found]
    names = sorted({o.a for o in outcomes} | {o.b for o in outcomes})
    if not names:
        return []
    index = {name: i for i, name in enumerate(names)}
    coded = [[(index[o.a], index[o.b], o.score) for o in found] for found in per_vote]
    theta = _fit(len(names), _tally(c for found in coded for c in found), prior)
    ratings = _ratings(names, theta)
    low, high = _interval(names, coded, theta, rounds, seed, prior)
    record = _records(outcomes)
    figures = _figures(counted)
    voted = _votes(per_vote)
    rows: list[Standing] = []
    for key, rating in ratings.items():
        won, lost, tied = record[key]
        battles = won + lost + tied
        provider, _, model = _split(key, counted)
        ttft, speed, cost = figures.get(key, ([], [], []))
        enough = voted.get(key, 0) >= MIN_VOTES_FOR_INTERVAL
        rows.append(
            Standing(
                provider=provider,
                model=model,
                battles=battles,
                wins=won,
                losses=lost,
                ties=tied,
                win_rate=won / battles,
                rating=rating,
                rating_low=low.get(key, rating) if enough else None,
                rating_high=high.get(key, rating) if enough else None,
                votes=voted.get(key, 0),
                rank=0,
                ttft_ms_median=_median(ttft),
                tok_s_median=_median(speed),
                cost_median=_median(cost),
            )
        )
    rows.sort(key=lambda row: (-row.rating, row.provider, row.model))
    return _ranked(rows)


def _ranked(rows: list[Standing]) -> list[Standing]:
    """Standard competition ranks over the ratings as shown (whole points): equal ratings
    share a rank, and the next rank skips as many as shared it (1, 2, 2, 4)."""
    ranked: list[Standing] = []
    for place, row in enumerate(rows, 1):
        tied = ranked and round(ranked[-1].rating) == round(row.rating)
        ranked.append(replace(row, rank=ranked[-1].rank if tied else place))
    return ranked


def _votes(per_vote: Sequence[Sequence[Pairwise]]) -> dict[str, int]:
    """How many votes each model was in (a vote, not its pairs, is what the bootstrap draws)."""
    counts: dict[str, int] = {}
    for found in per_vote:
        for key in {o.a for o in found} | {o.b for o in found}:
            counts[key] = counts.get(key, 0) + 1
    return counts


def _interval(
    names: Sequence[str],
    per_vote: Sequence[Sequence[_Coded]],
    theta: Sequence[float],
    rounds: int,
    seed: int,
    prior: float,
) -> tuple[dict[str, float], dict[str, float]]:
    """The 2.5th and 97.5th percentile of each model's rating over bootstrap samples of the
    votes; a model missing from a sample is left out of that sample's figures."""
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {name: [] for name in names}
    count = len(per_vote)
    for _ in range(rounds):
        drawn = [per_vote[rng.randrange(count)] for _ in range(count)]
        fitted = _fit(len(names), _tally(c for found in drawn for c in found), prior, theta)
        for name, value in _ratings(names, fitted).items():
            samples[name].append(value)
    low: dict[str, float] = {}
    high: dict[str, float] = {}
    for name, values in samples.items():
        if len(values) < 2:
            continue
        cuts = statistics.quantiles(values, n=40, method="inclusive")
        low[name], high[name] = cuts[0], cuts[-1]
    return low, high


def _records(outcomes: Iterable[Pairwise]) -> dict[str, tuple[int, int, int]]:
    """(wins, losses, ties) per model."""
    tallies: dict[str, list[int]] = {}
    for o in outcomes:
        a, b = tallies.setdefault(o.a, [0, 0, 0]), tallies.setdefault(o.b, [0, 0, 0])
        if o.score == 0.5:
            a[2] += 1
            b[2] += 1
        elif o.score > 0.5:
            a[0] += 1
            b[1] += 1
        else:
            a[1] += 1
            b[0] += 1
    return {key: (t[0], t[1], t[2]) for key, t in tallies.items()}


def _figures(votes: Iterable[Vote]) -> dict[str, tuple[list[float], list[float], list[float]]]:
    """Per model: every TTFT, tok/s and cost its voted answers had."""
    found: dict[str, tuple[list[float], list[float], list[float]]] = {}
    for vote in votes:
        for pane in vote.panes:
            ttft, speed, cost = found.setdefault(pane.key, ([], [], []))
            if pane.ttft_ms is not None:
                ttft.append(float(pane.ttft_ms))
            if pane.tok_s is not None:
                speed.append(pane.tok_s)
            if pane.cost is not None:
                cost.append(pane.cost)
    return found


def _split(key: str, votes: Iterable[Vote]) -> tuple[str, str, str]:
    """(provider, ":", model) of a key, read from the pane it came from (a provider name may
    hold a colon)."""
    for vote in votes:
        for pane in vote.panes:
            if pane.key == key:
                return pane.provider, ":", pane.model
    return key.partition(":")


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


__all__ = [
    "ANCHOR",
    "BOOTSTRAP_ROUNDS",
    "BOOTSTRAP_SEED",
    "MIN_VOTES_FOR_INTERVAL",
    "PRIOR_GAMES",
    "SCALE",
    "Pairwise",
    "Standing",
    "fit_ratings",
    "pairwise_outcomes",
    "standings",
    "vote_pane",
]
