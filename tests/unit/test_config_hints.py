"""Hints in configuration problems: a near-miss key or name gets "did you mean
NAME?", and an HTTP 404 names the URL that was called and what to check."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli
from app.demo.loopback import Reply, Send
from app.settings.config import Config, ConfigError, load_config
from tests.fakes.provider import FakeProvider

PROVIDER = '[providers.p]\napi = "chat"\nbase_url = "http://h/v1"\nmodel = "m"\n'


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def load(tmp_path: Path, text: str) -> tuple[Path, Config]:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path, load_config(path, environ={})


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ── did you mean ───────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("line", "key", "meant"),
    [
        ('api_key_var = "K"', "providers.p.api_key_var", "api_key_env"),
        ('apikey_env = "K"', "providers.p.apikey_env", "api_key_env"),
        ('baseurl = "x"', "providers.p.baseurl", "base_url"),
        ("Max_Tokens = 5", "providers.p.Max_Tokens", "max_tokens"),
    ],
)
def test_a_near_miss_provider_key_says_did_you_mean(
    tmp_path: Path, line: str, key: str, meant: str
) -> None:
    path, config = load(tmp_path, PROVIDER + line + "\n")
    assert config.warnings == (f"{path}:5: {key}: unknown key, ignored; did you mean {meant}?",)


def test_near_misses_at_the_top_and_in_ui(tmp_path: Path) -> None:
    path, config = load(tmp_path, 'idle_timout = 5\n[ui]\nthem = "nord"\n')
    assert config.warnings == (
        f"{path}:1: idle_timout: unknown key, ignored; did you mean idle_timeout?",
        f"{path}:3: ui.them: unknown key, ignored; did you mean theme?",
    )


def test_a_key_like_no_other_still_lists_the_known_ones(tmp_path: Path) -> None:
    path, config = load(tmp_path, 'colour = "red"\n')
    assert config.warnings == (
        f"{path}:1: colour: unknown key, ignored (known: connect_timeout, default, "
        "idle_timeout, keep_stream_mib, mcp, prompts, providers, system, tool_rounds, "
        "tool_timeout, tools, ui)",
    )


def test_a_near_miss_api_and_default_say_did_you_mean(tmp_path: Path) -> None:
    text = 'default = "q"\n[providers.p]\napi = "chats"\nbase_url = "http://h/v1"\nmodel = "m"\n'
    path = tmp_path / "config.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    assert (
        f"{path}:3: providers.p.api: unknown api 'chats'; valid: chat, messages, responses; "
        "did you mean chat?" in str(caught.value)
    )
    text = 'default = "kenary"\n[providers.kenari]\napi = "chat"\nbase_url = "http://h/v1"\n'
    path.write_text(text + 'model = "m"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    assert str(caught.value) == (
        f"{path}:1: default: no provider named 'kenary'; configured: demo, kenari; "
        "did you mean kenari?"
    )


def test_a_near_miss_provider_flag_says_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "ask", "--provider", "demo-mesages", "hi")
    assert code == 2
    assert err.endswith("did you mean demo-messages?\n")


# ── 404 ────────────────────────────────────────────────────────────────────────────────────


def not_found() -> Reply:
    return Reply(404, (("Content-Type", "text/plain"),), (Send(b"404 page not found"),))


def test_a_404_without_v1_names_the_url_and_says_check_base_url(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider
) -> None:
    fake_provider.push(not_found())
    root = fake_provider.url.removesuffix("/v1")
    code, out, err = run(capsys, "ask", "--api", "chat", "--base-url", root, "--model", "m", "q")
    assert code == 1
    assert out == ""
    assert (
        f"HTTP 404: 404 page not found (POST {root}/chat/completions): check base_url — "
        "most servers want it to end in /v1" in err
    )


def test_a_404_on_messages_says_check_api(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider
) -> None:
    fake_provider.push(not_found())
    argv = ["--api", "messages", "--base-url", fake_provider.url, "--model", "m"]
    code, _, err = run(capsys, "ask", *argv, "q")
    assert code == 1
    assert (
        f"(POST {fake_provider.url}/messages): check api — this server may not speak "
        '"messages" (many servers speak only "chat")' in err
    )


def test_a_404_never_shows_credentials_from_the_url(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider
) -> None:
    fake_provider.push(not_found())
    base = fake_provider.url.replace("http://", "http://me:hunter2@") + "?key=sk-in-query"
    code, _, err = run(capsys, "ask", "--api", "chat", "--base-url", base, "--model", "m", "q")
    assert code == 1
    assert "(POST http://127.0.0.1:" in err
    assert "hunter2" not in err
    assert "sk-in-query" not in err
