"""Checks of the history file itself: a damaged log at open, damaged pages on demand.

Both kinds of damage are silent in SQLite: recovery drops a log's frames from the first bad
checksum on, and a damaged page fails only when it is read. These checks find them so the user
is told what happened, once, instead of seeing conversations disappear.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from app.store.transaction import transaction
from app.store.wal_check import find_damage, wal_path


@dataclass(frozen=True, slots=True)
class LogDamage:
    lost: int  # committed transactions SQLite skipped
    copy: Path | None  # where the damaged log was kept
    copy_problem: str = ""

    def warning(self, path: Path, conversations: int) -> str:
        kept = "1 conversation" if conversations == 1 else f"{conversations} conversations"
        changes = "1 saved change" if self.lost == 1 else f"{self.lost} saved changes"
        where = (
            f"the damaged log was copied to {self.copy}"
            if self.copy is not None
            else f"a copy of the damaged log could not be kept ({self.copy_problem})"
        )
        return (
            f"The history file {path} was damaged: its write-ahead log held {changes} that "
            "could not be read back, so what was saved last before Triptych stopped (whole "
            f"conversations or the end of an answer) is missing. What could be read was kept: "
            f"{kept}; {where}."
        )


def damaged_log(conn: sqlite3.Connection, path: Path, busy_timeout_ms: int) -> LogDamage | None:
    """Check the -wal file SQLite recovers from; keep a copy of a damaged one, then empty it.

    Checked holding the write lock, so no other instance appends to it meanwhile; emptied (a
    TRUNCATE checkpoint, which keeps every frame SQLite could read) so the damage is reported
    once, not at every start. Call it before the connection writes anything.
    """
    wal = wal_path(path)
    if not wal.exists() or wal.stat().st_size == 0:
        return None
    with transaction(conn):
        damage = find_damage(path)
        if damage is None:
            return None
        copy, problem = _keep_copy(wal)
    conn.execute("PRAGMA busy_timeout = 200")  # others still reading: leave it for later
    try:
        with contextlib.suppress(sqlite3.OperationalError):
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    finally:
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms:d}")
    return LogDamage(damage.lost, copy, problem)


def quick_check(path: Path, busy_timeout_ms: int) -> str | None:
    """What SQLite's quick_check finds wrong with the file, on a read-only connection of its
    own (so it can run beside the app's); None when the file is sound. Reads the whole file."""
    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms:d}")
        rows = conn.execute("PRAGMA quick_check(5)").fetchall()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    finally:
        conn.close()
    found = [str(row[0]) for row in rows]
    return None if found == ["ok"] else "; ".join(found)


def _keep_copy(wal: Path) -> tuple[Path | None, str]:
    """Copy the damaged log beside the history (owner-only), under a name not yet taken."""
    for number in range(1, 100):
        suffix = ".damaged" if number == 1 else f".damaged-{number}"
        copy = wal.with_name(wal.name + suffix)
        try:
            fd = os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError as exc:
            return None, str(exc)
        try:
            with os.fdopen(fd, "wb") as out, wal.open("rb") as log:
                shutil.copyfileobj(log, out)
        except OSError as exc:
            with contextlib.suppress(OSError):
                copy.unlink()
            return None, str(exc)
        return copy, ""
    return None, "too many earlier copies"


__all__ = ["LogDamage", "damaged_log", "quick_check"]
