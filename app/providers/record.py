"""Recordings: what was sent and exactly which bytes came back, and when.

A recording is a JSON Lines file; each exchange (one request) is a run of lines:

    {"type": "request", "format": "triptych-recording/1", "time": "<ISO 8601 UTC>",
     "method": "POST", "url": "...", "headers": {...}, "body": {...}}
    {"type": "response", "t": 0.412, "status": 200, "headers": {...}}
    {"type": "data", "t": 0.415, "text": "data: {...}\\n\\n"}      one line per network read
    {"type": "data", "t": 0.433, "base64": "..."}                 when a read is not valid UTF-8
    {"type": "end", "t": 2.871, "outcome": "eof", "detail": ""}

`t` is seconds since the request was sent (monotonic clock). `outcome` is one of `done` (the
client stopped reading at the terminal event), `eof` (the server ended the body), `stopped`
(cancelled by the user), `error` (transport failure or timeout; `detail` says which).
An end line may add `"cut_bytes": N`: a stored answer's stream (or one saved from the inspector)
kept only its first bytes, up to the limit, and N more arrived.
A response line is missing when no answer arrived. Several exchanges may share a file; every
line carries `"n"`, the exchange's number in the file, so concurrent streams can interleave.

Secrets never reach the file: auth headers (`Authorization`, `x-api-key`, ...) are replaced by
"[redacted]", the URL loses its userinfo, and every secret of the provider
(app/settings/redaction.py) is replaced wherever it appears, in the request body and in
response bytes, even when a server echoes it split across two network reads: a read's last
bytes that could start a secret are held back and written with the next read (or at the end).
"""

from __future__ import annotations

import base64
import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from app.settings.redaction import Redactor, redact_url, scrub_json, secret_name
from app.wire.api import Api

if TYPE_CHECKING:
    from app.wire.exchange import CapturedExchange

FORMAT = "triptych-recording/1"
FRAGMENT = 8  # this many characters of a secret in a row are redacted in response bytes
REDACTED = "[redacted]"
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)


def redact_headers(
    headers: Mapping[str, str], secrets: Iterable[str | None] = (), *, by_name: bool = False
) -> dict[str, str]:
    """Auth headers and any header holding a secret become "[redacted]"; `by_name` also takes
    every header whose name looks like a credential's (for what the app itself sends)."""
    keys = [s for s in secrets if s]
    out: dict[str, str] = {}
    for name, value in headers.items():
        lowered = name.lower()
        named = lowered in SECRET_HEADERS or (by_name and secret_name(lowered))
        if named or any(k in value for k in keys):
            out[name] = REDACTED
        else:
            out[name] = value
    return out


def byte_forms(secrets: Iterable[str]) -> list[bytes]:
    """Each secret as it may appear in response bytes: raw, and escaped as JSON writes it
    (`\\/`, `\\uXXXX`), since the bytes are recorded before any JSON is decoded."""
    forms: set[bytes] = set()
    for secret in secrets:
        forms.add(secret.encode())
        for ascii_only in (False, True):
            written = json.dumps(secret, ensure_ascii=ascii_only)[1:-1]
            forms.update((written.encode(), written.replace("/", "\\/").encode()))
    return sorted(forms)


