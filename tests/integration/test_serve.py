"""`triptych serve`: its flags and messages; the checks in front of textual-serve (a token traded
for a cookie, `Host`, `Origin`) driven by a raw HTTP and WebSocket client, always; and the app in
a real headless Chromium: the page loads from the printed URL, a prompt typed in the page gets the
demo's answer over its WebSocket (the screenshot is kept in the test's tmp_path), and the same
browser without the token, on another site's page, or under a re-pointed name is refused.

The browser test needs textual-serve (the dev extra has it) and a Chromium on PATH
(`apt-get install chromium`); without one it is skipped, saying which."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import http.server
import inspect
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.ui import serve, serve_guard

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
    assert cli.main(["serve", "--token", "chosen-T0k.en~"]) == 0
    first, second, chosen = calls
    assert first[:4] == ([], "127.0.0.1", 8000, None)
    assert second[:4] == (
        ["--config", str(config.resolve()), "--provider", "demo", "--system-preset", "terse"],
        "127.0.0.1",
        8123,
        None,
    )
    assert chosen[4] == "chosen-T0k.en~"
    # a new random token at each start, long enough not to be guessed
    assert first[4] != second[4]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", first[4])
    assert capsys.readouterr().err == ""  # localhost: no warning


def test_another_host_warns_that_the_token_crosses_the_network_in_clear(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(serve, "serve_available", lambda: True)
    monkeypatch.setattr(serve, "run_server", lambda *args: None)
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", "9000"]) == 0
    assert capsys.readouterr().err == (
        "triptych: warning: serving on 0.0.0.0: over plain HTTP the URL's token crosses the "
        "network in clear; anyone who has it uses this app, with your API keys\n"
        "triptych: warning: browsers on other machines are refused unless --public-url gives "
        "the address they use\n"
    )
    argv = ["serve", "--host", "0.0.0.0", "--public-url", "https://chat.example"]
    assert cli.main(argv) == 0
    assert "--public-url" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "--port", "0"], "--port must be a number from 1 to 65535, not 0"),
        (["serve", "--port", "70000"], "--port must be a number from 1 to 65535, not 70000"),
        (["--provider", "nope", "serve"], "unknown provider 'nope'"),
        (["--system-preset", "nope", "serve"], "unknown system preset 'nope'"),
        (
            ["serve", "--token", "a b"],
            "--token takes letters, digits and - . _ ~ only (it goes into a URL)",
        ),
        (["serve", "--token", ""], "--token takes letters, digits and - . _ ~ only"),
        (
            ["serve", "--public-url", "ftp://x.example"],
            "--public-url must be an http:// or https:// URL, not 'ftp://x.example'",
        ),
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
    captured = capsys.readouterr()
    assert f"triptych: cannot listen on 127.0.0.1:{port}: " in captured.err
    assert "token=" not in captured.out  # no URL printed for a server that never listened


# -- the checks in front of textual-serve -----------------------------------------------------

GUARD = serve_guard.Guard("T0ken", 8000, "http://127.0.0.1:8000")
PROXIED = serve_guard.Guard("T0ken", 8000, "https://chat.example/triptych")


@pytest.mark.parametrize(
    ("guard", "host", "allowed"),
    [
        (GUARD, "127.0.0.1:8000", True),
        (GUARD, "localhost:8000", True),
        (GUARD, "LOCALHOST", True),
        (GUARD, "[::1]:8000", True),
        (GUARD, "attacker.example:8000", False),  # DNS rebinding: a name re-pointed at 127.0.0.1
        (GUARD, "127.0.0.1.attacker.example", False),
        (GUARD, "evil@127.0.0.1", False),
        (GUARD, "127.0.0.1:notaport", False),
        (GUARD, "", False),
        (GUARD, None, False),
        (GUARD, "chat.example", False),
        (PROXIED, "chat.example", True),
        (PROXIED, "127.0.0.1:8000", True),  # the proxy's own request to the loopback
        (PROXIED, "attacker.example", False),
    ],
)
def test_host_is_a_loopback_name_or_the_public_urls(
    guard: serve_guard.Guard, host: str | None, allowed: bool
) -> None:
    assert (guard.host_refused(host) is None) is allowed


@pytest.mark.parametrize(
    ("guard", "origin", "allowed"),
    [
        (GUARD, "http://127.0.0.1:8000", True),
        (GUARD, "http://localhost:8000", True),
        (GUARD, "http://[::1]:8000", True),
        (GUARD, "http://evil.example", False),
        (GUARD, "http://127.0.0.1:3000", False),  # another local site: same site, other origin
        (GUARD, "https://127.0.0.1:8000", False),
        (GUARD, "null", False),
        (GUARD, "", False),
        (PROXIED, "https://chat.example", True),
        (PROXIED, "https://chat.example:443", True),
        (PROXIED, "http://chat.example", False),
    ],
)
def test_origin_is_the_served_origin(guard: serve_guard.Guard, origin: str, allowed: bool) -> None:
    assert (guard.origin_refused(origin, required=True) is None) is allowed


def test_a_missing_origin_is_refused_only_where_a_browser_always_sends_one() -> None:
    assert GUARD.origin_refused(None, required=False) is None  # a typed URL: no Origin
    assert GUARD.origin_refused(None, required=True) is not None  # a WebSocket


def test_the_token_must_match_exactly() -> None:
    assert GUARD.token_matches("T0ken")
    for wrong in ("t0ken", "T0ke", "T0kenn", "", None, "T0ken\x00"):
        assert not GUARD.token_matches(wrong), wrong
    assert GUARD.url == "http://127.0.0.1:8000/?token=T0ken"
    assert PROXIED.url == "https://chat.example/triptych/?token=T0ken"
    assert serve.default_public_url("::1", 8000) == "http://[::1]:8000"


@pytest.mark.skipif(not serve.serve_available(), reason="textual-serve is not installed")
def test_textual_serve_still_builds_its_application_where_the_checks_are_added() -> None:
    """The checks ride on textual-serve's private `Server._make_app`: if textual-serve stops
    building its aiohttp application there, they would silently be gone; this says so first."""
    from textual_serve.server import Server

    from app.ui.serve_web import GuardedServer

    assert inspect.iscoroutinefunction(Server._make_app)
    assert "self._make_app()" in inspect.getsource(Server.serve)
    built = asyncio.run(GuardedServer("true", "127.0.0.1", 8000, GUARD)._make_app())
    assert built.middlewares[0].__qualname__.startswith("guard_middleware")
    assert {route.resource.canonical for route in built.router.routes() if route.resource} >= {
        "/",
        "/ws",
    }


# -- a raw HTTP and WebSocket client, against the real server -----------------------------------

TOKEN = "a-test-token_0123456789"


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


@dataclass
class Served:
    port: int
    process: subprocess.Popen[bytes]
    data: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def app_processes(self) -> list[int]:
        """The server's children: textual-serve starts one app process per WebSocket."""
        found: list[int] = []
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            found += [int(pid) for pid in (task / "children").read_text().split()]
        return found

    def conversations(self) -> list[str]:
        path = self.data / "history.sqlite3"
        if not path.exists():
            return []
        from app.store import Store

        store = Store.open(path)
        try:
            return [summary.title for summary in store.list_conversations()]
        finally:
            store.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    port = free_port()
    data = tmp_path / "data"
    env = {**os.environ, "TRIPTYCH_DATA_DIR": str(data)}
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port), "--token", TOKEN],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield Served(port, process, data)
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_each_start_prints_the_url_to_open_with_a_new_token(tmp_path: Path) -> None:
    tokens = []
    for _ in range(2):
        port = free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            assert process.stdout is not None
            lines = [process.stdout.readline().decode() for _ in range(3)]
        finally:
            process.terminate()
            process.wait(timeout=30)
        found = re.fullmatch(
            rf"    http://127\.0\.0\.1:{port}/\?token=([A-Za-z0-9_-]{{43}})\n", lines[1]
        )
        assert found, lines
        tokens.append(found[1])
    assert tokens[0] != tokens[1]


