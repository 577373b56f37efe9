"""`triptych config [--example]` and the first-run pointer in `triptych providers`: a new
user is told the exact file to create and where to start from."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from app import cli
from app.settings.config import load_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user config directory; returns the config path the app would read."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return tmp_path / "config-home" / "triptych" / "config.toml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_config_example_prints_the_shipped_example(
    home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "config", "--example")
    assert code == 0
    assert err == ""
    assert out == (ROOT / "config.example.toml").read_text(encoding="utf-8")
    saved = tmp_path / "mine.toml"
    saved.write_text(out)
    saved.chmod(0o600)
    assert "kenari" in load_config(saved, environ={}).providers  # usable as it is printed


def test_providers_without_a_config_names_the_file_to_create(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "providers")
    assert code == 0
    assert f"Create {home} — start from `triptych config --example`\n" in out
    assert "demo" in out


def test_providers_with_a_config_has_no_pointer(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home.parent.mkdir(parents=True)
    home.write_text('system = "hi"\n')
    code, out, _ = run(capsys, "providers")
    assert code == 0
    assert f"config: {home}" in out
    assert "config --example" not in out


def test_config_says_where_the_file_is_and_whether_it_exists(
    home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "config")
    assert code == 0
    assert out == (
        f"config: {home} (default location; not found)\n"
        f"Create {home} — start from `triptych config --example`\n"
    )
    mine = tmp_path / "mine.toml"
    mine.write_text("")
    code, out, _ = run(capsys, "config", "--config", str(mine))
    assert code == 0
    assert out == f"config: {mine} (--config)\n"


def test_the_wheel_ships_the_example() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    included = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert included["config.example.toml"] == "app/config.example.toml"
