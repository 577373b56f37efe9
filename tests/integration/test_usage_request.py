"""Chat Completions asks for usage (`stream_options.include_usage`) and every format's cached
input count becomes a cache-hit share: over loopback with the fake provider, through `ask` and
through the client the TUI reuses across turns."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app import cli
from app.providers.client import USAGE_REJECTED, ProviderClient
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

REJECTED = "Unrecognized request argument supplied: stream_options"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def ask(
    capsys: pytest.CaptureFixture[str], server: FakeProvider, api: Api, *flags: str
) -> tuple[int, str, str]:
    argv = ["ask", *flags, "--api", api.value, "--base-url", server.url, "--model", "m", "hi"]
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_chat_requests_ask_for_usage_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeProvider() as server:
        server.push(fake.stream(Api.CHAT))
        code, _, _ = ask(capsys, server, Api.CHAT, "--json")
        assert code == 0
        assert server.requests[0].json["stream_options"] == {"include_usage": True}


def test_include_usage_false_in_the_config_sends_no_stream_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeProvider() as server:
        config = tmp_path / "config.toml"
        config.write_text(
            f'[providers.local]\napi = "chat"\nbase_url = "{server.url}"\nmodel = "m"\n'
            "include_usage = false\n",
            encoding="utf-8",
        )
        server.push(fake.stream(Api.CHAT))
        argv = ["ask", "--config", str(config), "--provider", "local", "--json", "hi"]
        assert cli.main(argv) == 0
        capsys.readouterr()
        assert "stream_options" not in server.requests[0].json


def test_a_400_naming_stream_options_is_asked_again_without_it_and_said_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with FakeProvider() as server:
        server.push(fake.http_error(Api.CHAT, 400, "invalid_request_error", REJECTED))
        server.push(fake.stream(Api.CHAT))
        code, out, err = ask(capsys, server, Api.CHAT, "--json")
        first, second = server.requests
    assert first.json["stream_options"] == {"include_usage": True}
    assert "stream_options" not in second.json
    assert second.json["messages"] == first.json["messages"]
    answer = json.loads(out)
    assert (code, answer["status"], answer["error"]) == (0, "complete", None)
    assert answer["text"] == "Hello, world."
    assert err.count("stream_options") == 1
    assert f"triptych: {USAGE_REJECTED}\n" in err


def test_another_400_is_not_retried(capsys: pytest.CaptureFixture[str]) -> None:
    with FakeProvider() as server:
        server.push(fake.http_error(Api.CHAT, 400, "invalid_request_error", "bad model"))
        code, out, err = ask(capsys, server, Api.CHAT, "--json")
        assert len(server.requests) == 1
    assert (code, json.loads(out)["status"]) == (1, "failed")
    assert "stream_options" not in err


def test_the_client_remembers_the_rejection_for_the_next_turns() -> None:
    """The TUI keeps one client per provider: only the first turn retries and says so."""

    async def two_turns(server: FakeProvider) -> tuple[Turn, Turn]:
        client = ProviderClient(server.provider(Api.CHAT), None)
        turns = []
        for prompt in ("one", "two"):
            conversation = Conversation()
            conversation.add_user(prompt)
            turns.append(await client.stream(conversation, Turn()))
        await client.aclose()
        return turns[0], turns[1]

    with FakeProvider() as server:
        server.push(fake.http_error(Api.CHAT, 400, "invalid_request_error", REJECTED))
        server.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT))
        first, second = asyncio.run(two_turns(server))
        bodies = [request.json for request in server.requests]
    assert [("stream_options" in body) for body in bodies] == [True, False, False]
    assert (first.status, second.status) == (TurnStatus.COMPLETE, TurnStatus.COMPLETE)
    assert (first.notices, second.notices) == ([USAGE_REJECTED], [])


@pytest.mark.parametrize(
    ("api", "share", "line"),
    [
        # Chat and Responses count cached input inside input_tokens: 4 of 11.
        (Api.CHAT, 0.3636, "11 in (4 cached, 36% hit) / 9 out"),
        (Api.RESPONSES, 0.3636, "11 in (4 cached, 36% hit) / 9 out"),
        # Messages' input_tokens leaves the cache reads out: 4 of 11 + 4.
        (Api.MESSAGES, 0.2667, "11 in (4 cached, 27% hit) / 9 out"),
    ],
)
def test_the_cache_hit_share_in_json_and_the_usage_line(
    capsys: pytest.CaptureFixture[str], api: Api, share: float, line: str
) -> None:
    with FakeProvider() as server:
        server.push(fake.stream(api), fake.stream(api))
        _, out, _ = ask(capsys, server, api, "--json")
        _, _, err = ask(capsys, server, api)
    answer = json.loads(out)
    assert answer["cache_hit_share"] == share
    assert answer["usage"]["cached_tokens"] == 4
    assert line in err


def test_no_cached_count_means_no_share(capsys: pytest.CaptureFixture[str]) -> None:
    from dataclasses import replace

    with FakeProvider() as server:
        server.push(fake.stream(Api.CHAT, replace(fake.ANSWER, cached_tokens=0)))
        _, out, _ = ask(capsys, server, Api.CHAT, "--json")
    answer = json.loads(out)
    assert answer["usage"]["cached_tokens"] is None
    assert answer["cache_hit_share"] is None
