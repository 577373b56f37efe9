"""The streaming client: one `httpx.Client` per provider, one turn per request, each request
run on a thread of its own (app/providers/threaded.py) and its reads decoded on the event loop.

Every way a request can end is settled on the `Turn` (`stream` never raises, except to pass a
cancellation on): a non-2xx answer, a network failure, a body cut short, a silent provider.

Liveness. Providers keep a stream open through long silences (keepalives every 15 s; up to two
minutes without a token), so httpx's 5 s default read timeout would kill reasoning models. The
read timeout is instead the idle limit (150 s by default): httpx arms it per socket read, so
any byte — a `: keepalive` comment included — resets it.

Cancellation. Cancelling the task that awaits `stream` shuts the request's socket down at
once (`Exchange.stop`), so the provider sees the disconnect and stops generating; the thread's
read returns and it closes the response. Nothing here wraps the request in `asyncio.wait_for`
(a second cancel, which leaked pooled connections with the async client: encode/httpx#3782).
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import ssl
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from enum import Enum
from importlib.util import find_spec
from typing import Any
from urllib.parse import urlsplit

import httpx

from app.providers.capture import KEEP_BYTES, ExchangeCapture
from app.providers.documents import document_events
from app.providers.errors import (
    MAX_ERROR_BODY,
    ProviderError,
    html_text,
    http_error,
    no_key_message,
    not_found_hint,
    stream_cut_reason,
    transport_error,
)
from app.providers.params import ParamError, RequestParams, sent_params
from app.providers.record import RecordedExchange, Recorder
from app.providers.requests import ProviderRequest, build_request, endpoint_url, request_headers
from app.providers.threaded import Exchange, ThreadedHttp
from app.providers.timing import Timing
from app.settings.catalogue import FINISH_REASON
from app.settings.config import ProviderConfig
from app.settings.paths import config_path
from app.settings.redaction import (
    REDACTED,
    Redactor,
    param_secrets,
    provider_secrets,
    scrub,
    scrub_cut,
    scrub_json,
    unique,
    url_secrets,
    without_userinfo,
)
from app.wire.conversation import Conversation
from app.wire.engine import Api, StreamEngine
from app.wire.events import (
    Event,
    Finish,
    ReasoningDelta,
    ServerToolUse,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
)
from app.wire.tools import ToolSpec
from app.wire.turn import Turn

MAX_DOCUMENT = 32 * 1024 * 1024  # a whole non-streamed answer
MAX_MODEL_LIST = 8 * 1024 * 1024  # `GET /models`: thousands of ids fit in far less
_Channel = tuple[type, int]  # a delta's type and, for tool arguments, the call's index
_TOKEN_EVENTS = (TextDelta, ReasoningDelta, ToolCallStart, ToolCallArgsDelta)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_READABLE_ENCODINGS = frozenset(
    {"identity", "gzip", "deflate"}
    | ({"br"} if find_spec("brotli") or find_spec("brotlicffi") else set())
    | ({"zstd"} if find_spec("zstandard") else set())
)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9._+-]{0,23}")
USAGE_REJECTED = (
    "the provider rejected stream_options (the usage request): asked again without it, and no"
    " longer sends it to this provider; set include_usage = false in its config to skip the retry"
)


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
        keep_stream: int = KEEP_BYTES,
        take_every: float = 0.0,
    ) -> None:
        """`take_every`: seconds at least between two takes of the reads of an answer's body
        (`Exchange.pieces`): an app that draws a few frames a second need not be woken for
        every read, one per token; 0 takes each read as it comes (`ask` prints it at once)."""
        self.provider = provider
        self.take_every = take_every
        self.keep_stream = keep_stream  # bytes of each answer's body its captured exchange keeps
        self.idle_timeout = idle_timeout
        self.connect_timeout = connect_timeout
        self.recorder = recorder
        self._key = api_key
        self.secrets = provider_secrets(provider, api_key)
        self._target = _sendable(provider, api_key)
        # A config or environment httpx cannot use (a port that is not a number, a missing
        # SSL_CERT_FILE, a malformed HTTPS_PROXY) fails each turn with a clear message instead
        # of raising here, where the caller (a UI action) has no error handling of its own.
        self._broken: StreamError | None = None
        self._http: ThreadedHttp | None = None
        try:
            self._http = self._client(connect_timeout, idle_timeout)
        except Exception as exc:
            self._broken = StreamError("bad_config", scrub_cut(_setup_problem(exc), self.secrets))

    def _client(self, connect_timeout: float, idle_timeout: float) -> ThreadedHttp:
        base_url = self._target.base_url
        try:
            host = httpx.URL(base_url).host if "://" in base_url else ""
        except (httpx.InvalidURL, ValueError, TypeError) as exc:
            raise _BadBaseUrl(str(exc)) from None
        local = host in _LOOPBACK
        client = httpx.Client(
            timeout=httpx.Timeout(
                connect=connect_timeout, read=idle_timeout, write=60.0, pool=connect_timeout
            ),
            limits=httpx.Limits(keepalive_expiry=90.0),
            # Loopback (the demo, local servers): no proxy from the environment may capture it,
            # and plain HTTP needs no certificate store (loading one costs ~50 ms at start).
            trust_env=not local,
            verify=not (local and base_url.startswith("http://")),
        )
        return ThreadedHttp(client)

    async def __aenter__(self) -> ProviderClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._http is not None:
            self._http.close()

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        on_event: Callable[[Event], None] | None = None,
        *,
        model: str | None = None,
        params: RequestParams | None = None,
        tools: Sequence[ToolSpec] = (),
        on_response: Callable[[int, Mapping[str, str]], None] | None = None,
    ) -> Turn:
        """Stream the next answer into `turn` (in place) and settle it.

        `model` overrides the provider's configured model for this request; `params` its
        `params` (a knob the format does not take fails the turn with `bad_params`, unsent);
        `tools` are offered to the model with it. `on_response` is told the status and headers as
        they arrive (`triptych batch` reads a 429's Retry-After).
        """
        timing = timing if timing is not None else Timing(time.monotonic())
        secrets = self.secrets
        if params is not None and params.extra:  # `--param api_key=…`: a secret of this request
            secrets = unique([*secrets, *param_secrets(params.extra)])
        run = _Run(turn, timing, on_event, StreamEngine(self.provider.api), secrets)
        run.on_response = on_response
        try:
            if self._http is None:
                broken = self._broken or StreamError("bad_config", "no HTTP client")
                run.fail(broken.code, broken.message)
                return turn
            try:
                request = build_request(
                    self._target,
                    conversation,
                    self._key,
                    model=model,
                    exclude=turn,
                    params=params,
                    tools=tools,
                )
            except ParamError as exc:
                run.fail("bad_params", str(exc))
                return turn
            turn.params = scrub_json(sent_params(request.body), run.secrets)
            recorded = None
            if self.recorder is not None:
                recorded = self.recorder.exchange(
                    request.method, request.url, request.headers, request.body, run.secrets
                )
            run.recorded = recorded
            self._capture(run, request)
            run.usage_requested = self._asks_usage(request.body) and (
                params is None or "stream_options" not in params.extra
            )
            await self._exchange(
                self._http, run, request.method, request.url, request.headers, request.body
            )
            if run.usage_rejected:
                await self._again_without_usage(self._http, run, conversation, model, params)
        except asyncio.CancelledError:
            run.flush()
            run.record_end("stopped")
            run.end_capture("stopped")
            turn.end(stopped=True)
            raise
        except Exception as exc:  # a bug must not take the app down: show it on the turn
            run.fail("internal_error", f"{type(exc).__name__}: {exc}")
            run.record_end("error", str(exc))
        finally:
            run.end_capture("eof")
            timing.ended = run.clock_reading()
            run.flush()
            self._scrub(turn, run.secrets)
            if tools:
                _providers_own_calls(turn, {tool.name for tool in tools})
            turn.end()
        return turn

    def _capture(self, run: _Run, request: ProviderRequest) -> None:
        """Capture this request's exchange on the turn (`turn.exchange`) as it streams; a retry's
        capture keeps the one it replaces as `retried`. The turn's timing starts here too: TTFT
        and duration are the provider's, from the request that answered, as the inspector's
        timeline of this capture measures them, not from whatever the caller did before it
        (the app's first prompt loads the client and starts the demo: ~140 ms on the demo)."""
        run.timing.started = time.monotonic()
        capture = ExchangeCapture(
            request.method,
            request.url,
            request.headers,
            request.body,
            run.secrets,
            keep_bytes=self.keep_stream,
            started=run.timing.started,  # one clock: the timeline's times are the turn's
        )
        if run.capture is not None:
            capture.exchange.retried = run.capture.exchange
        run.capture = capture
        run.engine.tap = capture.tap
        run.turn.exchange = capture.exchange

    def _asks_usage(self, body: dict[str, Any]) -> bool:
        """Whether this request carries the `stream_options` Triptych added (not the user's)."""
        return (
            self._target.api is Api.CHAT
            and self._target.include_usage
            and "stream_options" not in self._target.params
            and "stream_options" in body
        )

    async def _again_without_usage(
        self,
        http: ThreadedHttp,
        run: _Run,
        conversation: Conversation,
        model: str | None,
        params: RequestParams | None,
    ) -> None:
        """A server that refuses `stream_options` (a 400 naming it) is asked once more without
        it; the client remembers, so the next turns do not try again, and the turn says so."""
        self._target = replace(self._target, include_usage=False)
        run.turn.notices.append(USAGE_REJECTED)
        run.usage_requested = run.usage_rejected = False
        request = build_request(
            self._target, conversation, self._key, model=model, exclude=run.turn, params=params
        )
        run.turn.params = scrub_json(sent_params(request.body), run.secrets)
        if self.recorder is not None:
            run.recorded = self.recorder.exchange(
                request.method, request.url, request.headers, request.body, run.secrets
            )
        run.reopen()
        self._capture(run, request)
        await self._exchange(http, run, request.method, request.url, request.headers, request.body)

    async def list_models(self) -> list[str]:
        """Model ids from `GET {base_url}/models` (OpenAI and Anthropic list shapes).

        Raises `ProviderError` with a message fit to show.
        """
        if self._http is None:
            broken = self._broken or StreamError("bad_config", "no HTTP client")
            raise ProviderError(broken.code, broken.message)
        url = endpoint_url(self._target, "/models")
        headers = request_headers(self._target, self._key)
        headers["Accept"] = "application/json"
        headers.pop("Content-Type", None)
        secrets = self.secrets
        found: list[str] = []
        params: dict[str, str] = {}
        for _page in range(20):
            try:
                response, body, unreadable = await _get_capped(self._http, url, headers, params)
            except httpx.HTTPError as exc:
                error = transport_error(exc, url, timeout=self.connect_timeout)
                raise ProviderError(error.code, scrub_cut(error.message, secrets)) from None
            if not response.is_success:
                error = http_error(
                    response.status_code,
                    body,
                    content_type=response.headers.get("content-type", ""),
                    secrets=secrets,
                )
                message = error.message
                if unreadable is not None:
                    message += (
                        f" (the body is compressed as {unreadable}, which Triptych cannot read)"
                    )
                code = error.code and scrub(error.code, secrets)
                raise ProviderError(code, scrub_cut(message, secrets))
            if unreadable is not None:
                raise ProviderError(
                    "unreadable_encoding",
                    f"the provider sent the model list compressed as {unreadable}, which Triptych"
                    " cannot read (it reads gzip and deflate)",
                )
            if len(body) > MAX_MODEL_LIST:
                raise ProviderError("answer_too_large", "the model list was too large to read")
            try:
                document = json.loads(body.decode("utf-8", "replace"))
            except (ValueError, RecursionError):  # `[[[[…` nests deeper than Python recurses
                raise ProviderError("unexpected_answer", "the model list is not JSON") from None
            found.extend(scrub(model_id, secrets) for model_id in _model_ids(document))
            last = document.get("last_id") if isinstance(document, dict) else None
            if not (isinstance(document, dict) and document.get("has_more") and last):
                break
            params = {"after_id": str(last)}
        return found

    # -- one exchange ----------------------------------------------------------------------------

    async def _exchange(
        self,
        http: ThreadedHttp,
        run: _Run,
        method: str,
        url: str,
        headers: dict[str, str],
        body: dict[str, Any],
    ) -> None:
        in_body = False
        try:
            async with http.stream(method, url, headers=headers, json=body) as exchange:
                response = exchange.response
                run.record_response(response, exchange.response_at)
                if run.on_response is not None:
                    run.on_response(response.status_code, response.headers)
                if not response.is_success:
                    await self._read_error(run, exchange)
                    return
                in_body = True
                await self._read_body(run, exchange)
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
            run.flush()
            if isinstance(exc, httpx.TimeoutException):
                reason = f"no data from the provider for {self.idle_timeout:g} s (idle limit)"
            else:
                reason = stream_cut_reason(exc)
            run.turn.end(reason=scrub_cut(reason, run.secrets))
            run.record_end("error", reason)

    async def _read_error(self, run: _Run, exchange: Exchange) -> None:
        response = exchange.response
        body = bytearray()
        unreadable = _unreadable_encoding(response.headers.get("content-encoding", ""))
        try:
            if unreadable is None:  # else its bytes would read as noise
                async for piece, at in exchange.pieces():
                    run.record_data(piece, at)
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
            secrets=run.secrets,
        )
        message = error.message
        if (
            run.usage_requested
            and response.status_code == 400
            and ("stream_options" in message or b"stream_options" in body)
        ):
            run.usage_rejected = True  # `stream` asks again without it
            run.record_end("eof")
            return
        if response.status_code in (401, 403) and not self._sends_key():
            message = no_key_message(self.provider.name, self.provider.source or config_path())
        if response.status_code == 404:
            method, url = response.request.method, str(response.request.url)
            provider = self.provider
            message += not_found_hint(
                method, url, provider.base_url, provider.api.value, error.code
            )
        if unreadable is not None:
            message += f" (the body is compressed as {unreadable}, which Triptych cannot read)"
        if response.is_redirect:
            where = _short_header(response.headers.get("location")) or "elsewhere"
            message += f" (redirected to {where}: check the provider's base_url)"
        run.fail(error.code, message)
        run.record_end("eof")

    def _sends_key(self) -> bool:
        """Whether requests carry a credential: the key, or a header or URL of the provider's
        own that looks like one (a refusal then is about that credential, not its absence)."""
        if self._key:
            return True
        target = self._target
        named = [name.lower() for name in target.headers]
        if any(word in name for name in named for word in ("auth", "key", "token")):
            return True
        try:
            query = urlsplit(target.base_url).query.lower()
        except ValueError:
            return False
        return any(word in query for word in ("key=", "token=", "auth"))

    async def _read_body(self, run: _Run, exchange: Exchange) -> None:
        response = exchange.response
        unreadable = _unreadable_encoding(response.headers.get("content-encoding", ""))
        if unreadable is not None:
            run.fail(
                "unreadable_encoding",
                f"the provider sent its answer compressed as {unreadable}, which Triptych cannot"
                " read (it reads gzip and deflate)",
            )
            run.record_end("done", "unreadable encoding")
            return
        kind: _Body | None = None
        held = bytearray()  # a document, or the bytes read while deciding what the body is
        async for piece, at in exchange.pieces(every=self.take_every):
            run.record_data(piece, at)
            if kind is None:
                held += piece
                kind = _body_kind(piece, len(held))  # the new piece only: linear in the body
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
            if kind is _Body.HTML and len(held) >= MAX_ERROR_BODY:
                break  # a page is read only for the few words shown of it
            if len(held) > MAX_DOCUMENT:
                run.fail("answer_too_large", "the provider's answer was too large to read")
                run.record_end("done", "too large")
                return
        run.record_end("eof")
        if kind is _Body.DOCUMENT:
            self._read_document(run, bytes(held))
        elif kind is _Body.HTML:
            page = html_text(scrub(held.decode("utf-8", "replace"), run.secrets))
            run.fail("unexpected_html", f"the provider sent a web page, not a stream: {page}")
        else:
            if held:
                run.apply(run.engine.feed(bytes(held)))
            run.apply(run.engine.close())
            self._ended_without_terminal(run)

    def _ended_without_terminal(self, run: _Run) -> None:
        """A Chat body that ended cleanly after every choice's finish_reason but before [DONE]:
        complete for a provider whose streams end that way (`stream_end = "finish_reason"`),
        else interrupted, with a message naming the setting. A cut body never gets here."""
        turn, engine = run.turn, run.engine
        if (
            turn.terminal_seen
            or turn.error is not None
            or engine.truncated
            or not engine.choices_finished
        ):
            return
        if self.provider.stream_end == FINISH_REASON:
            turn.ended_at_finish = True
            return
        turn.interruption = missing_terminal(self.provider, turn.finish_reason or "")
        if run.capture is not None:
            run.capture.exchange.detail = f"no [DONE] after finish_reason {turn.finish_reason!r}"

    def _read_document(self, run: _Run, body: bytes) -> None:
        try:
            document = json.loads(body.decode("utf-8", "replace"))
        except (ValueError, RecursionError):  # `[[[[…` nests deeper than Python recurses
            sample = scrub(body.decode("utf-8", "replace"), run.secrets)[:120]
            run.fail("unexpected_answer", f"the provider's JSON answer does not parse: {sample}")
            return
        run.apply(document_events(document))

    def _scrub(self, turn: Turn, secrets: tuple[str, ...]) -> None:
        if turn.error is not None:
            message = scrub_cut(turn.error.message, secrets)
            code = scrub(turn.error.code, secrets) if turn.error.code else turn.error.code
            if (code, message) != (turn.error.code, turn.error.message):
                turn.error = StreamError(code, message)
        turn.interruption = scrub_cut(turn.interruption, secrets)


class _Run:
    """The state of one `stream` call: the turn being filled and what to tell whom."""

    def __init__(
        self,
        turn: Turn,
        timing: Timing,
        on_event: Callable[[Event], None] | None,
        engine: StreamEngine,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.turn = turn
        self.secrets = secrets
        # One per stream of pieces (text, reasoning, each call's arguments): a key split across
        # two deltas is caught; only a tail that could start a key is ever held back.
        self._redactors: dict[_Channel, Redactor[str]] = {}
        self.timing = timing
        self.on_event = on_event
        self.engine = engine
        self.recorded: RecordedExchange | None = None
        self.on_response: Callable[[int, Mapping[str, str]], None] | None = None
        self.capture: ExchangeCapture | None = None
        self._ended = False
        self.usage_requested = False  # the request carries Triptych's own stream_options
        self.usage_rejected = False  # ...and a 400 named it: ask again without

    def reopen(self) -> None:
        """A new exchange (the retry) is recorded: its end is written too."""
        self._ended = False

    def record_response(self, response: httpx.Response, at: float) -> None:
        """The response's status and headers, which arrived at `at` (`time.monotonic()`)."""
        if self.recorded is not None:
            self.recorded.response(response.status_code, response.headers, at)
        if self.capture is not None:
            capture = self.capture
            capture.response(response.status_code, response.headers, capture.ms_at(at))

    def record_data(self, piece: bytes, at: float) -> None:
        """A network read, which arrived at `at` (`time.monotonic()`)."""
        if self.recorded is not None:
            self.recorded.data(piece, at)
        if self.capture is not None:
            self.capture.data(piece, self.capture.ms_at(at))

    def record_end(self, outcome: str, detail: str = "") -> None:
        if self._ended:
            return
        self._ended = True
        if self.recorded is not None:
            self.recorded.end(outcome, detail)
        self.end_capture(outcome, detail)

    def end_capture(self, outcome: str, detail: str = "") -> None:
        """The captured exchange's ending (the first one said wins)."""
        if self.capture is not None:
            self.capture.end(outcome, detail)

    def read_at(self) -> float:
        """When the network read being decoded arrived, as the capture timed it: the first
        token is the same moment in the turn's TTFT and in the inspector's timeline (and so in
        the panes, the ranking, the history and `--json`), not a reading taken a little later."""
        capture = self.capture
        if capture is None:
            return time.monotonic()
        return self.timing.started + capture.read_ms / 1000

    def clock_reading(self) -> float:
        """The end of the turn: when its capture ended, on the capture's clock."""
        capture = self.capture
        ended = None if capture is None else capture.exchange.ended_ms
        if ended is None:
            return time.monotonic()
        return self.timing.started + ended / 1000

    def apply(self, events: list[Event]) -> None:
        if not events:
            return
        if self.timing.first_token is None and any(isinstance(e, _TOKEN_EVENTS) for e in events):
            self.timing.first_token = self.read_at()
        if not self.secrets:
            self._deliver(events)
            return
        # Scrubbed before the turn holds anything: a render tick may show it at once.
        for event in events:
            self._deliver(self._redacted(event))

    def _deliver(self, events: list[Event]) -> None:
        turn, on_event = self.turn, self.on_event
        for event in events:
            turn.apply(event)
            if on_event is not None:
                on_event(event)

    def _redacted(self, event: Event) -> list[Event]:
        kind = type(event)
        if kind is TextDelta or kind is ReasoningDelta or kind is ToolCallArgsDelta:
            channel: _Channel = (kind, getattr(event, "index", 0))
            out = self.flush(but=channel)
            piece = self._redactor(channel).feed(_piece(event))
            if piece:
                out.append(_with_piece(event, piece))
            return out
        out = self.flush()
        out.append(_scrubbed(event, self.secrets))
        return out

    def _redactor(self, channel: _Channel) -> Redactor[str]:
        redactor = self._redactors.get(channel)
        if redactor is None:
            redactor = self._redactors[channel] = Redactor(self.secrets, REDACTED)
        return redactor

    def flush(self, but: _Channel | None = None) -> list[Event]:
        """Release held tails (all channels, or all but one); applied by the caller when
        `but` is given, else applied here."""
        out: list[Event] = []
        for channel, redactor in self._redactors.items():
            if channel == but or not redactor.pending:
                continue
            kind, index = channel
            out.append(_make_piece(kind, index, redactor.flush()))
        if but is None and out:
            self._deliver(out)
            return []
        return out

    def fail(self, code: str | None, message: str) -> None:
        self.turn.fail(code and scrub(code, self.secrets), scrub_cut(message, self.secrets))


def _piece(event: Event) -> str:
    if type(event) is ToolCallArgsDelta:
        return event.fragment
    assert type(event) is TextDelta or type(event) is ReasoningDelta
    return event.text


def _make_piece(kind: type, index: int, piece: str) -> Event:
    if kind is ToolCallArgsDelta:
        return ToolCallArgsDelta(index, piece)
    if kind is ReasoningDelta:
        return ReasoningDelta(piece)
    return TextDelta(piece)


def _with_piece(event: Event, piece: str) -> Event:
    if type(event) is ToolCallArgsDelta:
        return ToolCallArgsDelta(event.index, piece)
    return _make_piece(type(event), 0, piece)


def _scrubbed(event: Event, secrets: tuple[str, ...]) -> Event:
    """A non-delta event with every text a server chose scrubbed (ids, names, finish words)."""
    if type(event) is StreamError:
        message = scrub_cut(event.message, secrets)  # it may quote a cut sample of the stream
        return StreamError(event.code and scrub(event.code, secrets), message)
    if type(event) is ToolCallStart:
        return replace(event, id=scrub(event.id, secrets), name=scrub(event.name, secrets))
    if type(event) is ToolCallEnd and event.arguments is not None:
        return replace(event, arguments=scrub(event.arguments, secrets))
    if type(event) is ServerToolUse:
        return ServerToolUse(
            scrub(event.id, secrets), scrub(event.name, secrets), scrub(event.server, secrets)
        )
    if type(event) is Finish:
        return Finish(scrub(event.reason, secrets), scrub(event.detail, secrets))
    if type(event) is Sources:
        items = tuple(Source(scrub(s.url, secrets), scrub(s.title, secrets)) for s in event.items)
        return Sources(items)
    return event


def _providers_own_calls(turn: Turn, offered: set[str]) -> None:
    """A call of a tool the request did not offer is the provider's own (a search it ran
    itself): listed with the server tools, never answered by the tool loop."""
    for index, call in list(turn.calls.items()):
        if call.name and call.name not in offered:
            del turn.calls[index]
            turn.server_tools.append(ServerToolUse(call.id, call.name))


def missing_terminal(provider: ProviderConfig, finish_reason: str) -> str:
    """Why a stream that stopped after its finish_reason is not complete, and the setting that
    would make it so for a server that never sends [DONE]."""
    where = provider.config_file or provider.source or config_path()
    return (
        f"the stream ended after finish_reason {finish_reason!r} without [DONE]; if this server "
        f'never sends it, set `stream_end = "finish_reason"` for provider {provider.name} '
        f"in {where}"
    )


def _sendable(provider: ProviderConfig, api_key: str | None) -> ProviderConfig:
    """The provider as requests are sent: `user:pass@` is taken out of the base URL.

    httpx would turn URL userinfo into Basic auth that silently replaces the Bearer key; the
    key (or an Authorization header of the provider's own) wins, and only a provider with
    neither sends the userinfo, as an explicit Basic Authorization header.
    """
    bare, user, password = without_userinfo(provider.base_url)
    if bare == provider.base_url:
        return provider
    headers = dict(provider.headers)
    has_auth = any(name.lower() in ("authorization", "x-api-key") for name in headers)
    if not api_key and not has_auth and (user or password):
        token = base64.b64encode(f"{user or ''}:{password or ''}".encode()).decode("ascii")
        headers["Authorization"] = f"Basic {token}"
    return replace(provider, base_url=bare, headers=headers)


class _BadBaseUrl(ValueError):
    """httpx cannot parse the provider's base URL."""


def _setup_problem(exc: Exception) -> str:
    """Why the HTTP client could not be made, naming the setting to fix (never its value: a
    proxy URL may hold a password)."""
    if isinstance(exc, _BadBaseUrl):
        return f"cannot use the provider's base_url ({exc}): fix base_url in the config"
    detail = scrub(str(exc) or type(exc).__name__, _environment_secrets())
    if isinstance(exc, OSError | ssl.SSLError) and not isinstance(exc, httpx.InvalidURL):
        named = [n for n in ("SSL_CERT_FILE", "SSL_CERT_DIR") if os.environ.get(n)]
        where = " and ".join(named) or "SSL_CERT_FILE and SSL_CERT_DIR"
        return f"cannot load the TLS certificates ({detail}): check {where} in the environment"
    named = [n for n in _PROXY_VARIABLES if os.environ.get(n)]
    if named:
        return f"cannot use the proxy ({detail}): check {' and '.join(named)} in the environment"
    return f"cannot set up the connection ({detail})"


_PROXY_VARIABLES = (
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
)


def _environment_secrets() -> tuple[str, ...]:
    """Credentials in the proxy variables: httpx's messages may quote a proxy URL."""
    return unique(s for name in _PROXY_VARIABLES for s in url_secrets(os.environ.get(name, "")))


async def _get_capped(
    http: ThreadedHttp, url: str, headers: dict[str, str], params: dict[str, str]
) -> tuple[httpx.Response, bytes, str | None]:
    """GET, reading the body only to its bound: a model list to just past `MAX_MODEL_LIST`, an
    error to `MAX_ERROR_BODY`, a compression httpx cannot decode not at all (named instead)."""
    async with http.stream("GET", url, headers=headers, params=params) as exchange:
        response = exchange.response
        unreadable = _unreadable_encoding(response.headers.get("content-encoding", ""))
        body = bytearray()
        if unreadable is None:
            limit = MAX_MODEL_LIST if response.is_success else MAX_ERROR_BODY
            async for piece, _ in exchange.pieces():
                body += piece
                if len(body) > limit:
                    break
        return response, bytes(body), unreadable


def _short_header(value: str | None) -> str:
    """A header value worth quoting in a message: short and printable ASCII; else ""."""
    text = (value or "").strip()
    return text if len(text) <= 200 and text.isascii() and text.isprintable() else ""


def _unreadable_encoding(header: str) -> str | None:
    """A `Content-Encoding` httpx cannot decode here, named for a message; None if all can be.

    httpx decodes gzip and deflate itself, br and zstd only with optional packages Triptych does
    not depend on; anything it cannot decode it passes through raw, which would read as noise.
    """
    for token in header.split(","):
        name = token.strip().lower()
        if name and name not in _READABLE_ENCODINGS:
            return f"'{name}'" if _TOKEN.fullmatch(name) else "an unknown scheme"
    return None


def _body_kind(piece: bytes, held: int) -> _Body | None:
    """What a 200 body is, by its first visible byte (headers lie: case 12); None: read more.

    `piece` is the newest read, `held` how many bytes have been read so far: every byte before
    the piece was blank, so only the piece needs looking at. An event stream never starts with
    `{` or `[` (that would be an unknown field), so those open a whole JSON document, and `<`
    an HTML page.
    """
    start = piece.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if not start:
        return None if held < 4096 else _Body.STREAM
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
