"""How each provider's stream ends, over loopback: a Chat body that ends cleanly after its
finish_reason but without [DONE] is complete for a provider set to `stream_end =
"finish_reason"` (Cerebras and Writer are built in that way) and interrupted, with a message
naming the setting, for one that requires the terminal event (the default, and the seed
providers). A cut body is interrupted either way. Also: provider-run tools (xAI's custom tool
calls, a call of a tool never offered) are never answered, and Moonshot's cached tokens."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app import cli
from app.demo.frames import Answer, sse
from app.providers.client import ProviderClient
from app.settings.catalogue import BY_NAME, FINISH_REASON, TERMINAL_EVENT
from app.ui.widgets.inspector import response_text
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.tools import ToolSpec
from app.wire.turn import Turn, TurnStatus
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

KEY = "sk-stream-end-test-0042"
PLAIN = Answer(text=("Hello", ", ", "world", "."), input_tokens=11)
MISSING = (
    "the stream ended after finish_reason 'stop' without [DONE]; if this server never sends "
    'it, set `stream_end = "finish_reason"` for provider {name} in {path}'
)


def ask(text: str = "hi") -> Conversation:
    conversation = Conversation()
    conversation.add_user(text)
    return conversation


async def answer(fake_provider: FakeProvider, stream_end: str, reply: object) -> Turn:
    provider = fake_provider.provider(
        Api.CHAT, stream_end=stream_end, config_file=Path("/home/u/.config/triptych/config.toml")
    )
    fake_provider.push(reply)  # type: ignore[arg-type]
    async with ProviderClient(provider, KEY) as client:
        return await client.stream(ask(), Turn())


async def test_a_provider_set_to_finish_reason_is_complete_without_done(
    fake_provider: FakeProvider,
) -> None:
    turn = await answer(fake_provider, FINISH_REASON, fake.without_terminal(Api.CHAT, PLAIN))
    assert turn.status is TurnStatus.COMPLETE
    assert (turn.text, turn.finish_reason, turn.terminal_seen) == ("Hello, world.", "stop", False)
    assert turn.interruption == ""


async def test_one_that_requires_done_is_interrupted_saying_what_to_set(
    fake_provider: FakeProvider,
) -> None:
    turn = await answer(fake_provider, TERMINAL_EVENT, fake.without_terminal(Api.CHAT, PLAIN))
    assert turn.status is TurnStatus.INTERRUPTED
    path = "/home/u/.config/triptych/config.toml"
    assert turn.interruption == MISSING.format(name="fake-chat", path=path)
    assert turn.exchange is not None  # the inspector marks the missing event
    assert turn.exchange.detail == "no [DONE] after finish_reason 'stop'"
    assert "Ended: no [DONE] after finish_reason 'stop'" in response_text(turn.exchange)


@pytest.mark.parametrize("stream_end", [FINISH_REASON, TERMINAL_EVENT])
@pytest.mark.parametrize("reset", [False, True], ids=["fin", "rst"])
async def test_a_cut_body_is_interrupted_either_way(
    fake_provider: FakeProvider, stream_end: str, reset: bool
) -> None:
    turn = await answer(fake_provider, stream_end, fake.cut_mid_event(Api.CHAT, reset=reset))
    assert turn.status is TurnStatus.INTERRUPTED
    assert "[DONE]" not in turn.interruption


async def test_a_cut_after_the_finish_chunk_is_interrupted_even_when_allowed(
    fake_provider: FakeProvider,
) -> None:
    # The finish chunk arrived whole, then the connection broke before the body's clean end.
    sent = fake.frames(Api.CHAT, PLAIN)
    pieces = [(0.0, frame) for frame in sent[:-1]]  # up to the finish chunk, no [DONE]
    reply = fake.scripted(pieces)
    cut = replace(reply, steps=(*reply.steps, fake.Pause(0.05), fake.Cut(reset=True)))
    turn = await answer(fake_provider, FINISH_REASON, cut)
    assert turn.finish_reason == "stop"
    assert turn.status is TurnStatus.INTERRUPTED


async def test_a_choice_still_open_is_interrupted_even_when_allowed(
    fake_provider: FakeProvider,
) -> None:
    def chunk(index: int, text: str, finish: str | None) -> bytes:
        choice = {"index": index, "delta": {"content": text}, "finish_reason": finish}
        return sse({"id": "c", "object": "chat.completion.chunk", "choices": [choice]})

    body = [chunk(0, "a", None), chunk(1, "b", None), chunk(0, "", "stop")]  # choice 1 unended
    turn = await answer(fake_provider, FINISH_REASON, fake.scripted([(0.0, b) for b in body]))
    assert turn.status is TurnStatus.INTERRUPTED
    body.append(chunk(1, "", "stop"))
    turn = await answer(fake_provider, FINISH_REASON, fake.scripted([(0.0, b) for b in body]))
    assert turn.status is TurnStatus.COMPLETE


def test_the_catalogue_allows_it_for_cerebras_and_writer_only() -> None:
    allowed = {name for name, entry in BY_NAME.items() if entry.stream_end == FINISH_REASON}
    assert allowed == {"cerebras", "writer"}
    for seed in ("kenari", "antara", "kimi"):
        assert BY_NAME[seed].stream_end == TERMINAL_EVENT


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    config = tmp_path / "config-home" / "triptych" / "config.toml"
    config.parent.mkdir(parents=True)
    return config


def ask_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = cli.main(["ask", "--json", *argv, "hi"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


@pytest.mark.parametrize(
    ("name", "complete"),
    [("cerebras", True), ("writer", True), ("kenari", False), ("antara", False), ("kimi", False)],
)
def test_ask_on_catalogue_providers(
    home: Path, fake_provider: FakeProvider, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], name: str, complete: bool,
) -> None:  # fmt: skip
    home.write_text(f'[providers.{name}]\nbase_url = "{fake_provider.url}"\n')
    home.chmod(0o600)
    assert BY_NAME[name].key_env is not None
    monkeypatch.setenv(BY_NAME[name].key_env or "", KEY)
    fake_provider.push(fake.without_terminal(Api.CHAT, PLAIN))
    code, document = ask_json(capsys, "--provider", name)
    assert document["status"] == ("complete" if complete else "interrupted")
    assert code == (0 if complete else 1)
    if not complete:
        assert document["interruption"] == MISSING.format(name=name, path=home)


# -- tools the provider runs itself ------------------------------------------------------------

XAI_SEARCH = [
    sse({"type": "response.created", "response": {"id": "r", "status": "in_progress"}}),
    sse(
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {
                "id": "ctc_1",
                "type": "custom_tool_call",
                "call_id": "xs_1",
                "name": "x_keyword_search",
                "input": "",
            },
        }
    ),
    sse(
        {
            "type": "response.custom_tool_call_input.delta",
            "item_id": "ctc_1",
            "output_index": 0,
            "delta": '{"query": "triptych"}',
        }
    ),
    sse(
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {
                "id": "ctc_1",
                "type": "custom_tool_call",
                "call_id": "xs_1",
                "name": "x_keyword_search",
                "input": '{"query": "triptych"}',
                "status": "completed",
            },
        }
    ),
    sse({"type": "response.output_text.delta", "output_index": 1, "delta": "Found it."}),
    sse({"type": "response.completed", "response": {"id": "r", "status": "completed"}}),
]
WEATHER_TOOL = '[tools.get_weather]\ndescription = "The weather"\n'


def test_an_xai_custom_tool_call_never_starts_a_tool_round(
    home: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    home.write_text(
        WEATHER_TOOL + f'[providers.x]\napi = "responses"\nbase_url = "{fake_provider.url}"\n'
        'model = "grok-4"\n'
    )
    home.chmod(0o600)
    fake_provider.push(fake.scripted([(0.0, frame) for frame in XAI_SEARCH]))
    code, document = ask_json(capsys, "--provider", "x", "--tool-result", 'get_weather="sunny"')
    assert code == 0
    assert document["status"] == "complete"
    assert document["tool_calls"] == []
    assert [tool["name"] for tool in document["server_tools"]] == ["x_keyword_search"]  # type: ignore[union-attr]
    assert document["text"] == "Found it."
    assert len(fake_provider.requests) == 1  # no second request answering it


async def test_a_call_of_a_tool_not_offered_is_the_providers_own(
    fake_provider: FakeProvider,
) -> None:
    unoffered = Answer(
        text=("Done.",), tool=fake.ToolUse("web_lookup", ('{"q": "x"}',), id="call_w")
    )
    fake_provider.push(fake.stream(Api.CHAT, unoffered))
    offered = [ToolSpec("get_weather", "The weather", {"type": "object", "properties": {}})]
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        turn = await client.stream(ask(), Turn(), tools=offered)
    assert turn.status is TurnStatus.COMPLETE
    assert turn.tool_calls == []
    assert [(t.id, t.name) for t in turn.server_tools] == [("call_w", "web_lookup")]


async def test_moonshots_top_level_cached_tokens_are_read(fake_provider: FakeProvider) -> None:
    def body(usage: dict[str, object]) -> list[tuple[float, bytes]]:
        choice = {"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop", "usage": usage}
        return [(0.0, sse({"id": "c", "choices": [choice]})), (0.0, b"data: [DONE]\n\n")]

    moonshot = {"prompt_tokens": 120, "completion_tokens": 5, "cached_tokens": 100}
    fake_provider.push(fake.scripted(body(moonshot)))
    standard = {**moonshot, "prompt_tokens_details": {"cached_tokens": 64}}
    fake_provider.push(fake.scripted(body(standard)))
    async with ProviderClient(fake_provider.provider(Api.CHAT), KEY) as client:
        first = await client.stream(ask(), Turn())
        second = await client.stream(ask(), Turn())
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.cached_tokens) == (120, 100)
    assert second.usage is not None
    assert second.usage.cached_tokens == 64  # the standard field, when there, wins
