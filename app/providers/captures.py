"""Captures made elsewhere, read as recorded exchanges: a raw SSE body and a HAR file.

A raw body is what `curl -N` prints (with `-i`, the status line and headers before it, one head
per response curl saw: a `100 Continue` or a proxy's `Connection established` first), a body
saved from a browser's devtools, another project's fixture. A HAR file is a browser's devtools
export: every response in it whose type is `text/event-stream` is a streamed answer, its body in
`content.text` (base64 when `encoding` says so) and its request beside it.

Neither says which API it spoke unless its URL does, so the format is told from the frames
(app/wire/sniff.py) unless the user says it. A raw body carries no request: the one `ask` sends
by default for the model its frames name stands in for it (so the `--json` object, parameters
included, is the one `ask --json` prints for that stream), asking `Replay of NAME`. Neither keeps
when each network read came: a raw body's frames all arrive at once; a HAR's after its recorded
wait for the first byte.

Everything in the file is untrusted: every shape is checked, text is bounded (`MAX_CAPTURE_BYTES`
read at most, one pass over the bytes), and the request's credentials (auth headers, cookies, a
key in the URL) are redacted before anything is kept, wherever they appear.
"""

from __future__ import annotations

import base64
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from app.display.wire_text import cut, size_text, visible
from app.providers.record import (
    FRAGMENT,
    REDACTED,
    Exchange,
    RecordingError,
    byte_forms,
    redact_headers,
)
from app.providers.requests import build_request
from app.settings.config import ENDPOINTS, ProviderConfig
from app.settings.redaction import (
    MIN_DERIVED,
    Redactor,
    provider_secrets,
    redact_url,
    scrub,
    scrub_json,
    unique,
)
from app.wire.api import Api
from app.wire.conversation import Conversation
from app.wire.sniff import sniff

MAX_CAPTURE_BYTES = 128 * 1024 * 1024  # a HAR is parsed whole: its JSON costs several times this
HEAD_LIMIT = 64 * 1024  # an HTTP head (status line and headers) is never longer
MAX_PIECES = 1_000_000  # frames each served as a read of their own; past this, the rest as one
READS = "a recording (ask --record), a raw SSE body (.sse, curl -N output) or a HAR file"
_HEAD_END = re.compile(rb"\r?\n\r?\n")
_SSE_LINE = re.compile(rb"(data|event|id|retry)(:|\r|\n|$)|:")
_HAR_START = re.compile(rb'\{\s*"log"\s*:')
_FRAME_END = re.compile(rb"(?:\r\n\r\n|\n\n|\r\r)[ \t\r\n]*")  # a blank line, and any after it


class EntryChoice(RecordingError):
    """A HAR file with several streamed responses and no `--entry`: `listing` shows each."""

    def __init__(self, message: str, listing: list[str]) -> None:
        super().__init__(message)
        self.listing = listing


def capture_kind(head: bytes) -> str | None:
    """What a file's first bytes say it is: "recording", "har", "raw" or None (none of them)."""
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"{"):
        if _HAR_START.match(text):
            return "har"
        line = text.split(b"\n", 1)[0]
        if line.startswith(b'{"type"'):
            return "recording"  # the reader says what is wrong with it, line by line
        try:
            parsed = json.loads(line)
        except (ValueError, RecursionError):
            return None
        if isinstance(parsed, dict) and isinstance(parsed.get("type"), str):
            return "recording"
        return None
    if text.startswith(b"HTTP/") or _SSE_LINE.match(text):
        return "raw"
    return None


def read_raw(data: bytes, name: str, api: Api | None = None) -> Exchange:
    """A raw SSE body (maybe after an HTTP head) as one exchange; RecordingError if its format
    cannot be told and `api` does not say it."""
    status, headers, start = http_head(data)
    body = data[start:]
    sniffed = sniff(body, api)
    if sniffed.api is None:
        raise RecordingError(f"{name}: {_no_format(body)}")
    model = sniffed.model or "?"
    return Exchange(
        request=_stand_in(sniffed.api, model, name),
        status=200 if status is None else status,
        headers=redact_headers(headers, by_name=True),
        pieces=[(0.0, piece) for piece in split_frames(body)],
        outcome="eof",
        api=sniffed.api,
    )


def http_head(data: bytes) -> tuple[int | None, dict[str, str], int]:
    """The status and headers of the last HTTP head before the body (curl -i prints one per
    response it saw), and where the body starts; (None, {}, 0) when there is no head."""
    status: int | None = None
    headers: dict[str, str] = {}
    position = len(data) - len(data.lstrip())
    if not data.startswith(b"HTTP/", position):
        return None, {}, 0
    while data.startswith(b"HTTP/", position):
        window = data[position : position + HEAD_LIMIT]
        end = _HEAD_END.search(window)
        head = window if end is None else window[: end.start()]
        lines = head.replace(b"\r", b"").split(b"\n")
        words = lines[0].split()
        code = words[1] if len(words) >= 2 else b""
        status = int(code) if len(code) == 3 and code.isdigit() and code[0] != 0x30 else None
        headers = {}
        for line in lines[1:]:
            key, colon, value = line.partition(b":")
            if colon and key.strip():
                headers[_text(key.strip())] = _text(value.strip())
        if end is None:  # a head that never ends: no body after it
            return status, headers, len(data)
        position += end.end()
    return status, headers, position


