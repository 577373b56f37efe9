"""MCP tools through `triptych ask --tools auto --yes`: the tests' own MCP server
(tests/fakes/mcp_server.py, the SDK's server side) over stdio and over streamable HTTP, the
fake provider over loopback, and every fault a server can have."""

from __future__ import annotations

import io
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.demo.frames import Answer, ToolUse, sse
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "tests.fakes.mcp_server"]
FINAL = Answer(text=("Done.",))
TOKEN = "tok-mcp-SECRET-424242"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


def stdio_server(name: str = "fake", *extra: str, env: str = "") -> str:
    command = json.dumps([*SERVER, "stdio", *extra])
    return f'[mcp.{name}]\ncommand = {command}\ncwd = "{ROOT}"\n{env}'


def config_file(tmp_path: Path, url: str, servers: str, top: str = "", api: Api = Api.CHAT) -> str:
    path = tmp_path / "config.toml"
    path.write_text(
        f'{top}default = "fake"\n[providers.fake]\napi = "{api.value}"\nbase_url = "{url}"\n'
        f'model = "m-1"\n{servers}',
        encoding="utf-8",
    )
    path.chmod(0o600)
    return str(path)


def ask(capsys: pytest.CaptureFixture[str], config: str, *flags: str) -> tuple[int, str, str]:
    code = cli.main(["ask", "--config", config, "--json", *flags, "go"])
    out, err = capsys.readouterr()
    return code, out, err


def calling(name: str, arguments: str = "{}") -> Answer:
    return Answer(text=("Calling.",), tool=ToolUse(name, (arguments,), id="call_1"))


def result_of(out: str, index: int = 0) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(out)["tool_calls"][index]["result"]
    return result