class Recorder:
    """Appends exchanges to one file. Opened lazily, flushed per line, closed with `close`.

    A file that cannot be opened or written (a read-only or full place) never costs the answer:
    the first OSError stops the recording, `problem` says what went wrong, and the caller tells
    the user once the answer is out.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.problem: str | None = None
        self._file: IO[str] | None = None
        self._count = 0

    def exchange(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: Any,
        secrets: Iterable[str | None] = (),
    ) -> RecordedExchange:
        """Write the request line and return the handle for what comes back."""
        self._count += 1
        recorded = RecordedExchange(self, self._count, [s for s in secrets if s])
        recorded.write(
            {
                "type": "request",
                "format": FORMAT,
                "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
                "method": method,
                "url": redact_url(url, recorded.secrets),
                "headers": redact_headers(headers, recorded.secrets, by_name=True),
                "body": scrub_json(body, recorded.secrets),
            }
        )
        return recorded

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except OSError as exc:
                self._failed(exc)

    def write_line(self, text: str) -> None:
        if self.problem is not None:
            return
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            self._file.write(text + "\n")
            self._file.flush()
        except OSError as exc:
            self._failed(exc)

    def _failed(self, exc: OSError) -> None:
        if self.problem is None:
            reason = exc.strerror or str(exc)
            self.problem = f"cannot write {self.path}: {reason}"
        if self._file is not None:
            file, self._file = self._file, None
            with suppress(OSError):  # the data it still buffers cannot be written either
                file.close()


class RecordedExchange:
    """One request's lines. `n` tells concurrent exchanges in one file apart."""

    def __init__(self, recorder: Recorder, number: int, secrets: list[str]) -> None:
        self.recorder = recorder
        self.number = number
        self.secrets = secrets
        self._start = time.monotonic()
        # Fragments too: a key echoed split over two events leaves no whole copy in the bytes.
        self._bytes = Redactor(byte_forms(secrets), REDACTED.encode(), fragments=FRAGMENT)

    def response(self, status: int, headers: Mapping[str, str], at: float | None = None) -> None:
        """`at`: the `time.monotonic()` it arrived at (on the HTTP thread), else now."""
        self.write(
            {
                "type": "response",
                "t": self._elapsed(at),
                "status": status,
                "headers": redact_headers(headers, self.secrets),
            }
        )

    def data(self, piece: bytes, at: float | None = None) -> None:
        """A read, which arrived at `at` (`time.monotonic()`, on the HTTP thread), else now."""
        piece = self._bytes.feed(piece)
        if piece:
            self._data_line(piece, at)

    def _data_line(self, piece: bytes, at: float | None = None) -> None:
        line: dict[str, Any] = {"type": "data", "t": self._elapsed(at)}
        try:
            line["text"] = piece.decode("utf-8")
        except UnicodeDecodeError:
            line["base64"] = base64.b64encode(piece).decode("ascii")
        self.write(line)

    def end(self, outcome: str, detail: str = "") -> None:
        held = self._bytes.flush()
        if held:
            self._data_line(held)
        self.write({"type": "end", "t": self._elapsed(), "outcome": outcome, "detail": detail})

    def write(self, line: dict[str, Any]) -> None:
        text = json.dumps(scrub_json({**line, "n": self.number}, self.secrets), ensure_ascii=False)
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        self.recorder.write_line(text)

    def _elapsed(self, at: float | None = None) -> float:
        return round((time.monotonic() if at is None else at) - self._start, 4)


def exchange_lines(exchange: CapturedExchange, number: int = 1) -> list[str]:
    """The recording's lines for one captured exchange (redacted when captured), so what the
    inspector saw can be saved, replayed and attached to a bug report."""
    return list(_exchange_lines(exchange, number))


def _exchange_lines(exchange: CapturedExchange, number: int) -> Iterator[str]:
    """`exchange_lines` one at a time: a long answer's recording is never all in memory at
    once while it is compressed for the history."""
    request = exchange.request
    head: dict[str, Any] = {
        "type": "request",
        "format": FORMAT,
        "time": request.time,
        "method": request.method,
        "url": request.url,
        "headers": request.headers,
        "body": request.body,
    }
    yield _line(head, number)
    if exchange.status is not None:
        t = (exchange.response_ms or 0.0) / 1000
        yield _line({"type": "response", "t": t, "status": exchange.status,
                     "headers": exchange.headers}, number)  # fmt: skip
    for read in exchange.reads:
        line: dict[str, Any] = {"type": "data", "t": read.at_ms / 1000}
        try:
            line["text"] = read.data.decode("utf-8")
        except UnicodeDecodeError:
            line["base64"] = base64.b64encode(read.data).decode("ascii")
        yield _line(line, number)
    end = {"type": "end", "t": (exchange.ended_ms or 0.0) / 1000,
           "outcome": exchange.outcome or "eof", "detail": exchange.detail}  # fmt: skip
    if exchange.cut:
        end["cut_bytes"] = exchange.total_bytes - exchange.kept_bytes  # past the kept limit
    yield _line(end, number)


def _line(fields: dict[str, Any], number: int) -> str:
    fields["n"] = number
    return json.dumps(fields, ensure_ascii=False)


def recording_lines(exchange: CapturedExchange) -> Iterator[str]:
    """A whole recording file's lines (each ending in a newline) for a captured answer: an
    exchange it replaced (a retry without `stream_options`) first, each numbered."""
    chain: list[CapturedExchange] = []
    current: CapturedExchange | None = exchange
    while current is not None:
        chain.insert(0, current)
        current = current.retried
    for number, item in enumerate(chain, 1):
        for line in _exchange_lines(item, number):
            yield line + "\n"


def recording_text(exchange: CapturedExchange) -> str:
    """`recording_lines` as one text."""
    return "".join(recording_lines(exchange))


