"""`triptych replay` of captures made elsewhere: a raw SSE body (`curl -N`, with or without the
HTTP head `curl -i` prints) and a HAR file (a browser's devtools export). Each decodes to the
object `ask --json` prints for the same bytes served live over loopback (its provider and times
aside); the format is told from the frames; anything else is one line saying what replay reads.
"""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import pytest

from app import cli
from app.demo.frames import frames
from app.demo.loopback import Reply, Send
from app.providers.captures import READS, capture_kind, split_frames
from app.wire.engine import Api
from tests.fakes.provider import ANSWER, SSE, FakeProvider

ASIDE = ("provider", "ttft_ms", "duration_ms")  # what a replay cannot give as a live ask does
KEY = "sk-live-abcdefghijklmnopqrstuvwxyz0123"
WILD = Path(__file__).resolve().parents[2].parent / "shared" / "wild-streams"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("TRIPTYCH_CONFIG", raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def body_of(api: Api) -> bytes:
    """What the fake provider (and so each format's providers) streams for the answer."""
    return b"".join(frames(api, ANSWER))


def live(capsys: pytest.CaptureFixture[str], api: Api, body: bytes, model: str) -> dict[str, Any]:
    """`ask --json` of `body` served live (in network-sized pieces that split lines)."""
    steps = tuple(Send(body[i : i + 700]) for i in range(0, len(body), 700))
    with FakeProvider() as server:
        server.push(Reply(200, SSE, steps))
        argv = ["ask", "--json", "--api", api.value, "--base-url", server.url, "--model", model]
        code, out, err = run(capsys, *argv, "hi")
    assert out, err
    answer: dict[str, Any] = json.loads(out)
    answer["exit"] = code
    return answer


def replayed(capsys: pytest.CaptureFixture[str], path: Path, *flags: str) -> dict[str, Any]:
    code, out, err = run(capsys, "replay", str(path), "--json", *flags)
    assert len(out.splitlines()) == 1, (out, err)
    answer: dict[str, Any] = json.loads(out)
    answer["exit"] = code
    return answer


def without_aside(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in ASIDE}


@pytest.mark.parametrize("api", list(Api), ids=[a.value for a in Api])
def test_a_raw_sse_body_of_each_format_replays_as_ask_json_reads_it_live(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], api: Api
) -> None:
    body = body_of(api)
    path = tmp_path / f"{api.value}.sse"
    path.write_bytes(body)
    code, out, err = run(capsys, "replay", str(path))
    assert (code, out) == (0, "Hello, world.\n"), err
    assert "replay · demo-1 · complete" in err  # the model the frames name
    answer = replayed(capsys, path)
    assert answer["api"] == api.value  # told from the frames
    assert answer["text"] == "Hello, world."
    assert answer["tool_calls"][0]["name"] == "get_weather"
    assert without_aside(answer) == without_aside(live(capsys, api, body, "demo-1"))