def split_frames(body: bytes) -> list[bytes]:
    """The body cut after each event's blank line (and the blank lines after it), so each
    frame is served (and shown in the inspector) as a read of its own. The pieces join to the
    body exactly; where they are cut never changes what is decoded. One regex pass."""
    pieces: list[bytes] = []
    start = 0
    for match in _FRAME_END.finditer(body):
        if match.start() == start:  # blank lines before the first frame: it takes them
            continue
        pieces.append(body[start : match.end()])
        start = match.end()
        if len(pieces) == MAX_PIECES:
            break
    if start < len(body):
        pieces.append(body[start:])
    return pieces


# -- HAR --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HarStream:
    """One streamed response of a HAR file, numbered from 1 as `--entry` counts them."""

    number: int
    entry: Mapping[str, Any]
    method: str
    url: str  # redacted
    status: int | None
    body: bytes | None  # None: the browser did not keep it (or `problem` says why not)
    secrets: tuple[str, ...] = field(default=())
    problem: str = ""  # why its body cannot be read (said when it is the one chosen)

    def line(self) -> str:
        """How `replay` lists it: number, request, status, what was kept."""
        kept = self.problem or ("no body kept" if self.body is None else size_text(len(self.body)))
        url = cut(visible(self.url), 100)
        return f"{self.number:>3}  {visible(self.method)} {url}  {self.status or '?'}  {kept}"


def read_har(data: bytes, name: str, api: Api | None = None, entry: int | None = None) -> Exchange:
    """The streamed response `entry` (from 1) of a HAR file as one exchange; with no `entry`,
    the only one, or EntryChoice listing them."""
    streams = har_streams(data, name)
    if not streams:
        raise RecordingError(f"{name}: a HAR file with no streamed response (text/event-stream)")
    if entry is None:
        if len(streams) > 1:
            message = f"{name} holds {len(streams)} streamed responses: say which with --entry N"
            raise EntryChoice(message, [stream.line() for stream in streams])
        entry = 1
    if not 1 <= entry <= len(streams):
        count = len(streams)
        which = "1" if count == 1 else f"1 to {count}"
        raise RecordingError(f"{name}: no --entry {entry}: its streamed responses are {which}")
    return _har_exchange(streams[entry - 1], name, api)


def har_streams(data: bytes, name: str) -> list[HarStream]:
    """Every entry of the HAR whose response is an event stream, in the file's order."""
    try:
        document = json.loads(data)
    except UnicodeDecodeError:
        raise RecordingError(f"{name}: not UTF-8 text") from None
    except (ValueError, RecursionError):
        raise RecordingError(f"{name}: not a HAR file (its JSON does not parse)") from None
    log = document.get("log") if isinstance(document, dict) else None
    entries = log.get("entries") if isinstance(log, dict) else None
    if not isinstance(entries, list):
        raise RecordingError(f"{name}: not a HAR file (no log.entries list)")
    streams: list[HarStream] = []
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        response = _object(entry.get("response"))
        content = _object(response.get("content"))
        headers = _har_headers(response.get("headers"))
        mime = _string(content.get("mimeType")) + " " + headers.get("content-type", "")
        if "text/event-stream" not in mime.lower():
            continue
        request = _object(entry.get("request"))
        secrets = _request_secrets(request)
        problem = ""
        try:
            body = _content(content, secrets)
        except ValueError:  # binascii.Error: its base64 is damaged
            body, problem = None, "its base64 body does not decode"
        streams.append(
            HarStream(
                number=len(streams) + 1,
                entry=entry,
                method=_string(request.get("method")) or "?",
                url=redact_url(_string(request.get("url")), secrets),
                status=_status(response.get("status")),
                body=body,
                secrets=secrets,
                problem=problem,
            )
        )
    return streams


