"""MCP servers start after the first frame, each on its own: a prompt sent before a server has
listed its tools waits only for the servers whose tools it offers, and the status bar names
them. Over the tests' own MCP server (tests/fakes/mcp_server.py, `--start-delay`: slow to
start) and the fake provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, screen_text, send, wait_until
from tests.ui.test_tool_chat import pick
from tests.ui.tool_helpers import FINAL, PROMPT, ROOT, server, tools_config, wait_idle

SLOW = "4"  # seconds the slow server takes to start, once its process runs
SLOWER = "10"  # ... while a test does what it does before that


def offered(fake_provider: FakeProvider, index: int = 0) -> list[str]:
    return [t["function"]["name"] for t in fake_provider.requests[index].json.get("tools", [])]


async def test_a_prompt_sent_while_a_slow_server_starts_waits_for_it_and_says_so(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    slow = server("slow", "--start-delay", SLOW)
    app = make_app(tools_config(fake_provider, local=(), servers=(slow,)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        assert "Ask anything" in screen_text(app)  # the first screen did not wait for it
        assert app.tools.starting == ["slow"]
        await send(pilot, PROMPT)
        await wait_until(
            pilot, lambda: "starting tools: slow…" in screen_text(app), 10, "the status"
        )
        assert fake_provider.requests == []  # nothing is sent before its tools are listed
        await wait_until(pilot, lambda: len(fake_provider.requests) == 1, 60, "the request")
        await wait_idle(pilot)
        assert "get_weather" in offered(fake_provider)
        shown = screen_text(app)
        assert "It is 21 °C." in shown
        assert "starting tools" not in shown
        assert not app.tools.starting


async def test_a_prompt_offering_only_a_fast_servers_tools_does_not_wait_for_the_slow_one(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """The slow server is turned off in "Choose tools…" while it starts (the picker does not
    wait for it): the prompt goes at once, and its tools stay off once it has listed them."""
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    servers = (server("fast"), server("slow", "--start-delay", SLOWER, "--prefix", "slow_"))
    app = make_app(tools_config(fake_provider, local=(), servers=servers), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.tools.starting == ["slow"], 60, "the fast server")
        await pilot.press("ctrl+p")
        await pick(pilot, "Choose tools")
        await pick(pilot, "slow: starting")
        assert app.tools.off_servers == {"slow"}
        await send(pilot, PROMPT)
        await wait_until(pilot, lambda: len(fake_provider.requests) == 1, 10, "the request")
        assert app.tools.starting == ["slow"]  # sent while the slow server still starts
        names = offered(fake_provider)
        assert "get_weather" in names
        assert not [name for name in names if name.startswith("slow_")]
        await wait_idle(pilot)
        assert "starting tools" not in screen_text(app)
        await wait_until(pilot, lambda: not app.tools.starting, 60, "the slow server")
        slow_tools = {tool.name for tool in app.tools.listed if tool.server == "slow"}
        assert "slow_get_weather" in slow_tools
        assert slow_tools <= app.tools.off  # turned off before it listed them: off now


async def test_quitting_while_a_server_starts_does_not_wait_for_it(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """... and its process is ended with the app."""
    mark = tmp_path / "slow.started"
    slow = server("slow", "--start-delay", "60", "--mark", str(mark))
    app = make_app(tools_config(fake_provider, local=(), servers=(slow,)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, mark.exists, 30, "the server's process")
        began = time.monotonic()
        await app.action_quit()
        assert time.monotonic() - began < 3.0  # not its start, nor the 5 s close wait
        assert app.tools.servers is not None
        assert app.tools.servers.connections == {}
    pid = int(mark.read_text(encoding="utf-8").split()[2])
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, "the server's process was left running"
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


FIRST_FRAME_SCRIPT = """
import asyncio, json, sys
from dataclasses import replace
from pathlib import Path

from app.demo.names import with_demo_providers
from app.settings.config import Config, McpServerConfig
from app.ui.app import TriptychApp

tmp, mark = Path(sys.argv[1]), Path(sys.argv[2])
command = (sys.executable, "-m", "tests.fakes.mcp_server", "stdio", "--mark", str(mark))
kit = McpServerConfig("kit", command=command, cwd=Path.cwd())
config = replace(with_demo_providers(Config(path=None)), mcp={"kit": kit})
seen = {}
first_frame_shown = TriptychApp._first_frame_shown


def at_the_first_frame(app):
    seen["first frame"] = {
        "sdk": "mcp" in sys.modules,
        "tools": "app.tools.registry" in sys.modules,
        "spawned": mark.exists(),
    }
    first_frame_shown(app)


TriptychApp._first_frame_shown = at_the_first_frame


async def main():
    app = TriptychApp(config, state_file=tmp / "state.toml", themes_dir=tmp / "themes")
    async with app.run_test(size=(110, 40)) as pilot:
        app.screen.query_one("#prompt").focus()
        await pilot.press(*"hello", "enter")
        for _ in range(3000):
            turn = app.pane.current
            if turn is not None and turn.drawn:
                break
            await pilot.pause(0.02)
        seen["after an answer"] = {
            "sdk": "mcp" in sys.modules,
            "tools": "app.tools.registry" in sys.modules,
            "spawned": mark.exists(),
        }
        seen["offered"] = len(app.tools.listed)

asyncio.run(main())
print(json.dumps(seen))
"""


def test_the_first_frame_neither_loads_the_sdk_nor_spawns_a_server(tmp_path: Path) -> None:
    """In a fresh interpreter (the SDK takes seconds to import, which held the first frame):
    it, the tools' modules and the server all come after it, and the first prompt then gets
    the server's tools."""
    mark = tmp_path / "kit.started"
    result = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME_SCRIPT, str(tmp_path), str(mark)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "TRIPTYCH_DEMO_PACE": "0", "TRIPTYCH_DATA_DIR": str(tmp_path)},
        cwd=ROOT,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["first frame"] == {"sdk": False, "tools": False, "spawned": False}
    assert seen["after an answer"] == {"sdk": True, "tools": True, "spawned": True}
    assert seen["offered"] == 6  # the fake server's tools