def test_curl_i_output_with_its_heads_replays_and_keeps_the_status_and_headers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`curl -i -N` prints every head it saw (a proxy's, a 100 Continue) before the body."""
    head = (
        b"HTTP/1.1 200 Connection established\r\n\r\n"
        b"HTTP/2 200 \r\ncontent-type: text/event-stream\r\nset-cookie: session=abcdef123\r\n"
        b"x-request-id: req_7\r\n\r\n"
    )
    path = tmp_path / "curl.txt"
    body = body_of(Api.MESSAGES).replace(b"\n", b"\r\n")
    path.write_bytes(head + body)
    answer = replayed(capsys, path)
    assert answer["api"] == "messages"
    assert without_aside(answer) == without_aside(live(capsys, Api.MESSAGES, body, "demo-1"))
    from app.headless.replay import open_recording

    (exchange,) = open_recording(path)
    assert exchange.status == 200
    assert exchange.headers["x-request-id"] == "req_7"
    assert exchange.headers["set-cookie"] == "[redacted]"
    assert exchange.body == body  # the bytes exactly, the head taken off
    assert len(exchange.pieces) == body.count(b"\r\n\r\n")  # one read per frame


def test_a_captured_http_error_replays_as_that_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "429.txt"
    error = b'{"error": {"type": "rate_limit_error", "message": "slow down"}}'
    path.write_bytes(
        b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\r\n" + error
    )
    code, _, err = run(capsys, "replay", str(path), "--api", "chat")
    assert code == 1
    assert "slow down" in err


def test_api_says_the_format_where_the_frames_do_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "quiet.sse"
    path.write_bytes(b": keepalive\n\ndata: {}\n\n")
    code, out, err = run(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"triptych: cannot replay {path}: which API it is from: its frames do not say; "
        "say it with --api chat, messages or responses\n"
    )
    code, _, err = run(capsys, "replay", str(path), "--api", "responses")
    assert code == 1  # read as Responses: it ended before its last event
    assert "replay · ? · interrupted" in err


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"hello, this is a note\n",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        b"[" * 100_000,
        b'{"just": "json"}',
        b'{"log": {"entries": "nope"}}',
    ],
    ids=["empty", "text", "png", "deep", "json", "har-without-entries"],
)
def test_a_file_that_is_none_of_these_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes
) -> None:
    path = tmp_path / "x.bin"
    path.write_bytes(content)
    code, out, err = run(capsys, "replay", str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"triptych: cannot replay {path}: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    if content != b'{"log": {"entries": "nope"}}':
        assert err == f"triptych: cannot replay {path}: not {READS}\n"


# -- HAR ----------------------------------------------------------------------------------------


def har_entry(
    url: str,
    mime: str,
    text: str | None,
    *,
    body: object = None,
    base64_encoded: bool = False,
    status: object = 200,
) -> dict[str, Any]:
    content: dict[str, Any] = {"size": len(text or ""), "mimeType": mime}
    if text is not None:
        content["text"] = base64.b64encode(text.encode()).decode() if base64_encoded else text
        if base64_encoded:
            content["encoding"] = "base64"
    request: dict[str, Any] = {
        "method": "POST",
        "url": url,
        "headers": [
            {"name": "Authorization", "value": f"Bearer {KEY}"},
            {"name": "x-api-key", "value": KEY},
            {"name": "Cookie", "value": "session=cookie-secret-value"},
            {"name": "Content-Type", "value": "application/json"},
        ],
        "cookies": [{"name": "session", "value": "cookie-secret-value"}],
    }
    if body is not None:
        request["postData"] = {"mimeType": "application/json", "text": json.dumps(body)}
    return {
        "startedDateTime": "2026-12-03T09:00:00.000Z",
        "time": 900,
        "request": request,
        "response": {
            "status": status,
            "headers": [{"name": "Content-Type", "value": mime}],
            "content": content,
        },
        "timings": {"send": 1, "wait": 400, "receive": 500},
    }


def har(*entries: dict[str, Any]) -> str:
    return json.dumps({"log": {"version": "1.2", "entries": list(entries)}}, indent=2)


def test_a_har_lists_its_streamed_responses_and_replays_the_one_chosen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chat = body_of(Api.CHAT).decode()
    responses = body_of(Api.RESPONSES).decode()
    sent = {
        "model": "gpt-x",
        "messages": [{"role": "user", "content": "hi"}],
        "stream": True,
        "temperature": 0.2,
    }
    path = tmp_path / "devtools.har"
    path.write_text(
        har(
            har_entry("https://api.example.test/v1/models", "application/json", '{"data": []}'),
            har_entry(
                f"https://api.example.test/v1/chat/completions?key={KEY}",
                "text/event-stream",
                chat,
                body=sent,
            ),
            har_entry(
                "https://proxy.example.test/stream",
                "text/event-stream; charset=utf-8",
                responses,
                base64_encoded=True,
            ),
        ),
        encoding="utf-8",
    )
    code, out, err = run(capsys, "replay", str(path))
    assert code == 2
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(
        "  1  POST https://api.example.test/v1/chat/completions?key=[redacted]"
    )
    assert lines[1].startswith("  2  POST https://proxy.example.test/stream  200")
    assert err == f"triptych: {path} holds 2 streamed responses: say which with --entry N\n"

    first = replayed(capsys, path, "--entry", "1")
    assert (first["api"], first["model"], first["text"]) == ("chat", "gpt-x", "Hello, world.")
    assert first["params"] == {"temperature": 0.2}  # the request taken from the HAR
    assert first["duration_ms"] == 901  # sent, waited 400 ms, received over 500 ms
    second = replayed(capsys, path, "--entry", "2")
    assert second["api"] == "responses"  # no endpoint in its URL: told from its frames
    assert without_aside(second) == without_aside(
        live(capsys, Api.RESPONSES, responses.encode(), "demo-1")
    )

    code, out, err = run(capsys, "replay", str(path), "--entry", "3")
    assert code == 2
    assert (
        err == f"triptych: cannot replay {path}: no --entry 3: its streamed responses are 1 to 2\n"
    )

    from app.headless.replay import open_recording

    (exchange,) = open_recording(path, entry=1)
    kept = json.dumps(exchange.request) + repr(exchange.headers) + exchange.body.decode()
    assert KEY not in kept
    assert "cookie-secret-value" not in kept
    assert exchange.request["headers"]["authorization"] == "[redacted]"
    assert exchange.request["headers"]["content-type"] == "application/json"


def test_the_secrets_of_a_har_request_are_never_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    echoed = body_of(Api.CHAT).decode().replace("Hello", f"Hello {KEY}")  # a server echoing it
    path = tmp_path / "one.har"
    path.write_text(
        har(har_entry("https://x.test/v1/chat/completions", "text/event-stream", echoed))
    )
    for flags in ((), ("--json",)):
        code, out, err = run(capsys, "replay", str(path), *flags)
        assert code == 0, err
        assert KEY not in out + err
        assert KEY[:12] not in out + err
        assert "[redacted]" in out


@pytest.mark.parametrize(
    "document",
    [
        {"log": {"entries": [1, "x", None, {"response": "nope"}]}},
        {"log": {"entries": [{"response": {"content": {"mimeType": 5, "text": 3}}}]}},
        {
            "log": {
                "entries": [
                    {
                        "request": [],
                        "response": {"headers": "x", "content": {"mimeType": "text/event-stream"}},
                    }
                ]
            }
        },
        {
            "log": {
                "entries": [
                    {
                        "response": {
                            "status": True,
                            "content": {
                                "mimeType": "text/event-stream",
                                "text": "@@",
                                "encoding": "base64",
                            },
                        }
                    }
                ]
            }
        },
        {
            "log": {
                "entries": [
                    {
                        "timings": {"wait": "soon"},
                        "response": {
                            "content": {"mimeType": "text/event-stream", "text": "data: [DONE]\n\n"}
                        },
                    }
                ]
            }
        },
        {"log": []},
    ],
)
def test_bogus_har_shapes_are_one_line_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], document: object
) -> None:
    path = tmp_path / "bogus.har"
    path.write_text(json.dumps(document), encoding="utf-8")
    code, _, err = run(capsys, "replay", str(path))
    assert "Traceback" not in err
    assert code in (0, 1, 2)  # a bare `[DONE]` is a complete (empty) Chat Completions answer
    if code == 2:
        assert err.startswith(f"triptych: cannot replay {path}: ")
        assert err.count("\n") == 1


