"""The stream timeline's figures and rows, on hand-made arrivals (app/display/timeline.py)."""

from __future__ import annotations

import pytest

from app.display.timeline import Arrival, Timeline, figures_line, shared_span


def steady(start: float, stop: float, every: float, size: int) -> list[Arrival]:
    count = round((stop - start) / every)
    return [Arrival(start + i * every, size) for i in range(count + 1)]


def test_bins_put_each_arrival_in_its_interval_and_scale_by_the_reported_count() -> None:
    line = Timeline((Arrival(0.5, 40), Arrival(1.5, 40), Arrival(3.9, 20)), ended=4.0)
    assert line.bins(4) == [10.0, 10.0, 0.0, 5.0]  # 4 characters a token when none reported
    counted = Timeline(line.arrivals, ended=4.0, output_tokens=50)
    assert counted.bins(4) == [20.0, 20.0, 0.0, 10.0]
    assert line.bins(2, span=8.0) == [25.0, 0.0]  # a shared axis twice as long


def test_marks_show_the_first_token_the_stalls_and_the_end() -> None:
    arrivals = [Arrival(0.0, 0), *steady(1.0, 2.0, 0.1, 4), *steady(5.0, 6.0, 0.1, 4)]
    line = Timeline(tuple(arrivals), ended=8.0)
    assert line.stalls() == [(pytest.approx(2.0), pytest.approx(5.0))]
    row = line.marks(8)
    assert len(row) == 8
    assert row[1] == "▲"  # 1.0 s of 8
    assert row[3] == "─"  # inside the stall, 2 s to 5 s: columns 3 and 4
    assert row[4] == "─"
    assert row[2] == " "  # the stall's first column holds its last arrival
    assert row[7] == "┃"


def test_a_silence_before_the_first_token_is_not_a_stall() -> None:
    line = Timeline((Arrival(0.1, 0), Arrival(3.0, 8), Arrival(3.2, 8)), ended=3.3)
    assert line.stalls() == []
    assert "─" not in line.marks(10)
    assert line.figures().ttft_ms == 3000


def test_figures_of_a_steady_stream_with_one_stall() -> None:
    arrivals = [*steady(0.5, 2.5, 0.01, 4), *steady(4.5, 6.5, 0.01, 4)]
    figures = Timeline(tuple(arrivals), ended=6.6).figures()
    assert figures.ttft_ms == 500
    assert figures.longest_silence_ms == 2000
    # 402 tokens (estimated, 4 characters each) over the first token to the end: 6.1 s, as a
    # turn's own tok/s is measured (the panes, the history)
    assert figures.tokens_per_second == pytest.approx(402 / 6.1, rel=0.001)
    assert figures.fastest_10 == pytest.approx(100, rel=0.15)
    assert figures.slowest_10 == 0
    assert figures.estimated
    text = figures_line(figures)
    assert text.startswith("TTFT 500 ms · ~66 tok/s")
    assert "longest silence 2.0 s" in text


def test_nothing_arrived_yet() -> None:
    line = Timeline(())
    assert line.bins(5) == [0.0] * 5
    assert line.marks(5) == "     "
    figures = line.figures()
    assert figures.ttft_ms is None
    assert figures.tokens_per_second is None
    assert figures_line(figures) == "TTFT – · – tok/s · fastest 10% – · slowest 10% –"


def test_panes_share_the_longest_axis() -> None:
    fast = Timeline((Arrival(0.2, 4), Arrival(1.0, 4)), ended=1.0)
    slow = Timeline((Arrival(2.0, 4), Arrival(4.0, 4)), ended=4.0)
    span = shared_span([fast, slow])
    assert span == 4.0
    assert fast.marks(8, span).index("▲") < slow.marks(8, span).index("▲")
    assert fast.marks(8, span).index("┃") == 2


def test_a_short_silence_is_given_in_milliseconds() -> None:
    figures = Timeline((Arrival(0.1, 4), Arrival(0.12, 4), Arrival(0.5, 4)), ended=0.5).figures()
    assert figures_line(figures).endswith("longest silence 380 ms")
