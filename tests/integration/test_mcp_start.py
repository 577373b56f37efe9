"""When `ask` and `tools` start MCP servers: only the ones whose tools the request offers, all
at once. Each fake server (tests/fakes/mcp_server.py) leaves a marker file as it starts, so a
test sees whether, and when, it was started."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import cli
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.integration.test_mcp_tools import FINAL, ROOT, _Tty, ask, config_file, stdio_server

SLOW = 4.0  # seconds a slow server takes to start


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


def marked(name: str, mark: Path, *extra: str) -> str:
    return stdio_server(name, "--mark", str(mark), *extra)


def started_at(mark: Path) -> list[float]:
    """When the server's process started (wall clock), once per start (none: never started)."""
    if not mark.exists():
        return []
    return [float(line.split()[1]) for line in mark.read_text(encoding="utf-8").splitlines()]


def offered(fake_provider: FakeProvider) -> list[str]:
    return [t["function"]["name"] for t in fake_provider.requests[0].json.get("tools", [])]


def test_ask_no_tools_never_starts_a_configured_server(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """As a real process; then, with tools, the same config does start it (the marker works)."""
    fake_provider.push(fake.stream(Api.CHAT, FINAL), fake.stream(Api.CHAT, FINAL))
    mark = tmp_path / "kit.started"
    config = config_file(tmp_path, fake_provider.url, marked("kit", mark))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "config-home"), TRIPTYCH_DATA_DIR=str(tmp_path))

    def run(*flags: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "app", "ask", "--config", config, "--json", *flags, "go"]
        return subprocess.run(
            argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
        )

    done = run("--no-tools")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "Done."
    assert "tools" not in fake_provider.requests[0].json
    assert started_at(mark) == []
    done = run()
    assert done.returncode == 0, done.stderr
    assert len(started_at(mark)) == 1
    assert "get_weather" in [t["function"]["name"] for t in fake_provider.requests[1].json["tools"]]


@pytest.mark.parametrize("use", ["other", "other.o_get_weather", "by_hand,other"])
def test_use_tools_naming_another_servers_tools_does_not_start_the_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider, use: str
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    first, other = tmp_path / "first.started", tmp_path / "other.started"
    servers = (
        '[tools.by_hand]\ndescription = "Answered by hand"\n'
        + marked("first", first)
        + marked("other", other, "--prefix", "o_")
    )
    config = config_file(tmp_path, fake_provider.url, servers)
    code, _, err = ask(capsys, config, "--use-tools", use)
    assert code == 0, err
    assert started_at(first) == []
    assert len(started_at(other)) == 1
    names = offered(fake_provider)
    assert ("by_hand" in names) == use.startswith("by_hand")
    every = ["o_get_weather", "o_fail", "o_big", "o_hang", "o_die", "o_echo_env"]
    assert [n for n in names if n != "by_hand"] == (["o_get_weather"] if "." in use else every)


def test_use_tools_naming_only_our_own_tools_starts_no_server(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    mark = tmp_path / "kit.started"
    servers = '[tools.by_hand]\ndescription = "Answered by hand"\n' + marked("kit", mark)
    config = config_file(tmp_path, fake_provider.url, servers)
    code, _, err = ask(capsys, config, "--use-tools", "by_hand")
    assert code == 0, err
    assert started_at(mark) == []
    assert offered(fake_provider) == ["by_hand"]


def test_a_plain_tool_name_starts_every_server_to_find_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Which server lists `o_fail` is known only once they have listed their tools."""
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    first, other = tmp_path / "first.started", tmp_path / "other.started"
    servers = marked("first", first) + marked("other", other, "--prefix", "o_")
    config = config_file(tmp_path, fake_provider.url, servers)
    code, _, err = ask(capsys, config, "--use-tools", "o_fail")
    assert code == 0, err
    assert (len(started_at(first)), len(started_at(other))) == (1, 1)
    assert offered(fake_provider) == ["o_fail"]


def test_two_slow_servers_start_at_once_and_tools_lists_both(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    """Each takes SLOW seconds to answer after its process starts: one after the other, the
    second could not start before the first had answered; at once, both start within that."""
    one, two = tmp_path / "one.started", tmp_path / "two.started"
    servers = marked("one", one, "--start-delay", str(SLOW)) + marked(
        "two", two, "--start-delay", str(SLOW), "--prefix", "two_"
    )
    config = config_file(tmp_path, fake_provider.url, servers)
    began = time.monotonic()
    code = cli.main(["tools", "--config", config, "--json"])
    took = time.monotonic() - began
    out, err = capsys.readouterr()
    assert code == 0, err
    names = [tool["name"] for tool in json.loads(out)]
    assert "get_weather" in names
    assert "two_get_weather" in names
    ((a,), (b,)) = started_at(one), started_at(two)
    assert abs(a - b) < SLOW  # the second started while the first still was starting
    assert took >= SLOW  # (the delay is real: the listing waited for it)
