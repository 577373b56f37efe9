"""Where the history file lives: its own module so the app can name the file without loading
sqlite3 and the store, which it opens after its first frame."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from app.settings.paths import data_dir

DEFAULT_FILENAME = "history.sqlite3"


def history_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the history lives: history.sqlite3 in the data dir ($TRIPTYCH_DATA_DIR honoured)."""
    return data_dir(environ) / DEFAULT_FILENAME


__all__ = ["DEFAULT_FILENAME", "history_path"]
