"""Keys that escape: every secret of a provider (the key, auth-like header values,
credentials in the base URL, secret-named params) stays out of everything the app writes or
draws, whichever format streams and wherever a hostile server echoes it.

All over loopback with the project's fake provider; the servers here echo what they were sent.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.demo.frames import Answer, ToolUse, frames, sse
from app.demo.loopback import Pause, Reply, Send
from app.providers.client import ProviderClient
from app.providers.errors import ProviderError
from app.providers.record import Recorder, read_recording
from app.settings.config import Config, ProviderConfig
from app.store import Store, export_conversation, format_history
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import SSE, FakeProvider
from tests.ui.helpers import SIZE, make_app, screen_text, send, wait_drawn, wait_until

KEY = "sk-live-9f8e7d6c5b4a39281706"
HEADER = "hdr-TOKEN-5566778899aabbcc"  # in [headers] X-Org-Token
QUERY = "qry-SECRET-1122334455ff"  # ?key= in the base URL
PASSWORD = "pw-PASS-99887766dd"  # user:password@ in the base URL
PARAM = "prm-SECRET-44332211ee"  # [params] api_token
SECRETS = (KEY, HEADER, QUERY, PASSWORD, PARAM)
ALL = " ".join(SECRETS)


def split(secret: str) -> tuple[str, str]:
    middle = len(secret) // 2
    return secret[:middle], secret[middle:]


def leaks(text: str | bytes) -> list[str]:
    """The secrets found in `text`, whole or their first 8 characters (a prefix is a leak)."""
    data = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    return [s for s in SECRETS if s in data or s[:8] in data]


def provider_with_secrets(server: FakeProvider, api: Api) -> ProviderConfig:
    host = server.url.removeprefix("http://")
    return server.provider(
        api,
        name="hostile",
        base_url=f"http://alice:{PASSWORD}@{host}?key={QUERY}",
        api_key_env="HOSTILE_KEY",
        headers={"X-Org-Token": HEADER},
        params={"api_token": PARAM, "temperature": 0.5},
    )


def ask(text: str = "hello") -> Conversation:
    conversation = Conversation()
    conversation.add_user(text)
    return conversation


# -- what hostile servers send --------------------------------------------------------------------


def echoed_answer(seen: str) -> Answer:
    """An answer that echoes every secret, whole and split across two deltas, in text,
    reasoning and tool arguments; `seen` is what the request carried."""
    a, b = split(KEY)
    h1, h2 = split(HEADER)
    return Answer(
        text=("you sent ", f"{ALL} ", "and ", a, b, " then ", h1, h2, f" and {seen[:4000]}"),
        reasoning=("thinking about ", KEY[:5], KEY[5:], f" {ALL}"),
        tool=ToolUse("leak", ('{"k": "', KEY[:7], KEY[7:], f'", "all": "{ALL}"}}')),
    )


def in_stream_error(api: Api) -> bytes:
    message = f"denied for {ALL}"
    if api is Api.CHAT:
        return sse({"error": {"message": message, "code": f"bad_{KEY}"}})
    if api is Api.MESSAGES:
        return sse(
            {"type": "error", "error": {"type": "authentication_error", "message": message}},
            "error",
        )
    return sse({"type": "error", "code": "bad", "message": message}, "error")


def hostile_replies(api: Api) -> list[Any]:
    """One of each way a server can echo a secret; each reply answers one request."""
    html = f"<html><title>Denied</title><body>{'x' * 280} {KEY} {ALL}</body></html>"
    head = frames(api, Answer(text=("partial ",)))[:2]
    return [
        fake.echoing(lambda seen: fake.stream(api, echoed_answer(seen))),
        fake.echoing(lambda seen: fake.http_error(api, 401, "invalid_api_key", f"bad: {seen}")),
        # Headers: an echoed Retry-After, and an HTML page where the cut falls inside the key.
        Reply(429, (("Content-Type", "text/html"), ("Retry-After", KEY)), (Send(html.encode()),)),
        Reply(307, (("Location", f"http://elsewhere/?key={QUERY}&t={KEY}"),), ()),
        Reply(200, SSE, (*(Send(f) for f in head), Send(in_stream_error(api)))),
        # The key split across two network reads, inside one event.
        Reply(200, SSE, _split_reads(api)),
    ]


def _split_reads(api: Api) -> tuple[Send | Pause, ...]:
    body = b"".join(frames(api, Answer(text=(f"the key {KEY} again",))))
    cut = body.index(KEY.encode()) + len(KEY) // 2
    return (Send(body[:cut]), Pause(0.05), Send(body[cut:]))


# -- the writers ----------------------------------------------------------------------------------


def config_for(provider: ProviderConfig) -> Config:
    return Config(path=None, default=provider.name, providers={provider.name: provider})


def write_config(tmp_path: Path, provider: ProviderConfig) -> Path:
    params = ", ".join(f"{k} = {json.dumps(v)}" for k, v in provider.params.items())
    headers = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in provider.headers.items())
    path = tmp_path / "config.toml"
    path.write_text(
        textwrap.dedent(
            f"""\
            default = "{provider.name}"
            [providers.{provider.name}]
            api = "{provider.api.value}"
            base_url = "{provider.base_url}"
            model = "m-1"
            api_key_env = "HOSTILE_KEY"
            headers = {{ {headers} }}
            params = {{ {params} }}
            """
        )
    )
    path.chmod(0o600)
    return path


@pytest.fixture
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    return tmp_path


@pytest.mark.parametrize("api", list(Api), ids=lambda api: api.value)
def test_no_secret_reaches_ask_output_or_its_recording(
    api: Api,
    isolated: Path,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    provider = provider_with_secrets(fake_provider, api)
    config = write_config(isolated, provider)
    replies = hostile_replies(api)
    outputs: list[str] = []
    for mode in ([], ["--json"], ["--reasoning"]):
        for reply in replies:
            fake_provider.push(reply)
            record = isolated / f"rec-{len(outputs)}.jsonl"
            cli.main(["--config", str(config), "ask", *mode, "--record", str(record), "q"])
            out, err = capsys.readouterr()
            outputs += [out, err, record.read_text()]
    # The servers really were sent and really echoed the secrets they could see.
    assert any(KEY in fake.credentials_of(r) for r in fake_provider.requests)
    assert any(PARAM in fake.credentials_of(r) for r in fake_provider.requests)
    assert any(HEADER in fake.credentials_of(r) for r in fake_provider.requests)
    assert any("[redacted]" in text for text in outputs)
    assert "you sent" in outputs[0]
    assert "denied for" in "".join(outputs)
    found = {i: leaks(text) for i, text in enumerate(outputs) if leaks(text)}
    assert found == {}


def test_no_secret_reaches_ask_compare_output(
    isolated: Path, fakes: dict[Api, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    providers = {
        f"p-{api.value}": replace(provider_with_secrets(server, api), name=f"p-{api.value}")
        for api, server in fakes.items()
    }
    lines = ['default = "p-chat"']
    for name, p in providers.items():
        lines += [
            f"[providers.{name}]",
            f'api = "{p.api.value}"',
            f'base_url = "{p.base_url}"',
            'model = "m-1"',
            'api_key_env = "HOSTILE_KEY"',
            f'headers = {{ "X-Org-Token" = "{HEADER}" }}',
            f'params = {{ api_token = "{PARAM}" }}',
        ]
    config = isolated / "compare.toml"
    config.write_text("\n".join(lines) + "\n")
    config.chmod(0o600)
    outputs: list[str] = []
    for mode in ([], ["--json"], ["--reasoning"]):
        for api, server in fakes.items():
            server.push(fake.echoing(lambda seen, api=api: fake.stream(api, echoed_answer(seen))))
        cli.main(["--config", str(config), "ask", "--compare", ",".join(providers), *mode, "q"])
        outputs += list(capsys.readouterr())
    assert "you sent" in outputs[0]
    assert {i: leaks(t) for i, t in enumerate(outputs) if leaks(t)} == {}


@pytest.mark.parametrize("api", list(Api), ids=lambda api: api.value)
async def test_no_secret_reaches_the_screen_history_exports_or_the_models_list(
    api: Api, tmp_path: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    provider = provider_with_secrets(fake_provider, api)
    db = tmp_path / "history.sqlite3"
    replies = hostile_replies(api)
    fake_provider.push(*replies)
    screens: list[str] = []
    app = make_app(config_for(provider), tmp_path, history_file=db)
    async with app.run_test(size=SIZE) as pilot:
        for number in range(len(replies)):
            await send(pilot, f"question {number}")
            await wait_drawn(pilot)
            await wait_until(pilot, lambda: app.pane.turn is not None and app.pane.turn.done)
            await pilot.pause()
            screens.append(screen_text(app))
            await pilot.press("ctrl+r")  # reasoning open too
            await pilot.pause()
            screens.append(screen_text(app))
        last = app.pane.turn
    assert last is not None
    assert last.text == "the key [redacted] again"
    assert "you sent" in screens[0]
    assert {i: leaks(t) for i, t in enumerate(screens) if leaks(t)} == {}
    store = Store.open(db)
    try:
        ids = [summary.id for summary in store.list_conversations()]
        exports = [export_conversation(store, i, f) for i in ids for f in ("md", "json")]
        exports.append(format_history(store))
    finally:
        store.close()
    assert exports
    assert "you sent" in exports[0]
    assert {i: leaks(t) for i, t in enumerate(exports) if leaks(t)} == {}
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(db.name))
    assert leaks(stored) == []
    with sqlite3.connect(db) as conn:
        texts = [str(value) for row in conn.execute("SELECT * FROM messages") for value in row]
    assert leaks(" ".join(texts)) == []
    # The model list: an error that echoes the request's credentials.
    fake_provider.push(fake.echoing(lambda seen: fake.http_error(api, 401, "bad_key", seen)))
    async with ProviderClient(provider, KEY) as client:
        with pytest.raises(ProviderError) as failed:
            await client.list_models()
    assert "[redacted]" in str(failed.value)
    assert leaks(str(failed.value)) == []


# -- recordings ----------------------------------------------------------------------------


async def test_a_recording_keeps_no_secret_of_the_url_headers_or_params(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    provider = provider_with_secrets(fake_provider, Api.CHAT)
    fake_provider.push(fake.echoing(lambda seen: fake.stream(Api.CHAT, echoed_answer(seen))))
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path)
    async with ProviderClient(provider, KEY, recorder=recorder) as client:
        turn = await client.stream(ask(), Turn())
    recorder.close()
    assert turn.status is TurnStatus.COMPLETE
    (exchange,) = read_recording(path)
    assert exchange.request["headers"]["X-Org-Token"] == "[redacted]"
    assert exchange.request["body"]["api_token"] == "[redacted]"
    assert exchange.request["body"]["temperature"] == 0.5
    url = exchange.request["url"]
    assert url.startswith(fake_provider.url)
    assert "key=[redacted]" in url
    assert "alice" not in url
    assert leaks(path.read_bytes()) == []


def test_a_key_split_across_two_network_reads_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path)
    recorded = recorder.exchange("POST", "http://h/v1", {}, {}, [KEY])
    first, second = split(KEY)
    recorded.data(f"data: one {first}".encode())
    recorded.data(f"{second} two\n\n".encode())
    recorded.data(f"data: cut at {KEY[:9]}".encode())
    recorded.end("eof")
    recorder.close()
    (exchange,) = read_recording(path)
    assert exchange.body == b"data: one [redacted] two\n\ndata: cut at [redacted]"
    assert leaks(path.read_bytes()) == []


# -- header credentials and userinfo -------------------------------------------------------


async def test_a_header_credential_echoed_by_a_401_is_scrubbed(fake_provider: FakeProvider) -> None:
    provider = fake_provider.provider(Api.CHAT, headers={"Authorization": f"Bearer {HEADER}"})
    fake_provider.push(fake.echoing(lambda seen: fake.http_error(Api.CHAT, 401, "bad", seen)))
    async with ProviderClient(provider, None) as client:
        turn = await client.stream(ask(), Turn())
    assert fake_provider.last_request().headers["authorization"] == f"Bearer {HEADER}"
    assert turn.error is not None
    assert "[redacted]" in turn.error.message
    assert leaks(turn.error.message) == []


async def test_userinfo_in_the_url_does_not_replace_the_bearer_key(
    fake_provider: FakeProvider,
) -> None:
    host = fake_provider.url.removeprefix("http://")
    provider = fake_provider.provider(Api.CHAT, base_url=f"http://alice:{PASSWORD}@{host}")
    fake_provider.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT))
    async with ProviderClient(provider, KEY) as client:
        turn = await client.stream(ask(), Turn())
    assert turn.status is TurnStatus.COMPLETE
    assert fake_provider.last_request().headers["authorization"] == f"Bearer {KEY}"
    # With no key at all, the userinfo is what the user meant: sent as Basic auth.
    async with ProviderClient(provider, None) as client:
        await client.stream(ask(), Turn())
    assert fake_provider.last_request().headers["authorization"].startswith("Basic ")


# -- cut to length -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["html", "text"])
async def test_no_start_of_the_key_survives_a_cut_error_message(
    fake_provider: FakeProvider, kind: str
) -> None:
    for filler in range(280, 300):  # the cut falls at every point of the key
        body = f"{'x' * filler} {KEY} tail"
        if kind == "html":
            reply = Reply(401, (("Content-Type", "text/html"),), (Send(f"<p>{body}</p>".encode()),))
        else:
            reply = Reply(401, (("Content-Type", "text/plain"),), (Send(body.encode()),))
        fake_provider.push(reply)
        async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
            turn = await client.stream(ask(), Turn())
        assert turn.error is not None
        assert KEY[:4] not in turn.error.message.replace("[redacted]", ""), filler


# -- plain ask prints what --json prints ---------------------------------------------------


def test_plain_ask_prints_no_key_from_the_answer_or_reasoning(
    isolated: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = split(KEY)
    answer = Answer(text=("key: ", a, b, f" {KEY}"), reasoning=(a, b), tool=ToolUse("t", (a, b)))
    fake_provider.push(fake.stream(Api.CHAT, answer))
    argv = ["--api", "chat", "--base-url", fake_provider.url, "--model", "m"]
    code = cli.main(["ask", *argv, "--api-key-env", "HOSTILE_KEY", "--reasoning", "q"])
    out, err = capsys.readouterr()
    assert code == 0
    assert out == "key: [redacted] [redacted]\n"
    assert KEY not in err
    assert a not in err
    assert "[redacted]" in err


# -- a key pasted into api_key_env ---------------------------------------------------------


def test_a_key_in_api_key_env_is_never_printed_back(
    isolated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pasted = "sk_proj_A1b2C3d4E5f6G7h8I9j0"  # a valid variable name, so the loader takes it
    config = isolated / "config.toml"
    config.write_text(
        textwrap.dedent(
            f"""\
            default = "p"
            [providers.p]
            api = "chat"
            base_url = "https://example.invalid/v1"
            model = "m"
            api_key_env = "{pasted}"
            """
        )
    )
    config.chmod(0o600)
    code = cli.main(["--config", str(config), "providers"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "MISSING: api_key_env is a key?" in out
    assert "api_key_env should name a variable, not hold the key" in err
    code = cli.main(["--config", str(config), "ask", "q"])
    out2, err2 = capsys.readouterr()
    assert code == 2
    assert "needs an API key" in err2
    code = cli.main(
        [
            "ask",
            "--api",
            "chat",
            "--base-url",
            "https://example.invalid/v1",
            "--model",
            "m",
            "--api-key-env",
            "sk-A1b2C3d4E5f6G7h8I9j0",
            "q",
        ]
    )
    out3, err3 = capsys.readouterr()
    assert code == 2
    for text in (out, err, out2, err2, out3, err3):
        assert "A1b2C3d4" not in text


# -- odd configs and environments, and crash reports --------------------------------------


@pytest.mark.parametrize(
    ("base_url", "env", "said"),
    [
        (f"http://127.0.0.1:notaport/v1?key={QUERY}", {}, "base_url"),
        ("https://example.invalid/v1", {"SSL_CERT_FILE": "/nonexistent/ca.pem"}, "SSL_CERT_FILE"),
        ("https://example.invalid/v1", {"HTTPS_PROXY": "http://u:p@proxy:notaport"}, "HTTPS_PROXY"),
    ],
    ids=["port", "cert-file", "proxy"],
)
async def test_a_config_httpx_cannot_use_fails_the_turn_clearly_in_the_tui(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base_url: str, env: dict[str, str], said: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOSTILE_KEY", KEY)
    provider = ProviderConfig(
        name="odd", api=Api.CHAT, base_url=base_url, model="m", api_key_env="HOSTILE_KEY"
    )
    app = make_app(config_for(provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello there")
        await wait_drawn(pilot)
        turn = app.pane.turn
        assert turn is not None
        assert turn.status is TurnStatus.FAILED
        assert turn.error is not None
        assert said in turn.error.message
        assert "cannot" in screen_text(app).lower()  # a sentence: "Cannot …"
        assert leaks(screen_text(app) + turn.error.message) == []
        await send(pilot, "and again")  # still usable: the next turn says the same
        await wait_until(pilot, lambda: app.pane.turn is not turn and app.pane.turn is not None)
        await wait_drawn(pilot)
        again = app.pane.turn
        assert again is not None
        assert again.error is not None
        assert said in again.error.message


CRASH = """\
import sys
from app import cli
from app.ui.app import TriptychApp