def jar() -> Any:
    import aiohttp

    return aiohttp.CookieJar(unsafe=True)  # unsafe: it keeps cookies of an IP address's host


async def refusal(session: Any, url: str, headers: dict[str, str], websocket: bool) -> str:
    """'' when the request was let through, else the status and body of the refusal."""
    import aiohttp

    if not websocket:
        async with session.get(url, headers=headers, allow_redirects=False) as response:
            text = await response.text()
            return "" if response.status == 200 else f"{response.status} {text}"
    try:
        async with session.ws_connect(url, headers=headers) as ws:
            await ws.send_str(json.dumps(["stdin", "hello from a web page\r"]))
            await asyncio.sleep(1)
            return ""
    except aiohttp.WSServerHandshakeError as error:
        return f"{error.status} {error.message}"


def test_with_the_token_the_page_works_and_its_websocket_runs_the_app(served: Served) -> None:
    import aiohttp

    async def visit() -> tuple[aiohttp.ClientResponse, str, bytes, list[int]]:
        async with aiohttp.ClientSession(cookie_jar=jar()) as session:
            async with session.get(f"{served.origin}/?token={TOKEN}") as page:
                html = await page.text()
            # the page itself never carries the token again: the cookie does
            async with session.get(f"{served.origin}/static/js/textual.js") as script:
                assert script.status == 200
            url = f"ws://127.0.0.1:{served.port}/ws?width=100&height=30"
            async with session.ws_connect(url, headers={"Origin": served.origin}) as ws:
                shown = b""
                while b"Triptych" not in shown:  # the app's first screen, then it takes keys
                    shown += (await ws.receive(timeout=60)).data
                running = served.app_processes()
                await ws.send_str(json.dumps(["stdin", "hello from a web page\r"]))
                for _ in range(300):
                    if served.conversations():
                        break
                    with contextlib.suppress(TimeoutError):
                        await ws.receive(timeout=0.1)
            return page, html, shown, running

    page, html, shown, running = asyncio.run(visit())
    assert page.status == 200
    assert f"ws://127.0.0.1:{served.port}/ws" in html
    cookie = page.headers["Set-Cookie"]
    assert cookie.startswith(f"triptych-token-{served.port}={TOKEN};")
    for attribute in ("HttpOnly", "SameSite=Strict", "Path=/"):
        assert attribute in cookie
    assert "Domain" not in cookie  # this host only
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert b"Triptych" in shown
    assert len(running) == 1
    assert served.conversations() == ["hello from a web page"]


