"""MCP servers that write what no well-made server would (tests/fakes/mcp_hostile.py, raw
JSON-RPC over real pipes): every bad line is an error result or a start failure at once, in one
line, and the connection stays usable. `tool_timeout` is set far beyond each test's own bound,
so a call that waited it out fails the test instead of passing slowly."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import sys
import time
from pathlib import Path

import mcp_types as types
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app import cli
from app.demo.frames import Answer, ToolUse
from app.settings.config import McpServerConfig
from app.tools.mcp_client import McpServers
from app.tools.registry import Tool
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.integration.test_mcp_tools import ROOT, ask, config_file, isolated  # noqa: F401
from tests.unit.test_mcp_lines import lines

HOSTILE = (sys.executable, "-m", "tests.fakes.mcp_hostile")
NEVER = 600.0  # tool_timeout: no test may come near it
SOON = 30.0  # what a test waits at most for what must come at once
TOKEN = "tok-xyzzy-SECRET-8675309"


def hostile(*extra: str, env: dict[str, str] | None = None) -> McpServerConfig:
    return McpServerConfig("bad", (*HOSTILE, *extra), cwd=ROOT, env=env or {})


def tool(name: str) -> Tool:
    return Tool(name, name, "", {"type": "object"}, "bad", name)


async def start(config: McpServerConfig) -> McpServers:
    return await asyncio.wait_for(McpServers.start([config], timeout=NEVER), SOON)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("garbage", "a line that is not JSON"),
        ("null_result", "an answer whose result is null, not an object"),
        ("batch", "a batch (a JSON array)"),
        ("deep", "an answer nested too deeply to read"),
        ("surrogate", "a line that is not JSON (unexpected end of hex escape"),
        ("huge", "an answer of 64.0 MiB, more than the 32.0 MiB read"),
    ],
)
async def test_a_malformed_line_is_an_error_result_at_once_and_the_server_stays_usable(
    capfd: pytest.CaptureFixture[str], name: str, said: str
) -> None:
    servers = await start(hostile())
    try:
        started = time.monotonic()
        result = await asyncio.wait_for(servers.call(tool(name), {}), SOON)
        took = time.monotonic() - started
        after = await asyncio.wait_for(servers.call(tool("echo"), {"text": "still here"}), SOON)
    finally:
        await servers.aclose()
    assert result.is_error is True
    assert result.content.startswith("the MCP server 'bad' sent a malformed answer: ")
    assert said in result.content
    assert "\n" not in result.content
    assert len(result.content) <= 400
    assert (after.content, after.is_error) == ("still here", False)
    assert took < SOON
    assert "Traceback" not in "".join(capfd.readouterr())  # nothing printed by the SDK


async def test_a_result_of_the_wrong_shape_fails_that_call_only() -> None:
    servers = await start(hostile())
    try:
        result = await asyncio.wait_for(servers.call(tool("wrong_shape"), {}), SOON)
        after = await asyncio.wait_for(servers.call(tool("echo"), {"text": "ok"}), SOON)
    finally:
        await servers.aclose()
    assert result.is_error is True
    assert result.content.startswith(
        "the MCP server 'bad' sent a result of the wrong shape: content: "
    )
    assert "\n" not in result.content
    assert (after.content, after.is_error) == ("ok", False)


async def test_half_a_surrogate_pair_in_arguments_is_an_error_result_not_a_dead_server() -> None:
    servers = await start(hostile())
    try:
        result = await asyncio.wait_for(servers.call(tool("echo"), {"text": "\ud83d"}), SOON)
        # the transport's own guard, below the client's check: the SDK serializes nothing
        connection = servers.connections["bad"]
        from mcp import MCPError

        with pytest.raises(MCPError, match="the request cannot be written as JSON"):
            await asyncio.wait_for(connection.client.call_tool("echo", {"text": "\udc00"}), SOON)
        deep: object = "x"
        for _ in range(300):  # JSON for Python, too deep for the SDK's serializer
            deep = {"a": deep}
        too_deep = await asyncio.wait_for(servers.call(tool("echo"), {"text": deep}), SOON)
        after = await asyncio.wait_for(servers.call(tool("echo"), {"text": "ok"}), SOON)
    finally:
        await servers.aclose()
    assert result.is_error is True
    assert result.content == (
        "nothing was sent to 'bad': the arguments hold half a surrogate pair (\\ud83d), "
        "which is not text"
    )
    assert too_deep.is_error is True
    assert too_deep.content == (
        "the call to 'bad' was not made: Maximum serialization depth exceeded"
    )
    assert after.content == "ok"


def test_ask_with_half_a_surrogate_pair_goes_on_and_exits_0(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(
            Api.CHAT, Answer(text=("x",), tool=ToolUse("echo", ('{"text": "\\ud83d"}',), "c1"))
        ),
        fake.stream(Api.CHAT, Answer(text=("Done.",))),
    )
    servers = f'[mcp.bad]\ncommand = {json.dumps(HOSTILE)}\ncwd = "{ROOT}"\ntimeout = {NEVER}\n'
    config = config_file(tmp_path, fake_provider.url, servers)
    code, out, err = ask(capsys, config, "--tools", "auto", "--yes")
    assert code == 0, err
    result = json.loads(out)["tool_calls"][0]["result"]
    assert result["is_error"] is True
    assert "half a surrogate pair" in result["content"]
    assert "Ctrl+C" not in err
    assert "Traceback" not in err
    assert len(fake_provider.requests) == 2


async def test_a_schema_nested_too_deep_is_a_start_failure_at_once() -> None:
    servers = await start(hostile("--deep-schema", "130"))
    await servers.aclose()
    assert servers.connections == {}
    (problem,) = servers.problems
    assert problem.startswith("MCP server 'bad' failed to start: a malformed answer: ")
    assert "nested too deeply" in problem
    assert "\n" not in problem


async def test_a_server_secret_past_the_cut_of_its_last_words_is_scrubbed_first() -> None:
    servers = await start(hostile("--die-saying-token", env={"FAKE_TOKEN": TOKEN}))
    (problem,) = servers.problems
    assert "its last words: hostile server: ....." in problem
    pieces = {TOKEN[i : i + 5] for i in range(len(TOKEN) - 4)}
    assert not [piece for piece in pieces if piece in problem], problem


def test_a_tail_that_starts_inside_a_secret_quotes_none_of_it() -> None:
    """Only the last bytes of stderr are kept: its one line may begin with the end of a
    secret; that end goes too, and the quote says it was cut."""
    from app.tools.mcp_client import _startup_problem
    from app.tools.mcp_stdio import StderrTail

    tail = StderrTail(30)  # the last 30 bytes: the token from its seventh character
    tail.add(b"x" * 100 + f"the token {TOKEN} was refused".encode())
    problem = _startup_problem(RuntimeError("Connection closed"), 30, tail, [TOKEN])
    assert problem.startswith("Connection closed (its last words: …[redacted]")
    assert problem.endswith(" was refused)")
    pieces = {TOKEN[i : i + 3] for i in range(len(TOKEN) - 2)}
    assert not [piece for piece in pieces if piece in problem.replace("[redacted]", "")]


async def test_a_server_that_floods_stderr_has_only_a_tail_kept() -> None:
    """Its last words say how much of its stderr a file holds: with the tail read from a pipe,
    none; it wrote 50 MiB."""
    servers = await start(hostile("--stderr-mib", "50"))
    (problem,) = servers.problems
    assert "its last words: hostile server: my stderr file holds 0 bytes" in problem


async def test_a_cwd_that_is_not_there_says_so() -> None:
    config = McpServerConfig("bad", HOSTILE, cwd=ROOT / "no-such-folder")
    servers = await start(config)
    (problem,) = servers.problems
    assert problem == f"MCP server 'bad' failed to start: its cwd is not a folder: {config.cwd}"


def test_a_tool_result_nested_20000_deep_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    config = config_file(tmp_path, fake_provider.url, '[tools.note]\ndescription = "by hand"\n')
    deep = "[" * 20_000 + "]" * 20_000
    code = cli.main(["ask", "--config", config, "--tool-result", f"note={deep}", "go"])
    _, err = capsys.readouterr()
    assert code == 2
    assert err.strip().splitlines() == [
        "triptych: --tool-result note=…: the value is JSON nested too deeply to read"
    ]
    assert fake_provider.requests == []


lines_without_ids = lines.map(lambda line: re.sub(rb'"id"', b'"di"', line))


def sdk_reads(line: bytes) -> bool:
    try:
        types.jsonrpc_message_adapter.validate_json(line.decode("utf-8", "replace"))
    except ValueError:
        return False
    return True


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(written=st.lists(lines_without_ids, min_size=1, max_size=3).map(b"\n".join))
def test_whatever_lines_a_server_writes_the_call_ends_and_the_next_one_works(
    written: bytes,
) -> None:
    """Fuzzed lines over real pipes, written in place of an answer (a proper answer follows
    them): when the first is no JSON-RPC message (the SDK's own parser says), the call is an
    error result at once; else the proper answer ends it. The next call always works."""
    first = next((line for line in written.split(b"\n") if line.strip()), None)
    malformed = first is not None and not sdk_reads(first)

    async def run() -> tuple[bool, str]:
        servers = await start(hostile())
        try:
            said = tool("say")
            b64 = base64.b64encode(written).decode()
            result = await asyncio.wait_for(servers.call(said, {"b64": b64}), SOON)
            after = await asyncio.wait_for(servers.call(tool("echo"), {"text": "ok"}), SOON)
        finally:
            await servers.aclose()
        if malformed:
            assert result.content.startswith("the MCP server 'bad' sent a malformed answer: ")
        else:
            assert (result.content, result.is_error) == ("said", False)
        return after.is_error, after.content

    assert asyncio.run(run()) == (False, "ok")
