"""The ranking line under a comparison (and closing `ask --compare`): ties print as `=`, it says
which way is better, the whole-answer time is "total", a comparison stopped everywhere says so,
and a short form fits one line of a small terminal."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app import cli
from app.compare.stats import (
    PaneStats,
    PaneTimes,
    pane_stats,
    ranking_brief,
    ranking_forms,
    ranking_line,
)
from app.demo.frames import Answer
from app.settings.config import ProviderConfig
from app.wire.engine import Api
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider


def provider(name: str, **changes: object) -> ProviderConfig:
    base = ProviderConfig(name=name, api=Api.CHAT, base_url="http://127.0.0.1:9/v1", model="m")
    return replace(base, **changes)  # type: ignore[arg-type]


def settled(status: TurnStatus, output: int | None = 7) -> Turn:
    usage = None if output is None else Usage(1, output)
    turn = Turn(text_parts=["x" * 40], usage=usage, finish_reason="stop")
    turn.status = status
    return turn


def stats(name: str, status: TurnStatus, times: PaneTimes, output: int = 7) -> PaneStats:
    return pane_stats(name, provider(name), settled(status, output), times)


def sections(line: str) -> dict[str, str]:
    return dict(part.split(": ", 1) for part in line.split(" · "))  # type: ignore[misc]


def test_ties_print_as_equals_and_the_line_says_lower_is_better() -> None:
    line = ranking_line(
        [
            stats("x", TurnStatus.COMPLETE, PaneTimes(0, 0.5, 2, 2)),
            stats("y", TurnStatus.COMPLETE, PaneTimes(0, 0.5, 3, 3)),
            stats("z", TurnStatus.COMPLETE, PaneTimes(0, 0.2, 2, 2), output=9),
        ]
    )
    parts = sections(line)
    assert parts["time and cost"] == "lower is better"
    assert parts["first token"] == "z 200 ms › x 500 ms = y 500 ms"
    assert parts["total"] == "x 2.00s = z 2.00s › y 3.00s"
    assert parts["output tokens"] == "x 7 = y 7 › z 9"
    assert parts["cost"] == "no prices set"
    assert "finish" not in parts


def test_ties_are_judged_as_shown() -> None:
    """0.5004 s and 0.5001 s both show as 500 ms: ranking one above the other would be a
    guess."""
    line = ranking_line(
        [
            stats("x", TurnStatus.COMPLETE, PaneTimes(0, 0.5004, 2, 2)),
            stats("y", TurnStatus.COMPLETE, PaneTimes(0, 0.5001, 2, 2)),
        ]
    )
    assert sections(line)["first token"] == "x 500 ms = y 500 ms"


def test_every_pane_stopped_says_so_instead_of_ranking() -> None:
    line = ranking_line(
        [
            stats("x", TurnStatus.STOPPED, PaneTimes(0, 0.5, 2, 2)),
            stats("y", TurnStatus.STOPPED, PaneTimes(0, 0.6, 3, 3)),
        ]
    )
    assert line == "every pane was stopped: nothing to rank"
    assert (
        ranking_brief(
            [
                stats("x", TurnStatus.STOPPED, PaneTimes(0, 0.5, 2, 2)),
                stats("y", TurnStatus.STOPPED, PaneTimes(0, 0.6, 3, 3)),
            ]
        )
        == line
    )


def test_no_pane_finished_says_how_each_ended() -> None:
    line = ranking_line(
        [
            stats("x", TurnStatus.STOPPED, PaneTimes(0, 0.5, 2, 2)),
            stats("y", TurnStatus.FAILED, PaneTimes(0, 0.6, 3, 3)),
        ]
    )
    assert line == "no pane finished (x stopped, y failed): nothing to rank"


def test_one_pane_finished_still_ranks_and_the_stopped_one_follows() -> None:
    line = ranking_line(
        [
            stats("x", TurnStatus.STOPPED, PaneTimes(0, 0.5, 2, 2)),
            stats("y", TurnStatus.COMPLETE, PaneTimes(0, 0.6, 3, 3)),
        ]
    )
    assert sections(line)["total"] == "y 3.00s › x stopped"


def test_the_brief_form_names_each_figures_best_and_fits_80_columns() -> None:
    priced = {"price_in": 1.0, "price_out": 2.0}
    names = ("demo", "demo-messages", "demo-responses")
    all_stats = [
        pane_stats(
            name,
            provider(name, **priced),
            settled(TurnStatus.COMPLETE, 165),
            PaneTimes(0, 0.41 + n / 100, 4.7, 4.74 + n / 10),
        )
        for n, name in enumerate(names)
    ]
    brief = ranking_brief(all_stats)
    assert brief.startswith("lower is better · ")
    parts = sections(brief.removeprefix("lower is better · "))
    assert parts["first token"] == "demo 410 ms › …"
    assert parts["total"] == "demo 4.74s › …"
    assert parts["cost"].startswith("demo = demo-messages = demo-responses $")
    assert len("ranking " + ranking_brief(all_stats[:2]).split(" · cost")[0]) <= 78


# -- the headless comparison closes with the same line ---------------------------------------


def write_config(tmp_path: Path, fakes: dict[Api, FakeProvider]) -> Path:
    lines = ['default = "cc"']
    for name, api in (("cc", Api.CHAT), ("am", Api.MESSAGES)):
        lines += [
            f"[providers.{name}]",
            f'api = "{api.value}"',
            f'base_url = "{fakes[api].url}"',
            f'model = "{name}-model"',
        ]
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_ask_compare_ends_with_the_same_ranking_text(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fakes: dict[Api, FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    same = Answer(text=("Same", " length"))
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, same))
    fakes[Api.MESSAGES].push(fake.stream(Api.MESSAGES, same))
    config = write_config(tmp_path, fakes)
    code = cli.main(["--config", str(config), "ask", "q", "--compare", "cc,am"])
    _out, err = capsys.readouterr()
    assert code == 0, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("ranking · time and cost: lower is better · first token: ")
    parts = sections(last.removeprefix("ranking · "))
    assert "total" in parts
    assert "finish" not in parts
    assert parts["output tokens"] in ("cc 2 = am 2", "am 2 = cc 2")


def test_shorter_forms_end_with_the_total_alone() -> None:
    all_stats = [
        stats("demo", TurnStatus.COMPLETE, PaneTimes(0, 0.41, 4, 4.74)),
        stats("demo-messages", TurnStatus.COMPLETE, PaneTimes(0, 0.43, 4, 4.8)),
    ]
    forms = ranking_forms(all_stats)
    assert forms[0] == ranking_line(all_stats)
    assert forms[1] == ranking_brief(all_stats)
    assert forms[-1] == "lower is better · total: demo 4.74s › …"
    assert [len(f) for f in forms] == sorted((len(f) for f in forms), reverse=True)
