"""The offline demo provider: a loopback server that streams sample answers in all three formats.

It is not a shortcut past the real path. `triptych` and `triptych ask` talk to it over HTTP on
127.0.0.1 with the same client, the same SSE reader and the same decoders as any provider, and
it answers with each format's exact wire shape, paced like a model (a short wait for the first
token, then tens of milliseconds per piece). Which sample answers is chosen by words in the
prompt: see app/demo/samples.py; a request that ends with tool results gets a short text that
quotes them (app/demo/tool_answer.py), so a tool loop ends.

Three built-in providers share the server: `demo` (Chat Completions), `demo-messages` and
`demo-responses`, so `triptych --compare demo,demo-messages,demo-responses` works offline.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from app.demo.frames import frames
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
from app.demo.names import DEMO_APIS, DEMO_MODEL, is_demo, with_demo_providers
from app.demo.samples import sample_for
from app.demo.tool_answer import tool_answer_sample, tool_results
from app.settings.config import BUILTIN, DEMO, Config, ProviderConfig
from app.wire.api import Api

PACE_ENV = "TRIPTYCH_DEMO_PACE"
_PATHS = {
    "/v1/chat/completions": Api.CHAT,
    "/v1/messages": Api.MESSAGES,
    "/v1/responses": Api.RESPONSES,
}
_HEAD_FRAMES = {Api.CHAT: 1, Api.MESSAGES: 2, Api.RESPONSES: 1}  # sent before the first token
_SSE_HEADERS = (
    ("Content-Type", "text/event-stream; charset=utf-8"),
    ("Cache-Control", "no-cache, no-transform"),
    ("X-Accel-Buffering", "no"),
)


@dataclass(frozen=True, slots=True)
class Pacing:
    """Seconds to wait before the first token, and after each later frame."""

    first_token: float = 0.35
    per_frame: float = 0.025

    @classmethod
    def instant(cls) -> Pacing:
        return cls(0.0, 0.0)

    def scaled(self, factor: float) -> Pacing:
        """`$TRIPTYCH_DEMO_PACE` multiplies the waits: 0 streams at once (tests), 2 is slower."""
        return Pacing(self.first_token * factor, self.per_frame * factor)


class DemoServer:
    """The running demo. `url` is the base URL the demo providers use."""

    def __init__(self, pacing: Pacing | None = None) -> None:
        self.pacing = pacing or Pacing()
        self._server = LoopbackServer(self._route)

    @property
    def url(self) -> str:
        return self._server.url + "/v1"

    def provider(self, name: str = DEMO) -> ProviderConfig:
        return ProviderConfig(
            name=name, api=DEMO_APIS[name], base_url=self.url, model=DEMO_MODEL, origin=BUILTIN
        )

    def attach(self, config: Config) -> Config:
        """The config with every demo provider pointed here (and the two extra demos added)."""
        providers = dict(config.providers)
        for name in DEMO_APIS:
            known = providers.get(name)
            if known is None:
                providers[name] = self.provider(name)
            elif known.source is None:  # built in: only its address was unknown
                providers[name] = replace(known, base_url=self.url)
        return replace(config, providers=providers)

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> DemoServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _route(self, request: SeenRequest) -> Reply:
        path = request.path.split("?", 1)[0].rstrip("/")
        if request.method == "GET" and path == "/v1/models":
            models = [{"id": DEMO_MODEL, "object": "model", "owned_by": "triptych-demo"}]
            return json_reply(200, {"object": "list", "data": models})
        api = _PATHS.get(path)
        if api is None or request.method != "POST":
            return _error(api, 404, "not_found_error", f"the demo serves no {path}")
        try:
            body = json.loads(request.body)
        except ValueError:
            return _error(api, 400, "invalid_request_error", "the request body is not JSON")
        if not isinstance(body, dict):
            return _error(api, 400, "invalid_request_error", "the request body is not an object")
        history = body.get("messages", body.get("input"))
        model = str(body.get("model") or DEMO_MODEL)
        input_tokens = max(1, len(json.dumps(history)) // 4)
        results = tool_results(api, body)  # a tool loop's follow-up: answered, not called again
        if results:
            sample = tool_answer_sample(results, model=model, input_tokens=input_tokens)
        else:
            sample = sample_for(last_user_text(api, body), model=model, input_tokens=input_tokens)
        return Reply(
            200, _SSE_HEADERS, self._steps(api, frames(api, sample.answer), sample.cut_from_end)
        )

    def _steps(self, api: Api, sent: list[bytes], cut_from_end: int | None) -> tuple[Step, ...]:
        head = _HEAD_FRAMES[api]
        steps: list[Step] = [
            Send(b"".join(sent[:head])),
            Pause(self.pacing.first_token),
        ]
        end = len(sent) if cut_from_end is None else len(sent) - cut_from_end
        for frame in sent[head:end]:
            steps += [Send(frame), Pause(self.pacing.per_frame)]
        if cut_from_end is not None:
            broken = sent[end]
            steps += [Send(broken[: len(broken) // 2]), Cut()]
        return tuple(steps)


def start_demo_server(pacing: Pacing | None = None) -> DemoServer:
    return DemoServer(pacing)


def last_user_text(api: Api, body: dict[str, Any]) -> str:
    """The words of the last user message, in any of the three request shapes."""
    items = body.get("input") if api is Api.RESPONSES else body.get("messages")
    if isinstance(items, str):
        return items
    for item in reversed(items if isinstance(items, list) else []):
        if isinstance(item, dict) and item.get("role") == "user":
            text = _text_of(item.get("content"))
            if text:
                return text
    return ""


def _text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(part.get("text"))
            for part in content
            if isinstance(part, dict) and part.get("type") in ("text", "input_text")
        )
    return ""


def _error(api: Api | None, status: int, kind: str, message: str) -> Reply:
    if api is Api.MESSAGES:
        return json_reply(status, {"type": "error", "error": {"type": kind, "message": message}})
    return json_reply(status, {"error": {"message": message, "type": kind, "code": None}})


__all__ = [
    "DEMO_APIS",
    "PACE_ENV",
    "DemoServer",
    "Pacing",
    "is_demo",
    "last_user_text",
    "start_demo_server",
    "with_demo_providers",
]
