"""Deliberate keys in a real terminal (tmux), where Alt+1 arrives as ESC then `1`: typing after a
blind round reaches the prompt and votes nothing, Alt+1 (and ESC 1 sent fast) votes, undo takes
the vote out of `triptych leaderboard`; typing after Alt+Up and Ctrl+N, or after Tab in a
comparison, reaches the prompt; Enter refused during a stream leaves the cursor where it was."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.ui.test_tmux_e2e import WIDTH, Terminal, console_script

pytestmark = pytest.mark.tmux
BLIND = ("--compare", "demo,demo-messages,demo-responses", "--blind")
ASKED = "Which is better?  alt+1 A  alt+2 B  alt+3 C"


def environment(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config.toml"
    config.write_text('default = "demo"\n', encoding="utf-8")
    return {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "COLORTERM": "truecolor",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Terminal]]:
    """Start `triptych` with these arguments in a tmux server of its own."""
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    env = environment(tmp_path)
    started: list[Terminal] = []

    def run(*args: str) -> Terminal:
        command = 'env -i TMUX="$TMUX" ' + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        command += " " + " ".join(shlex.quote(a) for a in (console_script(), *args))
        term = Terminal(f"triptych-keys-{uuid.uuid4().hex[:8]}")
        term.tmux("new-session", "-d", "-s", "app", "-x", str(WIDTH), "-y", "40", command)
        started.append(term)
        return term

    try:
        yield run
    finally:
        for term in started:
            term.tmux("kill-server")


def leaderboard(tmp_path: Path) -> str:
    result = subprocess.run(
        [console_script(), "leaderboard"],
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return result.stdout + result.stderr


def wait_prompt_focused(term: Terminal, focused: bool, timeout: float = 15.0) -> None:
    """The footer starts with the prompt's own key while the prompt has the focus."""
    deadline = time.monotonic() + timeout
    while (term.screen().rstrip("\n").splitlines()[-1].startswith(" ctrl+j")) != focused:
        assert time.monotonic() < deadline, f"prompt focused: not {focused}\n{term.screen()}"
        time.sleep(0.1)


def prompt_row(screen: str) -> str:
    """The prompt's first line as the terminal shows it (up to a notice drawn over its end)."""
    rows = [row for row in screen.splitlines() if row.startswith("▊ ")]
    assert rows, screen
    return rows[-1].strip("▊▎ ").split("  ")[0]


def test_a_blind_round_takes_no_typing_votes_on_alt_1_and_undo_removes_it(
    start: Callable[..., Terminal], tmp_path: Path
) -> None:
    term = start(*BLIND)
    term.wait_for("Ask anything", "Compare")
    term.keys("hello", "Enter")
    term.wait_for(ASKED, timeout=40)
    term.keys("explain this")
    screen = term.wait_for("explain this")
    assert prompt_row(screen) == "explain this"  # every letter, none taken by the bar
    assert ASKED in screen  # still asking
    assert "no votes yet" in leaderboard(tmp_path)

    term.keys("M-1")  # ESC then 1, as terminals send Alt+1
    screen = term.wait_for("vote: A (", "· undo")
    assert prompt_row(screen) == "explain this"  # no `¡`, no `1`
    assert "battles" in leaderboard(tmp_path)
    term.keys("M-u")
    term.wait_for("Vote undone")
    assert "no votes yet" in leaderboard(tmp_path)

    term.keys("Enter")  # "explain this" is the next round's prompt
    term.wait_for(ASKED, timeout=40)
    term.keys("Escape", "1")  # the two keys sent apart, fast: still Alt+1
    screen = term.wait_for("vote: A (")
    assert "¡" not in screen
    assert prompt_row(screen).startswith("Ask anything")  # nothing typed
    board = leaderboard(tmp_path)
    assert "battles" in board

    term.keys("Tab")  # 120 columns, three panes: the tab row, then the panes
    wait_prompt_focused(term, False)
    term.keys("zz")
    screen = term.wait_for("▊ zz")
    assert prompt_row(screen) == "zz"
    wait_prompt_focused(term, True)
    term.keys("Tab", "Tab")
    wait_prompt_focused(term, False)
    term.keys("Escape")
    wait_prompt_focused(term, True)  # also a person's pause: ESC then `y` at once is Alt+y
    term.keys("y")
    assert prompt_row(term.wait_for("▊ zzy")) == "zzy"


def test_typing_after_a_selection_and_a_new_chat_and_a_refused_enter(
    start: Callable[..., Terminal],
) -> None:
    term = start()
    term.wait_for("Ask anything", "demo · demo")
    term.keys("hello", "Enter")
    term.wait_for("Hello from Triptych", "· complete ·")
    term.keys("xyz")
    term.wait_for("▊ xyz")
    term.keys("C-u", "M-Up")  # in one read: the line cleared, then a message selected
    term.wait_for("Ask anything", "e edit")  # the transcript has the focus
    term.keys("C-n")
    term.keys("abc")
    assert prompt_row(term.wait_for("▊ abc")) == "abc"
    term.keys("C-u")  # the prompt's line cleared (nothing left to send)
    term.wait_for("Ask anything")

    term.keys("long", "Enter")
    term.wait_for("streaming", "Part 1")
    term.keys("tell me more", "Left", "Left", "Left", "Left", "Enter")
    term.wait_for("Still answering")
    term.keys("a lot ")
    screen = term.wait_for("▊ tell me a lot more")
    assert prompt_row(screen) == "tell me a lot more"  # typed at the cursor, not at the start
    term.keys("Escape")
    term.wait_for("· stopped ·")
