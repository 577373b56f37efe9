"""Who is streaming a turn, and whether they still can.

A turn left in status 'streaming' is either being written by a live instance right now or was
orphaned by one that died. Marking a live one interrupted would be wrong (and its next save would
undo it anyway), so an orphan is recognised by its writer's process being gone, or, where that
cannot be checked (another host, Windows, a reused pid), by its last save being long ago.
"""

from __future__ import annotations

import os
import socket
import sys
from dataclasses import dataclass

STALE_AFTER = 120.0  # seconds without a save after which a streaming turn counts as orphaned
HEARTBEAT = STALE_AFTER / 4  # the longest a streaming turn's writer goes without touching it
INTERRUPTED_BY_EXIT = "the app stopped before the answer finished"


@dataclass(frozen=True, slots=True)
class Owner:
    host: str
    pid: int

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}"

    @classmethod
    def current(cls) -> Owner:
        return cls(socket.gethostname(), os.getpid())

    @classmethod
    def parse(cls, text: str | None) -> Owner | None:
        if not text:
            return None
        host, _, pid = text.rpartition(":")
        return cls(host, int(pid)) if pid.isdigit() else None


def is_orphaned(owner_text: str | None, last_saved: float, now: float) -> bool:
    """True when the turn's writer is certainly or very probably gone."""
    if now - last_saved > STALE_AFTER:
        return True
    owner = Owner.parse(owner_text)
    if owner is None:
        return True
    me = Owner.current()
    if owner.host != me.host or sys.platform == "win32":
        return False  # cannot look; staleness above decides
    if owner.pid == me.pid:
        return False
    return not _process_exists(owner.pid)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: existence check only (never used on Windows, where it kills)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, belongs to someone else
    return True


__all__ = ["HEARTBEAT", "INTERRUPTED_BY_EXIT", "STALE_AFTER", "Owner", "is_orphaned"]
