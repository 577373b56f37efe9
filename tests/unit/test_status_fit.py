"""The chat's status line shortened to the bar's width, least useful pieces first (at
80 columns `finish stop` wrapped onto a second line)."""

from __future__ import annotations

from app.display.status_fit import fit_status, line_length
from app.display.status_line import DIM, GOOD, PLAIN, Segment

FULL: list[Segment] = [
    ("demo", PLAIN),
    ("demo", PLAIN),
    ("complete", GOOD),
    ("TTFT 1230 ms", DIM),
    ("32.8 tok/s", DIM),
    ("in 11 out 165 cached 5", DIM),
    ("cache 45%", DIM),
    ("finish stop", DIM),
]


def texts(segments: list[Segment]) -> list[str]:
    return [text for text, _ in segments]


def test_a_line_that_fits_is_left_as_it_is() -> None:
    assert fit_status(FULL, 200) == FULL
    assert fit_status(FULL, 0) == FULL  # no size yet


def test_each_step_goes_only_as_far_as_the_width_needs() -> None:
    step1 = fit_status(FULL, line_length(FULL) - 1)
    assert texts(step1)[5:] == ["in 11 out 165", "cache 45%", "finish stop"]
    step2 = fit_status(FULL, line_length(step1) - 1)
    assert texts(step2)[4] == "33 tok/s"
    assert "finish stop" in texts(step2)
    at_80 = fit_status(FULL, 78)  # 80 columns, inside the bar's padding
    assert texts(at_80) == [
        "demo", "demo", "complete", "TTFT 1230 ms", "33 tok/s", "in 11 out 165", "cache 45%"
    ]  # fmt: skip
    assert line_length(at_80) <= 78


def test_an_early_finish_stays_and_the_names_are_cut_last() -> None:
    early = [*FULL[:7], ("finish length", DIM)]
    early[0], early[1] = ("openrouter", PLAIN), ("anthropic/claude-sonnet-4.5", PLAIN)
    fitted = fit_status(early, 100)
    assert "finish length" in texts(fitted)
    assert "cache 45%" not in texts(fitted)
    assert texts(fitted)[:2] == ["openrouter", "anthropic/claude-…"]
    assert line_length(fitted) == 100
    narrow = fit_status(early, 40)
    assert texts(narrow)[:2] == ["openro…", "anthro…"]  # never cut below MIN_NAME


def test_the_cached_count_stays_without_the_share_and_a_stopped_finish_stays() -> None:
    no_share = [s for s in FULL if not s[0].startswith("cache ")]
    assert "in 11 out 165 cached 5" in texts(fit_status(no_share, 60))
    stopped = [*FULL[:2], ("stopped", GOOD), *FULL[3:]]
    assert "finish stop" in texts(fit_status(stopped, 78))  # not after 'complete'
