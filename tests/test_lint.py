"""Lint, format and types are part of the test run, so one command checks everything."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "command",
    [
        ["ruff", "check", "."],
        ["ruff", "format", "--check", "."],
        ["mypy", "--strict", "app"],
        # import-linter's contracts in pyproject.toml: which packages may import Textual, Rich
        # and the UI (it has no `python -m` entry, so its console script is called directly).
        ["lint-imports"],
    ],
    ids=["ruff-check", "ruff-format", "mypy-strict", "import-linter"],
)
def test_tool_passes(command: list[str]) -> None:
    argv = (
        [str(Path(sys.executable).with_name(command[0])), *command[1:]]
        if command[0] == "lint-imports"
        else [sys.executable, "-m", *command]
    )
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
