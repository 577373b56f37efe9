"""Surrogates in JSON strings: pairs split across deltas are joined, lone ones
become U+FFFD, so no text the app holds can fail to encode as UTF-8 (the TUI, `ask`, history).

Streams are built with the demo's frame writer and placeholders, then the placeholders become
the JSON escapes a provider sends (`\\ud83d` in one delta, `\\ude00` in the next).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from app import cli
from app.demo.frames import Answer, ToolUse, frames
from app.providers.documents import document_events
from app.wire import decode_bytes
from app.wire.engine import Api
from app.wire.turn import Turn
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

HI, LO = "@HI@", "@LO@"  # placeholders for the escapes \ud83d and \ude00
SMILE = "\U0001f600"
# (pieces as the provider splits them, what the app must hold)
CASES = {
    "pair-split": (("A", HI, LO, "B"), f"A{SMILE}B"),
    "pair-split-inside-deltas": (("A" + HI, LO + "B"), f"A{SMILE}B"),
    "lone-high": (("A", HI, "B"), "A\ufffdB"),
    "lone-low": (("A" + LO + "B",), "A\ufffdB"),
    "high-at-the-end": (("A", HI), "A\ufffd"),
    "two-highs-then-low": (("A", HI, HI, LO), f"A\ufffd{SMILE}"),
}
CHANNELS = ("text", "reasoning", "arguments")


def answer_for(channel: str, pieces: tuple[str, ...]) -> Answer:
    if channel == "text":
        return Answer(text=pieces)
    if channel == "reasoning":
        return Answer(text=("ok",), reasoning=pieces)
    args = ('{"q": "', *pieces, '"}')
    return Answer(text=("ok",), tool=ToolUse("lookup", args, id="call_s"))


def body_frames(api: Api, channel: str, pieces: tuple[str, ...]) -> list[bytes]:
    sent = frames(api, answer_for(channel, pieces))
    return [f.replace(HI.encode(), b"\\ud83d").replace(LO.encode(), b"\\ude00") for f in sent]


def held(turn: Turn, channel: str) -> str:
    if channel == "text":
        return turn.text
    if channel == "reasoning":
        return turn.reasoning
    (call,) = turn.tool_calls
    assert call.value == {"q": json.loads(call.arguments)["q"]}
    return str(call.value["q"])


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_the_engine_joins_split_pairs_and_replaces_lone_surrogates(
    api: Api, channel: str, case: str
) -> None:
    pieces, want = CASES[case]
    turn = decode_bytes(api, body_frames(api, channel, pieces))
    assert turn.status.value == "complete"
    assert held(turn, channel) == want
    for part in (*turn.text_parts, *turn.reasoning_parts):
        assert encodable(part)
    assert all(encodable(call.arguments) for call in turn.tool_calls)


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
def test_a_pair_split_over_one_byte_reads_is_still_joined(api: Api) -> None:
    body = b"".join(body_frames(api, "text", CASES["pair-split"][0]))
    turn = decode_bytes(api, [body[i : i + 1] for i in range(len(body))])
    assert turn.text == f"A{SMILE}B"


def test_a_lone_surrogate_in_ids_names_errors_and_sources_is_replaced() -> None:
    chunk = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [{"index": 0, "id": "c\ud800", "function": {"name": "f\udc00"}}],
                    "sources": [{"url": "https://x.test/\ud800", "title": "t\udfff"}],
                },
            }
        ]
    }
    error = {"error": {"code": "e\ud800", "message": "bad \ud83d"}}
    body = [f"data: {json.dumps(p)}\n\n".encode() for p in (chunk, error)]
    turn = decode_bytes(Api.CHAT, body)
    (call,) = turn.tool_calls
    assert (call.id, call.name) == ("c\ufffd", "f\ufffd")
    assert [(s.url, s.title) for s in turn.sources] == [("https://x.test/\ufffd", "t\ufffd")]
    assert turn.error is not None
    assert (turn.error.code, turn.error.message) == ("e\ufffd", "bad \ufffd")


def test_a_whole_json_answer_with_lone_surrogates_is_mended() -> None:
    document = {"choices": [{"index": 0, "message": {"content": "a\ud800b"}}]}
    events = document_events(json.loads(json.dumps(document)))
    turn = Turn()
    turn.apply_all(events)
    assert turn.text == "a\ufffdb"


# -- through `triptych ask` over loopback --------------------------------------------------------


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def ask_strict(monkeypatch: pytest.MonkeyPatch, *argv: str) -> tuple[int, str, str]:
    """`cli.main` with stdout and stderr that encode strictly, as a real UTF-8 terminal does."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = cli.main(list(argv))
    out.flush()
    err.flush()
    return code, out.buffer.getvalue().decode(), err.buffer.getvalue().decode()  # type: ignore[attr-defined]


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
@pytest.mark.parametrize("channel", CHANNELS)
@pytest.mark.parametrize("json_flag", [False, True], ids=["plain", "json"])
def test_ask_prints_the_mended_answer_for_every_format(
    monkeypatch: pytest.MonkeyPatch, api: Api, channel: str, json_flag: bool
) -> None:
    pieces = ("A", HI, LO, "B", HI)  # a pair split over two deltas, then a lone high at the end
    want = f"A{SMILE}B\ufffd"
    with FakeProvider() as server:
        server.push(fake.scripted([(0.0, f) for f in body_frames(api, channel, pieces)]))
        flags = ["--json"] if json_flag else ["--reasoning"]
        argv = ["ask", *flags, "--api", api.value, "--base-url", server.url, "--model", "m"]
        code, out, err = ask_strict(monkeypatch, *argv, "hi")
    assert code == 0, err
    assert "Traceback" not in err
    if json_flag:
        document = json.loads(out)
        assert document["status"] == "complete"
        if channel == "arguments":
            (call,) = document["tool_calls"]
            assert json.loads(call["arguments"]) == {"q": want}
        else:
            assert document[channel] == want
    elif channel == "text":
        assert out == want + "\n"
    elif channel == "reasoning":
        assert want in err
    else:
        assert f'"q": "{want}"' in err


def test_a_lone_surrogate_in_an_http_error_body_is_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeProvider() as server:
        server.push(fake.http_error(Api.CHAT, 400, "bad\ud800", "no \ud83d way"))
        argv = ["ask", "--api", "chat", "--base-url", server.url, "--model", "m", "hi"]
        code, _, err = ask_strict(monkeypatch, *argv)
    assert code == 1
    assert "Traceback" not in err
    assert "error: bad\ufffd: HTTP 400: no \ufffd way" in err