REFUSED = {
    "GET / without the token": ("http://{host}/", {}, False),
    "GET / with a wrong token": ("http://{host}/?token=x" + TOKEN, {}, False),
    "GET a static file without the token": ("http://{host}/static/js/textual.js", {}, False),
    "GET / with the token, from another site's page": (
        "http://{host}/?token=" + TOKEN,
        {"Origin": "http://evil.example"},
        False,
    ),
    "GET / with the token, a foreign Host": (
        "http://{host}/?token=" + TOKEN,
        {"Host": "attacker.example:{port}"},
        False,
    ),
    "the WebSocket without the token": ("ws://{host}/ws", {"Origin": "http://{host}"}, True),
    "the WebSocket with a wrong cookie": (
        "ws://{host}/ws",
        {"Origin": "http://{host}", "Cookie": "triptych-token-{port}=x" + TOKEN},
        True,
    ),
    "the WebSocket with the token, from another site's page": (
        "ws://{host}/ws?token=" + TOKEN,
        {"Origin": "http://evil.example"},
        True,
    ),
    "the WebSocket with the token, from another local site": (
        "ws://{host}/ws?token=" + TOKEN,
        {"Origin": "http://127.0.0.1:1"},
        True,
    ),
    "the WebSocket with the token and no Origin": ("ws://{host}/ws?token=" + TOKEN, {}, True),
    "the WebSocket with the token, a foreign Host": (
        "ws://{host}/ws?token=" + TOKEN,
        {"Origin": "http://attacker.example:{port}", "Host": "attacker.example:{port}"},
        True,
    ),
}


def test_without_the_token_from_another_origin_or_host_it_is_403_and_starts_nothing(
    served: Served,
) -> None:
    import aiohttp

    host = f"127.0.0.1:{served.port}"

    async def attempt() -> dict[str, str]:
        outcomes = {}
        for name, (url, headers, websocket) in REFUSED.items():
            filled = {k: v.format(host=host, port=served.port) for k, v in headers.items()}
            async with aiohttp.ClientSession() as session:
                outcomes[name] = await refusal(session, url.format(host=host), filled, websocket)
            assert served.app_processes() == [], f"{name}: an app process was started"
        return outcomes

    outcomes = asyncio.run(attempt())
    let_through = [name for name, outcome in outcomes.items() if not outcome.startswith("403")]
    assert let_through == []
    assert outcomes["GET / without the token"] == (
        "403 403 Forbidden: open the URL `triptych serve` printed: it holds the token\n"
    )
    assert "localhost, 127.0.0.1, [::1]" in outcomes["GET / with the token, a foreign Host"]
    assert "another site" in outcomes["GET / with the token, from another site's page"]
    time.sleep(1)
    assert served.app_processes() == []
    assert served.conversations() == []


