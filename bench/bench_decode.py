"""Decode benchmark: our stream engine against the floor and the official SDKs, on the same bytes.

For each wire format the script generates one long realistic stream (reasoning, answer text and
a tool call; at least 20,000 SSE events), then times four ways of turning it into an answer:

- floor:  split the body into lines and `json.loads` every data payload, nothing else;
- scan:   the same floor, but parsing with json's C scanner called directly, as the engine does
          (the least any decoder built on the standard library can do);
- engine: `StreamEngine` + `Turn` fed the body in network-sized reads (what the app does);
- sdk:    the official SDK's own stream accumulation fed the same reads offline, through an
          HTTP mock transport (docs/reference recipe): openai chat-completions and responses
          stream helpers, anthropic messages stream.

It prints events/s and MB/s for each, and the engine/floor, engine/scan and sdk/engine time
ratios. The target is engine within 2x of the floor on every format. Not part of the test run.

    /tmp/v/bin/pip install openai anthropic      # the `bench` extra; only needed for the sdk column
    /tmp/v/bin/python bench/bench_decode.py [--events 20000] [--read 16384] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from json.scanner import c_make_scanner  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.wire import Api, StreamEngine, Turn

_TEXT = (
    "the quick brown fox jumps over lazy dogs while a model streams its answer token by token "
    "ünïcödé 世界 👋 and then some more plain words to keep the deltas realistic"
)
WORDS = _TEXT.split()


def _words(i: int, n: int = 2) -> str:
    return " " + " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range(n))


def _frame(event: str | None, payload: dict[str, Any] | str) -> str:
    data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return (f"event: {event}\n" if event else "") + f"data: {data}\n\n"


# -- generators: one realistic stream per format ----------------------------------------------


def chat_stream(events: int) -> bytes:
    """Kimi/kenari-shaped chunks: reasoning_content first, then text, then one tool call."""
    head: dict[str, Any] = {"id": "cmpl-4f1c9a2e7b3d5a60", "object": "chat.completion.chunk"}
    head |= {"created": 1790000000, "model": "kimi-k3"}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return _frame(None, {**head, "choices": [choice], **extra})

    third = events // 3
    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"reasoning_content": _words(i)}) for i in range(third)]
    out += [chunk({"content": _words(i)}) for i in range(third)]
    call: dict[str, Any] = {"index": 0, "id": "call_1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": ""}
    out.append(chunk({"tool_calls": [call]}))
    out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"notes": "'}}]}))
    rest = events - len(out) - 3
    args = [{"index": 0, "function": {"arguments": _words(i)}} for i in range(rest)]
    out += [chunk({"tool_calls": [a]}) for a in args]
    out.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    usage = {"prompt_tokens": 19, "completion_tokens": events, "total_tokens": events + 19}
    out.append(chunk({}, "tool_calls"))
    out.append(_frame(None, {**head, "choices": [], "usage": usage}))
    out.append(_frame(None, "[DONE]"))
    return "".join(out).encode()


def messages_stream(events: int) -> bytes:
    """Anthropic-shaped: thinking block with signature, text block, tool_use block, pings."""
    start: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant", "model": "m"}
    start["content"] = []
    start |= {"stop_reason": None, "stop_sequence": None}
    start["usage"] = {"input_tokens": 14, "output_tokens": 1}
    out = [_frame("message_start", {"type": "message_start", "message": start})]
    third = events // 3

    def block(index: int, kind: str, body: dict[str, Any]) -> None:
        payload = {"type": "content_block_start", "index": index, "content_block": body}
        out.append(
            _frame("content_block_start", payload | {"content_block": {"type": kind, **body}})
        )

    def delta(index: int, body: dict[str, Any]) -> None:
        payload = {"type": "content_block_delta", "index": index, "delta": body}
        out.append(_frame("content_block_delta", payload))

    def stop(index: int) -> None:
        out.append(_frame("content_block_stop", {"type": "content_block_stop", "index": index}))

    block(0, "thinking", {"thinking": "", "signature": ""})
    for i in range(third):
        delta(0, {"type": "thinking_delta", "thinking": _words(i)})
        if i % 1000 == 999:
            out.append(_frame("ping", {"type": "ping"}))
    delta(0, {"type": "signature_delta", "signature": "c2lnbmF0dXJl"})
    stop(0)
    block(1, "text", {"text": ""})
    for i in range(third):
        delta(1, {"type": "text_delta", "text": _words(i)})
    stop(1)
    block(2, "tool_use", {"id": "toolu_1", "name": "get_weather", "input": {}})
    delta(2, {"type": "input_json_delta", "partial_json": '{"notes": "'})
    for i in range(events - len(out) - 4):
        delta(2, {"type": "input_json_delta", "partial_json": _words(i)})
    delta(2, {"type": "input_json_delta", "partial_json": '"}'})
    stop(2)
    end = {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}}
    out.append(_frame("message_delta", end | {"usage": {"output_tokens": events}}))
    out.append(_frame("message_stop", {"type": "message_stop"}))
    return "".join(out).encode()


def responses_stream(events: int) -> bytes:
    """OpenAI-shaped: every event OpenAI sends, reasoning summary, message, function call."""
    seq = iter(range(10**9))
    out: list[str] = []

    def emit(kind: str, **body: Any) -> None:
        out.append(_frame(kind, {"type": kind, **body, "sequence_number": next(seq)}))

    response = {"id": "resp_1", "object": "response", "model": "m", "status": "in_progress"}
    emit("response.created", response=response)
    emit("response.in_progress", response=response)
    third = events // 3
    reasoning: dict[str, Any] = {"id": "rs_1", "type": "reasoning", "summary": []}
    emit("response.output_item.added", output_index=0, item=reasoning)
    part = {"type": "summary_text", "text": ""}
    emit("response.reasoning_summary_part.added", item_id="rs_1", output_index=0,
         summary_index=0, part=part)  # fmt: skip
    summary = []
    for i in range(third):
        summary.append(_words(i))
        emit("response.reasoning_summary_text.delta", item_id="rs_1", output_index=0,
             summary_index=0, delta=summary[-1])  # fmt: skip
    summary_text = "".join(summary)
    emit("response.reasoning_summary_text.done", item_id="rs_1", output_index=0,
         summary_index=0, text=summary_text)  # fmt: skip
    reasoning = reasoning | {"summary": [{"type": "summary_text", "text": summary_text}]}
    emit("response.output_item.done", output_index=0, item=reasoning)
    message: dict[str, Any] = {"id": "msg_1", "type": "message", "role": "assistant"}
    message["status"] = "in_progress"
    emit("response.output_item.added", output_index=1, item=message | {"content": []})
    text_part = {"type": "output_text", "text": "", "annotations": []}
    emit("response.content_part.added", item_id="msg_1", output_index=1, content_index=0,
         part=text_part)  # fmt: skip
    text = []
    for i in range(third):
        text.append(_words(i))
        emit("response.output_text.delta", item_id="msg_1", output_index=1, content_index=0,
             delta=text[-1], logprobs=[])  # fmt: skip
    full_text = "".join(text)
    emit("response.output_text.done", item_id="msg_1", output_index=1, content_index=0,
         text=full_text, logprobs=[])  # fmt: skip
    done_part = text_part | {"text": full_text}
    emit("response.content_part.done", item_id="msg_1", output_index=1, content_index=0,
         part=done_part)  # fmt: skip
    message_done = message | {"status": "completed", "content": [done_part]}
    emit("response.output_item.done", output_index=1, item=message_done)
    call = {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "get_weather"}
    emit("response.output_item.added", output_index=2,
         item=call | {"arguments": "", "status": "in_progress"})  # fmt: skip
    args = ['{"notes": "']
    args += [_words(i) for i in range(events - len(out) - 4)]
    args.append('"}')
    for piece in args:
        emit("response.function_call_arguments.delta", item_id="fc_1", output_index=2,
             delta=piece)  # fmt: skip
    arguments = "".join(args)
    emit("response.function_call_arguments.done", item_id="fc_1", output_index=2,
         arguments=arguments)  # fmt: skip
    call_done = call | {"arguments": arguments, "status": "completed"}
    emit("response.output_item.done", output_index=2, item=call_done)
    usage = {"input_tokens": 14, "input_tokens_details": {"cached_tokens": 0}}
    usage |= {"output_tokens": events, "output_tokens_details": {"reasoning_tokens": third}}
    usage["total_tokens"] = events + 14
    final = response | {"status": "completed", "usage": usage}
    emit("response.completed", response=final | {"output": [reasoning, message_done, call_done]})
    return "".join(out).encode()


GENERATORS: dict[Api, Callable[[int], bytes]] = {
    Api.CHAT: chat_stream,
    Api.MESSAGES: messages_stream,
    Api.RESPONSES: responses_stream,
}


# -- the three decoders under test -------------------------------------------------------------


def floor(body: bytes) -> int:
    """The least any decoder must do: find data lines and parse their JSON."""
    count = 0
    loads = json.loads
    for line in body.split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            loads(line[6:])
            count += 1
    return count


_scan_once = c_make_scanner(json.JSONDecoder())


def floor_scan(body: bytes) -> int:
    """The floor with the parser call the engine uses: json's C scanner, called directly."""
    count = 0
    scan = _scan_once
    for line in body.split(b"\n"):
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            scan(line[6:].decode("utf-8", "replace"), 0)
            count += 1
    return count


