"""Turning HTTP error answers and transport failures into short messages a person can act on.

A provider's own words are the most useful thing to show, so each format's JSON error shape is
read first (OpenAI `{"error": {...}}`, Anthropic `{"type": "error", "error": {...}}`, plain
`{"message"}` / `{"detail"}`); an HTML page or plain text is shown tag-stripped and trimmed.
Every message passes through `scrub` so an echoed API key never reaches the screen: a body is
scrubbed with the caller's secrets before it is parsed or cut to length, so no cut can leave the
start of a key behind.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import ssl
from collections.abc import Iterable
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from app.settings.redaction import REDACTED, scrub
from app.wire.events import StreamError
from app.wire.surrogates import mend

MAX_ERROR_BODY = 64 * 1024  # bytes of an error body worth reading
MAX_MESSAGE = 300  # characters of a non-JSON body worth showing
MAX_RETRY_AFTER = 40  # characters of a Retry-After worth reading (an HTTP date is 29)

# Every pattern here is linear on any input: one quantifier each, and none may cross a `<`, so a
# failed match never rescans what a later attempt will scan again (a page of 1 MiB of `<` used to
# take minutes with `<[^>]*>`). A closing tag is searched for at most once to the end.
_TAG = re.compile(r"<[^<>]*>")
_OPEN_HIDDEN = re.compile(r"<(script|style|head)\b[^<>]*>", re.IGNORECASE)
_OPEN_TITLE = re.compile(r"<title\b[^<>]*>", re.IGNORECASE)
_CLOSE = {
    name: re.compile(rf"</{name}\s*>", re.IGNORECASE)
    for name in ("script", "style", "head", "title")
}
_SPACE = re.compile(r"\s+")
MAX_PAGE = MAX_ERROR_BODY  # characters of a page worth reading for its text


class ProviderError(Exception):
    """A failed non-streaming call (e.g. listing models); `str()` is the message to show."""

    def __init__(self, code: str | None, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def http_error(
    status: int,
    body: bytes,
    *,
    content_type: str = "",
    retry_after: str | None = None,
    secrets: Iterable[str | None] = (),
) -> StreamError:
    """A non-2xx answer: the provider's code (else `http_<status>`) and its message."""
    secrets = tuple(secrets)
    code, message = error_from_body(body, content_type, secrets)
    if retry_after:
        retry_after = scrub(retry_after, secrets)
    reason = httpx.codes.get_reason_phrase(status)
    head = f"HTTP {status}" + (f" {reason}" if reason and not message else "")
    text = f"{head}: {message}" if message else head
    wait = retry_after_text(retry_after)
    if wait:
        text += f" (retry after {wait})"
    # A JSON body may spell lone surrogates (`\ud800`): no UTF-8 writer accepts them.
    return StreamError(mend(code) if code else f"http_{status}", mend(text))


_NAMES_TOOLS = re.compile(r"tool|function|schema", re.IGNORECASE)
_TOOLS_STATUS = re.compile(r"HTTP 4(00|22)\b")


def names_tools(error: StreamError | None) -> bool:
    """Whether a failure may be the tools' doing: a 400 or 422 whose code or message names
    tools, functions or a schema. Anything else (a 401, an unknown model, an error inside
    the stream) has its own cause, and a hint about the tools' schemas would mislead."""
    if error is None or not _TOOLS_STATUS.match(error.message):
        return False
    return bool(_NAMES_TOOLS.search(f"{error.code or ''} {error.message}"))


def no_key_message(provider: str, config: Path) -> str:
    """A 401 or 403 to a request that carried no key: the missing setting is the cause."""
    return f"provider '{provider}' sends no API key; set `api_key_env` in {config}"


_VERSION_SEGMENT = re.compile(r"/v\d+[a-z0-9]*/")  # /v1/, /v1beta/, /v4/


