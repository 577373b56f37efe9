"""Tools the provider runs itself (Messages `server_tool_use` and `mcp_tool_use`, Responses
`web_search_call`, `mcp_call`…) follow one rule: never a client tool call, always one server
tool, shown by `ask` (a stderr line, `server_tools` in `--json`). Served over loopback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import cli
from tests.corpus import ROOT
from tests.fakes.provider import FakeProvider, scripted


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def ask(capsys: pytest.CaptureFixture[str], api: str, case: str, *flags: str) -> tuple[str, str]:
    body = (ROOT / api / f"{case}.sse").read_bytes()
    with FakeProvider() as server:
        server.push(scripted([(0.0, body)]))
        argv = ["ask", *flags, "--api", api, "--base-url", server.url, "--model", "m", "hi"]
        assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    return out, err


@pytest.mark.parametrize(
    ("api", "case", "expected"),
    [
        ("messages", "server_tool_blocks", [("srvtoolu_1", "web_search", "")]),
        ("messages", "mcp_tool_use_and_result", [("mcptoolu_1", "lookup", "docs")]),
        ("responses", "web_search_call_item", [("ws_1", "web_search", "")]),
        ("responses", "mcp_call_item", [("mcp_1", "lookup", "docs")]),
    ],
)
def test_server_tools_are_listed_apart_from_tool_calls(
    capsys: pytest.CaptureFixture[str], api: str, case: str, expected: list[tuple[str, str, str]]
) -> None:
    out, _ = ask(capsys, api, case, "--json")
    answer = json.loads(out)
    assert answer["tool_calls"] == []
    got = [(t["id"], t["name"], t["server"]) for t in answer["server_tools"]]
    assert got == expected


def test_a_server_tool_and_a_client_call_in_one_message(capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = ask(capsys, "messages", "server_tool_then_client_call", "--json")
    answer = json.loads(out)
    assert [c["name"] for c in answer["tool_calls"]] == ["get_weather"]
    assert [t["name"] for t in answer["server_tools"]] == ["tool_search_tool_bm25"]


def test_ask_names_each_server_tool_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = ask(capsys, "messages", "mcp_tool_use_and_result")
    assert out == "It is a line format.\n"
    assert "server tool lookup on docs mcptoolu_1\n" in err
    assert "tool call" not in err