@pytest.fixture
def http_url() -> Iterator[str]:
    """The fake MCP server over streamable HTTP, in its own process, until the test ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [*SERVER, "http", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):  # wait for it to listen (bounded by tries, not asserted on)
            with socket.socket() as attempt:
                if attempt.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_an_mcp_tool_over_stdio_runs_and_its_result_goes_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Paris"}')),
        fake.stream(Api.CHAT, FINAL),
    )
    config = config_file(tmp_path, fake_provider.url, stdio_server())
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0, err
    first, second = (r.json for r in fake_provider.requests)
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert set(offered) == {"get_weather", "fail", "big", "hang", "die", "echo_env"}
    assert offered["get_weather"]["description"] == "The weather now in a city"
    schema = offered["get_weather"]["parameters"]
    assert (schema["type"], schema["required"]) == ("object", ["city"])
    assert second["messages"][1:] == [
        {
            "role": "assistant",
            "content": "Calling.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"city": "Paris", "temp": 21}'},
    ]
    document = json.loads(out)
    assert document["rounds"] == 2
    assert document["tool_calls"][0]["result"] == {
        "content": '{"city": "Paris", "temp": 21}',
        "is_error": False,
        "origin": "mcp",
        "size": 29,
    }


def test_an_mcp_tool_over_streamable_http_with_responses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider, http_url: str
) -> None:
    fake_provider.push(
        fake.stream(Api.RESPONSES, calling("get_weather", '{"city": "Oslo"}')),
        fake.stream(Api.RESPONSES, FINAL),
    )
    servers = f'[mcp.web]\nurl = "{http_url}"\nheaders = {{ Authorization = "Bearer {TOKEN}" }}\n'
    config = config_file(tmp_path, fake_provider.url, servers, api=Api.RESPONSES)
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0, err
    second = fake_provider.requests[1].json
    assert second["input"][-1] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": '{"city": "Oslo", "temp": 21}',
    }
    assert {t["type"] for t in second["tools"]} == {"function"}
    assert result_of(out)["origin"] == "mcp"
    assert TOKEN not in out + err


def test_without_tools_auto_an_mcp_call_is_not_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather", '{"city": "Paris"}')))
    config = config_file(tmp_path, fake_provider.url, stdio_server())
    code, out, err = ask(capsys, config)
    assert code == 0
    assert len(fake_provider.requests) == 1
    assert result_of(out) is None
    assert "--tools auto --yes" in err


def test_a_server_that_fails_to_start_is_reported_and_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    servers = (
        stdio_server("broken", "--exit-at-start")
        + '[mcp.missing]\ncommand = ["/nonexistent/mcp-server"]\n'
        + stdio_server("good")
    )
    config = config_file(tmp_path, fake_provider.url, servers)
    code, _, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0
    assert "MCP server 'broken' failed to start" in err
    assert "cannot open the database" in err  # its last words, quoted
    assert "\x1b" not in err  # ... with its escape made harmless
    assert "MCP server 'missing' failed to start: command not found" in err
    assert "its tools are skipped" in err
    names = [t["function"]["name"] for t in fake_provider.requests[0].json["tools"]]
    assert "get_weather" in names


@pytest.mark.parametrize(
    ("tool", "said"),
    [
        ("fail", "the weather station is offline"),
        ("hang", "no answer from 'fake' within 0.5 s (tool_timeout); the call was cancelled"),
        ("die", "the MCP server 'fake' stopped during the call"),
    ],
)
def test_a_failing_call_is_an_error_result_and_the_model_goes_on(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_provider: FakeProvider,
    tool: str,
    said: str,
) -> None:
    fake_provider.push(fake.stream(Api.MESSAGES, calling(tool)), fake.stream(Api.MESSAGES, FINAL))
    servers = stdio_server() + "timeout = 0.5\n"
    config = config_file(tmp_path, fake_provider.url, servers, api=Api.MESSAGES)
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0, err
    result = result_of(out)
    assert result["is_error"] is True
    assert said in result["content"]
    block = fake_provider.requests[1].json["messages"][-1]["content"][0]
    assert (block["type"], block["is_error"]) == ("tool_result", True)
    assert said in block["content"]
    assert json.loads(out)["text"].endswith("Done.")


def test_a_five_megabyte_result_is_cut_and_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("big")), fake.stream(Api.CHAT, FINAL))
    config = config_file(tmp_path, fake_provider.url, stdio_server())
    code, out, _ = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0
    result = result_of(out)
    assert result["size"] == 5 * 1024 * 1024
    assert result["content"].endswith("[Triptych: the result was cut at 256 KiB of 5.0 MiB]")
    sent = fake_provider.requests[1].json["messages"][-1]["content"]
    assert sent == result["content"]
    assert len(sent) < 300 * 1024


def test_a_server_secret_never_reaches_output_or_the_provider(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("echo_env")), fake.stream(Api.CHAT, FINAL))
    servers = stdio_server(env=f'env = {{ FAKE_TOKEN = "{TOKEN}" }}\n')
    config = config_file(tmp_path, fake_provider.url, servers)
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0
    assert result_of(out)["content"] == "token is [redacted]"
    assert TOKEN not in out + err
    assert TOKEN not in fake_provider.requests[1].body.decode()


def test_the_same_tool_on_two_servers_is_named_by_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, calling("b_get_weather", '{"city": "Rome"}')),
        fake.stream(Api.CHAT, FINAL),
    )
    config = config_file(tmp_path, fake_provider.url, stdio_server("a") + stdio_server("b"))
    code, out, err = ask(
        capsys, config, "--tools", "auto", "--yes", "--use-tools", "a.get_weather,b.get_weather"
    )
    assert code == 0, err
    names = [t["function"]["name"] for t in fake_provider.requests[0].json["tools"]]
    assert names == ["a_get_weather", "b_get_weather"]
    assert result_of(out)["content"] == '{"city": "Rome", "temp": 21}'


def two_calls() -> fake.Reply:
    """A chat turn calling an MCP tool that fails and a [tools] tool nobody answers."""
    head = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m-1"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return sse({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    calls = [
        {
            "index": 0,
            "id": "c1",
            "type": "function",
            "function": {"name": "fail", "arguments": "{}"},
        },
        {
            "index": 1,
            "id": "c2",
            "type": "function",
            "function": {"name": "note", "arguments": "{}"},
        },
    ]
    frames = [
        chunk({"role": "assistant", "tool_calls": calls}),
        chunk({}, "tool_calls"),
        sse("[DONE]"),
    ]
    return fake.scripted([(0.0, frame) for frame in frames])


def test_a_tool_that_failed_before_the_model_answered_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(two_calls())
    servers = stdio_server() + '[tools.note]\ndescription = "Answered by hand"\n'
    config = config_file(tmp_path, fake_provider.url, servers)
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 1
    document = json.loads(out)
    assert (document["status"], document["error"]["code"]) == ("failed", "tool_failed")
    assert document["tool_calls"][0]["result"]["is_error"] is True
    assert document["tool_calls"][1]["result"] is None
    assert "no result for note" in err
    assert len(fake_provider.requests) == 1


def test_an_mcp_server_without_the_sdk_is_a_clear_usage_error(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if `triptych[mcp]` was not installed
    config = config_file(tmp_path, fake_provider.url, stdio_server())
    code, _, err = ask(capsys, config)
    assert code == 2
    assert "[mcp.fake] needs the MCP Python SDK, which is not installed" in err
    assert "pip install 'triptych[mcp]'" in err
    assert "Traceback" not in err
    assert fake_provider.requests == []
    assert ask(capsys, config, "--no-tools")[0] == 1  # no reply queued; but no MCP asked for


async def test_the_loop_a_ui_drives_deny_and_edited_arguments(fake_provider: FakeProvider) -> None:
    """ToolLoop with an approval callback, as the UI will use it: Deny sends an error result,
    Edit arguments runs the tool with the user's arguments and says so on the result."""
    from app.providers.client import ProviderClient
    from app.settings.config import McpServerConfig
    from app.tools.approval import Approval, ApprovalPolicy, Choice
    from app.tools.loop import LoopEnd, ToolLoop
    from app.tools.mcp_client import McpServers
    from app.tools.registry import build_registry
    from app.wire.conversation import Conversation

    fake_provider.push(
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Paris"}')),
        fake.stream(Api.CHAT, calling("get_weather", '{"city": "Paris"}')),
        fake.stream(Api.CHAT, FINAL),
    )
    answers = [Approval(Choice.DENY), Approval(Choice.EDIT, '{"city": "Lima"}')]

    async def ask_user(tool: Any, call: Any) -> Approval:
        return answers.pop(0)

    servers = await McpServers.start(
        [McpServerConfig("fake", (*SERVER, "stdio"), cwd=ROOT)], timeout=30
    )
    client = ProviderClient(fake_provider.provider(Api.CHAT), None)
    try:
        loop = ToolLoop(
            client, build_registry([], servers.listed), servers, ApprovalPolicy(ask_user)
        )
        conversation = Conversation()
        conversation.add_user("weather?")
        outcome = await loop.run(conversation)
    finally:
        await client.aclose()
        await servers.aclose()
    assert outcome.end is LoopEnd.ANSWERED
    assert len(outcome.rounds) == 3
    denied, edited = (c.result for c in outcome.calls)
    assert denied is not None
    assert (denied.content, denied.is_error) == (
        "the user denied this call",
        True,
    )
    assert edited is not None
    assert edited.content == '{"city": "Lima", "temp": 21}'
    assert edited.arguments == '{"city": "Lima"}'
    assert [m.role for m in conversation.messages] == [
        "user",
        "assistant",
        "assistant",
        "assistant",
    ]