def not_found_hint(method: str, url: str, base_url: str, api: str, code: str | None) -> str:
    """What a 404 adds to its message: the URL called (without credentials or query) and, when
    the server knows no such route (no provider error code), which setting to check."""
    called = f" ({method} {_plain_url(url)})"
    if code not in (None, "http_404"):
        return called  # the provider itself answered, e.g. an unknown model: its words say why
    if not _VERSION_SEGMENT.search(_path_of(base_url) + "/"):
        return f"{called}: check base_url — most servers want it to end in /v1"
    if api != "chat":
        speaks = f'this server may not speak "{api}" (many servers speak only "chat")'
        return f"{called}: check api — {speaks}"
    return f"{called}: check base_url and api"


def _path_of(url: str) -> str:
    try:
        return urlsplit(url).path
    except ValueError:
        return ""


def _plain_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return "the endpoint"
    host = f"[{host}]" if ":" in host else host
    return urlunsplit((parts.scheme, f"{host}:{port}" if port else host, parts.path, "", ""))


def retry_after_text(value: str | None) -> str:
    """A `Retry-After` worth showing: a short count of seconds or an HTTP date; else "".

    The header is the server's text: a 60 KiB value, an escape sequence or a number of 40
    digits is not copied into the message.
    """
    wait = (value or "").strip()
    if not wait or len(wait) > MAX_RETRY_AFTER:
        return ""
    if wait.isascii() and wait.isdigit() and len(wait) <= 9:
        return f"{int(wait)} s"
    if wait.isascii() and wait.isprintable():
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            parsedate_to_datetime(wait)
            return wait
    return ""


def error_from_body(
    body: bytes, content_type: str = "", secrets: Iterable[str | None] = ()
) -> tuple[str | None, str]:
    """(code, message) from an error body of any shape; ("", "") for an empty one.

    `secrets` are scrubbed from the whole body first, before anything is parsed or cut."""
    text = scrub(body[:MAX_ERROR_BODY].decode("utf-8", "replace"), secrets).strip()
    if not text:
        return None, ""
    document = _json_document(text)
    if document is not None:
        found = error_in_document(document)
        if found is not None:
            return found.code, found.message
        return None, _trim(_SPACE.sub(" ", text))
    if "html" in content_type.lower() or text.startswith("<"):
        return None, html_text(text)
    return None, _trim(_SPACE.sub(" ", text))


def error_in_document(document: object) -> StreamError | None:
    """The error a JSON document carries, in any of the shapes providers use; else None."""
    if not isinstance(document, dict):
        return None
    error = document.get("error")
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        message = error.get("message") or error.get("detail") or json.dumps(error)
        return StreamError(str(code) if code else None, str(message))
    if isinstance(error, str) and error:
        return StreamError(None, error)
    if document.get("type") == "error" or (
        "choices" not in document and "output" not in document and "content" not in document
    ):
        message = document.get("message") or document.get("detail")
        if isinstance(message, str) and message:
            code = document.get("code")
            return StreamError(str(code) if code else None, message)
        if isinstance(message, list | dict):
            return StreamError(None, json.dumps(message, ensure_ascii=False)[:MAX_MESSAGE])
    return None


def html_text(page: str) -> str:
    """The readable part of an HTML error page: its title and text, tags stripped.

    Reads at most `MAX_PAGE` characters, in time linear in them.
    """
    page = page[:MAX_PAGE]
    body = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", _without_hidden(page)))).strip()
    heading = _SPACE.sub(" ", html.unescape(_TAG.sub("", _title(page)))).strip()
    if heading and not body.startswith(heading):
        body = f"{heading} — {body}" if body else heading
    return _trim(body)


def _title(page: str) -> str:
    opening = _OPEN_TITLE.search(page)
    if opening is None:
        return ""
    closing = _CLOSE["title"].search(page, opening.end())
    return "" if closing is None else page[opening.end() : closing.start()]


