"""`triptych replay FILE`: decode a recording (`ask --record`) again, offline.

Each recorded exchange is fed through the same engine as a live stream, so a recording of a
surprising answer can be re-examined after a decoder change without asking the provider again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from app.display.sanitize import clean, literal, literal_line
from app.headless.ask import summary_line
from app.providers.client import Timing
from app.providers.errors import http_error, not_found_hint
from app.providers.record import Exchange, RecordingError, read_recording
from app.providers.requests import ENDPOINTS
from app.settings.config import ProviderConfig
from app.wire.engine import Api, StreamEngine
from app.wire.turn import Turn, TurnStatus


def open_recording(path: Path) -> list[Exchange]:
    """The file's exchanges, or RecordingError saying (in one line) why it cannot be replayed."""
    try:
        if not path.is_file() and path.exists():  # a FIFO or /dev/zero would hang or fill memory
            raise RecordingError(f"{path}: not a regular file")
        exchanges = read_recording(path)
    except UnicodeDecodeError:
        raise RecordingError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise RecordingError(f"{path}: {exc.strerror or exc}") from None
    if not exchanges:
        raise RecordingError(f"{path}: it holds no recorded exchange")
    return exchanges


def replay(path: Path, stdout: TextIO, stderr: TextIO) -> int:
    """Print each exchange's answer (stdout) and summary (stderr); 0 if all were complete."""
    try:
        exchanges = open_recording(path)
    except RecordingError as exc:
        print(f"triptych: cannot replay {literal_line(str(exc))}", file=stderr)
        return 2
    all_complete = True
    for exchange in exchanges:
        api = api_of(str(exchange.request.get("url", "")))
        if api is None:
            print(f"triptych: skipped a request to {exchange.request.get('url')!r}", file=stderr)
            continue
        turn = replay_turn(api, exchange)
        all_complete = all_complete and turn.status is TurnStatus.COMPLETE
        if turn.text:
            stdout.write(clean(turn.text) + ("" if turn.text.endswith("\n") else "\n"))
        body = exchange.request.get("body")
        model = str(body.get("model", "?")) if isinstance(body, dict) else "?"
        provider = ProviderConfig(name="replay", api=api, base_url="", model=model)
        ended = exchange.pieces[-1][0] if exchange.pieces else 0.0
        print(literal(summary_line(provider, turn, Timing(0.0, None, ended))), file=stderr)
    return 0 if all_complete else 1


def api_of(url: str) -> Api | None:
    path = url.split("?", 1)[0].rstrip("/")
    for api, endpoint in ENDPOINTS.items():
        if path.endswith(endpoint):
            return api
    return None


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
    "replay_turn",
]
