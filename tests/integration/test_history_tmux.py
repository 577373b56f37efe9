"""A killed app loses nothing that had arrived: the installed `triptych` streams a long demo
answer in tmux, is killed with SIGKILL mid-stream, and `triptych --continue` shows the partial
answer marked interrupted and says it was recovered."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sqlite3
import time
import uuid
from pathlib import Path

import pytest

from app.store import parts
from tests.ui.test_tmux_e2e import Terminal, console_script

pytestmark = pytest.mark.tmux


def command(tmp_path: Path, *args: str) -> str:
    config = tmp_path / "config.toml"
    config.write_text('default = "demo"\n', encoding="utf-8")
    env = {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    line = "env -i " + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    return " ".join([line, shlex.quote(console_script()), *args])


def saved_answers(db: Path) -> list[tuple[str, str]]:
    """Each answer's status and text as another instance reads them (a streaming answer's text
    is in the parts its saves appended), without marking anything interrupted."""
    with sqlite3.connect(db) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT id, status FROM messages WHERE role = 'assistant'").fetchall()
        texts = parts.texts(conn, [row["id"] for row in rows])
    return [(row["status"], texts[row["id"]]) for row in rows]


def test_sigkill_mid_answer_then_continue_shows_what_had_arrived(tmp_path: Path) -> None:
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    db = tmp_path / "data" / "history.sqlite3"
    term = Terminal(f"triptych-history-{uuid.uuid4().hex[:8]}")
    term.tmux("new-session", "-d", "-s", "app", "-x", "120", "-y", "40", command(tmp_path))
    try:
        term.tmux("set-option", "-t", "app", "remain-on-exit", "on")
        term.wait_for("Ask anything", "demo · demo")
        term.keys("tell me something long", "Enter")
        term.wait_for("streaming", "Part 2")
        deadline = time.monotonic() + 10
        while not any("Part 2" in text for _, text in saved_answers(db)):
            assert time.monotonic() < deadline, "the streaming answer was never saved"
            time.sleep(0.1)
        pid = int(term.tmux("list-panes", "-t", "app", "-F", "#{pane_pid}").strip())
        os.kill(pid, signal.SIGKILL)
        [(status, text)] = saved_answers(db)
        assert status == "streaming"  # as the killed writer left it

        term.tmux("respawn-pane", "-k", "-t", "app", command(tmp_path, "--continue"))
        term.wait_for("⚠ interrupted", "The app stopped before the answer finished", "cut off")
        [(status, text_after)] = saved_answers(db)
        assert status == "interrupted"
        assert text_after == text  # nothing that had arrived was lost
    finally:
        term.tmux("kill-server")