def _without_hidden(page: str) -> str:
    """The page without its script, style and head blocks, in one pass.

    A block whose closing tag never comes hides the rest of the page, as in a browser, so the
    search for a closing tag never runs to the end twice.
    """
    kept: list[str] = []
    position = 0
    while (opening := _OPEN_HIDDEN.search(page, position)) is not None:
        kept.append(page[position : opening.start()])
        closing = _CLOSE[opening.group(1).lower()].search(page, opening.end())
        if closing is None:
            return " ".join(kept)
        position = closing.end()
    kept.append(page[position:])
    return " ".join(kept)


def transport_error(exc: Exception, url: str, *, timeout: float | None = None) -> StreamError:
    """A network failure before any answer: a plain message naming the host."""
    target = _host_port(url)
    if isinstance(exc, httpx.ConnectTimeout):
        within = f" within {timeout:g} s" if timeout else ""
        return StreamError("connect_timeout", f"could not connect to {target}{within} (timed out)")
    if isinstance(exc, httpx.TimeoutException):
        within = f" within {timeout:g} s" if timeout else ""
        return StreamError("timeout", f"no answer from {target}{within} (timed out)")
    if isinstance(exc, httpx.ConnectError):
        return StreamError("connect_error", f"could not connect to {target} ({_cause(exc)})")
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return StreamError("bad_url", f"cannot use the URL {url!r} ({exc})")
    return StreamError("network_error", f"the request to {target} failed ({_cause(exc)})")


def stream_cut_reason(exc: Exception) -> str:
    """Why a body stopped early, for `turn.interruption`."""
    if isinstance(exc, httpx.TimeoutException):
        return "the stream went silent for too long"
    cause = _cause(exc)
    if isinstance(exc, httpx.RemoteProtocolError) and "incomplete" in cause.lower():
        # httpx/h11: "peer closed connection without sending complete message body
        # (incomplete chunked read)" — the same fact in the words a user reads.
        return "the connection closed before the stream ended"
    return f"the connection broke before the stream ended ({cause})"


def _cause(exc: BaseException) -> str:
    chain: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(chain) < 6:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for item in chain:
        if isinstance(item, ssl.SSLCertVerificationError):
            return f"TLS certificate not trusted: {item.verify_message}"
        if isinstance(item, ssl.SSLError):
            return f"TLS error: {item.reason or item}"
        if isinstance(item, ConnectionRefusedError):
            return "connection refused"
        if isinstance(item, ConnectionResetError):
            return "connection reset by the server"
    text = " ".join(str(item) for item in chain[:1]) or type(exc).__name__
    lowered = text.lower()
    if "refused" in lowered:
        return "connection refused"
    if "name or service not known" in lowered or "name resolution" in lowered:
        return "the host name could not be resolved"
    if "nodename nor servname" in lowered or "getaddrinfo" in lowered:
        return "the host name could not be resolved"
    if "reset by peer" in lowered:
        return "connection reset by the server"
    if len(text) > MAX_MESSAGE:  # e.g. h11 quoting a 60 KiB status line: name it, never cut
        head = text.partition(":")[0].strip()
        text = head if head and len(head) <= 80 else type(exc).__name__
    if "certificate" in lowered or "ssl" in lowered:
        return f"TLS error: {text}"
    return text


def _host_port(url: str) -> str:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, TypeError, ValueError):
        return url
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    return f"{parsed.host}:{port}"


def _json_document(text: str) -> Any:
    if text.startswith(("data:", "event:")):
        # An error sent as an event stream: take the first data line.
        for line in text.splitlines():
            if line.startswith("data:"):
                text = line[5:].strip()
                break
    if not text.startswith(("{", "[")):
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # `[[[[…`: nesting deeper than Python recurses
        return None


def _trim(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1].rstrip() + "…"


__all__ = [
    "MAX_ERROR_BODY",
    "REDACTED",
    "ProviderError",
    "error_from_body",
    "error_in_document",
    "html_text",
    "http_error",
    "names_tools",
    "no_key_message",
    "scrub",
    "stream_cut_reason",
    "transport_error",
]
