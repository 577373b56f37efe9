"""The tests' fake provider: scripted replies over real loopback HTTP, every request recorded.

It shares its HTTP core with the demo (app/demo/loopback.py) and its frames with the demo's
stream writer (app/demo/frames.py), so what tests send is byte-for-byte what each format's
providers send. Replies are queued with `push`; each request takes the next one. The builders
below make the faults the client must survive, in each format's own shape.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from app.demo.frames import Answer, ToolUse, frames
from app.demo.loopback import (
    Cut,
    LoopbackServer,
    Pause,
    Reply,
    SeenRequest,
    Send,
    Step,
    json_reply,
)
from app.settings.config import ProviderConfig
from app.wire.engine import Api

SSE = (("Content-Type", "text/event-stream"),)
ANSWER = Answer(
    text=("Hello", ", ", "world", "."),
    reasoning=("Thinking", " briefly."),
    tool=ToolUse("get_weather", ('{"city"', ': "Paris"}'), id="call_1"),
    input_tokens=11,
    cached_tokens=4,
)
_HEAD = {Api.CHAT: 1, Api.MESSAGES: 2, Api.RESPONSES: 1}  # frames before the first token


class FakeProvider:
    """A loopback provider. `url` is a base URL; `requests` lists what arrived, in order."""

    def __init__(self, port: int = 0) -> None:
        self.replies: deque[Reply | Callable[[SeenRequest], Reply]] = deque()
        self._server = LoopbackServer(self._route, port)

    @property
    def url(self) -> str:
        return self._server.url + "/v1"

    @property
    def requests(self) -> list[SeenRequest]:
        return self._server.requests

    def push(self, *replies: Reply | Callable[[SeenRequest], Reply]) -> FakeProvider:
        """Queue replies; a callable is a reply made from the request it answers (`echoing`)."""
        self.replies.extend(replies)
        return self

    def provider(self, api: Api, **changes: Any) -> ProviderConfig:
        base = ProviderConfig(name=f"fake-{api.value}", api=api, base_url=self.url, model="m-1")
        return replace(base, **changes)

    def last_request(self, timeout: float = 10.0) -> SeenRequest:
        deadline = time.monotonic() + timeout
        while not self.requests and time.monotonic() < deadline:
            time.sleep(0.005)
        return self.requests[-1]

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> FakeProvider:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _route(self, request: SeenRequest) -> Reply:
        if not self.replies:
            return json_reply(500, {"error": {"message": "the fake has no reply queued"}})
        reply = self.replies.popleft()
        return reply if isinstance(reply, Reply) else reply(request)


# -- replies -------------------------------------------------------------------------------------


def stream(api: Api, answer: Answer = ANSWER, *, delay: float = 0.0) -> Reply:
    """The whole answer, one frame per write, `delay` seconds apart."""
    return Reply(200, SSE, _paced(frames(api, answer), delay))


def scripted(pieces: list[tuple[float, bytes]], *, status: int = 200) -> Reply:
    """Exactly these (delay before, bytes) pieces."""
    steps: list[Step] = []
    for delay, data in pieces:
        steps += [Pause(delay), Send(data)]
    return Reply(status, SSE, tuple(steps))


def http_error(
    api: Api, status: int, code: str, message: str, *, retry_after: str | None = None
) -> Reply:
    """A non-2xx answer in the format's own error shape."""
    if api is Api.MESSAGES:
        document: dict[str, Any] = {"type": "error", "error": {"type": code, "message": message}}
    else:
        document = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    headers = (("Retry-After", retry_after),) if retry_after else ()
    return json_reply(status, document, headers=headers)


def html_page(status: int, title: str, text: str) -> Reply:
    page = (
        f"<!DOCTYPE html><html><head><title>{title}</title><style>body{{color:red}}</style>"
        f"</head><body><center><h1>{title}</h1></center><p>{text}</p></body></html>"
    )
    return Reply(status, (("Content-Type", "text/html"),), (Send(page.encode()),))


