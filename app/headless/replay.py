"""`triptych replay FILE`: decode a recording (`ask --record`) again, offline, or a capture
made elsewhere: a raw SSE body (`curl -N`) or a HAR file (app/providers/captures.py).

Each recorded exchange is fed through the same engine as a live stream, so a recording of a
surprising answer can be re-examined after a decoder change without asking the provider again,
and `--json` prints the object `ask --json` prints for the same stream served live (its
provider is `replay`, its times the recorded ones).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from app.display.sanitize import clean, literal, literal_line
from app.headless.ask import answer_json, summary_line
from app.providers.captures import (
    HEAD_LIMIT,
    MAX_CAPTURE_BYTES,
    READS,
    EntryChoice,
    api_of_url,
    capture_kind,
    read_har,
    read_raw,
)
from app.providers.client import Timing
from app.providers.errors import http_error, not_found_hint
from app.providers.params import sent_params
from app.providers.record import Exchange, RecordingError, read_recording
from app.providers.requests import ENDPOINTS
from app.settings.config import ProviderConfig
from app.wire.engine import Api, StreamEngine
from app.wire.events import ReasoningDelta, TextDelta
from app.wire.turn import Turn, TurnStatus


def open_recording(
    path: Path, *, api: Api | None = None, entry: int | None = None
) -> list[Exchange]:
    """The file's exchanges, or RecordingError saying (in one line) why it cannot be replayed.
    The file is a recording, a raw SSE body or a HAR file (`entry`: which of its streamed
    responses, from 1); `api` says the format of a capture whose URL does not (else the frames
    do), and of a recording's every exchange."""
    try:
        if not path.is_file() and path.exists():  # a FIFO or /dev/zero would hang or fill memory
            raise RecordingError(f"{path}: not a regular file")
        with path.open("rb") as file:
            head = file.read(HEAD_LIMIT)
        kind = capture_kind(head)
        if entry is not None and kind != "har":
            raise RecordingError(f"{path}: --entry N goes with a HAR file")
        if kind == "recording":
            exchanges = read_recording(path)
        elif kind is None:
            raise RecordingError(f"{path}: not {READS}")
        else:
            size = path.stat().st_size
            if size > MAX_CAPTURE_BYTES:
                limit = MAX_CAPTURE_BYTES // (1024 * 1024)
                raise RecordingError(f"{path}: larger than the {limit} MiB a capture may be")
            data = path.read_bytes()[:MAX_CAPTURE_BYTES]
            if kind == "har":
                exchanges = [read_har(data, str(path), api, entry)]
            else:
                exchanges = [read_raw(data, str(path), api)]
    except UnicodeDecodeError:
        raise RecordingError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise RecordingError(f"{path}: {exc.strerror or exc}") from None
    if not exchanges:
        raise RecordingError(f"{path}: it holds no recorded exchange")
    if api is not None:
        for exchange in exchanges:
            exchange.api = api
    return exchanges


def replay(
    path: Path,
    stdout: TextIO,
    stderr: TextIO,
    *,
    api: Api | None = None,
    entry: int | None = None,
    as_json: bool = False,
) -> int:
    """Print each exchange's answer (stdout) and summary (stderr), or with `as_json` the object
    `ask --json` prints for it (one line each); 0 if all were complete."""
    try:
        exchanges = open_recording(path, api=api, entry=entry)
    except EntryChoice as exc:
        stdout.write("".join(clean(line) + "\n" for line in exc.listing))
        print(f"triptych: {clean(str(exc))}", file=stderr)
        return 2
    except RecordingError as exc:
        print(f"triptych: cannot replay {literal_line(str(exc))}", file=stderr)
        return 2
    all_complete = True
    for exchange in exchanges:
        exchange_api = api_of(exchange)
        if exchange_api is None:
            url = clean(repr(exchange.request.get("url")))
            print(f"triptych: skipped a request to {url}", file=stderr)
            continue
        turn = replay_turn(exchange_api, exchange)
        all_complete = all_complete and turn.status is TurnStatus.COMPLETE
        body = exchange.request.get("body")
        model = body.get("model") if isinstance(body, dict) else None
        model = model if isinstance(model, str) else "?"
        provider = ProviderConfig(name="replay", api=exchange_api, base_url="", model=model)
        if as_json:
            turn.params = sent_params(body) if isinstance(body, dict) else {}
            document = answer_json(provider, turn, replay_timing(exchange_api, exchange))
            stdout.write(json.dumps(document) + "\n")
            continue
        if turn.text:
            stdout.write(clean(turn.text) + ("" if turn.text.endswith("\n") else "\n"))
        ended: float | None = exchange.pieces[-1][0] if exchange.pieces else 0.0
        if exchange.response_t is None and exchange.end_t is None:  # a raw body: no times
            ended = None
        print(literal(summary_line(provider, turn, Timing(0.0, None, ended))), file=stderr)
    return 0 if all_complete else 1


def replay_timing(api: Api, exchange: Exchange) -> Timing:
    """The recorded times (seconds since the request): the first read that decoded to answer
    or reasoning text, and the end. A raw capture kept none: both unknown."""
    if exchange.response_t is None and exchange.end_t is None:
        return Timing(0.0)
    first: float | None = None
    engine = StreamEngine(api)
    for at, piece in exchange.pieces:
        if any(isinstance(e, TextDelta | ReasoningDelta) for e in engine.feed(piece)):
            first = at
            break
    return Timing(0.0, first, exchange.end_t)


def api_of(exchange: Exchange) -> Api | None:
    """The exchange's format: said (`--api`, a capture's frames) or named by its URL."""
    return exchange.api or api_of_url(str(exchange.request.get("url", "")))


def replay_turn(api: Api, exchange: Exchange) -> Turn:
    turn = Turn()
    status = exchange.status
    if status is None:
        turn.fail("no_answer", exchange.detail or "no answer was recorded")
    elif not 200 <= status < 300:
        error = http_error(
            status,
            exchange.body,
            content_type=exchange.headers.get("content-type", ""),
            retry_after=exchange.headers.get("retry-after"),
        )
        message = error.message
        if status == 404:
            url = str(exchange.request.get("url", ""))
            base = url.split("?", 1)[0].rstrip("/").removesuffix(ENDPOINTS[api])
            method = str(exchange.request.get("method", "POST"))
            message += not_found_hint(method, url, base, api.value, error.code)
        turn.fail(error.code, message)
    else:
        engine = StreamEngine(api)
        for _, piece in exchange.pieces:
            turn.apply_all(engine.feed(piece))
            if engine.done:
                break
        turn.apply_all(engine.close())
    reason = exchange.detail if exchange.outcome == "error" else ""
    turn.end(stopped=exchange.outcome == "stopped", reason=reason)
    return turn


__all__ = [
    "api_of",
    "open_recording",
    "replay",
    "replay_timing",
    "replay_turn",
]
