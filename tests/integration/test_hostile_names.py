"""Names from outside in the command line's messages: MCP tool names, preset names, file paths,
a tool result's text. Each reaches stderr as literal text: no escape reaches the terminal, the
escapes show as their control pictures (ESC as ␛), zero-width characters as U+FFFD, and a bad
flag is still one line and exit status 2, never a traceback.

Each runs the installed `triptych` in a subprocess, as a user would; the provider is the fake
one over loopback, the MCP server the tests' own (tests/fakes/mcp_server.py) with its `--prefix`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.demo.frames import Answer, ToolUse
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.test_tmux_e2e import console_script

ROOT = Path(__file__).resolve().parents[2]
OSC52 = "\x1b]52;c;SGFja2Vk\x07"  # "Hacked" into the clipboard
SHOWN = "␛]52;c;SGFja2Vk␇"  # the same, as the message shows it
ZERO_WIDTH = "\u200b"
LOCAL_TOOL = '[tools.get_weather]\ndescription = "Weather now"\n'


def config_file(
    tmp_path: Path, url: str = "http://127.0.0.1:9/v1", extra: str = "", provider: str = ""
) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'default = "fake"\n[providers.fake]\napi = "chat"\nbase_url = "{url}"\n'
        f'model = "m-1"\n{provider}{extra}',
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def hostile_server(prefix: str = OSC52) -> str:
    """An MCP server whose every tool name starts with an OSC 52."""
    command = json.dumps([sys.executable, "-m", "tests.fakes.mcp_server", "stdio", "--prefix"])
    command = command[:-1] + ", " + json.dumps(prefix) + "]"
    return f'[mcp.evil]\ncommand = {command}\ncwd = "{ROOT}"\n'


def triptych(
    tmp_path: Path, *args: str, key: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "TRIPTYCH_DATA_DIR": str(tmp_path / "data"),
        "LANG": "C.UTF-8",
        **({"HOSTILE_KEY": key} if key else {}),
    }
    return subprocess.run(
        [console_script(), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="strict",
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
    )


def assert_literal(stderr: str) -> None:
    """Nothing on stderr a terminal would act on; one message, no traceback."""
    controls = [c for c in stderr if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0]
    assert controls == [], stderr
    assert ZERO_WIDTH not in stderr
    assert "Traceback" not in stderr


def assert_usage_error(result: subprocess.CompletedProcess[str], *shown: str) -> None:
    assert result.returncode == 2, result.stderr
    assert_literal(result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("triptych: "), result.stderr
    for text in shown:
        assert text in result.stderr, result.stderr


def test_use_tools_names_the_offered_mcp_tools_literally(tmp_path: Path) -> None:
    config = config_file(tmp_path, extra=hostile_server())
    result = triptych(tmp_path, "ask", "--config", str(config), "--use-tools", "nope", "go")
    assert_usage_error(result, "no tool or server named 'nope'", f"{SHOWN}get_weather")


def test_tools_lists_the_mcp_tool_names_literally_one_row_each(tmp_path: Path) -> None:
    config = config_file(tmp_path, extra=hostile_server(f"{ZERO_WIDTH}x\n{OSC52}"))
    result = triptych(tmp_path, "tools", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert_literal(result.stdout)
    rows = result.stdout.splitlines()
    assert len(rows) == 1 + 6, result.stdout  # the head and the server's six tools
    assert any(row.startswith(f"\ufffdx␊{SHOWN}get_weather ") for row in rows), result.stdout


def test_tool_result_names_the_offered_mcp_tools_literally(tmp_path: Path) -> None:
    config = config_file(tmp_path, extra=hostile_server())
    result = triptych(tmp_path, "ask", "--config", str(config), "--tool-result", "nope=1", "go")
    assert_usage_error(result, "no tool named 'nope'", f"{SHOWN}get_weather")


def test_a_tool_result_flag_whose_value_is_not_json_names_the_tool_literally(
    tmp_path: Path,
) -> None:
    config = config_file(tmp_path, extra=LOCAL_TOOL)
    flag = f"get{OSC52}weather{ZERO_WIDTH}=not json"
    result = triptych(tmp_path, "ask", "--config", str(config), "--tool-result", flag, "go")
    assert_usage_error(result, "the value is not JSON", f"get{SHOWN}weather\ufffd")


def test_attach_names_the_path_literally(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    missing = tmp_path / f"notes{OSC52}{ZERO_WIDTH}.md"
    result = triptych(tmp_path, "ask", "--config", str(config), "--attach", str(missing), "go")
    assert_usage_error(result, "--attach", f"notes{SHOWN}\ufffd.md")


def test_an_attached_file_whose_name_is_hostile_is_named_literally(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    odd = tmp_path / f"data{OSC52}.json"
    odd.write_bytes(b"{nope")  # named .json, not JSON: refused, by name
    result = triptych(tmp_path, "ask", "--config", str(config), "--attach", str(odd), "go")
    assert_usage_error(result, f"data{SHOWN}.json")


def test_system_preset_lists_the_preset_names_literally(tmp_path: Path) -> None:
    escaped = json.dumps(OSC52)[1:-1]  # TOML spells it as JSON does: \u001b…\u0007
    presets = f'[prompts."terse{escaped}"]\nsystem = "Be brief."\n'
    config = config_file(tmp_path, extra=presets)
    asked = f"nope{OSC52}"
    result = triptych(tmp_path, "ask", "--config", str(config), "--system-preset", asked, "go")
    assert_usage_error(result, "nope\\x1b]52", f"terse{SHOWN}")  # the name asked: its repr
    result = triptych(tmp_path, "--config", str(config), "--system-preset", asked)  # the TUI
    assert_usage_error(result, "nope\\x1b]52", f"terse{SHOWN}")


def test_batch_names_its_prompt_file_literally(tmp_path: Path) -> None:
    config = config_file(tmp_path)
    missing = tmp_path / f"prompts{OSC52}.txt"
    result = triptych(
        tmp_path, "batch", str(missing), "--compare", "fake,fake:m-2", "--config", str(config)
    )
    assert_usage_error(result, f"prompts{SHOWN}.txt")


def test_replay_names_the_file_literally(tmp_path: Path) -> None:
    missing = tmp_path / f"run{OSC52}.jsonl"
    result = triptych(tmp_path, "replay", str(missing))
    assert_usage_error(result, f"run{SHOWN}.jsonl")
    result = triptych(tmp_path, "replay", str(missing), "--ui")
    assert_usage_error(result, f"run{SHOWN}.jsonl")


def test_replay_names_a_recorded_model_literally(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    recording = tmp_path / "r.jsonl"
    model = f"m{ZERO_WIDTH}{OSC52}1"
    asked = ["ask", "--api", "chat", "--base-url", fake_provider.url, "--model", model]
    result = triptych(tmp_path, *asked, "--record", str(recording), "hi")
    assert result.returncode == 0, result.stderr
    result = triptych(tmp_path, "replay", str(recording))
    assert result.returncode == 0, result.stderr
    assert_literal(result.stderr)
    assert f"m\ufffd{SHOWN}1" in result.stderr


def test_a_tool_results_line_on_stderr_shows_zero_width_characters(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    call = Answer(text=("Checking.",), tool=ToolUse("get_weather", ("{}",), id="call_1"))
    fake_provider.push(fake.stream(Api.CHAT, call), fake.stream(Api.CHAT, Answer(text=("Done.",))))
    config = config_file(tmp_path, fake_provider.url, LOCAL_TOOL)
    given = json.dumps(f"sunny{ZERO_WIDTH}\u202e{OSC52} 21")
    result = triptych(
        tmp_path, "ask", "--config", str(config), "--tool-result", f"get_weather={given}", "go"
    )
    assert result.returncode == 0, result.stderr
    assert_literal(result.stderr)
    line = next(x for x in result.stderr.splitlines() if x.startswith("tool result"))
    assert f"sunny\ufffd\ufffd{SHOWN} 21" in line, line


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_tool_results_line_keeps_no_part_of_the_key_at_its_cut(
    tmp_path: Path, fake_provider: FakeProvider, where: str
) -> None:
    key = "sk-live-9f8e7d6c5b4a39281706"
    call = Answer(text=("Checking.",), tool=ToolUse("get_weather", ("{}",), id="call_1"))
    fake_provider.push(fake.stream(Api.CHAT, call), fake.stream(Api.CHAT, Answer(text=("Done.",))))
    provider = 'api_key_env = "HOSTILE_KEY"\n'
    config = config_file(tmp_path, fake_provider.url, LOCAL_TOOL, provider)
    before = {"start": 196, "middle": 185, "end": 175}[where]  # the line shows 200 characters
    given = json.dumps("x" * before + key + " tail")
    flag = f"get_weather={given}"
    result = triptych(
        tmp_path, "ask", "--config", str(config), "--tool-result", flag, "go", key=key
    )
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stderr.splitlines() if x.startswith("tool result"))
    assert key[:4] not in line.replace("[redacted]", ""), line