async def test_a_protocol_error_from_the_server_is_an_error_result() -> None:
    """The server answers a call with a JSON-RPC error (here: a tool it does not have, as when
    its list changed since it was read): the result says what the server said."""
    from app.settings.config import McpServerConfig
    from app.tools.mcp_client import McpServers
    from app.tools.registry import Tool

    servers = await McpServers.start(
        [McpServerConfig("fake", (*SERVER, "stdio"), cwd=ROOT)], timeout=30
    )
    try:
        gone = Tool("gone", "gone", "", {"type": "object"}, "fake", "no_such_tool")
        result = await servers.call(gone, {})
        after = await servers.call(
            Tool("get_weather", "get_weather", "", {}, "fake", "get_weather"), {"city": "Rome"}
        )
    finally:
        await servers.aclose()
    assert result.is_error is True
    assert "no_such_tool" in result.content
    assert after.content == '{"city": "Rome", "temp": 21}'  # the server is still usable


def test_ctrl_c_during_a_tool_call_cancels_it_and_exits_130(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    import os
    import signal

    fake_provider.push(fake.stream(Api.CHAT, calling("hang")))
    mark = tmp_path / "hanging"
    servers = stdio_server(env=f'env = {{ FAKE_HANG_MARK = "{mark}" }}\n')
    config = config_file(tmp_path, fake_provider.url, servers)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "home"), TRIPTYCH_DATA_DIR=str(tmp_path / "data"))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "ask",
            "--config",
            config,
            "--json",
            "--tools",
            "auto",
            "--yes",
            "go",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(1200):  # until the server says the call is running (bounded by tries)
            if mark.exists() or process.poll() is not None:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    document = json.loads(out)
    assert document["status"] == "stopped"
    assert document["tool_calls"][0]["result"] == {
        "content": "the call was cancelled before it answered",
        "is_error": True,
        "origin": "triptych",
    }
    assert "Traceback" not in err
    assert len(fake_provider.requests) == 1


