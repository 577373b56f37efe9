"""The benchmarks' lag probe: on only with TRIPTYCH_LAG_LOG, its period from TRIPTYCH_LAG_EVERY
(a bench that compares CPU with a floor wakes it rarely: its 10 ms loop is not free)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ui.lag_probe import INTERVAL, LagProbe


def test_off_without_its_log(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRIPTYCH_LAG_LOG", raising=False)
    assert LagProbe.from_env() is None


@pytest.mark.parametrize(
    ("every", "expected"),
    [("", INTERVAL), ("0.25", 0.25), ("nonsense", INTERVAL), ("0", INTERVAL), ("50", INTERVAL)],
)
def test_its_period(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, every: str, expected: float
) -> None:
    monkeypatch.setenv("TRIPTYCH_LAG_LOG", str(tmp_path / "lag.json"))
    monkeypatch.setenv("TRIPTYCH_LAG_EVERY", every)
    probe = LagProbe.from_env()
    assert probe is not None
    assert probe.path == tmp_path / "lag.json"
    assert probe.interval == expected
