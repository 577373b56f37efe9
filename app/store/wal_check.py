"""Finding what SQLite will silently drop from a damaged write-ahead log.

After a crash the history's last changes live only in its -wal file. When SQLite recovers it,
it keeps frames up to the first one whose checksum fails and drops the rest without a word: a
damaged byte loses every conversation saved after it. Here the file is read the way SQLite's
recovery reads it (https://sqlite.org/fileformat2.html#walformat) to count the committed
transactions after the damage, so the app can say that something was lost. A log merely cut
short by a crash (a transaction whose last frames never reached the disk) is not damage: no
committed transaction follows the cut.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

_MAGIC = (0x377F0682, 0x377F0683)  # checksums of little- or big-endian words
_HEADER = 32
_FRAME_HEADER = 24
_MASK = 0xFFFFFFFF
MAX_FRAMES = 50_000  # a longer log (some 200 MB) is not checked, to keep starting quick


@dataclass(frozen=True, slots=True)
class WalDamage:
    """A log whose recovery stops before its end: `lost` committed transactions are skipped."""

    wal: Path
    kept: int  # frames SQLite recovers
    lost: int  # committed transactions after the damage


def wal_path(db: Path) -> Path:
    return db.with_name(db.name + "-wal")


def find_damage(db: Path) -> WalDamage | None:
    """The damage in `db`'s log, or None when it is intact, empty, cut short or too long."""
    wal = wal_path(db)
    try:
        with wal.open("rb") as log:
            header = log.read(_HEADER)
            if len(header) < _HEADER:
                return None
            magic, _version, page_size, _seq, salt1, salt2, sum1, sum2 = struct.unpack(
                ">8I", header
            )
            if magic not in _MAGIC or not 512 <= page_size <= 65536 or page_size & (page_size - 1):
                return None  # not a log SQLite would read at all; nothing to compare with
            frame_size = _FRAME_HEADER + page_size
            frames = (os.fstat(log.fileno()).st_size - _HEADER) // frame_size
            if frames > MAX_FRAMES:
                return None
            data = header + log.read(frames * frame_size)
    except OSError:
        return None
    frames = (len(data) - _HEADER) // frame_size
    big = magic & 1 == 1
    state = _checksum(data[:24], 0, 0, big=big)
    valid = state == (sum1, sum2)
    kept = 0
    lost = 0
    for index in range(frames):
        at = _HEADER + index * frame_size
        _page, commit, frame_salt1, frame_salt2, frame_sum1, frame_sum2 = struct.unpack(
            ">6I", data[at : at + _FRAME_HEADER]
        )
        ours = (frame_salt1, frame_salt2) == (salt1, salt2)  # else left from an earlier log
        if valid:
            state = _checksum(data[at : at + 8], *state, big=big)
            state = _checksum(data[at + _FRAME_HEADER : at + frame_size], *state, big=big)
            valid = ours and state == (frame_sum1, frame_sum2)
            if valid:
                if commit:
                    kept = index + 1
                continue
        if ours and commit:
            lost += 1
    return WalDamage(wal, kept, lost) if lost else None


def _checksum(data: bytes, s1: int, s2: int, *, big: bool) -> tuple[int, int]:
    """SQLite's WAL checksum of `data` (a multiple of 8 bytes), continued from (s1, s2)."""
    words = struct.unpack(f"{'>' if big else '<'}{len(data) // 4}I", data)
    for first, second in zip(words[0::2], words[1::2], strict=True):
        s1 = (s1 + first + s2) & _MASK
        s2 = (s2 + second + s1) & _MASK
    return s1, s2


__all__ = ["MAX_FRAMES", "WalDamage", "find_damage", "wal_path"]
