"""The installed `triptych` in a real terminal (tmux): type a prompt to the offline demo, read
the screen, stop a long answer with Esc, quit with Ctrl+Q. tmux is installed by .ci/run, so
this test does not skip: a missing tmux or script is a failure."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.demo.samples import sample_for

pytestmark = pytest.mark.tmux
WIDTH = 120  # the terminal's columns


def console_script() -> str:
    beside = Path(sys.executable).with_name("triptych")
    found = str(beside) if beside.exists() else shutil.which("triptych")
    assert found, "the `triptych` console script is not installed"
    return found


class Terminal:
    """One tmux server of our own (its own socket), so nothing leaks in or out."""

    def __init__(self, socket: str) -> None:
        self.socket = socket

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        return result.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "app")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "app", *keys)

    def wait_for(self, *texts: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{texts} not on screen after {timeout}s:\n{screen}")
            time.sleep(0.1)

    def alive(self) -> bool:
        return "app" in self.tmux("list-sessions", "-F", "#{session_name}")


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    assert shutil.which("tmux"), "tmux is required (.ci/run installs it)"
    config = tmp_path / "config.toml"
    config.write_text('default = "demo"\n', encoding="utf-8")
    env = {
        "TRIPTYCH_CONFIG": str(config),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "COLORTERM": "truecolor",
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    # $TMUX, set by tmux in the pane, tells the app (and the tmux it runs) which server it is in.
    command = 'env -i TMUX="$TMUX" ' + " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    command += " " + shlex.quote(console_script())
    term = Terminal(f"triptych-test-{uuid.uuid4().hex[:8]}")
    term.tmux("new-session", "-d", "-s", "app", "-x", str(WIDTH), "-y", "40", command)
    try:
        yield term
    finally:
        term.tmux("kill-server")


def test_demo_answer_stop_and_quit_in_a_real_terminal(terminal: Terminal) -> None:
    terminal.wait_for("Ask anything", "demo · demo")
    terminal.keys("hello", "Enter")
    screen = terminal.wait_for("Hello from Triptych", "complete", "fibonacci")
    assert "Triptych — demo · demo" in screen

    terminal.keys("tell me something long", "Enter")
    terminal.wait_for("streaming", "Part 1")
    terminal.keys("Escape")
    screen = terminal.wait_for("■ stopped", "· stopped ·")
    assert "Part 1" in screen  # the partial answer stays

    terminal.keys("C-q")
    deadline = time.monotonic() + 10
    while terminal.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not terminal.alive(), "the app did not quit on Ctrl+Q"


MARKER = "▼ new text below"
SCROLLBAR = " ▁▂▃▄▅▆▇█▔"  # a thumb's glyphs, wherever the reading width puts the bar


def text_rows(screen: str) -> list[str]:
    """The conversation's top rows, without the scrollbar (its thumb shrinks as text comes)."""
    return [row.rstrip(SCROLLBAR) for row in screen.splitlines()[1:20]]


def test_page_up_holds_the_place_while_an_answer_streams(terminal: Terminal) -> None:
    """In a real terminal: scrolled back mid-stream, the view stays put while
    the answer goes on (a marker says text arrived below) until End brings it back."""
    terminal.wait_for("Ask anything", "demo · demo")
    terminal.keys("long", "Enter")
    terminal.wait_for("streaming", "Part 5")  # more than a screen of the answer
    terminal.keys("PageUp")
    held = text_rows(terminal.wait_for(MARKER))
    screen = terminal.wait_for("· complete ·", timeout=60)  # the rest of the answer arrived
    assert text_rows(screen) == held
    assert MARKER in screen
    terminal.keys("End")
    screen = terminal.wait_for("Part 12", "· complete ·")
    assert MARKER not in screen

    # On a chat still too short to scroll, PageUp holds the start as the answer grows past it.
    terminal.keys("C-n")
    terminal.keys("long again", "Enter")
    terminal.wait_for("streaming", "Part 1")
    terminal.keys("PageUp")
    terminal.wait_for(MARKER, timeout=30)
    terminal.keys("Escape")
    screen = terminal.wait_for("· stopped ·")
    first = next(row for row in text_rows(screen) if row.strip())
    assert first.strip() == "█ long again"  # the start, as it was
    assert MARKER in screen


def test_copy_code_block_puts_the_fence_content_in_tmux(terminal: Terminal) -> None:
    """Under tmux's default `set-clipboard external` the app's OSC 52
    is ignored, so the copy goes to tmux itself, indentation and all, and the notice says so."""
    terminal.tmux("set-option", "-g", "set-clipboard", "external")
    answer = "".join(sample_for("hello").answer.text)
    fence = answer.split("```python\n", 1)[1].split("\n```", 1)[0]
    assert "\n    numbers = [0, 1]\n" in fence  # indented lines, as the demo writes them
    terminal.wait_for("Ask anything", "demo · demo")
    terminal.keys("hello", "Enter")
    terminal.wait_for("Hello from Triptych", "· complete ·")
    terminal.keys("C-p")
    terminal.wait_for("Switch provider")
    terminal.keys("copy code block 1")
    terminal.wait_for("Copy code block 1 (python")
    terminal.keys("Enter")
    terminal.wait_for("paste buffer")
    assert terminal.tmux("show-buffer") == fence


def test_c_copies_an_earlier_answer_and_ctrl_f_finds_a_word_far_above(terminal: Terminal) -> None:
    """In a real terminal: `c` on an earlier answer (selected with Alt+Up) puts its exact
    Markdown source in tmux's buffer; Ctrl+F finds a word that is only in an answer far above
    the view, scrolls to it and counts its matches; Esc closes the bar."""
    terminal.tmux("set-option", "-g", "set-clipboard", "external")
    hello = "".join(sample_for("hello").answer.text)
    matches = hello.lower().count("fibonacci")
    assert matches >= 1
    terminal.wait_for("Ask anything", "demo · demo")
    terminal.keys("hello", "Enter")
    terminal.wait_for("Hello from Triptych", "· complete ·")
    terminal.keys("long", "Enter")
    terminal.wait_for("Part 9", timeout=60)
    terminal.keys("Escape")
    screen = terminal.wait_for("· stopped ·")
    assert "fibonacci" not in screen  # far above the view

    terminal.keys("C-f")
    terminal.wait_for("enter/n next")
    terminal.keys("fibonacci")
    screen = terminal.wait_for(f"1 of {matches}", "def fibonacci")
    assert "Part 9" not in screen  # scrolled up to it
    terminal.keys("Escape")
    deadline = time.monotonic() + 10
    while "enter/n next" in terminal.screen():  # until the bar is closed
        assert time.monotonic() < deadline, terminal.screen()
        time.sleep(0.1)

    terminal.keys("M-Up", "M-Up", "M-Up")  # the long answer, its prompt, the first answer
    terminal.wait_for("c copy")
    terminal.keys("c")
    terminal.wait_for(f"Copied the answer ({len(hello)} characters)")
    assert terminal.tmux("show-buffer") == hello
