"""The tool loop through `triptych ask`, over loopback: the follow-up request each format sends
(exact JSON as the fake provider received it), results given by hand, the round limit, and
the model's own faults (a tool that does not exist, arguments that are not JSON or do not fit
the schema, a schema the provider rejects)."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.demo.frames import INTERRUPTED_MESSAGE, Answer, ToolUse
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

SCHEMA = {
    "type": "object",
    "required": ["city"],
    "properties": {"city": {"type": "string"}},
}
TOOLS = """
[tools.get_weather]
description = "Weather now"
[tools.get_weather.parameters]
type = "object"
required = ["city"]
[tools.get_weather.parameters.properties.city]
type = "string"
"""
FINAL = Answer(text=("It is ", "21 °C."), input_tokens=30)
RESULT = '{"temp": 21}'


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)
    monkeypatch.setattr("sys.stdin", _Tty())


def config_file(tmp_path: Path, api: Api, url: str, extra: str = TOOLS, top: str = "") -> str:
    path = tmp_path / "config.toml"
    path.write_text(
        f'{top}default = "fake"\n[providers.fake]\napi = "{api.value}"\nbase_url = "{url}"\n'
        f'model = "m-1"\n{extra}',
        encoding="utf-8",
    )
    path.chmod(0o600)
    return str(path)


def ask(capsys: pytest.CaptureFixture[str], config: str, *flags: str) -> tuple[int, str, str]:
    code = cli.main(["ask", "--config", config, *flags, "weather in Paris?"])
    out, err = capsys.readouterr()
    return code, out, err


def tool_answer(tool: ToolUse | None = None) -> Answer:
    return Answer(
        text=("Let me check.",),
        reasoning=("Thinking", " briefly."),
        tool=tool or ToolUse("get_weather", ('{"city"', ': "Paris"}'), id="call_1"),
        input_tokens=11,
    )


def expected_follow_up(api: Api, result: str, *, is_error: bool = False) -> dict[str, Any]:
    """The second request, exactly: the prompt, the assistant's turn as the provider requires
    it back, the result in the format's own shape, and the tools again."""
    arguments = '{"city": "Paris"}'
    if api is Api.CHAT:
        return {
            "model": "m-1",
            "messages": [
                {"role": "user", "content": "weather in Paris?"},
                {
                    "role": "assistant",
                    "content": "Let me check.",
                    "reasoning_content": "Thinking briefly.",
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": arguments},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": result},
            ],
            "stream": True,
            "stream_options": {"include_usage": True},
            "tools": [
                {
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "description": "Weather now",
                        "parameters": SCHEMA,
                    },
                }
            ],
        }
    if api is Api.MESSAGES:
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": "call_1", "content": result}
        if is_error:
            block["is_error"] = True
        return {
            "model": "m-1",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "weather in Paris?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "thinking": "Thinking briefly.",
                            "signature": "c2lnbmF0dXJlLWRlbW8=",
                        },
                        {"type": "text", "text": "Let me check."},
                        {
                            "type": "tool_use",
                            "id": "call_1",
                            "name": "get_weather",
                            "input": {"city": "Paris"},
                        },
                    ],
                },
                {"role": "user", "content": [block]},
            ],
            "stream": True,
            "max_tokens": 4096,
            "tools": [
                {"name": "get_weather", "description": "Weather now", "input_schema": SCHEMA}
            ],
        }
    return {
        "model": "m-1",
        "input": [
            {"type": "message", "role": "user", "content": "weather in Paris?"},
            {"type": "message", "role": "assistant", "content": "Let me check."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": arguments,
            },
            {"type": "function_call_output", "call_id": "call_1", "output": result},
        ],
        "stream": True,
        "tools": [
            {
                "type": "function",
                "name": "get_weather",
                "description": "Weather now",
                "parameters": SCHEMA,
            }
        ],
    }


