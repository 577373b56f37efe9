"""The command line, run in-process: flags, exit codes, output channels, the demo, JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from app import __version__, cli
from app.demo.frames import Answer
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "sk-cli-SECRET-9876543210"
JSON_KEYS = {
    "provider",
    "model",
    "api",
    "status",
    "text",
    "reasoning",
    "tool_calls",
    "server_tools",
    "interruption",
    "cost",
    "context_window",
    "finish_reason",
    "usage",
    "cache_hit_share",
    "error",
    "ttft_ms",
    "duration_ms",
    "params",
    "rounds",
}


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user config, a private data dir, an instant demo, and a prompt-less stdin."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("TRIPTYCH_DEMO_PACE", "0")
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def custom(server: FakeProvider, api: Api = Api.CHAT) -> list[str]:
    return ["--api", api.value, "--base-url", server.url, "--model", "m-9"]


# -- the demo ----------------------------------------------------------------------------------


def test_ask_hello_on_the_demo_streams_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ask", "hello")
    assert code == 0
    assert "Hello from Triptych" in out
    assert "```python" in out
    assert out.endswith("\n")
    assert "demo: offline sample" in err
    assert "complete" in err


@pytest.mark.parametrize(
    ("provider", "finish"), [("demo", "tool_calls"), ("demo-messages", "tool_use")]
)
def test_ask_json_on_the_demo_has_exactly_the_documented_keys(
    capsys: pytest.CaptureFixture[str], provider: str, finish: str
) -> None:
    code, out, _ = run(capsys, "ask", "--json", "--provider", provider, "use a tool")
    assert code == 0
    document = json.loads(out)
    assert set(document) == JSON_KEYS
    assert document["provider"] == provider
    assert document["status"] == "complete"
    assert document["finish_reason"] == finish
    assert document["tool_calls"] == [
        {
            "id": "call_demo_weather",
            "name": "get_weather",
            "arguments": '{"city": "Paris", "unit": "celsius"}',
            "result": None,
        }
    ]
    assert document["rounds"] == 1
    assert set(document["usage"]) == {"input_tokens", "output_tokens", "cached_tokens"}
    assert document["error"] is None
    assert isinstance(document["ttft_ms"], int)
    assert document["duration_ms"] >= document["ttft_ms"]


@pytest.mark.parametrize(
    ("word", "status", "code"), [("cut", "interrupted", 1), ("error", "failed", 1)]
)
def test_demo_endings_set_status_and_exit_code(
    capsys: pytest.CaptureFixture[str], word: str, status: str, code: int
) -> None:
    result, out, _ = run(capsys, "ask", "--json", "--provider", "demo-responses", word)
    document = json.loads(out)
    assert (result, document["status"]) == (code, status)
    assert document["text"]
    if status == "failed":
        assert document["error"]["code"] == "stream_interrupted"
    else:
        assert document["error"] is None


def test_reasoning_goes_to_stderr_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, err = run(capsys, "ask", "think about it")
    assert "The user wants to see reasoning" not in out + err
    _, out, err = run(capsys, "ask", "--reasoning", "think about it")
    assert "The user wants to see reasoning" in err
    assert "The user wants to see reasoning" not in out
    assert "3,600 seconds" in out


def test_providers_lists_the_three_demos(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "providers")
    assert code == 0
    for name in ("demo", "demo-messages", "demo-responses"):
        assert name in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--version")
    assert (code, out.strip()) == (0, f"triptych {__version__}")


# -- a custom endpoint -------------------------------------------------------------------------


def test_custom_endpoint_with_key_from_a_variable(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    fake_provider.push(fake.stream(Api.RESPONSES, Answer(text=("Hi", "!"))))
    argv = custom(fake_provider, Api.RESPONSES)
    code, out, _ = run(
        capsys, "ask", *argv, "--api-key-env", "MY_KEY", "--system", "S", "--json", "q"
    )
    assert code == 0
    document = json.loads(out)
    assert (document["provider"], document["model"], document["api"]) == (
        "custom",
        "m-9",
        "responses",
    )
    assert document["text"] == "Hi!"
    request = fake_provider.last_request()
    assert request.path == "/v1/responses"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json["instructions"] == "S"
    assert request.json["model"] == "m-9"


def test_key_never_in_output_even_when_the_provider_echoes_it(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    fake_provider.push(
        fake.http_error(Api.CHAT, 401, "invalid_api_key", f"bad key {KEY}"),
        fake.stream(Api.CHAT, Answer(text=(f"the key is {KEY}",))),
        fake.http_error(Api.CHAT, 401, "invalid_api_key", f"bad key {KEY}"),
    )
    argv = [*custom(fake_provider), "--api-key-env", "MY_KEY"]
    code, out, err = run(capsys, "ask", *argv, "--json", "q")
    assert code == 1
    assert json.loads(out)["error"]["message"] == "HTTP 401: bad key [redacted]"
    _, out2, err2 = run(capsys, "ask", *argv, "--json", "q")
    _, out3, err3 = run(capsys, "ask", *argv, "q")
    assert "[redacted]" in err3
    assert KEY not in out + err + out2 + err2 + out3 + err3


def test_model_output_cannot_drive_the_terminal(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider
) -> None:
    hostile = "\x1b[31mred\x1b]0;pwned\x07 \x9b2J done\n\ttab"
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=(hostile,))))
    fake_provider.push(fake.stream(Api.CHAT, Answer(text=(hostile,))))
    _, out, _ = run(capsys, "ask", *custom(fake_provider), "q")
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "\x9b" not in out
    assert "␛[31mred" in out
    assert "done\n\ttab" in out
    _, out, _ = run(capsys, "ask", *custom(fake_provider), "--json", "q")
    assert "\x1b" not in out  # JSON escapes it...
    assert json.loads(out)["text"] == hostile  # ...and keeps it raw for programs


def test_prompt_from_stdin(
    capsys: pytest.CaptureFixture[str], fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("from a pipe\n"))
    fake_provider.push(fake.stream(Api.MESSAGES))
    code, _, _ = run(capsys, "ask", *custom(fake_provider, Api.MESSAGES))
    assert code == 0
    assert fake_provider.last_request().json["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "from a pipe\n"}]}
    ]


def test_record_then_replay(
    capsys: pytest.CaptureFixture[str],
    fake_provider: FakeProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_KEY", KEY)
    fake_provider.push(fake.stream(Api.MESSAGES, Answer(text=("Re", "corded"))))
    record = tmp_path / "run.jsonl"
    argv = [
        *custom(fake_provider, Api.MESSAGES),
        "--api-key-env",
        "MY_KEY",
        "--record",
        str(record),
    ]
    assert run(capsys, "ask", *argv, "q")[0] == 0
    assert KEY not in record.read_text()
    code, out, err = run(capsys, "replay", str(record))
    assert code == 0
    assert out == "Recorded\n"
    assert "complete" in err


# -- usage and configuration errors: exit 2, a message, no traceback ---------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "--provider", "demo", "--api", "chat", "hi"], "cannot be combined"),
        (["ask", "--api", "chat", "--base-url", "http://x.test", "hi"], "missing --model"),
        (["ask", "--api", "chat", "--base-url", "ftp://x", "--model", "m", "hi"], "http://"),
        (["ask", "--provider", "nope", "hi"], "unknown provider 'nope'"),
        (["ask"], "no prompt"),
        (["ask", "   "], "prompt is empty"),
        (["--provider", "nope"], "unknown provider 'nope'"),
        (["--compare", "demo,nope"], "unknown provider 'nope'"),
        (["ask", "--bogus-flag", "hi"], "unrecognized arguments"),
        (["ask", "--api", "soap", "hi"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_missing_key_variable_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["ask", "--api", "chat", "--base-url", "http://127.0.0.1:9", "--model", "m"]
    code, _, err = run(capsys, *argv, "--api-key-env", "TRIPTYCH_TEST_UNSET_KEY", "hi")
    assert code == 2
    assert "TRIPTYCH_TEST_UNSET_KEY" in err


def test_bad_config_file_is_reported_with_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('default = "demo"\n[providers.x]\napi = "chat"\nbase_url = 3\n')
    for argv in (["--config", str(bad), "ask", "hi"], ["ask", "hi", "--config", str(bad)]):
        code, _, err = run(capsys, *argv)
        assert code == 2
        assert str(bad) in err
        assert ":4" in err or "line 4" in err
        assert "Traceback" not in err


def test_connection_refused_exits_1_with_a_plain_message(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["ask", "--api", "chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "hi"]
    code, out, err = run(capsys, *argv)
    assert code == 1
    assert out == ""
    assert "could not connect to 127.0.0.1:9 (connection refused)" in err


# -- the TUI and the history commands ----------------------------------------------------------


def test_tui_gets_the_parsed_flags(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []

    def run_tui(config: object, **flags: Any) -> int:
        providers = getattr(config, "providers", {})
        origins = {name for name, p in providers.items() if p.origin != "builtin" or "demo" in name}
        calls.append({"providers": origins, **flags})
        return 0

    monkeypatch.setattr(cli, "_import_run_tui", lambda: run_tui)
    argv = ["--provider", "demo", "--model", "x", "--continue"]
    assert run(capsys, *argv)[0] == 0
    assert calls == [
        {
            "providers": {"demo", "demo-messages", "demo-responses"},
            "provider": "demo",
            "model": "x",
            "compare": None,
            "continue_last": True,
            "blind": False,
        }
    ]  # --compare's own flag checks are in tests/unit/test_compare.py


def test_tui_missing_is_a_clear_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Any:
        raise ImportError("No module named 'app.ui.app'")

    monkeypatch.setattr(cli, "_import_run_tui", broken)
    code, _, err = run(capsys)
    assert code == 2
    assert "terminal UI is not available" in err


def test_history_and_export_on_an_empty_store(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "history")
    assert (code, out.strip()) == (0, "No conversations yet.")
    code, _, err = run(capsys, "export", "42")
    assert code == 1
    assert "42" in err


def test_a_blind_start_prints_no_config_warning_that_could_name_a_pane(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The app shows the config's warnings itself, those naming a pane after the first vote;
    printed before it starts, they would name a compared provider on the terminal."""
    config = tmp_path / "triptych.toml"
    config.write_text(
        '[providers.kenari]\napi = "chat"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "k"\n'
        "temprature = 1\n"
    )
    monkeypatch.setattr(cli, "_import_run_tui", lambda: lambda config, **flags: 0)
    argv = ["--config", str(config), "--compare", "kenari,demo"]
    code, _, err = run(capsys, *argv, "--blind")
    assert (code, err) == (0, "")
    code, _, err = run(capsys, *argv)
    assert code == 0
    assert "providers.kenari.temprature: unknown key" in err