# -- in a real browser ----------------------------------------------------------------------------


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
            # two names for this machine, as DNS re-pointed at it would give them: the page
            # of another site, and the server reached under a foreign name (DNS rebinding)
            "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP attacker.example 127.0.0.1",
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


EVIL_PAGE = """<!doctype html><title>waiting</title><script>
const ws = new WebSocket("ws://127.0.0.1:PORT/ws");
ws.onopen = () => { ws.send(JSON.stringify(["stdin", "hello from a web page\\r"]));
                    document.title = "opened"; };
ws.onclose = () => { if (document.title !== "opened") document.title = "refused"; };
</script>"""


@pytest.fixture
def evil_site(served: Served) -> Iterator[int]:
    """Another site's page on this machine: it opens a WebSocket to the served app."""
    page = EVIL_PAGE.replace("PORT", str(served.port)).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield int(server.server_address[1])
        server.shutdown()


@dataclass
class Seen:
    without_token: str = ""
    foreign_host: str = ""
    loaded: bool = False
    answered: bool = False
    other_sites: dict[str, str] = field(default_factory=dict)


async def drive(devtools: str, served: Served, evil_port: int, shot: Path) -> Seen:
    import aiohttp

    seen = Seen()
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

        async def visit(url: str) -> str:
            """The page's text once it loaded (a refusal is a one-line page)."""
            await page.send("Page.navigate", url=url)
            await asyncio.sleep(1)
            found = await page.send("Runtime.evaluate", expression="document.body.innerText")
            return str(found.get("result", {}).get("value", ""))

        seen.without_token = await visit(f"{served.origin}/")
        seen.foreign_host = await visit(f"http://attacker.example:{served.port}/?token={TOKEN}")
        await page.send("Page.navigate", url=f"{served.origin}/?token={TOKEN}")
        for _ in range(300):  # the app's first screen arrives over the page's WebSocket
            if page.seen("Triptych"):
                break
            await asyncio.sleep(0.1)
        seen.loaded = page.seen("Triptych")
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
        seen.answered = page.seen("Hello from Triptych")
        for _ in range(300):  # for the screenshot: the whole answer, its status complete
            if page.seen("complete"):
                break
            await asyncio.sleep(0.1)
        picture = await page.send("Page.captureScreenshot", format="png")
        shot.write_bytes(base64.b64decode(picture["data"]))
        # The browser now holds the cookie. Another site's page (evil.example), and a page of
        # another port on this machine (the same site: the SameSite=Strict cookie goes along),
        # each open the app's WebSocket.
        for other in (f"http://evil.example:{evil_port}/", f"http://127.0.0.1:{evil_port}/"):
            await page.send("Page.navigate", url=other)
            title = "waiting"
            for _ in range(100):
                found = await page.send("Runtime.evaluate", expression="document.title")
                title = str(found.get("result", {}).get("value", ""))
                if title in ("opened", "refused"):
                    break
                await asyncio.sleep(0.1)
            seen.other_sites[other] = title
        reader.cancel()
        return seen


@pytest.mark.skipif(not serve.serve_available(), reason="textual-serve is not installed")
@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium on PATH (apt-get install chromium)")
def test_the_browser_works_from_the_printed_url_and_is_refused_without_it(
    served: Served, evil_site: int, chromium: str, tmp_path: Path
) -> None:
    shot = tmp_path / "serve.png"
    seen = asyncio.run(drive(chromium, served, evil_site, shot))
    assert "403 Forbidden: open the URL" in seen.without_token
    assert "403 Forbidden: this server answers only to" in seen.foreign_host
    assert seen.loaded, "the app's first screen never reached the page"
    assert seen.answered, "the demo's answer never reached the page"
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert seen.other_sites == {
        f"http://evil.example:{evil_site}/": "refused",
        f"http://127.0.0.1:{evil_site}/": "refused",
    }
    time.sleep(1)
    assert not [title for title in served.conversations() if "web page" in title]
    print(f"screenshot: {shot}")