@pytest.mark.parametrize("api", list(Api))
def test_a_result_given_by_hand_goes_back_in_the_formats_own_shape(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.stream(api, tool_answer()), fake.stream(api, FINAL))
    config = config_file(tmp_path, api, fake_provider.url)
    code, out, _ = ask(capsys, config, "--json", "--tool-result", f"get_weather={RESULT}")
    assert code == 0
    first, second = (r.json for r in fake_provider.requests)
    assert first["tools"] == expected_follow_up(api, RESULT)["tools"]
    assert second == expected_follow_up(api, RESULT)
    document = json.loads(out)
    assert document["rounds"] == 2
    assert document["status"] == "complete"
    assert document["text"] == "Let me check.\n\nIt is 21 °C."
    assert document["tool_calls"] == [
        {
            "id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "result": {"content": RESULT, "is_error": False, "origin": "manual"},
            "round": 1,
        }
    ]
    assert document["usage"]["input_tokens"] == 41  # both requests, summed


@pytest.mark.parametrize("api", [Api.MESSAGES, Api.CHAT])
def test_an_error_result_by_hand_is_marked_as_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider, api: Api
) -> None:
    fake_provider.push(fake.stream(api, tool_answer()), fake.stream(api, FINAL))
    config = config_file(tmp_path, api, fake_provider.url)
    code, out, _ = ask(capsys, config, "--json", "--tool-error", 'get_weather="no such city"')
    assert code == 0
    assert fake_provider.requests[1].json == expected_follow_up(api, "no such city", is_error=True)
    assert json.loads(out)["tool_calls"][0]["result"]["is_error"] is True


def test_human_output_shows_each_call_and_result_on_stderr_and_both_texts_on_stdout(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, tool_answer()), fake.stream(Api.CHAT, FINAL))
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    code, out, err = ask(capsys, config, "--tool-result", f"get_weather={RESULT}")
    assert code == 0
    assert out == "Let me check.\nIt is 21 °C.\n"
    assert 'tool call get_weather call_1: {"city": "Paris"}' in err
    assert 'tool result get_weather call_1 (manual, 12 chars): {"temp": 21}' in err
    assert "complete" in err
    assert "2 requests" in err


def test_without_a_result_the_run_stops_at_the_call_as_before(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, tool_answer()))
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    code, out, err = ask(capsys, config, "--json")
    assert code == 0
    assert len(fake_provider.requests) == 1
    document = json.loads(out)
    assert (document["rounds"], document["status"]) == (1, "complete")
    assert document["tool_calls"][0]["result"] is None
    assert "no result for get_weather" in err


def test_the_round_limit_stops_the_loop_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(*(fake.stream(Api.CHAT, tool_answer()) for _ in range(3)))
    config = config_file(tmp_path, Api.CHAT, fake_provider.url, top="tool_rounds = 3\n")
    code, out, _ = ask(capsys, config, "--json", "--tool-result", f"get_weather={RESULT}")
    assert code == 1
    assert len(fake_provider.requests) == 3
    document = json.loads(out)
    assert document["rounds"] == 3
    assert document["status"] == "failed"
    assert document["error"]["code"] == "tool_round_limit"
    assert [c["result"] is None for c in document["tool_calls"]] == [False, False, True]
    # The third request carried both earlier rounds, each call with its result.
    messages = fake_provider.requests[2].json["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool"]