def write_recording(path: Path, exchange: CapturedExchange) -> None:
    """Write `recording_text` to a new file (the inspector's "save"); OSError is the caller's."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(recording_text(exchange), encoding="utf-8")


@dataclass(slots=True)
class Exchange:
    """One recorded request and what came back, read back from a file."""

    request: dict[str, Any]
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    pieces: list[tuple[float, bytes]] = field(default_factory=list)
    outcome: str = ""
    detail: str = ""
    response_t: float | None = None  # seconds after the request: the status arrived
    end_t: float | None = None
    cut_bytes: int = 0  # body bytes not kept (past a stored answer's limit)
    api: Api | None = None  # the format, when the URL does not say it (a capture made elsewhere)

    @property
    def body(self) -> bytes:
        return b"".join(piece for _, piece in self.pieces)


class RecordingError(ValueError):
    """The file is not a recording this version can read; str() names the file and line."""


def read_recording(path: Path) -> list[Exchange]:
    """Every exchange in the file, each line checked: a damaged, foreign or newer file is one
    RecordingError naming the line, never a traceback halfway through a replay."""
    with path.open(encoding="utf-8") as file:
        return read_lines(file, str(path))


def read_lines(lines: Iterable[str], name: str) -> list[Exchange]:
    """`read_recording` of lines from anywhere (a stored answer's stream); `name` is where
    they came from, for the message."""
    exchanges: list[Exchange] = []
    by_number: dict[int | str | None, Exchange] = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            _read_line(raw, exchanges, by_number)
        except _BadLine as exc:
            raise RecordingError(f"{name}:{number}: {exc}") from None
    return exchanges


class _BadLine(Exception):
    """Why one line cannot be read; read_recording adds where."""


def _read_line(
    raw: str, exchanges: list[Exchange], by_number: dict[int | str | None, Exchange]
) -> None:
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):
        raise _BadLine("not a recording line") from None
    if not isinstance(line, dict) or not isinstance(line.get("type"), str):
        raise _BadLine("not a recording line")
    kind: str = line["type"]
    n = line.get("n")
    if not (n is None or isinstance(n, str) or (isinstance(n, int) and not isinstance(n, bool))):
        raise _BadLine("n must be the exchange's number")
    if kind == "request":
        _check_format(line.get("format"))
        exchanges.append(Exchange(line))
        by_number[n] = exchanges[-1]
        return
    current = by_number.get(n)
    if current is None:
        raise _BadLine(f"a {kind!r} line before its request")
    if kind == "response":
        status = line.get("status")
        if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 999:
            raise _BadLine("status must be an HTTP status (a number from 100 to 999)")
        current.status = status
        current.headers = _headers(line.get("headers"))
        current.response_t = _seconds(line.get("t", 0.0))
    elif kind == "data":
        current.pieces.append((_seconds(line.get("t", 0.0)), _data(line)))
    elif kind == "end":
        outcome, detail = line.get("outcome", ""), line.get("detail", "")
        if not isinstance(outcome, str) or not isinstance(detail, str):
            raise _BadLine("outcome must be a string, and so must detail")
        current.outcome, current.detail = outcome, detail
        current.end_t = _seconds(line.get("t", 0.0))
        cut = line.get("cut_bytes", 0)
        if not isinstance(cut, int) or isinstance(cut, bool) or cut < 0:
            raise _BadLine("cut_bytes must be a number of bytes")
        current.cut_bytes = cut


def _check_format(written: object) -> None:
    name, _, version = str(written).rpartition("/")
    ours, _, our_version = FORMAT.rpartition("/")
    if not isinstance(written, str) or name != ours or not version.isdigit():
        raise _BadLine(f"not a Triptych recording (format {written!r}, expected {FORMAT!r})")
    if int(version) > int(our_version):
        raise _BadLine(
            f"it was recorded by a newer Triptych (format {written}; this version reads "
            f"{FORMAT}): update Triptych to replay it"
        )


def _headers(value: object) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise _BadLine("headers must be a table of strings")
    return {str(k): v for k, v in value.items()}


def _seconds(value: object) -> float:
    if not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise _BadLine("t must be a number of seconds")
    return float(value)


def _data(line: Mapping[str, Any]) -> bytes:
    if "text" in line:
        text = line["text"]
        if not isinstance(text, str):
            raise _BadLine("text must be a string")
        return text.encode("utf-8", "surrogatepass")
    encoded = line.get("base64")
    if not isinstance(encoded, str):
        raise _BadLine("a data line needs text or base64")
    try:
        return base64.b64decode(encoded, validate=True)
    except ValueError:  # binascii.Error
        raise _BadLine("base64 does not decode") from None


__all__ = [
    "FORMAT",
    "Exchange",
    "RecordedExchange",
    "Recorder",
    "RecordingError",
    "byte_forms",
    "exchange_lines",
    "read_lines",
    "read_recording",
    "recording_lines",
    "recording_text",
    "redact_headers",
    "write_recording",
]
