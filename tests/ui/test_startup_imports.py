"""The first screen loads only what it draws: the comparison, history and leaderboard
screens, the HTTP client, the demo server, Markdown rendering and the headless commands wait
until they are first used. Checked in a fresh interpreter that starts the real app on the
offline demo (with a history), shows its first screen, then sends one prompt: the modules named
here must be absent before the prompt and the ones an answer needs present after it, so the
check cannot pass by testing names that are never loaded at all. The history store opens
after the first frame: its modules are checked at that frame, and loaded after the answer."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from app.store.db import Store
from app.wire.turn import Turn

# Not needed for the first screen; each is loaded when first used.
DEFERRED = [
    "httpx",  # the client: made on the first prompt
    "app.providers.client",
    "markdown_it",  # parsing and drawing Markdown: the first answer
    "rich.markdown",
    "rich.syntax",
    "pygments",
    "app.demo.server",  # the demo's loopback server: the first demo answer
    "http.server",
    "app.ui.screens.compare",  # "Compare with…", --compare, a stored comparison
    "app.ui.flows.comparing",
    "app.compare",
    "app.ui.screens.history",  # ctrl+h
    "app.ui.screens.leaderboard",
    "textual.widgets._data_table",
    "textual.widgets._tabs",
    "app.headless.batch",  # other commands than the TUI
    "app.headless.ask",
    "app.tools",  # [mcp] servers and tools
    "mcp",
    "app.ui.widgets.inspector",  # F2: composed when first opened
    "app.ui.widgets.frame_list",
    "app.ui.widgets.timeline",
    "app.display.wire_text",
    "textual.widgets._sparkline",
    "app.wire.engine",  # the wire's engine and decoders: the first answer (the config and
    "app.wire.chat",  # the store name a format through app.wire.api only)
    "app.wire.messages",
    "app.wire.responses",
    "app.wire.sse",
    "app.providers.capture",
    "app.ui.widgets.answer",  # Markdown: made with the first answer's view
    "app.ui.widgets.markdown_view",
    "app.ui.widgets.reasoning",
    "app.display.markdown_render",
    "app.display.segments",
    "app.display.joins",
    "textual.widgets._collapsible",
    "app.ui.screens.keys",  # F1
    "app.ui.screens.parameters",  # F3 and the palette
    "app.ui.screens.system_prompt",
    "app.display.code_blocks",  # the palette's "copy code block N"
    "app.display.fences",
    "app.headless.replay_plan",  # replay --ui
    "importlib.resources",  # `config --example`; themes are read from their folder
    "zipfile",
    "app.store.export",  # the first export
]
# The history store, opened after the first frame (the app names its file only): absent at
# that frame, there once the answer is saved.
STORE = [
    "sqlite3",
    "app.store.db",
    "app.store.records",  # and its dataclasses, which the chat pane names for types only
    "app.store.schema",
    "app.store.pane_trees",
    "app.store.queries",
    "app.store.votes",
    "app.store.health",
    "app.store.wal_check",
    "app.store.search_index",
    "app.store.transaction",
    "app.store.writer",
    "app.wire.turn",  # the turn, its events, its capture and its tools: the store's records
    "app.wire.events",  # hold turns (the first frame names a status, app.wire.turn_status)
    "app.wire.exchange",
    "app.wire.tools",
]
# An answer needs these: loaded after the prompt, so the list above names real modules.
ANSWER_NEEDS = [
    "httpx",
    "app.providers.client",
    "markdown_it",
    "rich.markdown",
    "app.demo.server",
    "app.wire.engine",
    "app.ui.widgets.answer",
    "app.display.segments",
]

SCRIPT = """
import asyncio, json, sys
from pathlib import Path

from app.demo.names import with_demo_providers
from app.settings.config import Config
from app.ui.app import TriptychApp

names, store_names = json.loads(sys.argv[1])
tmp = Path(sys.argv[2])
history = tmp / "history.db"  # made by the test: a history to start with, as a user has
for name in names + store_names:  # the check itself must not load them
    assert name not in sys.modules, name
seen = {}


first_frame_shown = TriptychApp._first_frame_shown


def at_the_first_frame(app):
    seen["first frame"] = sorted(n for n in names + store_names if n in sys.modules)
    first_frame_shown(app)


TriptychApp._first_frame_shown = at_the_first_frame


async def main():
    app = TriptychApp(
        with_demo_providers(Config(path=None)),
        state_file=tmp / "state.toml",
        themes_dir=tmp / "themes",
        history_file=history,
    )
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        assert "Ask anything" in app.screen.query_one("#prompt").placeholder
        seen["first screen"] = sorted(n for n in names if n in sys.modules)
        app.screen.query_one("#prompt").focus()
        await pilot.press(*"hello", "enter")
        for _ in range(500):
            turn = app.pane.current
            if turn is not None and turn.drawn:
                break
            await pilot.pause(0.02)
        app.history.wait(5)
        seen["after an answer"] = sorted(n for n in names + store_names if n in sys.modules)

asyncio.run(main())
print(json.dumps(seen))
"""


def _a_history(path: Path) -> None:
    """Three stored conversations (made here: the app's process must not load the store)."""
    store = Store.open(path)
    for n in range(3):
        conv = store.create_conversation(title=f"conversation {n}")
        store.add_user_message(conv, f"question {n}")
        turn_id = store.start_turn(conv, provider="demo", model="demo", api="chat")
        turn = Turn()
        turn.text_parts.append(f"**Answer {n}**: some words")
        turn.end()
        store.save_turn(turn_id, turn, final=True)
    store.close()


def test_the_first_screen_leaves_the_rest_for_later(tmp_path: Path) -> None:
    names = sorted(set(DEFERRED + ANSWER_NEEDS))
    _a_history(tmp_path / "history.db")
    env = {**os.environ, "TRIPTYCH_DEMO_PACE": "0", "TRIPTYCH_DATA_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps([names, STORE]), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["first frame"] == [], f"loaded for the first frame: {seen['first frame']}"
    assert seen["first screen"] == [], f"loaded for the first screen: {seen['first screen']}"
    assert set(ANSWER_NEEDS + STORE) <= set(seen["after an answer"]), seen["after an answer"]
    with closing(sqlite3.connect(tmp_path / "history.db")) as db:  # and the prompt was saved
        prompts = db.execute("SELECT count(*) FROM messages WHERE role = 'user'").fetchone()
    assert prompts == (4,)
