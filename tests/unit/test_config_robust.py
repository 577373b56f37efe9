"""Hostile and odd config files (issue 17): each is one clear ConfigError naming file:line:key,
never a traceback, a hang or a crash later when the first request is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli
from app.config import ConfigError, load_config

PROVIDER = '[providers.p]\napi = "chat"\nmodel = "m"\nbase_url = "{url}"\n'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path, environ={})
    return str(caught.value)


# ── item 13: structures and URLs that used to raise ────────────────────────────────────────────


def test_deeply_nested_arrays_are_a_config_error(tmp_path: Path) -> None:
    path = write(tmp_path, "a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    message = error_of(path)
    assert message.startswith(f"{path}: invalid TOML: ")
    assert "nested too deeply" in message


@pytest.mark.parametrize(
    ("url", "detail"),
    [
        ("http://[::1/v1", "IPv6"),
        ("http://127.0.0.1:99999/v1", "port must be a number from 1 to 65535, not '99999'"),
        ("http://127.0.0.1:notaport/v1", "port must be a number from 1 to 65535, not 'notaport'"),
        ("http://127.0.0.1:0/v1", "port must be a number from 1 to 65535, not '0'"),
        ("http://:8000/v1", "no host"),
        ("http://ex ample.com/v1", "spaces or control characters"),
        ("http://[zz]/v1", "IPv6"),
    ],
)
def test_a_base_url_that_cannot_be_used_is_refused_when_read(
    tmp_path: Path, url: str, detail: str
) -> None:
    path = write(tmp_path, PROVIDER.format(url=url))
    message = error_of(path)
    assert message.startswith(f"{path}:4: providers.p.base_url: "), message
    assert detail in message


def test_good_base_urls_still_load(tmp_path: Path) -> None:
    for url in ("http://[::1]:8000/v1", "https://h.example:443/api/v1", "http://localhost:1/v1"):
        config = load_config(write(tmp_path, PROVIDER.format(url=url)), environ={})
        assert config.providers["p"].base_url == url


@pytest.mark.parametrize(
    ("url", "detail"),
    [
        ("http://[::1/v1", "IPv6"),
        ("http://127.0.0.1:99999/v1", "not '99999'"),
        ("http://127.0.0.1:notaport/v1", "not 'notaport'"),
    ],
)
def test_ask_base_url_is_validated_before_any_request(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    url: str,
    detail: str,
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    code = cli.main(["ask", "--api", "chat", "--base-url", url, "--model", "m", "hi"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("triptych: --base-url: ")
    assert detail in err
    assert "Traceback" not in err
