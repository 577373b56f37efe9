"""Request parameters: `ask --param KEY=VALUE` mapped to each format's own
fields, as the exact JSON body the fake provider received; what was sent in `--json`, on the
turn and in the history (and a file from before the `params` column); every bad value a clear
message with exit status 2 and nothing sent."""

from __future__ import annotations

import asyncio
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.providers.client import ProviderClient
from app.providers.params import (
    KNOBS,
    ParamError,
    RequestParams,
    check_for,
    format_fields,
    knobs_for,
)
from app.store import Store
from app.store.export import to_json, to_markdown
from app.store.schema import MIGRATIONS
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.turn import Turn
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

QUESTION = {
    Api.CHAT: {"messages": [{"role": "user", "content": "q"}]},
    Api.MESSAGES: {"messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}]},
    Api.RESPONSES: {"input": [{"type": "message", "role": "user", "content": "q"}]},
}


USAGE = {"stream_options": {"include_usage": True}}  # sent on every chat request
FORMAT_DEFAULTS: dict[Api, dict[str, Any]] = {
    Api.CHAT: USAGE,
    Api.MESSAGES: {"max_tokens": 4096},
    Api.RESPONSES: {},
}


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


def ask(
    capsys: pytest.CaptureFixture[str], server: FakeProvider, api: Api, *params: str
) -> tuple[int, str, str]:
    flags = [f"--param={p}" for p in params]
    argv = ["ask", "--api", api.value, "--base-url", server.url, "--model", "m-9", *flags]
    code = cli.main([*argv, "--json", "q"])
    out, err = capsys.readouterr()
    return code, out, err


EVERY_KNOB: dict[Api, tuple[list[str], dict[str, Any]]] = {
    Api.CHAT: (
        [
            "temperature=0.2",
            "top_p=0.9",
            "max_tokens=256",
            'stop=["END", "STOP"]',
            "seed=7",
            "reasoning_effort=high",
            "logprobs=true",  # not a knob: raw JSON, merged last
        ],
        {
            "temperature": 0.2,
            "top_p": 0.9,
            "max_tokens": 256,
            "stop": ["END", "STOP"],
            "seed": 7,
            "reasoning_effort": "high",
            "logprobs": True,
            **USAGE,
        },
    ),
    Api.MESSAGES: (
        [
            "temperature=0.5",
            "top_p=0.8",
            "max_tokens=2048",
            "stop=END",
            "thinking_budget=1024",
            'metadata={"user_id": "u-1"}',
        ],
        {
            "temperature": 0.5,
            "top_p": 0.8,
            "max_tokens": 2048,  # over the provider's own 4096
            "stop_sequences": ["END"],
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "metadata": {"user_id": "u-1"},
        },
    ),
    Api.RESPONSES: (
        [
            "temperature=1.5",
            "top_p=1",
            "max_output_tokens=300",
            "effort=low",
            "store=false",
        ],
        {
            "temperature": 1.5,
            "top_p": 1,
            "max_output_tokens": 300,
            "reasoning": {"effort": "low"},
            "store": False,
        },
    ),
}


@pytest.mark.parametrize("api", list(Api))
def test_every_knob_is_sent_in_the_formats_own_field(
    api: Api, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    flags, fields = EVERY_KNOB[api]
    fake_provider.push(fake.stream(api))
    code, out, err = ask(capsys, fake_provider, api, *flags)
    assert code == 0, err
    body = {"model": "m-9", **QUESTION[api], **fields, "stream": True}
    assert fake_provider.last_request().json == body
    assert json.loads(out)["params"] == fields  # what was sent, less the conversation


@pytest.mark.parametrize("api", list(Api))
def test_without_params_json_shows_what_the_format_sent_anyway(
    api: Api, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(api))
    code, out, _ = ask(capsys, fake_provider, api)
    assert code == 0
    assert json.loads(out)["params"] == FORMAT_DEFAULTS[api]


def config_with_params(tmp_path: Path, server: FakeProvider) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f"""
[providers.r]
api = "responses"
base_url = "{server.url}"
model = "m-1"
[providers.r.params]
temperature = 1.0
reasoning = {{ summary = "auto", effort = "high" }}
""",
        encoding="utf-8",
    )
    return path


def test_params_override_the_providers_params_and_merge_into_its_tables(
    tmp_path: Path, fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    config = str(config_with_params(tmp_path, fake_provider))
    fake_provider.push(fake.stream(Api.RESPONSES), fake.stream(Api.RESPONSES))
    argv = ["--config", config, "ask", "--provider", "r", "--json"]
    assert cli.main([*argv, "--param", "temperature=0.3", "--param", "effort=medium", "q"]) == 0
    sent = fake_provider.last_request().json
    assert sent == {
        "model": "m-1",
        **QUESTION[Api.RESPONSES],
        "temperature": 0.3,
        "reasoning": {"summary": "auto", "effort": "medium"},
        "stream": True,
    }
    assert cli.main([*argv, "--param", 'reasoning={"summary": "detailed"}', "q"]) == 0
    assert fake_provider.last_request().json["reasoning"] == {
        "summary": "detailed",
        "effort": "high",
    }  # raw JSON merges key by key too


def test_a_value_that_is_not_json_is_a_string(
    fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    code, _, _ = ask(capsys, fake_provider, Api.CHAT, "stop=###", "user=me=you", "seed=-3")
    assert code == 0
    sent = fake_provider.last_request().json
    assert (sent["stop"], sent["user"], sent["seed"]) == (["###"], "me=you", -3)


def test_compare_checks_the_params_against_every_format(
    tmp_path: Path, fakes: dict[Api, FakeProvider], capsys: pytest.CaptureFixture[str]
) -> None:
    lines = []
    for api, server in fakes.items():
        lines += [f"[providers.{api.value}]", f'api = "{api.value}"']
        lines += [f'base_url = "{server.url}"', 'model = "m-1"']
    path = tmp_path / "config.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["--config", str(path), "ask", "--compare", "chat,messages,responses"]
    assert cli.main([*argv, "--param", "seed=1", "q"]) == 2
    assert capsys.readouterr().err == "triptych: --param seed: Messages takes no seed (messages)\n"
    assert all(server.requests == [] for server in fakes.values())
    for api, server in fakes.items():
        server.push(fake.stream(api))
    assert cli.main([*argv, "--param", "max_tokens=99", "--json", "q"]) == 0
    assert fakes[Api.CHAT].last_request().json["max_tokens"] == 99
    assert fakes[Api.MESSAGES].last_request().json["max_tokens"] == 99
    assert fakes[Api.RESPONSES].last_request().json["max_output_tokens"] == 99
    documents = json.loads(capsys.readouterr().out)
    assert [d["params"] for d in documents] == [
        {"max_tokens": 99, **USAGE},
        {"max_tokens": 99},
        {"max_output_tokens": 99},
    ]


BAD = [
    (Api.CHAT, "temperature=3", "--param temperature: must be from 0 to 2, not 3"),
    (Api.CHAT, "temperature=hot", 'temperature: must be a number from 0 to 2, not "hot"'),
    (Api.CHAT, "temperature=true", "temperature: must be a number from 0 to 2, not true"),
    (Api.MESSAGES, "temperature=1.5", "temperature: Messages takes 0 to 1, not 1.5"),
    (Api.CHAT, "top_p=1.5", "top_p: must be from 0 to 1, not 1.5"),
    (Api.CHAT, "max_tokens=0", "max_tokens: must be from 1 to 10000000, not 0"),
    (Api.CHAT, "max_tokens=2.5", "max_tokens: must be a whole number (tokens), not 2.5"),
    (Api.CHAT, "stop=[1]", "stop: must be a string or a list of non-empty strings, not [1]"),
    (Api.CHAT, 'stop=["a","b","c","d","e"]', "stop: Chat Completions takes at most 4 stop"),
    (Api.RESPONSES, "stop=END", "stop: Responses takes no stop sequences"),
    (Api.RESPONSES, "seed=1", "seed: Responses takes no seed"),
    (Api.MESSAGES, "effort=high", "reasoning_effort: Messages takes a thinking budget instead"),
    (Api.CHAT, "thinking_budget=2048", "thinking_budget: Chat Completions takes a reasoning"),
    (Api.MESSAGES, "thinking_budget=100", "thinking_budget: must be from 1024 to 10000000"),
    (Api.MESSAGES, "budget_tokens=8192", "must be less than max_tokens (4096)"),
    (Api.CHAT, "reasoning_effort=extreme", "must be low, medium, high (or, where the provider"),
    (Api.CHAT, "temperature", "--param 'temperature': expected KEY=VALUE"),
    (Api.CHAT, "=3", "--param '=3': expected KEY=VALUE"),
    # Fields the app fills itself, and numbers JSON has no spelling for.
    (Api.CHAT, "model=gpt-x", "--param model: Triptych sets this field itself; set the model "
     "with --model"),
    (Api.CHAT, "messages=[]", "--param messages: Triptych sets this field itself; the "
     "conversation is the prompt (the argument or stdin) and --system"),
    (Api.RESPONSES, 'input="hi"', "--param input: Triptych sets this field itself"),
    (Api.MESSAGES, "system=be terse", "--param system: Triptych sets this field itself; set "
     "it with --system"),
    (Api.CHAT, "stream=false", "--param stream: Triptych sets this field itself; every "
     "request streams"),
    (Api.CHAT, "tools=[]", "--param tools: Triptych sets this field itself; offer tools with "
     "--use-tools or --no-tools"),
    (Api.CHAT, "x=NaN", "--param x: nan is not a number JSON can send; give a finite one"),
    (Api.CHAT, 'x={"a": [1, -Infinity]}', "--param x: -inf is not a number JSON can send"),
    (Api.CHAT, "x=1e999", "--param x: inf is not a number JSON can send"),
    (Api.CHAT, "temperature=NaN", "--param temperature: must be from 0 to 2, not nan"),
]  # fmt: skip


@pytest.mark.parametrize(("api", "param", "message"), BAD)
def test_a_bad_param_exits_2_with_a_clear_message_and_sends_nothing(
    api: Api,
    param: str,
    message: str,
    fake_provider: FakeProvider,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = ask(capsys, fake_provider, api, param)
    assert code == 2
    assert out == ""
    assert err.startswith("triptych: --param ")
    assert message in err
    assert "Traceback" not in err
    assert fake_provider.requests == []


def test_effort_and_budget_together_are_refused(
    fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = ask(capsys, fake_provider, Api.MESSAGES, "effort=low", "thinking_budget=2000")
    assert code == 2
    assert "reasoning_effort and thinking_budget both set how much the model reasons" in err


def test_a_near_miss_key_is_sent_as_is_with_a_warning(
    fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    code, _, err = ask(capsys, fake_provider, Api.CHAT, "temprature=0.1")
    assert code == 0
    assert "triptych: warning: --param temprature: sent as it is; did you mean temperature?" in err
    assert fake_provider.last_request().json["temprature"] == 0.1


# -- the model the parameters panel will use --------------------------------------------------


def test_the_model_sets_clears_and_shows_its_values() -> None:
    params = RequestParams.of({"temperature": 0.7, "max_tokens": 100, "stop": "x", "foo": [1]})
    assert params.as_dict() == {
        "temperature": 0.7,
        "max_output_tokens": 100,
        "stop": ["x"],
        "extra": {"foo": [1]},
    }
    cleared = params.set("temperature", None).set("stop", None).set("foo", None)
    assert cleared.as_dict() == {"max_output_tokens": 100}
    assert RequestParams().is_empty
    assert not cleared.is_empty
    with pytest.raises(ParamError, match="top_p: must be from 0 to 1"):
        params.set("top_p", -0.1)
    assert format_fields(params, Api.MESSAGES) == {
        "temperature": 0.7,
        "max_tokens": 100,
        "stop_sequences": ["x"],
    }
    check_for(params, Api.CHAT, 4096)  # no error


# -- what was sent, on the turn and in the history ----------------------------------------------


def test_the_turn_holds_what_was_sent_with_secrets_scrubbed(fake_provider: FakeProvider) -> None:
    provider = fake_provider.provider(Api.CHAT, params={"user_token": "tok-SECRET-0123456789"})
    fake_provider.push(fake.stream(Api.CHAT))
    conversation = Conversation()
    conversation.add_user("q")
    params = RequestParams.of({"temperature": 0.1})

    async def go() -> Turn:
        async with ProviderClient(provider, None) as client:
            return await client.stream(conversation, Turn(), params=params)

    turn = asyncio.run(go())
    assert fake_provider.last_request().json["user_token"] == "tok-SECRET-0123456789"
    assert turn.params == {"user_token": "[redacted]", "temperature": 0.1, **USAGE}


def test_a_knob_the_format_lacks_fails_the_turn_unsent(fake_provider: FakeProvider) -> None:
    """The UI may keep a conversation's params across a switch to another format."""
    conversation = Conversation()
    conversation.add_user("q")

    async def go() -> Turn:
        async with ProviderClient(fake_provider.provider(Api.RESPONSES), None) as client:
            return await client.stream(conversation, Turn(), params=RequestParams(seed=3))

    turn = asyncio.run(go())
    assert turn.error is not None
    assert (turn.error.code, turn.error.message) == ("bad_params", "seed: Responses takes no seed")
    assert fake_provider.requests == []


def test_the_history_stores_and_exports_what_each_answer_was_sent_with(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    conv = store.create_conversation()
    store.add_user_message(conv, "q")
    turn_id = store.start_turn(conv, provider="p", model="m", api="chat")
    turn = Turn(params={"temperature": 0.2, "stop": ["END"]})
    turn.end()
    store.save_turn(turn_id, turn, final=True)
    loaded = store.load(conv)
    answer = loaded.messages[1].turn
    assert answer is not None
    assert answer.params == {"temperature": 0.2, "stop": ["END"]}
    assert json.loads(to_json(loaded))["messages"][1]["params"] == answer.params
    assert '*sent with: temperature=0.2, stop=["END"]*' in to_markdown(loaded)
    store.close()


def test_a_file_from_before_the_params_column_migrates(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    old = sqlite3.connect(path)
    added = next(m.version for m in MIGRATIONS if "ADD COLUMN params" in m.sql)
    for migration in MIGRATIONS[: added - 1]:
        old.executescript(migration.sql)
    old.executescript(
        f"""
        PRAGMA user_version = {added - 1};
        INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'old', 1, 1);
        INSERT INTO messages (conversation_id, role, text, created_at, updated_at)
            VALUES (1, 'user', 'q', 1, 1);
        INSERT INTO messages (conversation_id, role, text, status, pane, created_at, updated_at)
            VALUES (1, 'assistant', 'a', 'complete', 0, 1, 1);
        """
    )
    old.close()
    store = Store.open(path)
    answer = store.load(1).messages[1].turn
    assert answer is not None
    assert (answer.text, answer.params) == ("a", {})
    assert "params" not in to_markdown(store.load(1))
    store.close()


def test_the_retry_without_stream_options_keeps_the_params(
    fake_provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    rejected = "Unrecognized request argument supplied: stream_options"
    fake_provider.push(fake.http_error(Api.CHAT, 400, "invalid_request_error", rejected))
    fake_provider.push(fake.stream(Api.CHAT))
    code, out, _ = ask(capsys, fake_provider, Api.CHAT, "temperature=0.4", "seed=2")
    assert code == 0
    first, second = (request.json for request in fake_provider.requests)
    asked = {"model": "m-9", **QUESTION[Api.CHAT], "temperature": 0.4, "seed": 2, "stream": True}
    assert first == {**asked, **USAGE}
    assert second == asked
    assert json.loads(out)["params"] == {"temperature": 0.4, "seed": 2}  # what the answer got


@pytest.mark.parametrize("api", list(Api))
def test_knobs_for_lists_exactly_what_the_format_accepts(api: Api) -> None:
    """A panel offers these; every other knob is refused by check_for."""
    values = {
        "temperature": 0.5,
        "top_p": 0.5,
        "max_output_tokens": 5000,
        "stop": ("x",),
        "seed": 1,
        "reasoning_effort": "low",
        "thinking_budget": 2048,
    }
    for name in KNOBS:
        params = RequestParams(**{name: values[name]})
        if name in knobs_for(api):
            check_for(params, api, 4096)
        else:
            with pytest.raises(ParamError):
                check_for(params, api, 4096)
    assert knobs_for(Api.CHAT) == (
        "temperature",
        "top_p",
        "max_output_tokens",
        "stop",
        "seed",
        "reasoning_effort",
    )


def test_saved_values_come_back_as_they_were_set() -> None:
    """A conversation's values as the history keeps them (`as_dict`) read back the same; a
    value that no longer checks reads as none set rather than failing the reopen."""
    params = RequestParams.of({"temperature": 0.2, "stop": ["END"], "logprobs": True})
    assert RequestParams.saved(params.as_dict()) == params
    assert RequestParams.saved({}) is None
    assert RequestParams.saved({"temperature": 9}) is None


# -- in a process of its own: the exit status and the one line, and secrets ---------------------


def ask_process(tmp_path: Path, server: FakeProvider, *argv: str) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRIPTYCH_")}
    env.update(
        TRIPTYCH_DATA_DIR=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config-home"),
        TRIPTYCH_DEMO_PACE="0",
    )
    base = ["ask", "--api", "chat", "--base-url", server.url, "--model", "m-9"]
    done = subprocess.run(
        [sys.executable, "-m", "app", *base, *argv],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


@pytest.mark.parametrize(
    ("param", "line"),
    [
        ("model=other-model", "triptych: --param model: Triptych sets this field itself; set the "
         "model with --model (NAME:MODEL in --compare; the model picker in the app)\n"),
        ("x=NaN", "triptych: --param x: nan is not a number JSON can send; give a finite one\n"),
    ],
)  # fmt: skip
def test_an_owned_field_or_a_non_finite_number_is_one_line_and_exit_2(
    tmp_path: Path, fake_provider: FakeProvider, param: str, line: str
) -> None:
    code, out, err = ask_process(tmp_path, fake_provider, "--param", param, "--json", "q")
    assert (code, out, err) == (2, "", line)
    assert fake_provider.requests == []


def test_a_secret_looking_param_is_sent_and_scrubbed_everywhere_else(
    tmp_path: Path, fake_provider: FakeProvider
) -> None:
    secret = "sk-param-SECRET-0123456789abcdef"
    fake_provider.push(fake.stream(Api.CHAT))
    code, out, err = ask_process(
        tmp_path, fake_provider, "--param", f"api_key={secret}", "--param",
        f'auth={{"session": "{secret[::-1]}"}}', "--json", "--record", "rec.jsonl", "q",
    )  # fmt: skip

    assert code == 0, err
    sent = fake_provider.last_request().json
    assert (sent["api_key"], sent["auth"]) == (secret, {"session": secret[::-1]})  # as asked
    document = json.loads(out)
    assert document["params"]["api_key"] == "[redacted]"
    assert document["params"]["auth"] == {"session": "[redacted]"}
    recording = (tmp_path / "rec.jsonl").read_text()
    for where in (out, err, recording):
        assert secret not in where
        assert secret[::-1] not in where
    assert '"api_key": "[redacted]"' in recording


def test_the_panels_raw_json_refuses_owned_fields_and_non_finite_numbers() -> None:
    from app.ui.screens.parameters import raw_object

    assert raw_object('{"logprobs": true}') == {"logprobs": True}
    with pytest.raises(ParamError, match=r"^raw JSON: model: Triptych sets this field itself"):
        raw_object('{"model": "other"}')
    with pytest.raises(ParamError, match=r"^raw JSON: x: nan is not a number JSON can send"):
        raw_object('{"x": {"y": [NaN]}}')
