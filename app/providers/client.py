"""The streaming client: one `httpx.AsyncClient` per provider, one turn per request.

Every way a request can end is settled on the `Turn` (`stream` never raises, except to pass a
cancellation on): a non-2xx answer, a network failure, a body cut short, a silent provider.

Liveness. Providers keep a stream open through long silences (keepalives every 15 s; up to two
minutes without a token), so httpx's 5 s default read timeout would kill reasoning models. The
read timeout is instead the idle limit (150 s by default): httpx arms it per socket read, so
any byte — a `: keepalive` comment included — resets it.

Cancellation. Cancelling the task that awaits `stream` unwinds through `AsyncClient.stream`,
whose exit closes the response; an unfinished HTTP/1.1 body means the connection itself is
closed, so the provider sees the disconnect at once and stops generating. Nothing here wraps
the request in `asyncio.wait_for` (that adds a second cancel, which can leak a pooled
connection: encode/httpx#3782).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import httpx

from app.config import ProviderConfig
from app.conversation import Conversation
from app.providers.documents import document_events
from app.providers.errors import (
    MAX_ERROR_BODY,
    ProviderError,
    html_text,
    http_error,
    not_found_hint,
    scrub,
    stream_cut_reason,
    transport_error,
)
from app.providers.record import RecordedExchange, Recorder
from app.providers.requests import build_request, endpoint_url, request_headers
from app.wire.engine import StreamEngine
from app.wire.events import (
    Event,
    ReasoningDelta,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStart,
)
from app.wire.turn import Turn

MAX_DOCUMENT = 32 * 1024 * 1024  # a whole non-streamed answer
_TOKEN_EVENTS = (TextDelta, ReasoningDelta, ToolCallStart, ToolCallArgsDelta)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass(slots=True)
class Timing:
    """When a turn started, first showed a token and ended (`time.monotonic()` seconds)."""

    started: float
    first_token: float | None = None
    ended: float | None = None

    @property
    def ttft_ms(self) -> int | None:
        return None if self.first_token is None else round((self.first_token - self.started) * 1000)

    @property
    def duration_ms(self) -> int | None:
        return None if self.ended is None else round((self.ended - self.started) * 1000)


class _Body(Enum):
    STREAM = "stream"
    DOCUMENT = "document"
    HTML = "html"


class ProviderClient:
    """Streams answers from one provider. Reuse it across turns; `aclose` it at exit."""

    def __init__(
        self,
        provider: ProviderConfig,
        api_key: str | None,
        *,
        idle_timeout: float = 150.0,
        connect_timeout: float = 10.0,
        recorder: Recorder | None = None,
    ) -> None:
        self.provider = provider
        self.idle_timeout = idle_timeout
        self.connect_timeout = connect_timeout
        self.recorder = recorder
        self._key = api_key
        host = httpx.URL(provider.base_url).host if "://" in provider.base_url else ""
        local = host in _LOOPBACK
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(
                connect=connect_timeout, read=idle_timeout, write=60.0, pool=connect_timeout
            ),
            limits=httpx.Limits(keepalive_expiry=90.0),
            # Loopback (the demo, local servers): no proxy from the environment may capture it,
            # and plain HTTP needs no certificate store (loading one costs ~50 ms at start).
            trust_env=not local,
            verify=not (local and provider.base_url.startswith("http://")),
        )

    async def __aenter__(self) -> ProviderClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        on_event: Callable[[Event], None] | None = None,
        *,
        model: str | None = None,
    ) -> Turn:
        """Stream the next answer into `turn` (in place) and settle it.

        `model` overrides the provider's configured model for this request.
        """
        timing = timing if timing is not None else Timing(time.monotonic())
        run = _Run(turn, timing, on_event, StreamEngine(self.provider.api), (self._key,))
        try:
            request = build_request(
                self.provider, conversation, self._key, model=model, exclude=turn
            )
            recorded = None
            if self.recorder is not None:
                recorded = self.recorder.exchange(
                    request.method, request.url, request.headers, request.body, (self._key,)
                )
            run.recorded = recorded
            await self._exchange(run, request.method, request.url, request.headers, request.body)
        except asyncio.CancelledError:
            run.record_end("stopped")
            turn.end(stopped=True)
            raise
        except Exception as exc:  # a bug must not take the app down: show it on the turn
            run.fail("internal_error", f"{type(exc).__name__}: {exc}")
            run.record_end("error", str(exc))
        finally:
            timing.ended = time.monotonic()
            self._scrub(turn)
            turn.end()
        return turn

    async def list_models(self) -> list[str]:
        """Model ids from `GET {base_url}/models` (OpenAI and Anthropic list shapes).

        Raises `ProviderError` with a message fit to show.
        """
        url = endpoint_url(self.provider, "/models")
        headers = request_headers(self.provider, self._key)
        headers["Accept"] = "application/json"
        headers.pop("Content-Type", None)
        found: list[str] = []
        params: dict[str, str] = {}
        for _page in range(20):
            try:
                response = await self._http.get(url, headers=headers, params=params)
            except httpx.HTTPError as exc:
                error = transport_error(exc, url, timeout=self.connect_timeout)
                raise ProviderError(error.code, scrub(error.message, (self._key,))) from None
            if not response.is_success:
                error = http_error(
                    response.status_code,
                    response.content[:MAX_ERROR_BODY],
                    content_type=response.headers.get("content-type", ""),
                )
                raise ProviderError(error.code, scrub(error.message, (self._key,)))
            try:
                document = response.json()
            except ValueError:
                raise ProviderError("unexpected_answer", "the model list is not JSON") from None
            found.extend(_model_ids(document))
            last = document.get("last_id") if isinstance(document, dict) else None
            if not (isinstance(document, dict) and document.get("has_more") and last):
                break
            params = {"after_id": str(last)}
        return found

    # -- one exchange ----------------------------------------------------------------------------

    async def _exchange(
        self, run: _Run, method: str, url: str, headers: dict[str, str], body: dict[str, Any]
    ) -> None:
        in_body = False
        try:
            async with self._http.stream(method, url, headers=headers, json=body) as response:
                run.record_response(response)
                if not response.is_success:
                    await self._read_error(run, response)
                    return
                in_body = True
                await self._read_body(run, response)
        except httpx.HTTPError as exc:
            if not in_body:
                timeout: float | None = self.idle_timeout
                if isinstance(exc, httpx.ConnectTimeout | httpx.PoolTimeout):
                    timeout = self.connect_timeout
                elif isinstance(exc, httpx.WriteTimeout):
                    timeout = None
                error = transport_error(exc, url, timeout=timeout)
                run.fail(error.code, error.message)
                run.record_end("error", error.message)
                return
            run.apply(run.engine.close())
            if isinstance(exc, httpx.TimeoutException):
                reason = f"no data from the provider for {self.idle_timeout:g} s (idle limit)"
            else:
                reason = stream_cut_reason(exc)
            run.turn.end(reason=reason)
            run.record_end("error", reason)

    async def _read_error(self, run: _Run, response: httpx.Response) -> None:
        body = bytearray()
        try:
            async for piece in response.aiter_bytes():
                run.record_data(piece)
                body += piece
                if len(body) >= MAX_ERROR_BODY:
                    break
        except httpx.HTTPError:
            pass  # the status says enough; show whatever part of the body arrived
        error = http_error(
            response.status_code,
            bytes(body),
            content_type=response.headers.get("content-type", ""),
            retry_after=response.headers.get("retry-after"),
        )
        message = error.message
        if response.status_code == 404:
            method, url = response.request.method, str(response.request.url)
            provider = self.provider
            message += not_found_hint(
                method, url, provider.base_url, provider.api.value, error.code
            )
        if response.is_redirect:
            where = response.headers.get("location", "elsewhere")
            message += f" (redirected to {where}: check the provider's base_url)"
        run.fail(error.code, message)
        run.record_end("eof")

    async def _read_body(self, run: _Run, response: httpx.Response) -> None:
        kind: _Body | None = None
        held = bytearray()  # a document, or the bytes read while deciding what the body is
        async for piece in response.aiter_bytes():
            run.record_data(piece)
            if kind is None:
                held += piece
                kind = _body_kind(bytes(held))
                if kind is None:
                    continue
                piece, held = bytes(held), bytearray()
            if kind is _Body.STREAM:
                run.apply(run.engine.feed(piece))
                if run.engine.done:
                    run.record_end("done")
                    return
                continue
            held += piece
            if len(held) > MAX_DOCUMENT:
                run.fail("answer_too_large", "the provider's answer was too large to read")
                run.record_end("done", "too large")
                return
        run.record_end("eof")
        if kind is _Body.DOCUMENT:
            self._read_document(run, bytes(held))
        elif kind is _Body.HTML:
            page = html_text(held.decode("utf-8", "replace"))
            run.fail("unexpected_html", f"the provider sent a web page, not a stream: {page}")
        else:
            if held:
                run.apply(run.engine.feed(bytes(held)))
            run.apply(run.engine.close())

    def _read_document(self, run: _Run, body: bytes) -> None:
        try:
            document = json.loads(body.decode("utf-8", "replace"))
        except ValueError:
            sample = body[:120].decode("utf-8", "replace")
            run.fail("unexpected_answer", f"the provider's JSON answer does not parse: {sample}")
            return
        run.apply(document_events(document))

    def _scrub(self, turn: Turn) -> None:
        secrets = (self._key,)
        if turn.error is not None:
            message = scrub(turn.error.message, secrets)
            code = scrub(turn.error.code, secrets) if turn.error.code else turn.error.code
            if (code, message) != (turn.error.code, turn.error.message):
                turn.error = StreamError(code, message)
        turn.interruption = scrub(turn.interruption, secrets)


class _Run:
    """The state of one `stream` call: the turn being filled and what to tell whom."""

    def __init__(
        self,
        turn: Turn,
        timing: Timing,
        on_event: Callable[[Event], None] | None,
        engine: StreamEngine,
        secrets: tuple[str | None, ...] = (),
    ) -> None:
        self.turn = turn
        self.secrets = secrets
        self.timing = timing
        self.on_event = on_event
        self.engine = engine
        self.recorded: RecordedExchange | None = None
        self._ended = False

    def record_response(self, response: httpx.Response) -> None:
        if self.recorded is not None:
            self.recorded.response(response.status_code, response.headers)

    def record_data(self, piece: bytes) -> None:
        if self.recorded is not None:
            self.recorded.data(piece)

    def record_end(self, outcome: str, detail: str = "") -> None:
        if self.recorded is not None and not self._ended:
            self._ended = True
            self.recorded.end(outcome, detail)

    def apply(self, events: list[Event]) -> None:
        if not events:
            return
        turn, on_event = self.turn, self.on_event
        if self.timing.first_token is None and any(isinstance(e, _TOKEN_EVENTS) for e in events):
            self.timing.first_token = time.monotonic()
        for event in events:
            if type(event) is StreamError:
                # Scrubbed before the turn holds it: a render tick may show it at once.
                event = StreamError(
                    event.code and scrub(event.code, self.secrets),
                    scrub(event.message, self.secrets),
                )
            turn.apply(event)
            if on_event is not None:
                on_event(event)

    def fail(self, code: str | None, message: str) -> None:
        self.turn.fail(code and scrub(code, self.secrets), scrub(message, self.secrets))


def _body_kind(head: bytes) -> _Body | None:
    """What a 200 body is, by its first visible byte (headers lie: case 12); None: read more.

    An event stream never starts with `{` or `[` (that would be an unknown field), so those
    open a whole JSON document, and `<` an HTML page.
    """
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not start:
        return None if len(head) < 4096 else _Body.STREAM
    if start in (b"{", b"["):
        return _Body.DOCUMENT
    if start == b"<":
        return _Body.HTML
    return _Body.STREAM


def _model_ids(document: object) -> list[str]:
    items = document.get("data", document.get("models")) if isinstance(document, dict) else document
    ids: list[str] = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            ids.append(item)
        elif isinstance(item, dict):
            value = item.get("id") or item.get("name")
            if isinstance(value, str):
                ids.append(value)
    return ids


__all__ = ["ProviderClient", "Timing"]