def test_triptych_tools_lists_every_tool_under_the_names_to_use(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    servers = (
        '[tools.get_weather]\ndescription = "By hand\\nsecond line"\n'
        + stdio_server("a")
        + '[mcp.bad]\ncommand = ["/nonexistent/mcp-server"]\n'
    )
    config = config_file(tmp_path, fake_provider.url, servers)
    code = cli.main(["tools", "--config", config])
    out, err = capsys.readouterr()
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["tool", "sent", "as", "answered", "description"]
    assert lines[1].split() == ["get_weather", "by", "hand", "By", "hand"]
    assert lines[2].split() == [
        "a.get_weather",
        "a_get_weather",
        "mcp",
        "a",
        "The",
        "weather",
        "now",
        "in",
        "a",
        "city",
    ]
    assert "MCP server 'bad' failed to start" in err
    code = cli.main(["tools", "--config", config, "--json"])
    listed = json.loads(capsys.readouterr().out)
    assert listed[1] == {
        "name": "a.get_weather",
        "wire_name": "a_get_weather",
        "server": "a",
        "description": "The weather now in a city",
        "parameters": listed[1]["parameters"],
    }
    assert listed[1]["parameters"]["required"] == ["city"]
    assert fake_provider.requests == []  # listing asks no model


def test_a_schema_a_server_leaves_open_is_offered_as_an_object() -> None:
    from app.tools.mcp_client import offered_schema

    assert offered_schema({}) == {"type": "object", "properties": {}}
    assert offered_schema(None) == {"type": "object", "properties": {}}
    kept = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert offered_schema(kept) == kept


def test_when_every_server_failed_a_tool_call_is_left_as_before(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, calling("get_weather", '{"city": "Paris"}')))
    config = config_file(tmp_path, fake_provider.url, stdio_server("broken", "--exit-at-start"))
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0
    assert "MCP server 'broken' failed to start" in err
    assert len(fake_provider.requests) == 1
    assert "tools" not in fake_provider.requests[0].json
    document = json.loads(out)
    assert (document["rounds"], document["tool_calls"][0]["result"]) == (1, None)


def test_a_server_whose_tools_look_like_another_servers_qualified_names_gets_its_own(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    servers = stdio_server("a") + stdio_server("b") + stdio_server("c", "--prefix", "a.")
    config = config_file(tmp_path, fake_provider.url, servers)
    assert cli.main(["tools", "--config", config, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    names = [(t["name"], t["server"]) for t in listed]
    assert ("a.get_weather", "a") in names
    assert ("c.a.get_weather", "c") in names
    assert len({name for name, _ in names}) == len(names) == 18