run = TriptychApp.run
TriptychApp.run = lambda self, **kw: run(self, headless=True, size=(80, 24))

def boom(self):
    key = self.pane.client()._key  # a local holding the key, as in the real crash
    raise RuntimeError("crashed while holding " + str(key) + " " + self.pane.provider.base_url)

TriptychApp.on_mount = boom
sys.exit(cli.main(["--config", sys.argv[1]]))
"""


def test_a_crash_report_holds_no_secret_and_exits_1(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    provider = provider_with_secrets(fake_provider, Api.CHAT)
    config = write_config(tmp_path, provider)
    env = {
        "HOSTILE_KEY": KEY,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "PATH": "/usr/bin:/bin",
        "COLUMNS": "100",
    }
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(config)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    report = done.stdout + done.stderr
    assert "RuntimeError" in report
    assert "crashed while holding" in report
    assert done.returncode == 1
    assert leaks(report) == []


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"SSL_CERT_FILE": "/nonexistent/ca.pem"}, "cannot load the TLS certificates"),
        ({"HTTPS_PROXY": f"http://u:{PASSWORD}@proxy:notaport"}, "cannot use the proxy"),
    ],
    ids=["cert-file", "proxy"],
)
def test_ask_with_an_environment_httpx_cannot_use_is_a_config_error(
    isolated: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    said: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    argv = ["--api", "chat", "--base-url", "https://example.invalid/v1", "--model", "m"]
    code = cli.main(["ask", *argv, "--api-key-env", "HOSTILE_KEY", "q"])
    out, err = capsys.readouterr()
    assert code == 2
    assert said in err
    assert next(iter(env)) in err
    assert leaks(out + err) == []


def test_a_key_echoed_json_escaped_is_not_recorded(tmp_path: Path) -> None:
    key = "k/1/2/3/4/5/6/7/8/9/é"  # as a PHP server writes it: \/ and \u00e9
    path = tmp_path / "rec.jsonl"
    recorder = Recorder(path)
    recorded = recorder.exchange("POST", "http://h/v1", {}, {}, [key])
    escaped = key.replace("/", "\\/").replace("é", "\\u00e9")
    recorded.data(f'data: {{"t": "{escaped}"}}\n\n'.encode())
    recorded.end("eof")
    recorder.close()
    (exchange,) = read_recording(path)
    assert exchange.body == b'data: {"t": "[redacted]"}\n\n'
