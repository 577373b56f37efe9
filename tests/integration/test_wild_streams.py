"""Real recorded provider streams (`../shared/wild-streams/`), served byte for byte over the
loopback fake server and read by `triptych ask --json`: each must decode as its provider meant.

What each stream should give comes from the folder's README (its "what it shows" column: text,
reasoning, tool calls, citations, usage, errors) and, for the finish word, from the stream's own
bytes: the last `finish_reason` / `stop_reason` / response `status` it spells. The streams are
read from beside the repository, never copied into it; without the folder the tests skip.
"""

from __future__ import annotations

import io
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.demo.loopback import Pause, Reply, Send
from app.wire.engine import Api
from tests.fakes.provider import SSE, FakeProvider

WILD = Path(__file__).resolve().parents[2].parent / "shared" / "wild-streams"
FORMATS = {"chat": Api.CHAT, "messages": Api.MESSAGES, "responses": Api.RESPONSES}

# The provider's own words in the four streams that fail (copied from the streams).
ERRORS = {
    "chat_pyd_openrouter_error_chunk": ("400", "Token limit reached"),
    "chat_pyd_groq_error_event": (
        "tool_use_failed",
        "Tool call validation failed: tool call validation failed: parameters for tool "
        "get_something_by_name did not match schema: errors: [missing properties: 'name', "
        "additionalProperties 'invalid_param' not allowed]",
    ),
    "chat_pyd_groq_error_after_text": (
        "tool_use_failed",
        "Tool choice is required, but model did not call a tool",
    ),
    "resp_vercel_gpt5nano_quota_error": (
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, read the docs: "
        "https://platform.openai.com/docs/guides/error-codes/api-errors.",
    ),
}
# Tagged "citations" but carrying no URL at all (its annotations lists are empty).
NO_URLS = {"resp_pyd_web_search"}
# Tagged "cached", but the cached tokens belong to the compaction iteration: the answer's own
# usage (top level of the last message_delta) says cache_read_input_tokens 0.
CACHED_ELSEWHERE = {"msg_pyd_compaction_cache_usage"}
USAGE_TAGS = {"usage-chunk", "usage", "x_groq-usage", "usage-in-delta", "usage-after-finish"}
REASONING_TAGS = {"reasoning", "reasoning-summary", "reasoning-text"}


@dataclass(frozen=True)
class Wild:
    name: str
    api: Api
    tags: frozenset[str]

    @property
    def body(self) -> bytes:
        return (WILD / f"{self.name}.sse").read_bytes()


def load() -> list[Wild]:
    readme = WILD / "README.md"
    if not readme.is_file():
        return []
    found = []
    for line in readme.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        tags = re.split(r"[;,]\s*", cells[3].replace("*", ""))
        found.append(Wild(cells[0].strip("`"), FORMATS[cells[1]], frozenset(tags)))
    return found


STREAMS = load()
pytestmark = pytest.mark.skipif(
    not STREAMS, reason=f"the recorded streams are not here ({WILD} is absent)"
)


def finish_word(stream: Wild) -> str | None:
    """The last finish word the stream spells, read from its bytes by a plain search."""
    text = stream.body.decode("utf-8")
    if stream.api is Api.CHAT:
        words = re.findall(r'"finish_reason":\s*"([a-z_]+)"', text)
    elif stream.api is Api.MESSAGES:
        words = re.findall(r'"stop_reason":\s*"([a-z_]+)"', text)
    else:
        completed = [
            json.loads(line[5:])
            for line in text.splitlines()
            if line.startswith("data:") and '"response.completed"' in line
        ]
        words = [payload["response"]["status"] for payload in completed]
    return words[-1] if words else None


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def ask_json(monkeypatch: pytest.MonkeyPatch, stream: Wild) -> tuple[int, dict[str, Any]]:
    """Serve the recorded bytes in network-sized pieces and read them with `ask --json`."""
    body = stream.body
    steps = []
    for start in range(0, len(body), 1500):  # pieces that split lines, JSON and UTF-8
        steps += [Send(body[start : start + 1500]), Pause(0.0)]
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    with FakeProvider() as server:
        server.push(Reply(200, SSE, tuple(steps)))
        argv = ["ask", "--json", "--api", stream.api.value, "--base-url", server.url]
        code = cli.main([*argv, "--model", "m", "hi"])
    out.flush()
    raw: bytes = out.buffer.getvalue()  # type: ignore[attr-defined]
    return code, json.loads(raw.decode("utf-8"))


@pytest.mark.parametrize("stream", STREAMS, ids=[s.name for s in STREAMS])
def test_each_recorded_stream_decodes_as_its_provider_meant(
    monkeypatch: pytest.MonkeyPatch, stream: Wild
) -> None:
    code, answer = ask_json(monkeypatch, stream)
    tags = stream.tags

    if "error-in-stream" in tags:
        assert (code, answer["status"]) == (1, "failed")
        assert (answer["error"]["code"], answer["error"]["message"]) == ERRORS[stream.name]
    else:
        assert (code, answer["status"], answer["error"]) == (0, "complete", None)
        assert answer["finish_reason"] == finish_word(stream)

    if tags & {"text", "refusal", "citations", "web-search"}:
        assert answer["text"].strip()
    if tags & REASONING_TAGS:
        assert answer["reasoning"].strip()
    if "reasoning-encrypted" in tags and not tags & REASONING_TAGS:
        assert answer["reasoning"] == ""  # nothing readable was sent: nothing is made up

    calls = answer["tool_calls"]
    if "tool-call" in tags:
        assert calls
        for call in calls:
            assert call["name"]
            if "partial-json" not in tags:  # cut by max_tokens mid-call: may not parse
                json.loads(call["arguments"] or "{}")
        if "parallel" in tags:
            assert len(calls) >= 2
    else:
        assert calls == []  # server-side tools (web search, MCP, code execution) are not calls
    if tags & {"server-tool", "mcp"}:  # ...but each is named as a server tool
        assert answer["server_tools"]
        assert all(tool["name"] for tool in answer["server_tools"])
    else:
        assert answer["server_tools"] == [] or tags & {"web-search"}

    usage = answer["usage"]
    if tags & USAGE_TAGS or "cached" in tags:
        assert usage is not None
        assert usage["output_tokens"]
    if "cached" in tags and stream.name not in CACHED_ELSEWHERE:
        assert usage["cached_tokens"]


@pytest.mark.parametrize(
    "stream",
    [s for s in STREAMS if s.tags & {"citations", "web-search"} and s.name not in NO_URLS],
    ids=lambda s: s.name,
)
def test_citations_become_sources(stream: Wild) -> None:
    """`ask --json` has no sources field; the turn the TUI draws footnotes from does."""
    from app.wire import decode_bytes

    turn = decode_bytes(stream.api, [stream.body])
    assert turn.sources
    assert all(source.url.startswith("http") for source in turn.sources)


def test_a_stream_that_sends_usage_with_its_error_keeps_the_usage(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (stream,) = [s for s in STREAMS if s.name == "chat_pyd_openrouter_error_chunk"]
    _, answer = ask_json(monkeypatch, stream)
    assert answer["usage"] == {"input_tokens": 43, "output_tokens": 10, "cached_tokens": 0}


def test_separate_messages_of_one_response_are_separate_paragraphs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A commentary message, then a tool, then the final answer: not "Got itHere are"."""
    (stream,) = [s for s in STREAMS if s.name == "resp_vercel_phase_commentary"]
    _, answer = ask_json(monkeypatch, stream)
    assert answer["text"].startswith("Got it\n\nHere are a few **AI")
