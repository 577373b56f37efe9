"""`triptych serve` (issue 15 item 4): its flags and messages, and the app in a real headless
Chromium: the page loads, a prompt typed in the page gets the demo's answer, which the page
receives over its WebSocket and draws (the screenshot is kept in the test's tmp_path).

The browser test needs textual-serve (the dev extra has it) and a Chromium on PATH
(`apt-get install chromium`); without one it is skipped, saying which."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.ui import serve

CHROMIUM = next(
    (
        shutil.which(name)
        for name in ("chromium", "chromium-browser", "google-chrome")
        if shutil.which(name)
    ),
    None,
)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def test_without_textual_serve_it_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve, "serve_available", lambda: False)
    assert cli.main(["serve"]) == 2
    assert capsys.readouterr().err == (
        "triptych: `triptych serve` needs textual-serve: pip install 'triptych[serve]'\n"
    )


def test_it_listens_on_localhost_and_forwards_the_apps_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(serve, "serve_available", lambda: True)
    monkeypatch.setattr(serve, "run_server", lambda *args: calls.append(args))
    config = tmp_path / "config.toml"
    config.write_text('[prompts.terse]\nsystem = "Be brief."\n', encoding="utf-8")
    assert cli.main(["serve"]) == 0
    argv = ["--config", str(config), "--system-preset", "terse", "--provider", "demo", "serve"]
    assert cli.main([*argv, "--port", "8123"]) == 0
    assert calls == [
        ([], "127.0.0.1", 8000, None),
        (
            ["--config", str(config.resolve()), "--provider", "demo", "--system-preset", "terse"],
            "127.0.0.1",
            8123,
            None,
        ),
    ]
    assert capsys.readouterr().err == ""  # localhost: no warning


def test_another_host_warns_that_there_is_no_authentication(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve, "serve_available", lambda: True)
    monkeypatch.setattr(serve, "run_server", lambda *args: None)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert capsys.readouterr().err == (
        "triptych: warning: serving on 0.0.0.0: textual-serve has no authentication; anyone "
        "who can reach port 9000 there uses this app, with your API keys\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "0"], "--port must be a number from 1 to 65535, not 0"),
        (["serve", "--port", "70000"], "--port must be a number from 1 to 65535, not 70000"),
        (["--provider", "nope", "serve"], "unknown provider 'nope'"),
        (["--system-preset", "nope", "serve"], "unknown system preset 'nope'"),
    ],
)
def test_bad_flags_exit_2_before_serving(
    argv: list[str],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(serve, "serve_available", lambda: True)
    monkeypatch.setattr(serve, "run_server", lambda *args: pytest.fail("served"))
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(not serve.serve_available(), reason="textual-serve is not installed")
def test_a_port_in_use_is_a_clear_message(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 2
    assert f"triptych: cannot listen on 127.0.0.1:{port}: " in capsys.readouterr().err


# -- in a real browser ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], tries: int = 300) -> None:
    for _ in range(tries):
        if process.poll() is not None:
            raise AssertionError(f"triptych serve exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listened on port {port}")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    env = {**os.environ, "TRIPTYCH_DATA_DIR": str(tmp_path / "data")}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[str]:
    """A headless Chromium; yields its DevTools WebSocket URL."""
    assert CHROMIUM is not None
    process = subprocess.Popen(
        [
            CHROMIUM,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--window-size=1280,800",
            f"--user-data-dir={tmp_path / 'chromium'}",
            "--remote-debugging-port=0",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        for _ in range(200):
            line = process.stderr.readline().decode("utf-8", "replace")
            if line.startswith("DevTools listening on "):
                yield line.removeprefix("DevTools listening on ").strip()
                break
        else:
            raise AssertionError("Chromium never said where DevTools listens")
    finally:
        process.terminate()
        process.wait(timeout=30)


class Page:
    """Just enough of the Chrome DevTools Protocol: commands, and the page's WebSocket frames."""

    def __init__(self, socket: Any, session: str) -> None:
        self.socket = socket
        self.session = session
        self.counter = 0
        self.frames: list[bytes] = []
        self.pending: dict[int, asyncio.Future[dict[str, Any]]] = {}

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.counter += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[self.counter] = future
        message = {"id": self.counter, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        await self.socket.send_str(json.dumps(message))
        return await asyncio.wait_for(future, 30)

    def received(self, message: dict[str, Any]) -> None:
        if "id" in message and message["id"] in self.pending:
            self.pending.pop(message["id"]).set_result(message.get("result", {}))
        elif message.get("method") == "Network.webSocketFrameReceived":
            response = message["params"]["response"]
            data = response["payloadData"]
            self.frames.append(base64.b64decode(data) if response["opcode"] == 2 else data.encode())

    def seen(self, text: str) -> bool:
        return text.encode() in b"".join(self.frames)


async def drive(devtools: str, url: str, shot: Path) -> tuple[bool, bool]:
    import aiohttp

    async with aiohttp.ClientSession() as http, http.ws_connect(devtools, max_msg_size=0) as ws:
        browser = Page(ws, "")

        async def pump() -> None:
            async for message in ws:
                data = json.loads(message.data)
                for page in pages:
                    if data.get("sessionId", "") == page.session:
                        page.received(data)

        pages = [browser]
        reader = asyncio.create_task(pump())
        target = await browser.send("Target.createTarget", url="about:blank")
        attached = await browser.send(
            "Target.attachToTarget", targetId=target["targetId"], flatten=True
        )
        page = Page(ws, attached["sessionId"])
        pages.append(page)
        await page.send("Network.enable")
        await page.send("Page.enable")
        await page.send("Page.navigate", url=url)
        for _ in range(300):  # the app's first screen arrives over the page's WebSocket
            if page.seen("Triptych"):
                break
            await asyncio.sleep(0.1)
        loaded = page.seen("Triptych")
        await page.send("Runtime.evaluate", expression="document.querySelector('textarea').focus()")
        await page.send("Input.insertText", text="hello")
        await page.send(
            "Input.dispatchKeyEvent",
            type="keyDown",
            key="Enter",
            code="Enter",
            windowsVirtualKeyCode=13,
            text="\r",
        )
        await page.send("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter")
        for _ in range(300):
            if page.seen("Hello from Triptych"):
                break
            await asyncio.sleep(0.1)
        answered = page.seen("Hello from Triptych")
        for _ in range(300):  # for the screenshot: the whole answer, its status complete
            if page.seen("complete"):
                break
            await asyncio.sleep(0.1)
        picture = await page.send("Page.captureScreenshot", format="png")
        shot.write_bytes(base64.b64decode(picture["data"]))
        reader.cancel()
        return loaded, answered


@pytest.mark.skipif(not serve.serve_available(), reason="textual-serve is not installed")
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on PATH (apt-get install chromium)")
def test_a_prompt_typed_in_the_browser_gets_the_demos_answer(
    served: int, chromium: str, tmp_path: Path
) -> None:
    shot = tmp_path / "serve.png"
    loaded, answered = asyncio.run(drive(chromium, f"http://127.0.0.1:{served}/", shot))
    assert loaded, "the app's first screen never reached the page"
    assert answered, "the demo's answer never reached the page"
    assert shot.read_bytes().startswith(b"\x89PNG")
    print(f"screenshot: {shot}")
