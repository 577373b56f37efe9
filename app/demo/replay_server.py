"""A loopback server that answers with a recording's bytes, at the recorded pace or faster.

`triptych replay FILE --ui` streams a recording into the screen through the same client and
decoder as a live answer: nothing is special-cased, the recorded bytes are simply served again
over HTTP. Each exchange of the file gets its own path (`base_url(n)`), so the exchanges of an
`ask --compare` recording can be asked for at once, side by side, each by its own provider
(`provider_for(n)`). The server is the demo's and the tests' loopback core (app/demo/loopback.py).

Pace: the status comes after the recorded wait, each read after the recorded gap since the one
before, both divided by `speed`; `speed` None serves everything at once (`--speed max`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.demo.loopback import Cut, LoopbackServer, Pause, Reply, SeenRequest, Send, Step, json_reply
from app.display.sanitize import clean_line
from app.providers.record import Exchange
from app.providers.requests import ENDPOINTS
from app.settings.config import ProviderConfig
from app.wire.api import Api

# Not replayed: the loopback server frames the body itself, and the recorded bytes were already
# decoded (a recording holds what the client read, after gzip). The loopback's own Server and
# Date are left out instead: the recorded ones (if any) are the ones shown.
_HOP_HEADERS = frozenset(
    {"content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive"}
)


def parse_speed(text: str) -> float | None:
    """`--speed X` (a positive number: X times the recorded pace) or `--speed max` (None)."""
    if text.strip().lower() == "max":
        return None
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--speed must be a positive number or max, not {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"--speed must be a positive number or max, not {text!r}")
    return value


def recorded_reply(exchange: Exchange, speed: float | None = 1.0) -> Reply:
    """The recorded answer as a loopback reply: its status and headers, its reads paced as
    they arrived (divided by `speed`; None: no pauses), cut where the recording says the
    connection failed."""
    if exchange.status is None:  # the request never got an answer
        detail = exchange.detail or "no answer was recorded"
        return json_reply(502, {"error": {"code": "no_answer", "message": detail}})
    headers = tuple((k, v) for k, v in exchange.headers.items() if k.lower() not in _HOP_HEADERS)

    def scaled(seconds: float) -> float:
        return 0.0 if speed is None else max(0.0, seconds) / speed

    started = exchange.response_t or 0.0
    steps: list[Step] = []
    last = started
    for at, piece in exchange.pieces:
        gap = scaled(at - last)
        if gap > 0:
            steps.append(Pause(gap))
        steps.append(Send(piece))
        last = max(last, at)
    if exchange.outcome == "error":  # the transport failed there: so does the replay
        steps.append(Cut())
    return Reply(exchange.status, headers, tuple(steps), wait=scaled(started), own_headers=False)


@dataclass(frozen=True, slots=True)
class ReplayedExchange:
    """One exchange of the file as the server serves it."""

    number: int  # its place in the file, from 0
    exchange: Exchange
    api: Api | None  # None: a request the app never sends (not a chat, messages or responses URL)
    model: str


class ReplayServer:
    """Serves every exchange of a recording on 127.0.0.1 until `close` (also a context manager).

    A request to `base_url(n)` + the format's endpoint gets exchange n's reply, as often as it
    is asked (a retry gets the same bytes again)."""

    def __init__(self, exchanges: list[Exchange], speed: float | None = 1.0) -> None:
        self.speed = speed
        self.exchanges = [_replayed(n, exchange) for n, exchange in enumerate(exchanges)]
        self._server = LoopbackServer(self._route)

    @property
    def requests(self) -> list[SeenRequest]:
        return self._server.requests

    def base_url(self, number: int) -> str:
        return f"{self._server.url}/replay/{number}"

    def provider_for(self, number: int) -> ProviderConfig:
        """A provider that asks this server for exchange `number` (its format and model as
        recorded); raises ValueError for an exchange the app cannot replay."""
        replayed = self.exchanges[number]
        if replayed.api is None:
            url = replayed.exchange.request.get("url")
            raise ValueError(f"exchange {number + 1} is a request to {url!r}, not an answer")
        return ProviderConfig(
            name=f"replay {number + 1}",
            api=replayed.api,
            base_url=self.base_url(number),
            model=replayed.model,
        )

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> ReplayServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _route(self, request: SeenRequest) -> Reply:
        parts = request.path.split("?", 1)[0].strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "replay" and parts[1].isdigit():
            number = int(parts[1])
            if number < len(self.exchanges):
                return recorded_reply(self.exchanges[number].exchange, self.speed)
        message = f"no recorded exchange at {request.path}"
        return json_reply(404, {"error": {"code": "not_recorded", "message": message}})


def _replayed(number: int, exchange: Exchange) -> ReplayedExchange:
    url = str(exchange.request.get("url", ""))
    path = url.split("?", 1)[0].rstrip("/")
    by_url = next((api for api, endpoint in ENDPOINTS.items() if path.endswith(endpoint)), None)
    api = exchange.api or by_url  # a capture's format was told from its frames, or said
    body = exchange.request.get("body")
    model = body.get("model") if isinstance(body, dict) else None
    # The recording's word for the model names the replayed provider everywhere (header,
    # palette, history): outside text, so an escape in it is made visible once, here.
    named = clean_line(model) if isinstance(model, str) else "?"
    return ReplayedExchange(number, exchange, api, named)


__all__ = ["ReplayServer", "ReplayedExchange", "parse_speed", "recorded_reply"]