def cut_mid_event(api: Api, answer: Answer = ANSWER, *, reset: bool = False) -> Reply:
    """Frames up to the middle of the answer, half of the next one, then FIN (or RST)."""
    sent = frames(api, answer)
    middle = len(sent) // 2
    steps = [*_paced(sent[:middle], 0.0), Send(sent[middle][: len(sent[middle]) // 2])]
    if reset:
        steps.append(Pause(0.05))  # let the bytes arrive before the reset discards them
    return Reply(200, SSE, (*steps, Cut(reset=reset)))


def without_terminal(api: Api, answer: Answer = ANSWER) -> Reply:
    """A clean end of body before the format's terminal event."""
    return Reply(200, SSE, _paced(frames(api, answer)[:-1], 0.0))


def keepalive(api: Api) -> bytes:
    """Antara's keepalive: a comment on chat and responses, a `ping` event on messages."""
    if api is Api.MESSAGES:
        return b'event: ping\ndata: {"type": "ping"}\n\n'
    return b": keepalive\n\n"


def silence_with_keepalives(api: Api, count: int, every: float, answer: Answer = ANSWER) -> Reply:
    """The model goes quiet after the first event; keepalives arrive; then the answer."""
    sent = frames(api, answer)
    head = _HEAD[api]
    steps: list[Step] = [Send(b"".join(sent[:head]))]
    for _ in range(count):
        steps += [Pause(every), Send(keepalive(api))]
    return Reply(200, SSE, (*steps, *_paced(sent[head:], 0.0)))


def silent_after_start(api: Api, seconds: float, answer: Answer = ANSWER) -> Reply:
    """A few events, then nothing at all for `seconds`, then the rest."""
    sent = frames(api, answer)
    middle = len(sent) // 2
    steps = (*_paced(sent[:middle], 0.0), Pause(seconds), *_paced(sent[middle:], 0.0))
    return Reply(200, SSE, steps)


def slow_drip(api: Api, answer: Answer = ANSWER, *, size: int = 7, delay: float = 0.001) -> Reply:
    """The stream in tiny pieces that split lines, JSON and UTF-8 anywhere."""
    body = b"".join(frames(api, answer))
    pieces = [body[i : i + size] for i in range(0, len(body), size)]
    return scripted([(delay, piece) for piece in pieces])


def json_answer(document: object, *, status: int = 200) -> Reply:
    """A whole JSON document (a non-streamed answer or an error) with status 200."""
    return json_reply(status, document)


def paced_forever(api: Api, answer: Answer = ANSWER, *, delay: float = 0.05) -> Reply:
    """The first events, then one text piece every `delay` seconds for a long time."""
    long_answer = replace(answer, text=tuple(f"word{i} " for i in range(2000)))
    return stream(api, long_answer, delay=delay)


def credentials_of(request: SeenRequest) -> str:
    """Everything a request carried that a careless server echoes back: its path and query,
    every header value and the whole body."""
    headers = " ".join(f"{name}: {value}" for name, value in request.headers.items())
    return f"{request.path} {headers} {request.body.decode('utf-8', 'replace')}"


def echoing(make: Callable[[str], Reply]) -> Callable[[SeenRequest], Reply]:
    """A reply that echoes the request's credentials: `make(text)` with `credentials_of`.

    e.g. `fake.push(echoing(lambda seen: http_error(api, 401, "bad_key", seen)))`."""
    return lambda request: make(credentials_of(request))


def _paced(sent: list[bytes], delay: float) -> tuple[Step, ...]:
    steps: list[Step] = []
    for frame in sent:
        steps.append(Send(frame))
        if delay:
            steps.append(Pause(delay))
    return tuple(steps)


def document_of(api: Api, answer: Answer = ANSWER) -> dict[str, Any]:
    """The non-streamed answer a server sends when it ignores `stream: true`."""
    call = answer.tool
    text = "".join(answer.text)
    reasoning = "".join(answer.reasoning)
    if api is Api.CHAT:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if reasoning:
            message["reasoning_content"] = reasoning
        if call:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
            ]
        return {
            "id": "x",
            "object": "chat.completion",
            "model": answer.model,
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 9, "total_tokens": 20},
        }
    if api is Api.MESSAGES:
        content: list[dict[str, Any]] = []
        if reasoning:
            content.append({"type": "thinking", "thinking": reasoning, "signature": "sig"})
        content.append({"type": "text", "text": text})
        if call:
            content.append(
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    "input": json.loads(call.arguments),
                }
            )
        return {
            "id": "msg_x",
            "type": "message",
            "role": "assistant",
            "model": answer.model,
            "content": content,
            "stop_reason": "tool_use" if call else "end_turn",
            "usage": {"input_tokens": 11, "output_tokens": 9},
        }
    output: list[dict[str, Any]] = []
    if reasoning:
        output.append(
            {
                "type": "reasoning",
                "id": "rs",
                "summary": [{"type": "summary_text", "text": reasoning}],
            }
        )
    output.append(
        {
            "type": "message",
            "id": "msg",
            "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    )
    if call:
        output.append(
            {
                "type": "function_call",
                "id": "fc",
                "call_id": call.id,
                "name": call.name,
                "arguments": call.arguments,
            }
        )
    return {
        "id": "resp_x",
        "object": "response",
        "status": "completed",
        "model": answer.model,
        "output": output,
        "usage": {
            "input_tokens": 11,
            "output_tokens": 9,
            "input_tokens_details": {"cached_tokens": 0},
        },
    }


__all__ = [
    "ANSWER",
    "FakeProvider",
    "credentials_of",
    "cut_mid_event",
    "document_of",
    "echoing",
    "html_page",
    "http_error",
    "json_answer",
    "keepalive",
    "paced_forever",
    "scripted",
    "silence_with_keepalives",
    "silent_after_start",
    "slow_drip",
    "stream",
    "without_terminal",
]
