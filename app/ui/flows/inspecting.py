"""What the inspector asks of the app: saving an exchange as a recording file, named so it is
easy to find and to attach to a bug report (`recordings/` in the data dir)."""

from __future__ import annotations

import hashlib
import os
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from app.providers.record import exchange_lines, recording_text
from app.settings.paths import data_dir
from app.ui.flows.host import ChatHost

if TYPE_CHECKING:
    from app.wire.exchange import CapturedExchange

RECORDINGS_FOLDER = "recordings"


def recording_path(folder: Path, provider: str, now: float) -> Path:
    """`triptych-<provider>-<date>-<time>.jsonl`, never over an earlier file."""
    slug = "-".join(re.findall(r"[A-Za-z0-9]+", provider.lower()))[:40] or "provider"
    stem = f"triptych-{slug}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}"
    path = folder / f"{stem}.jsonl"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.jsonl"
        number += 1
    return path


def save_recording(host: ChatHost, exchange: CapturedExchange, provider: str) -> Path | None:
    """Write the exchange (secrets already redacted when it was captured), owner-only, and say
    where it went; the same recording again (the same exchange, nothing more arrived) is not
    written twice: where it already is is said. A failure to write is said, never raised."""
    text = recording_text(exchange)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    earlier = host.saved_recordings.get(digest)
    if earlier is not None and earlier.is_file():
        host.notify(f"Already saved to {earlier} (the same exchange): not written again.")
        return earlier
    store = host.history.store
    folder = (store.path.parent if store is not None else data_dir()) / RECORDINGS_FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = recording_path(folder, provider, time.time())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        host.notify(f"Could not save the recording: {exc.strerror or exc}", severity="error")
        return None
    host.saved_recordings[digest] = path
    host.notify(f"Saved the exchange to {path} (the --record format; secrets redacted).")
    return path


class SessionRecording:
    """Every exchange of the session appended to one recording file as it ends, until stopped
    (`ask --record` for a whole session). Numbered in the order the answers ended."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0

    @classmethod
    def start(cls, host: ChatHost, provider: str) -> SessionRecording | None:
        store = host.history.store
        folder = (store.path.parent if store is not None else data_dir()) / RECORDINGS_FOLDER
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = recording_path(folder, f"session-{provider}", time.time())
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as exc:
            host.notify(f"Could not start recording: {exc.strerror or exc}", severity="error")
            return None
        host.notify(f"Recording every exchange to {path} until you stop it (palette).")
        return cls(path)

    def add(self, host: ChatHost, exchange: CapturedExchange | None) -> None:
        if exchange is None:
            return
        chain: list[CapturedExchange] = []
        current: CapturedExchange | None = exchange
        while current is not None:  # an exchange a retry replaced goes first
            chain.insert(0, current)
            current = current.retried
        lines: list[str] = []
        for item in chain:
            self.count += 1
            lines += exchange_lines(item, self.count)
        try:
            with self.path.open("a", encoding="utf-8") as out:
                out.write("".join(line + "\n" for line in lines))
        except OSError as exc:
            host.notify(f"Could not record the exchange: {exc.strerror or exc}", severity="error")

    def stop(self, host: ChatHost) -> None:
        host.notify(f"Stopped recording: {self.count} exchange(s) in {self.path}.")


__all__ = ["RECORDINGS_FOLDER", "SessionRecording", "recording_path", "save_recording"]
