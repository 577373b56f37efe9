"""A bug in a headless command is a short report with the exception and its frames, exit 1:
never a traceback quoting a secret (the config's keys, header credentials, URL credentials)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli

KEY = "sk-crash-SECRET-1234567890"
HEADER_TOKEN = "hdr-crash-TOKEN-0987654321"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config.toml"
    config.write_text(
        'default = "p"\n[providers.p]\napi = "chat"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'model = "m"\napi_key_env = "CRASH_KEY"\n'
        f'headers = {{ "X-Api-Token" = "{HEADER_TOKEN}" }}\n',
        encoding="utf-8",
    )
    config.chmod(0o600)
    monkeypatch.setenv("TRIPTYCH_CONFIG", str(config))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CRASH_KEY", KEY)
    return config


def explode(*args: object, **kwargs: object) -> int:
    raise RuntimeError(f"boom with {KEY} and {HEADER_TOKEN} inside")


@pytest.mark.parametrize(
    ("target", "argv"),
    [
        ("app.headless.ask.run_ask", ["ask", "hello"]),
        ("app.headless.provider_list.format_providers", ["providers"]),
    ],
)
def test_a_crash_is_reported_without_secrets_and_exits_1(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    target: str,
    argv: list[str],
) -> None:
    monkeypatch.setattr(target, explode)
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == 1
    assert "Triptych crashed; please report this" in err
    assert "RuntimeError: boom with [redacted] and [redacted] inside" in err
    assert "explode" in err  # the frames are there, for the report
    assert KEY not in out + err
    assert HEADER_TOKEN not in out + err
