"""Takes the manual's pictures with the app itself: the offline demo driven by Textual's Pilot.

    python docs/screenshots.py            # (or `make screenshots`) rewrite docs/images/*.svg

Each picture is the real app answering the real demo provider over loopback, so a change of
the screen changes the pictures the next time this runs. The tool approval uses the tests' own
MCP server (tests/fakes/mcp_server.py), whose `get_weather` the demo's `weather` prompt calls.
Nothing is written outside a temporary data directory and docs/images/.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "images"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from textual.pilot import Pilot  # noqa: E402

from app.demo.names import with_demo_providers  # noqa: E402
from app.settings.config import Config, McpServerConfig, UiSettings  # noqa: E402
from app.ui.app import TriptychApp  # noqa: E402
from app.ui.widgets.prompt import PromptInput  # noqa: E402

WIDE = (150, 44)
CHAT = (110, 36)
HERO = (216, 46)  # two panes of 50 columns and the inspector beside them
TIMEOUT = 30.0


def demo_config(*, mcp: bool = False) -> Config:
    config = with_demo_providers(Config(path=None, ui=UiSettings(reasoning_open=True)))
    if mcp:
        server = McpServerConfig(
            name="weather",
            command=(sys.executable, "-m", "tests.fakes.mcp_server", "stdio"),
            cwd=ROOT,
        )
        config = replace(config, mcp={"weather": server})
    return config


def make_app(config: Config, data: Path, **kwargs: Any) -> TriptychApp:
    return TriptychApp(
        config,
        state_file=data / "state.toml",
        history_file=data / "history.sqlite3",
        local_probe=list,
        **kwargs,
    )


async def until(pilot: Pilot[Any], done: Callable[[], object], what: str) -> None:
    """Waits for `done()`; a picture of a half-drawn screen is worse than none."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not done():
        if loop.time() > deadline:
            raise TimeoutError(f"screenshots: gave up waiting for {what}")
        await pilot.pause(0.05)


def settled(app: TriptychApp) -> bool:
    return not app.render_clock.live


async def ask(pilot: Pilot[Any], text: str) -> None:
    app = pilot.app
    assert isinstance(app, TriptychApp)
    for prompt in app.screen.query(PromptInput):
        prompt.cursor_blink = False
    await pilot.pause(0.1)
    await pilot.press(*text, "enter")
    await pilot.pause(0.3)
    await until(pilot, lambda: settled(app), f"the answer to {text!r}")
    await pilot.pause(0.3)


def save(app: TriptychApp, name: str, title: str) -> None:
    svg = app.export_screenshot(title=title)
    (IMAGES / name).write_text(svg, encoding="utf-8")
    print(f"wrote docs/images/{name}")


async def chat(data: Path) -> None:
    app = make_app(demo_config(), data)
    async with app.run_test(size=CHAT) as pilot:
        await ask(pilot, "hello")
        save(app, "chat.svg", "Triptych: a chat with the demo")
        await pilot.press("f1")
        await pilot.pause(0.5)
        save(app, "keys.svg", "Triptych: the key sheet (F1)")


async def inspector(data: Path) -> None:
    app = make_app(demo_config(), data)
    async with app.run_test(size=WIDE) as pilot:
        await ask(pilot, "think about fibonacci")
        await pilot.press("f2")
        await pilot.pause(0.8)
        save(app, "inspector.svg", "Triptych: the wire inspector (F2)")


async def compare(data: Path) -> None:
    app = make_app(demo_config(), data, compare=["demo", "demo-messages"])
    async with app.run_test(size=HERO) as pilot:
        await ask(pilot, "think about fibonacci")
        await ask(pilot, "and the weather?")
        await pilot.press("f2")
        await pilot.pause(0.8)
        save(app, "compare.svg", "Triptych: two wire formats side by side, inspector open")


async def approval(data: Path) -> None:
    from app.ui.widgets.tool_approval import ApprovalRow

    app = make_app(demo_config(mcp=True), data)
    async with app.run_test(size=CHAT) as pilot:
        await pilot.pause(0.5)
        for prompt in app.screen.query(PromptInput):
            prompt.cursor_blink = False
        await pilot.press(*"what is the weather in Paris?", "enter")
        await until(pilot, lambda: app.screen.query(ApprovalRow), "the approval row")
        await pilot.pause(0.5)
        save(app, "tool-approval.svg", "Triptych: an MCP tool call waiting for approval")


async def batch(data: Path) -> None:
    from app.headless.batch import BatchJob
    from app.headless.batch_file import BatchPrompt

    config = demo_config()
    prompts = (
        "Explain the difference between a process and a thread",
        "think: is 1 a prime number?",
        "Write a haiku about terminals",
        "what is the weather in Paris?",
    )
    job = BatchJob(
        source=data / "prompts.txt",
        prompts=tuple(BatchPrompt(n, text, None, n) for n, text in enumerate(prompts, 1)),
        providers=tuple(config.providers[n] for n in ("demo", "demo-messages", "demo-responses")),
        api_keys=(None, None, None),
        concurrency=6,
        demo_pace=0.5,  # a multiplier of the demo's waits: the table fills in seconds
    )
    app = make_app(config, data, batch=job)
    async with app.run_test(size=(150, 16)) as pilot:
        try:
            await until(pilot, lambda: _batch_done(app), "the batch")
        finally:
            save(app, "batch.svg", "Triptych: a batch run (batch --ui)")
        await pilot.pause(1.0)
        save(app, "batch.svg", "Triptych: a batch run (batch --ui)")


def _batch_done(app: TriptychApp) -> bool:
    shown = app.export_screenshot()
    return "asking" not in shown and "queued" not in shown and "✓" in shown


async def take_all() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    chosen = set(sys.argv[1:])
    for shot in (chat, inspector, compare, approval, batch):
        if chosen and shot.__name__ not in chosen:
            continue
        with tempfile.TemporaryDirectory() as scratch:
            os.environ["TRIPTYCH_DATA_DIR"] = scratch
            await shot(Path(scratch))


if __name__ == "__main__":
    asyncio.run(take_all())