def test_results_given_twice_are_used_in_order(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(
        fake.stream(Api.CHAT, tool_answer()),
        fake.stream(Api.CHAT, tool_answer()),
        fake.stream(Api.CHAT, FINAL),
    )
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    code, out, _ = ask(
        capsys,
        config,
        "--json",
        "--tool-result",
        'get_weather="one"',
        "--tool-result",
        'get_weather="two"',
    )
    assert code == 0
    assert [c["result"]["content"] for c in json.loads(out)["tool_calls"]] == ["one", "two"]


@pytest.mark.parametrize(
    ("tool", "said"),
    [
        (ToolUse("get_weather", ('{"city": "Par',), id="call_1"), "not valid JSON"),
        (
            ToolUse("get_weather", ('{"town": 3}',), id="call_1"),
            "missing required property 'city'",
        ),
    ],
)
def test_a_call_that_cannot_run_is_answered_with_the_reason_and_the_model_goes_on(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_provider: FakeProvider,
    tool: ToolUse,
    said: str,
) -> None:
    fake_provider.push(
        fake.stream(Api.MESSAGES, tool_answer(tool)), fake.stream(Api.MESSAGES, FINAL)
    )
    config = config_file(tmp_path, Api.MESSAGES, fake_provider.url)
    code, out, _ = ask(capsys, config, "--json", "--tool-result", f"get_weather={RESULT}")
    assert code == 0
    document = json.loads(out)
    result = document["tool_calls"][0]["result"]
    assert said in result["content"]
    assert (result["is_error"], result["origin"]) == (True, "triptych")
    sent = fake_provider.requests[1].json["messages"]
    assert sent[1]["content"][-1]["type"] == "tool_use"
    assert (sent[1]["content"][-1]["id"], sent[1]["content"][-1]["name"]) == ("call_1", tool.name)
    assert sent[2]["content"][0]["is_error"] is True
    assert said in sent[2]["content"][0]["content"]
    assert document["text"].endswith("It is 21 °C.")


def test_a_call_of_a_tool_not_offered_is_the_providers_own_and_never_answered(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    # A name the request did not offer is a tool the provider runs itself (xAI's searches):
    # listed under server_tools, and no second request says there is no such tool.
    tool = ToolUse("get_wether", ('{"city": "Paris"}',), id="call_1")
    fake_provider.push(fake.stream(Api.MESSAGES, tool_answer(tool)))
    config = config_file(tmp_path, Api.MESSAGES, fake_provider.url)
    code, out, _ = ask(capsys, config, "--json", "--tool-result", f"get_weather={RESULT}")
    assert code == 0
    document = json.loads(out)
    assert document["tool_calls"] == []
    assert [t["name"] for t in document["server_tools"]] == ["get_wether"]
    assert len(fake_provider.requests) == 1


def test_a_schema_the_provider_rejects_is_a_clear_failure(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    message = "Invalid schema for function 'get_weather': 'object' is not valid"
    fake_provider.push(fake.http_error(Api.CHAT, 400, "invalid_function_parameters", message))
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    code, out, err = ask(capsys, config, "--json")
    assert code == 1
    assert "the request offered tools (get_weather)" in err
    document = json.loads(out)
    assert document["status"] == "failed"
    assert "Invalid schema for function 'get_weather'" in document["error"]["message"]
    # Without the tools the same prompt is a plain request again.
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    code, out, _ = ask(capsys, config, "--json", "--no-tools")
    assert code == 0
    assert "tools" not in fake_provider.requests[-1].json


def test_use_tools_chooses_and_unknown_names_are_usage_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    extra = TOOLS + '[tools.clock]\ndescription = "The time"\n'
    config = config_file(tmp_path, Api.CHAT, fake_provider.url, extra)
    fake_provider.push(fake.stream(Api.CHAT, FINAL))
    assert ask(capsys, config, "--json", "--use-tools", "clock")[0] == 0
    tools = fake_provider.requests[-1].json["tools"]
    assert [t["function"]["name"] for t in tools] == ["clock"]
    assert tools[0]["function"]["parameters"] == {"type": "object", "properties": {}}
    code, _, err = ask(capsys, config, "--use-tools", "clok")
    assert code == 2
    assert "--use-tools: no tool or server named 'clok'; offered: get_weather, clock" in err
    code, _, err = ask(capsys, config, "--tool-result", "nope=1")
    assert (code, "no tool named 'nope'" in err) == (2, True)
    code, _, err = ask(capsys, config, "--tool-result", "get_weather=not json")
    assert (code, "the value is not JSON" in err) == (2, True)
    code, _, err = ask(capsys, config, "--tools", "auto")
    assert (code, "add --yes" in err) == (2, True)
    code, _, err = ask(capsys, config, "--no-tools", "--use-tools", "clock")
    assert code == 2
    assert len(fake_provider.requests) == 1  # no usage error reached the provider


def test_record_keeps_every_request_of_the_loop(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, tool_answer()), fake.stream(Api.CHAT, FINAL))
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    recording = tmp_path / "loop.jsonl"
    code, _, _ = ask(
        capsys, config, "--record", str(recording), "--tool-result", f"get_weather={RESULT}"
    )
    assert code == 0
    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    requests = [line for line in lines if line["type"] == "request"]
    assert len(requests) == 2
    assert [line["type"] for line in lines].count("end") == 2


NO_KEY = "provider 'fake' sends no API key; set `api_key_env` in {config}"
WRONG_MODEL = "The model `m-1` does not exist or you do not have access to it."
SCHEMA_HINT = "the request offered tools (get_weather)"


@pytest.mark.parametrize(
    ("reply", "first"),
    [
        (fake.http_error(Api.CHAT, 401, "invalid_api_key", "No API key."), NO_KEY),
        (fake.http_error(Api.CHAT, 403, "forbidden", "Not allowed."), NO_KEY),
        (
            fake.http_error(Api.CHAT, 404, "model_not_found", WRONG_MODEL),
            f"error: model_not_found: HTTP 404: {WRONG_MODEL}",
        ),
        (
            fake.stream(Api.CHAT, replace(FINAL, error_after=1)),
            f"error: stream_interrupted: {INTERRUPTED_MESSAGE}",
        ),
    ],
    ids=["401", "403", "404-model", "mid-stream"],
)
def test_a_failure_that_is_not_the_tools_says_its_own_words_first(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_provider: FakeProvider,
    reply: Any,
    first: str,
) -> None:
    """With tools offered, a failure the tools did not cause has no word about their schemas:
    its own message is the first line of stderr (a provider sending no key names the setting)."""
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    for flags in ((), ("--json",)):
        fake_provider.push(reply)
        code, _, err = ask(capsys, config, *flags)
        assert code == 1
        assert SCHEMA_HINT not in err
        if not flags:
            line = err.splitlines()[0]
            assert line.startswith("error: "), err
            assert first.format(config=config) in line, err
            if first is NO_KEY:  # exactly that, after the provider's code
                assert line.endswith(": " + NO_KEY.format(config=config)), line


def test_a_key_that_is_sent_and_refused_is_the_providers_own_words(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_provider: FakeProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_KEY", "sk-wrong-0123456789")
    config = config_file(tmp_path, Api.CHAT, fake_provider.url, TOOLS, "")
    text = Path(config).read_text(encoding="utf-8")
    Path(config).write_text(
        text.replace('model = "m-1"\n', 'model = "m-1"\napi_key_env = "FAKE_KEY"\n'),
        encoding="utf-8",
    )
    fake_provider.push(fake.http_error(Api.CHAT, 401, "invalid_api_key", "Incorrect API key."))
    code, _, err = ask(capsys, config)
    assert code == 1
    assert err.splitlines()[0] == "error: invalid_api_key: HTTP 401: Incorrect API key."
    assert "sends no API key" not in err
    assert SCHEMA_HINT not in err


def test_the_schema_hint_follows_a_400_that_names_the_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_provider: FakeProvider
) -> None:
    config = config_file(tmp_path, Api.CHAT, fake_provider.url)
    message = "tools[0].function.parameters: 'object' is not valid"
    for status, body, hinted in [
        (400, message, True),
        (422, "Invalid schema for function 'get_weather'", True),
        (400, "max_tokens is too large", False),
        (500, message, False),
    ]:
        fake_provider.push(fake.http_error(Api.CHAT, status, "bad_request", body))
        code, _, err = ask(capsys, config)
        assert code == 1
        lines = err.splitlines()
        assert lines[0].startswith("error: bad_request: HTTP "), err
        assert body in lines[0]
        assert (SCHEMA_HINT in err) is hinted, (status, body, err)
        if hinted:
            assert SCHEMA_HINT in lines[1]
