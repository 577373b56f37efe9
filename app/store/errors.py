"""What goes wrong with the history file, said so a user knows which file and what to do.

A StoreError means the file is unusable: its message ends by saying the session carries on
without history, so the app can show it once and keep chatting. A missing conversation is not
that, so ConversationNotFound is a LookupError, not a StoreError.
"""

from __future__ import annotations

import shutil
from pathlib import Path

# Below this much free space, a failed write is taken to be the disk being full: SQLite reports
# a full disk as SQLITE_FULL only for some writes, and as an I/O error for others (its -shm).
NEARLY_FULL = 1024 * 1024


SESSION_OFF = "; this session runs without history."


class StoreError(Exception):
    """The history cannot be used; the message says which file and what to do about it."""

    def for_command(self) -> str:
        """The message for a one-shot command (`triptych history`), which has no session."""
        message = str(self)
        if message.endswith(SESSION_OFF):
            return message[: -len(SESSION_OFF)] + "."
        return message


class ConversationNotFound(LookupError):
    """No conversation with that id (a wrong id, or it was deleted)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no such conversation"


def unusable(path: Path, exc: BaseException) -> str:
    code = str(getattr(exc, "sqlite_errorname", ""))
    if code == "SQLITE_FULL" or (code.startswith("SQLITE_IOERR") and _nearly_full(path)):
        return (
            f"The history file {path} could not be written: disk full ({exc}). What was saved "
            "before is kept; free some space on that disk and restart Triptych to save again"
            + SESSION_OFF
        )
    if code.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")):
        return (
            f"The history file {path} is damaged or is not a Triptych database ({exc}). "
            f"Move it aside (for example rename it to {path.name}.broken) and Triptych will "
            "start a new history" + SESSION_OFF
        )
    return (
        f"The history file {path} cannot be used ({exc}). Check that its folder exists and is "
        "writable and that no other program holds it" + SESSION_OFF
    )


def _nearly_full(path: Path) -> bool:
    try:
        return shutil.disk_usage(path.parent).free < NEARLY_FULL
    except OSError:
        return False


def damaged(path: Path, found: str) -> str:
    """A file that opens but whose pages SQLite's integrity check finds damaged."""
    return (
        f"The history file {path} is damaged ({found[:300]}). Move it aside (for example rename "
        f"it to {path.name}.broken) and Triptych will start a new history" + SESSION_OFF
    )


def too_new(path: Path, found: int, known: int) -> str:
    return (
        f"The history file {path} was written by a newer Triptych (schema version {found}; "
        f"this one knows up to {known}). Upgrade Triptych, or move the file aside to start a "
        "new history" + SESSION_OFF
    )


__all__ = [
    "SESSION_OFF",
    "ConversationNotFound",
    "StoreError",
    "damaged",
    "too_new",
    "unusable",
]
