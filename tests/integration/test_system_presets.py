"""`[prompts.NAME] system = "..."` and `--system-preset NAME`: the exact bodies each format's
server receives, the TUI's start, and every bad input a clear message with exit status 2."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.settings.config import ConfigError, load_config
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

PRESETS = """
system = "the config's default"

[prompts.terse]
system = "Answer in one line."

[prompts.reviewer]
system = "Review the code."
"""
TERSE = "Answer in one line."


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


def config_file(tmp_path: Path, text: str = PRESETS) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def ask(server: FakeProvider, api: Api, config: Path, *flags: str) -> list[str]:
    return [
        "--config",
        str(config),
        "ask",
        "--api",
        api.value,
        "--base-url",
        server.url,
        "--model",
        "m-9",
        *flags,
        "q",
    ]


EXPECTED: dict[Api, dict[str, Any]] = {
    Api.CHAT: {
        "model": "m-9",
        "messages": [{"role": "system", "content": TERSE}, {"role": "user", "content": "q"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    },
    Api.MESSAGES: {
        "model": "m-9",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
        "system": TERSE,
        "max_tokens": 4096,
        "stream": True,
    },
    Api.RESPONSES: {
        "model": "m-9",
        "input": [{"type": "message", "role": "user", "content": "q"}],
        "instructions": TERSE,
        "stream": True,
    },
}


@pytest.mark.parametrize("api", list(Api))
def test_a_preset_is_the_system_prompt_each_format_sends(
    api: Api, tmp_path: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(api))
    code = cli.main(ask(fake_provider, api, config_file(tmp_path), "--system-preset", "terse"))
    assert code == 0, capsys.readouterr().err
    assert fake_provider.last_request().json == EXPECTED[api]


def test_the_preset_may_come_before_ask(
    tmp_path: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    argv = ask(fake_provider, Api.CHAT, config_file(tmp_path))
    assert cli.main(["--system-preset", "terse", *argv]) == 0, capsys.readouterr().err
    assert fake_provider.last_request().json == EXPECTED[Api.CHAT]


def test_an_unknown_preset_exits_2_naming_the_known_ones(
    tmp_path: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ask(fake_provider, Api.CHAT, config_file(tmp_path), "--system-preset", "tersе")
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        "triptych: unknown system preset 'tersе'; configured: terse, reviewer; "
        "did you mean terse?\n"
    )
    assert fake_provider.requests == []


def test_no_presets_at_all_says_how_to_add_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["ask", "--system-preset", "x", "q"]) == 2
    err = capsys.readouterr().err
    assert "unknown system preset 'x'; configured: none (add [prompts.NAME]" in err


def test_system_and_system_preset_together_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--config", str(config_file(tmp_path)), "ask", "--system", "s"]
    assert cli.main([*argv, "--system-preset", "terse", "q"]) == 2
    assert "--system and --system-preset" in capsys.readouterr().err


def test_the_tui_starts_with_the_preset_as_its_system_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[str | None] = []

    def run_tui(config: Any, **flags: Any) -> int:
        started.append(config.system)
        return 0

    monkeypatch.setattr(cli, "_import_run_tui", lambda: run_tui)
    config = str(config_file(tmp_path))
    assert cli.main(["--config", config, "--system-preset", "reviewer"]) == 0
    assert cli.main(["--config", config]) == 0
    assert started == ["Review the code.", "the config's default"]
    assert cli.main(["--config", config, "--system-preset", "nope"]) == 2
    assert "unknown system preset 'nope'" in capsys.readouterr().err
    assert len(started) == 2  # no UI was started for the bad name


@pytest.mark.parametrize(
    ("text", "line", "key", "problem"),
    [
        ("[prompts]\nterse = 3\n", 2, "prompts.terse", "must be a table ([prompts.terse])"),
        ("[prompts.terse]\nsystem = 3\n", 2, "prompts.terse.system", "must be a non-empty"),
        ('[prompts.terse]\nsystem = ""\n', 2, "prompts.terse.system", "not an empty string"),
        ('[prompts.terse]\ntext = "x"\n', 1, "prompts.terse.system", "missing: the system"),
        ("prompts = 1\n", 1, "prompts", "must be a table, not an integer"),
    ],
)
def test_a_bad_preset_names_file_line_and_key(
    tmp_path: Path, text: str, line: int, key: str, problem: str
) -> None:
    path = config_file(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, {})
    assert f"{path}:{line}: {key}: " in str(caught.value)
    assert problem in str(caught.value)


def test_an_unknown_key_in_a_preset_is_warned_about(tmp_path: Path) -> None:
    path = config_file(tmp_path, '[prompts.terse]\nsystem = "s"\nsytem = "t"\n')
    config = load_config(path, {})
    assert config.prompts["terse"].system == "s"
    assert config.warnings == (
        f"{path}:3: prompts.terse.sytem: unknown key, ignored; did you mean system?",
    )
