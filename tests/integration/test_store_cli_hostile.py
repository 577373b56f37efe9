"""`triptych history` and `triptych export` as real processes on a hostile history file.

A file with a damaged page opens fine (its first pages are intact) and fails only when a damaged
page is read: that must be a clear message and exit status 2, never a traceback. Text stored
from a model may hold bidi overrides and zero-width characters: they are shown as the TUI shows
them, never passed raw to the terminal.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli
from app.store import Store
from app.wire.events import END_OF_STREAM, TextDelta
from app.wire.turn import Turn

EXIT_USAGE = 2
HIDDEN = "\u202e\u2066\u200b\u2060\ufeff\u200e"  # RLO, LRI, zero width space/joiner, BOM, LRM
BIDI_AND_ZERO_WIDTH = [
    *map(chr, range(0x202A, 0x202F)),
    *map(chr, range(0x2066, 0x206A)),
    "\u200b",
    "\u200e",
    "\u200f",
    "\u2060",
    "\ufeff",
    "\u061c",
]


def environment(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(TRIPTYCH_DATA_DIR=str(data), XDG_CONFIG_HOME=str(data / "config-home"))
    return env


def triptych(data: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app", *argv],
        env=environment(data),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def damaged_history(data: Path) -> None:
    """Thirty conversations, then one leaf page of `messages` overwritten with garbage."""
    path = data / "history.sqlite3"
    store = Store.open(path)
    for i in range(30):
        conv = store.create_conversation(title=f"talk {i}")
        store.add_user_message(conv, f"question {i} " + "q" * 3000)
    store.close()
    with sqlite3.connect(path) as conn:
        pages = [
            row[0]
            for row in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' "
                "ORDER BY pageno"
            )
        ]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * page_size)
        f.write(b"\xde\xad" * (page_size // 2))


@pytest.mark.parametrize("argv", [("history",), ("history", "--search", "question")])
def test_a_damaged_page_is_a_clear_message_and_exit_2(tmp_path: Path, argv: tuple[str]) -> None:
    damaged_history(tmp_path)
    done = triptych(tmp_path, *argv)
    assert "Traceback" not in done.stderr
    assert done.returncode == EXIT_USAGE, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("triptych: The history file ")
    assert "damaged" in done.stderr
    assert "runs without history" not in done.stderr  # a command, not a session
    assert len(done.stderr.strip().splitlines()) == 1


def test_exports_on_a_damaged_page_are_exit_2_and_the_others_still_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged_history(tmp_path)
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path))
    codes: dict[int, int] = {}
    for conv_id in range(1, 31):
        codes[conv_id] = cli.main(["export", str(conv_id)])
        out, err = capsys.readouterr()
        if codes[conv_id] == 0:
            assert f"question {conv_id - 1} " in out
        else:
            assert (out, err.count("\n")) == ("", 1)
            assert "is damaged" in err
    assert set(codes.values()) == {0, EXIT_USAGE}  # some were on the damaged page, not all
    damaged = [conv_id for conv_id, code in codes.items() if code]
    done = triptych(tmp_path, "export", str(damaged[0]))  # and as a real process: no traceback
    assert (done.returncode, "Traceback" in done.stderr) == (EXIT_USAGE, False)


def test_bidi_overrides_and_zero_width_never_print_raw(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    conv = store.create_conversation(title=f"evil{HIDDEN}title")
    store.add_user_message(conv, "prompt " + "".join(BIDI_AND_ZERO_WIDTH))
    turn_id = store.start_turn(conv, provider="p", model=f"m{HIDDEN}", api="chat")
    turn = Turn()
    turn.apply(TextDelta(f"answer {HIDDEN} with a \U0001f469\u200d\U0001f4bb emoji"))
    turn.apply(END_OF_STREAM)
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    store.close()

    listing = triptych(tmp_path, "history")
    search = triptych(tmp_path, "history", "--search", "answer")
    markdown = triptych(tmp_path, "export", str(conv))
    as_json = triptych(tmp_path, "export", str(conv), "--format", "json")
    for done in (listing, search, markdown, as_json):
        assert done.returncode == 0, done.stderr
        for char in BIDI_AND_ZERO_WIDTH:
            assert char not in done.stdout, (hex(ord(char)), done.args)
    assert "evil\ufffd\ufffd\ufffd\ufffd\ufffd\ufffdtitle" in listing.stdout  # as the TUI shows
    assert "\U0001f469\u200d\U0001f4bb" in markdown.stdout  # a joiner inside an emoji stays
    document = json.loads(as_json.stdout)  # JSON keeps the exact text, escaped
    assert document["title"] == f"evil{HIDDEN}title"
    assert document["messages"][1]["text"].startswith(f"answer {HIDDEN} with")
    assert "\\u202e" in as_json.stdout