def test_escapes_invalid_utf8_and_huge_lines_stay_inert(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps({"choices": [{"delta": {"content": "\x1b[2J\x1b]52;c;AAAA\x07ok"}}]})
    body = (
        b"data: " + text.encode() + b"\n\n"
        b'data: {"choices": [{"delta": {"content": "\xff\xfe"}}]}\n\n'
        b'data: {"choices": [{"delta": {"content": "' + b"x" * 3_000_000 + b'"}}]}\n\n'
        b"data: [DONE]\n\n"
    )
    path = tmp_path / "hostile.sse"
    path.write_bytes(body)
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0, err
    assert "\x1b" not in out + err
    assert "\x07" not in out + err
    assert "ok" in out
    har_path = tmp_path / "hostile.har"
    url = "https://x.test/\x1b[31mred/v1/chat/completions"
    entry = har_entry(url, "text/event-stream", body.decode("utf-8", "replace"))
    har_path.write_text(har(entry, entry), encoding="utf-8")
    code, out, err = run(capsys, "replay", str(har_path))
    assert code == 2
    assert "\x1b" not in out + err
    assert "\\x1b[31mred" in out


def test_capture_reading_is_linear(tmp_path: Path) -> None:
    """Blank lines and frames by the hundred thousand cost one pass (measured: 32 MiB of blank
    lines split in 0.2 s, 400,000 frames in 0.9 s)."""
    blank = b"data: x\n\n" + b"\n" * (32 * 1024 * 1024)
    started = time.monotonic()
    pieces = split_frames(blank)
    assert time.monotonic() - started < 5
    assert b"".join(pieces) == blank
    assert len(pieces) == 1  # a run of blank lines goes with the frame before it
    many = b"data: {}\n\n" * 400_000
    started = time.monotonic()
    assert len(split_frames(many)) == 400_000
    assert time.monotonic() - started < 5


def test_what_a_file_is_is_told_from_its_first_bytes() -> None:
    assert capture_kind(b'{"type": "request", "format": "triptych-recording/1"}\n') == "recording"
    assert capture_kind(b'{\n  "log": {\n    "version": "1.2"') == "har"
    assert capture_kind(b"\xef\xbb\xbfdata: {}\n\n") == "raw"
    assert capture_kind(b"HTTP/1.1 200 OK\r\n") == "raw"
    assert capture_kind(b": OPENROUTER PROCESSING\n\n") == "raw"
    assert capture_kind(b"event: message_start\n") == "raw"
    assert capture_kind(b"hello") is None


# -- real captures --------------------------------------------------------------------------


def wild() -> list[Path]:
    return sorted(WILD.glob("*.sse")) if WILD.is_dir() else []


FORMAT_OF = {"chat": Api.CHAT, "msg": Api.MESSAGES, "resp": Api.RESPONSES}


@pytest.mark.skipif(not wild(), reason=f"the recorded streams are not here ({WILD} is absent)")
@pytest.mark.parametrize("path", wild(), ids=[p.stem for p in wild()])
def test_each_real_capture_replays_as_ask_json_reads_it_live(
    capsys: pytest.CaptureFixture[str], path: Path
) -> None:
    """Read from beside the repository, never copied into it."""
    answer = replayed(capsys, path)
    api = FORMAT_OF[path.stem.split("_", 1)[0]]
    assert answer["api"] == api.value  # told from its frames
    served = live(capsys, api, path.read_bytes(), answer["model"])
    assert without_aside(answer) == without_aside(served)


def test_a_damaged_har_entry_is_said_only_when_it_is_the_one_chosen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    damaged = har_entry("https://x.test/v1/messages", "text/event-stream", "ignored")
    damaged["response"]["content"].update(text="@@@", encoding="base64")
    good = har_entry(
        "https://x.test/v1/messages", "text/event-stream", body_of(Api.MESSAGES).decode()
    )
    path = tmp_path / "two.har"
    path.write_text(har(damaged, good), encoding="utf-8")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 2
    assert out.splitlines()[0].endswith("its base64 body does not decode")
    assert replayed(capsys, path, "--entry", "2")["text"] == "Hello, world."
    code, _, err = run(capsys, "replay", str(path), "--entry", "1")
    assert code == 2
    assert err == (
        f"triptych: cannot replay {path}: streamed response 1: its base64 body does not decode\n"
    )
