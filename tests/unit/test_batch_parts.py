"""The pure parts of `triptych batch`: the retry delay, the progress bars and lines, the table."""

from __future__ import annotations

import io
import random
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from app.headless.batch import MAX_RETRY_WAIT, retry_delay, too_long_to_wait
from app.headless.batch_progress import Progress, Tally, bar_line, percentile, summary_table
from app.wire.turn import TurnStatus


def test_retry_after_in_seconds_or_as_a_date_is_waited_for() -> None:
    rng = random.Random(0)
    assert retry_delay("7", 1, rng) == 7.0
    assert retry_delay("0", 3, rng) == 0.0
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    delay = retry_delay(soon, 1, rng)
    assert delay is not None
    assert 25 <= delay <= 30
    past = format_datetime(datetime.now(UTC) - timedelta(hours=1), usegmt=True)
    assert retry_delay(past, 1, rng) == 0.0


def test_a_retry_after_longer_than_the_limit_is_not_waited_for() -> None:
    assert retry_delay(str(int(MAX_RETRY_WAIT) + 1), 1, random.Random(0)) is None
    for huge in ("99999999999", "9" * 5000):  # never a backoff (at once) instead
        assert retry_delay(huge, 1, random.Random(0)) is None
    assert retry_delay("0" * 30 + "1", 1, random.Random(0)) == 1.0
    assert "99,999,999,999 s" in too_long_to_wait(99999999999.0)
    assert "longer than any wait" in too_long_to_wait(float("inf"))


def test_a_retry_not_made_is_said_on_a_terminal_above_the_bars() -> None:
    tallies = [Tally("kenari:m1", 2)]
    stream = io.StringIO()
    progress = Progress(stream, tallies, tty=True, started=0.0)
    progress.draw(1.0)
    progress.gave_up(tallies[0], "prompt 1 #1", "Retry-After asks for 9,999 s")
    progress.draw(2.0)
    drawn = stream.getvalue().split("\x1b[1F\x1b[J", 1)[1]  # up over the bar, cleared
    line, bars = drawn.split("\n", 1)
    assert line == "batch: kenari:m1 · prompt 1 #1 · Retry-After asks for 9,999 s"
    assert bars.startswith("\x1b[2Kkenari:m1")  # the bar drawn again below it


@pytest.mark.parametrize("header", [None, "", "soon", "\x1b[31m"])
def test_without_a_usable_header_the_backoff_is_jittered_and_doubles(header: str | None) -> None:
    rng = random.Random(5)
    for attempt, ceiling in ((1, 1.0), (2, 2.0), (3, 4.0)):
        delays = [retry_delay(header, attempt, rng) for _ in range(200)]
        assert all(d is not None and 0 <= d <= ceiling for d in delays)
        assert max(d for d in delays if d is not None) > ceiling / 2  # spread, not fixed


def test_on_a_terminal_the_bars_are_redrawn_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "120")  # the bars are cut to the terminal; pin its width
    tallies = [Tally("kenari:m1", 10), Tally("a-much-longer:name", 10)]
    stream = io.StringIO()
    progress = Progress(stream, tallies, tty=True, started=0.0)
    progress.draw(1.0)
    first = stream.getvalue()
    assert first.count("\n") == 2
    assert "\x1b[2Kkenari:m1           ░░░░" in first  # names padded to line up
    assert "ETA –" in first
    tallies[0].finish(TurnStatus.COMPLETE, ttft_ms=100, tok_s=50.0, output_tokens=9, cost=None)
    tallies[0].in_flight = 2
    progress.finished(tallies[0], "prompt 1 #1", TurnStatus.COMPLETE, 1.0)  # no plain line
    progress.draw(5.0)
    second = stream.getvalue()[len(first) :]
    assert second.startswith("\x1b[2F")  # back over the two lines drawn before
    assert "1/10  1 done · 0 failed · 2 in flight · ETA 0:45" in second


def test_elsewhere_each_finished_answer_and_retry_is_one_plain_line() -> None:
    tallies = [Tally("kenari:m1", 2)]
    stream = io.StringIO()
    progress = Progress(stream, tallies, tty=False, started=0.0)
    progress.draw(1.0)
    assert stream.getvalue() == ""
    progress.retry(tallies[0], "prompt 3 #1", 1, 3, 2.5)
    tallies[0].finish(TurnStatus.FAILED, ttft_ms=None, tok_s=None, output_tokens=None, cost=None)
    progress.finished(tallies[0], "prompt 3 #1", TurnStatus.FAILED, 0.25)
    assert stream.getvalue().splitlines() == [
        "batch: kenari:m1 · prompt 3 #1 · retry 1 of 3 in 2.5 s",
        "batch: 1/2 · kenari:m1 · prompt 3 #1 · failed · 0.2 s",
    ]


def test_a_bar_is_cut_to_the_terminal_width_and_names_are_cleaned() -> None:
    line = bar_line(Tally("evil\x1b[2Jname", 4), 0.0, 30)
    assert len(line) == 30
    assert "\x1b" not in line


def test_the_final_table_has_percentiles_tokens_cost_and_retries() -> None:
    tally = Tally("kenari:m1", 5, retries=2)
    for ttft in (100, 200, 300, 400):
        tally.finish(TurnStatus.COMPLETE, ttft_ms=ttft, tok_s=ttft / 10, output_tokens=10,
                     cost=0.001)  # fmt: skip
    tally.finish(TurnStatus.STOPPED, ttft_ms=None, tok_s=None, output_tokens=None, cost=None)
    head, row = summary_table([tally]).splitlines()
    head_cells = ["provider:model", "complete", "failed", "stopped", "interrupted"]
    assert head.split()[:5] == head_cells
    # the user's stop is counted as stopped, not as a stream cut off (interrupted)
    assert row.split() == ["kenari:m1", "4", "0", "1", "0", "200", "ms", "400", "ms", "20.0",
                           "40", "$0.004", "2"]  # fmt: skip
    tally.finish(TurnStatus.INTERRUPTED, ttft_ms=None, tok_s=None, output_tokens=None, cost=None)
    assert summary_table([tally]).splitlines()[1].split()[1:5] == ["4", "0", "1", "1"]
    assert percentile([], 0.5) is None
    assert percentile([5.0], 0.95) == 5.0