def engine(api: Api, pieces: list[bytes]) -> Turn:
    """What the app does with a response body: feed reads, fold events, settle."""
    stream = StreamEngine(api)
    turn = Turn()
    for piece in pieces:
        turn.apply_all(stream.feed(piece))
        if stream.done:
            break
    turn.apply_all(stream.close())
    turn.end()
    return turn


def _mock_client(sdk: str, pieces: list[bytes]) -> Any:
    base = importlib.import_module(f"{sdk}._base_client")
    h = getattr(base, "httpx2", None) or base.httpx

    class Body(h.SyncByteStream):  # type: ignore[misc, name-defined]
        def __iter__(self) -> Iterator[bytes]:
            yield from pieces

    def handler(request: Any) -> Any:
        return h.Response(200, headers={"content-type": "text/event-stream"}, stream=Body())

    return h.Client(transport=h.MockTransport(handler))


def sdk_chat(pieces: list[bytes]) -> tuple[str, str]:
    """openai's chat-completions stream helper; returns (text, tool arguments) to cross-check."""
    import openai

    client = openai.OpenAI(
        api_key="test", base_url="http://oracle.invalid/v1",
        http_client=_mock_client("openai", pieces), max_retries=0,
    )  # fmt: skip
    with client.chat.completions.stream(
        model="m", messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        message = stream.get_final_completion().choices[0].message
    calls = [c for c in message.tool_calls or [] if c.type == "function"]
    return message.content or "", calls[0].function.arguments


def sdk_messages(pieces: list[bytes]) -> tuple[str, str]:
    """anthropic's messages stream; returns (text, tool input as JSON) to cross-check."""
    import anthropic

    client = anthropic.Anthropic(
        api_key="test", base_url="http://oracle.invalid",
        http_client=_mock_client("anthropic", pieces), max_retries=0,
    )  # fmt: skip
    with client.messages.stream(
        model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        message = stream.get_final_message()
    text = "".join(b.text for b in message.content if b.type == "text")
    args = next(json.dumps(b.input) for b in message.content if b.type == "tool_use")
    return text, args


def sdk_responses(pieces: list[bytes]) -> tuple[str, str]:
    """openai's responses stream helper; returns (text, tool arguments) to cross-check."""
    import openai

    client = openai.OpenAI(
        api_key="test", base_url="http://oracle.invalid/v1",
        http_client=_mock_client("openai", pieces), max_retries=0,
    )  # fmt: skip
    with client.responses.stream(model="m", input="hi") as stream:
        response = stream.get_final_response()
    args = next(i.arguments for i in response.output if i.type == "function_call")
    return response.output_text, args


SDKS: dict[Api, Callable[[list[bytes]], tuple[str, str]]] = {
    Api.CHAT: sdk_chat,
    Api.MESSAGES: sdk_messages,
    Api.RESPONSES: sdk_responses,
}


# -- timing --------------------------------------------------------------------------------------


def best_times(repeat: int, runs: dict[str, Callable[[], object]]) -> dict[str, float]:
    """Best wall time of each run over `repeat` rounds, GC paused as the app pauses it.

    Rounds interleave the runs, so a noisy neighbour slows all of them alike rather than
    whichever happened to be timed during the noise.
    """
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)
            finally:
                gc.enable()
    return {name: min(values) for name, values in times.items()}


def split(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000, help="SSE events per stream")
    parser.add_argument("--read", type=int, default=16_384, help="bytes per network read")
    parser.add_argument("--repeat", type=int, default=5, help="runs per measurement (best)")
    parser.add_argument("--no-sdk", action="store_true", help="skip the SDK column")
    opts = parser.parse_args()
    try:
        importlib.import_module("openai")
        importlib.import_module("anthropic")
        with_sdk = not opts.no_sdk
    except ImportError:
        print("openai/anthropic not installed: sdk column skipped (pip install openai anthropic)")
        with_sdk = False

    print(f"python {sys.version.split()[0]}, {opts.events:,} events per stream, "
          f"{opts.read:,}-byte reads, best of {opts.repeat}")  # fmt: skip
    header = f"{'format':<10} {'decoder':<7} {'events/s':>12} {'MB/s':>8} {'ms':>9}"
    print(header)
    worst = 0.0
    for api, generate in GENERATORS.items():
        body = generate(opts.events)
        pieces = split(body, opts.read)
        events = floor(body)
        turn = engine(api, pieces)
        assert turn.status == "complete", turn.status
        assert turn.text, "no text"
        assert turn.reasoning, "no reasoning"
        assert turn.tool_calls[0].value is not None, "tool arguments did not parse"
        runs: dict[str, Callable[[], object]] = {
            "floor": partial(floor, body),
            "scan": partial(floor_scan, body),
            "engine": partial(engine, api, pieces),
        }
        if with_sdk:
            text, args = SDKS[api](pieces)
            same = text == turn.text and json.loads(args) == turn.tool_calls[0].value
            assert same, f"{api}: the SDK and the engine disagree"
            runs["sdk"] = partial(SDKS[api], pieces)
        rows = best_times(opts.repeat, runs)
        for name, seconds in rows.items():
            rate, mbs = events / seconds, len(body) / seconds / 1e6
            print(f"{api.value:<10} {name:<7} {rate:>12,.0f} {mbs:>8.1f} {seconds * 1e3:>9.1f}")
        ratio = rows["engine"] / rows["floor"]
        worst = max(worst, ratio)
        line = f"{api.value:<10} engine/floor = {ratio:.2f}x   engine/scan = "
        line += f"{rows['engine'] / rows['scan']:.2f}x"
        if "sdk" in rows:
            line += f"   sdk/engine = {rows['sdk'] / rows['engine']:.2f}x"
        print(f"{line}   ({len(body) / 1e6:.1f} MB, {events:,} events)\n")
    verdict = "met" if worst <= 2.0 else "NOT met"
    print(f"target engine <= 2x floor on every format: {verdict} (worst {worst:.2f}x)")
    return 0 if worst <= 2.0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
