"""Providers found, not written: the built-in catalogue, keys and base URLs from the
environment, the config winning field by field, and `triptych providers [--json|--catalogue]`.
Every request goes to the fake provider on loopback (the base URL variables point there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app import cli
from app.settings.catalogue import BY_NAME, CATALOGUE, FINISH_REASON, TERMINAL_EVENT
from app.settings.config import load_config
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "k-catalogue-SECRET-7"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No config file at the default location; returns where it would be."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    return tmp_path / "config-home" / "triptych" / "config.toml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def listed(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    code, out, err = run(capsys, "providers", "--json")
    assert code == 0, err
    return {row["name"]: row for row in json.loads(out)}


def test_openai_with_only_its_key_and_base_url_as_a_real_process(
    home: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(
        XDG_CONFIG_HOME=str(home.parents[1]),
        TRIPTYCH_DATA_DIR=str(home.parents[2] / "data"),
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=fake_provider.url,
    )
    argv = [sys.executable, "-m", "app", "ask", "--provider", "openai", "--json", "hi"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "complete"
    assert answer["text"] == "Hello, world."
    request = fake_provider.last_request()
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json["model"] == BY_NAME["openai"].model
    listing = subprocess.run(
        [sys.executable, "-m", "app", "providers"], env=env, capture_output=True, text=True
    )
    row = next(line for line in listing.stdout.splitlines() if line[2:].startswith("openai "))
    assert "env OPENAI_API_KEY" in row
    assert fake_provider.url in row
    assert KEY not in listing.stdout + done.stdout + done.stderr


@pytest.mark.parametrize("base", ["", "/v1"], ids=["sdk-style", "with-v1"])
def test_anthropic_with_only_its_key_and_base_url(
    home: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], base: str,
) -> None:  # fmt: skip
    # The Anthropic SDK's base URL is the host (it adds /v1/messages); /v1 given is kept.
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_provider.url.removesuffix("/v1") + base)
    fake_provider.push(fake.stream(Api.MESSAGES))
    code, out, err = run(capsys, "ask", "--provider", "anthropic", "--json", "hi")
    assert code == 0, err
    assert json.loads(out)["status"] == "complete"
    request = fake_provider.last_request()
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    row = listed(capsys)["anthropic"]
    assert (row["source"], row["key_set"], row["api"]) == ("env", True, "messages")
    assert row["base_url"] == fake_provider.url


def test_providers_json_has_every_field_for_every_source(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    home.parent.mkdir(parents=True)
    home.write_text(
        '[providers.mine]\napi = "chat"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
        'models = ["m", "n"]\n'
    )
    rows = listed(capsys)
    for row in rows.values():
        assert {"name", "api", "base_url", "model", "models", "source", "key_set"} <= set(row)
        assert isinstance(row["models"], list)
    assert (rows["openai"]["source"], rows["openai"]["key_set"]) == ("env", True)
    assert (rows["groq"]["source"], rows["groq"]["key_set"]) == ("builtin", False)
    assert (rows["mine"]["source"], rows["mine"]["key_set"]) == ("config", None)
    assert rows["mine"]["models"] == ["m", "n"]
    assert (rows["demo"]["source"], rows["demo"]["key_set"]) == ("builtin", None)
    every = {entry.name for entry in CATALOGUE if not entry.local}
    assert every <= set(rows)  # each catalogue provider, usable once its key is set


def test_the_config_wins_field_by_field(
    home: Path, monkeypatch: pytest.MonkeyPatch, fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", fake_provider.url)
    home.parent.mkdir(parents=True)
    home.write_text('[providers.openai]\nmodel = "gpt-mine"\n')
    config = load_config(None, os.environ)
    openai = config.providers["openai"]
    assert (openai.model, openai.origin) == ("gpt-mine", "config")
    assert (openai.api, openai.base_url, openai.api_key_env) == (
        Api.CHAT,
        fake_provider.url,
        "OPENAI_API_KEY",
    )
    fake_provider.push(fake.stream(Api.CHAT))
    code, _out, err = run(capsys, "ask", "--provider", "openai", "--json", "hi")
    assert code == 0, err
    assert fake_provider.last_request().json["model"] == "gpt-mine"
    assert listed(capsys)["openai"]["source"] == "config"


def test_the_default_is_the_first_provider_with_a_key_else_the_demo(
    home: Path, monkeypatch: pytest.MonkeyPatch, fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    code, out, _ = run(capsys, "ask", "--json", "hello")
    assert (code, json.loads(out)["provider"]) == (0, "demo")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_provider.url)
    fake_provider.push(fake.stream(Api.MESSAGES))
    code, out, err = run(capsys, "ask", "--json", "hello")
    assert code == 0, err
    assert json.loads(out)["provider"] == "anthropic"
    assert fake_provider.last_request().headers["x-api-key"] == KEY
    home.parent.mkdir(parents=True)
    home.write_text('default = "demo"\n')  # a default the file names wins
    code, out, _ = run(capsys, "ask", "--json", "hello")
    assert (code, json.loads(out)["provider"]) == (0, "demo")


def test_a_bad_base_url_variable_is_a_config_error_naming_it(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://user:hunter2@example.com/v1")
    code, _, err = run(capsys, "providers")
    assert code == 2
    assert "$OPENAI_BASE_URL" in err
    assert "hunter2" not in err


def test_catalogue_prints_toml_that_loads_as_the_same_providers(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "providers", "--catalogue")
    assert (code, err) == (0, "")
    document = tomllib.loads(out)
    assert list(document["providers"]) == [entry.name for entry in CATALOGUE]
    saved = tmp_path / "copied.toml"
    saved.write_text(out)
    saved.chmod(0o600)
    copied = load_config(saved, environ={})
    assert copied.warnings == ()
    builtin = load_config(None, environ={})
    for entry in CATALOGUE:
        mine = copied.providers[entry.name]
        assert mine.origin == "config"
        if entry.local:
            continue  # offered only once found; the copy defines it outright
        theirs = builtin.providers[entry.name]
        fields = ("api", "base_url", "model", "api_key_env", "models", "max_tokens")
        for name in (*fields, "include_usage", "stream_end", "headers", "params"):
            assert getattr(mine, name) == getattr(theirs, name), (entry.name, name)
    assert copied.providers["cerebras"].stream_end == FINISH_REASON
    assert copied.providers["kenari"].stream_end == TERMINAL_EVENT


def test_an_unknown_stream_end_is_a_config_error(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[providers.cerebras]\nstream_end = "eof"\n')
    path.chmod(0o600)
    with pytest.raises(Exception, match=r'stream_end: must be "terminal_event" or "finish_reason"'):
        load_config(path, environ={})
