"""`ask --record` to a place that cannot be written: the answer is still printed, and stderr
says the recording failed and why. A real process, the offline demo."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


def ask(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(
        XDG_CONFIG_HOME=str(tmp_path / "config-home"),
        TRIPTYCH_DATA_DIR=str(tmp_path / "data"),
        TRIPTYCH_DEMO_PACE="0",
    )
    return subprocess.run(
        [sys.executable, "-m", "app", "ask", "hello", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("place", ["under-a-file", "full-disk", "a-directory"])
@pytest.mark.parametrize("json_flag", [False, True], ids=["text", "json"])
def test_a_recording_that_cannot_be_written_keeps_the_answer(
    tmp_path: Path, place: str, json_flag: bool
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    (tmp_path / "a-folder").mkdir()
    target = {
        "under-a-file": blocker / "run.jsonl",  # its folder cannot be made
        "full-disk": Path("/dev/full"),  # opens, then every write fails with ENOSPC
        "a-directory": tmp_path / "a-folder",
    }[place]
    done = ask(tmp_path, "--record", str(target), *(["--json"] if json_flag else []))
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr  # the answer itself is complete
    assert "Hello from Triptych" in done.stdout
    [line] = [line for line in done.stderr.splitlines() if "recording failed" in line]
    assert line.startswith("triptych: recording failed: ")
    assert str(target) in line
    if json_flag:
        assert '"status": "complete"' in done.stdout


def test_a_recording_that_works_says_nothing_of_the_kind(tmp_path: Path) -> None:
    target = tmp_path / "runs" / "ok.jsonl"
    done = ask(tmp_path, "--record", str(target))
    assert done.returncode == 0, done.stderr
    assert "recording failed" not in done.stderr
    assert target.read_text(encoding="utf-8").count('"type": "request"') == 1


def test_ask_compare_keeps_its_answers_too(tmp_path: Path) -> None:
    done = ask(tmp_path, "--compare", "demo,demo-messages", "--record", "/dev/full")
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("Hello from Triptych") == 2
    assert "triptych: recording failed: cannot write /dev/full" in done.stderr
