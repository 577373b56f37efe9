"""The first screen loads only what it draws (issue 12): the comparison, history and leaderboard
screens, the HTTP client, the demo server, Markdown rendering and the headless commands wait
until they are first used. Checked in a fresh interpreter that starts the real app on the
offline demo (with a history), shows its first screen, then sends one prompt: the modules named
here must be absent before the prompt and the ones an answer needs present after it, so the
check cannot pass by testing names that are never loaded at all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
    "app.display.code_blocks",  # the palette's "copy code block N"
    "app.display.fences",
    "app.headless.replay_plan",  # replay --ui
    "importlib.resources",  # `config --example`; themes are read from their folder
    "zipfile",
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
from app.store.db import Store
from app.ui.app import TriptychApp
from app.wire.turn import Turn

names = json.loads(sys.argv[1])
tmp = Path(sys.argv[2])
history = tmp / "history.db"
store = Store.open(history)  # a history to start with, as a user has
for n in range(3):
    conv = store.create_conversation(title=f"conversation {n}")
    store.add_user_message(conv, f"question {n}")
    turn_id = store.start_turn(conv, provider="demo", model="demo", api="chat")
    turn = Turn()
    turn.text_parts.append(f"**Answer {n}**: some words")
    turn.end()
    store.save_turn(turn_id, turn, final=True)
store.close()
for name in names:  # the check itself must not load them
    assert name not in sys.modules, name
seen = {}

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
        seen["after an answer"] = sorted(n for n in names if n in sys.modules)

asyncio.run(main())
print(json.dumps(seen))
"""


def test_the_first_screen_leaves_the_rest_for_later(tmp_path: Path) -> None:
    names = sorted(set(DEFERRED + ANSWER_NEEDS))
    env = {**os.environ, "TRIPTYCH_DEMO_PACE": "0", "TRIPTYCH_DATA_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(names), str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["first screen"] == [], f"loaded for the first screen: {seen['first screen']}"
    assert set(ANSWER_NEEDS) <= set(seen["after an answer"]), seen["after an answer"]