def _har_exchange(stream: HarStream, name: str, api: Api | None) -> Exchange:
    if stream.problem:
        raise RecordingError(f"{name}: streamed response {stream.number}: {stream.problem}")
    if stream.body is None:
        raise RecordingError(
            f"{name}: streamed response {stream.number} has no body in the HAR (the browser "
            "did not keep it)"
        )
    entry, secrets = stream.entry, stream.secrets
    request = _object(entry.get("request"))
    response = _object(entry.get("response"))
    body = _request_body(request, secrets)
    url_api = api_of_url(stream.url)
    sniffed = sniff(stream.body, api or url_api)
    if sniffed.api is None:
        raise RecordingError(
            f"{name}: streamed response {stream.number}: {_no_format(stream.body)}"
        )
    model = body.get("model") if isinstance(body, dict) else None
    model = model if isinstance(model, str) and model else sniffed.model or "?"
    if not isinstance(body, dict):  # nothing to replay it from: what `ask` would have sent
        body = _stand_in(sniffed.api, model, name)["body"]
    headers = _har_headers(request.get("headers"))
    timings = _object(entry.get("timings"))
    first_byte = (_ms(timings.get("send")) + _ms(timings.get("wait"))) / 1000
    status = stream.status or 200  # a body that streamed was answered (a 0 is the browser's)
    return Exchange(
        request={
            "type": "request",
            "method": stream.method,
            "url": stream.url,
            "headers": redact_headers(headers, secrets, by_name=True),
            "body": body,
        },
        status=status,
        headers=redact_headers(_har_headers(response.get("headers")), secrets, by_name=True),
        pieces=[(first_byte, piece) for piece in split_frames(stream.body)],
        outcome="eof",
        response_t=first_byte,
        end_t=first_byte + _ms(timings.get("receive")) / 1000,
        api=sniffed.api,
    )


def _request_secrets(request: Mapping[str, Any]) -> tuple[str, ...]:
    """What the request's credentials are: auth-like headers (a Bearer's token too), cookies,
    the URL's user, password and key-like query values."""
    headers = _har_headers(request.get("headers"))
    found = list(provider_secrets(_Sent(headers, _string(request.get("url"))), None))
    cookies = request.get("cookies")
    for cookie in cookies if isinstance(cookies, list) else ():
        value = _string(_object(cookie).get("value"))
        if len(value) >= MIN_DERIVED:
            found.append(value)
    return unique(found)


@dataclass(frozen=True, slots=True)
class _Sent:
    """A HAR request's headers and URL, read for secrets the way a provider's settings are."""

    headers: Mapping[str, str]
    base_url: str
    api_key: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


def _request_body(request: Mapping[str, Any], secrets: tuple[str, ...]) -> Any:
    text = _string(_object(request.get("postData")).get("text"))
    if not text:
        return None
    try:
        return scrub_json(json.loads(text), secrets)
    except (ValueError, RecursionError):
        return scrub(text, secrets)


def _content(content: Mapping[str, Any], secrets: Iterable[str]) -> bytes | None:
    """The response body as it came (redacted); ValueError when its base64 does not decode."""
    text = content.get("text")
    if not isinstance(text, str):
        return None
    if _string(content.get("encoding")).lower() == "base64":
        raw = base64.b64decode("".join(text.split()), validate=True)  # binascii.Error: ValueError
    else:
        raw = text.encode("utf-8", "surrogatepass")
    redactor = Redactor(byte_forms(secrets), REDACTED.encode(), fragments=FRAGMENT)
    return redactor.feed(raw) + redactor.flush()


def _har_headers(value: object) -> dict[str, str]:
    """HAR headers (a list of {name, value}) as a table; names lower-cased, the last one kept."""
    out: dict[str, str] = {}
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict):
            key, text = item.get("name"), item.get("value")
            if isinstance(key, str) and key and isinstance(text, str):
                out[key.lower()] = text
    return out


def _object(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _string(value: object) -> str:
    return value if isinstance(value, str) else ""


def _status(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 999:
        return value
    return None


def _ms(value: object) -> float:
    """A HAR timing in ms (-1: it does not apply)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return max(0.0, min(float(value), 86_400_000.0))
    return 0.0


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


# -- shared -----------------------------------------------------------------------------------


def api_of_url(url: str) -> Api | None:
    """The format a request URL names by its endpoint (…/chat/completions, …/messages, …)."""
    path = url.split("?", 1)[0].rstrip("/")
    for api, endpoint in ENDPOINTS.items():
        if path.endswith(endpoint):
            return api
    return None


def _stand_in(api: Api, model: str, name: str) -> dict[str, Any]:
    """The request a capture without one is replayed as: what `ask` sends by default."""
    provider = ProviderConfig(
        name="capture", api=api, base_url="http://capture.invalid", model=model
    )
    conversation = Conversation()
    conversation.add_user(f"Replay of {visible(name.rsplit('/', 1)[-1])}")
    sent = build_request(provider, conversation, None)
    return {"type": "request", "method": sent.method, "url": "", "headers": {}, "body": sent.body}


def _no_format(body: bytes) -> str:
    what = "its frames do not say" if body.strip() else "it holds no frames to tell"
    return f"which API it is from: {what}; say it with --api chat, messages or responses"


__all__ = [
    "HEAD_LIMIT",
    "MAX_CAPTURE_BYTES",
    "READS",
    "EntryChoice",
    "HarStream",
    "api_of_url",
    "capture_kind",
    "har_streams",
    "http_head",
    "read_har",
    "read_raw",
    "split_frames",
]
