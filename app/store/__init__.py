"""The conversation history: SQLite in the data dir, saved as it streams, searchable, exportable.

Pure core: no Textual or Rich here, so `triptych history` and `triptych export` work headless.

The names below are loaded when first asked for (PEP 562): importing `app.store.session` for
the app's `History` does not load sqlite3, the schema and the rest of the store, which the
first screen does not use (start-up; the history opens after the first frame).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.store.db import Store
    from app.store.errors import ConversationNotFound, StoreError
    from app.store.export import EXPORT_FORMATS, ExportFormat, export_conversation, format_history
    from app.store.liveness import INTERRUPTED_BY_EXIT
    from app.store.location import DEFAULT_FILENAME, history_path
    from app.store.records import (
        BatchInfo,
        ConversationSummary,
        Kind,
        PaneInfo,
        StoredConversation,
        StoredMessage,
    )
    from app.store.saver import TurnSaver
    from app.store.votes import OUTCOMES, Outcome, Vote, VotePane

_LAZY = {
    "DEFAULT_FILENAME": "app.store.location",
    "Store": "app.store.db",
    "history_path": "app.store.location",
    "ConversationNotFound": "app.store.errors",
    "StoreError": "app.store.errors",
    "EXPORT_FORMATS": "app.store.export",
    "ExportFormat": "app.store.export",
    "export_conversation": "app.store.export",
    "format_history": "app.store.export",
    "INTERRUPTED_BY_EXIT": "app.store.liveness",
    "BatchInfo": "app.store.records",
    "ConversationSummary": "app.store.records",
    "Kind": "app.store.records",
    "PaneInfo": "app.store.records",
    "StoredConversation": "app.store.records",
    "StoredMessage": "app.store.records",
    "TurnSaver": "app.store.saver",
    "OUTCOMES": "app.store.votes",
    "Outcome": "app.store.votes",
    "Vote": "app.store.votes",
    "VotePane": "app.store.votes",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'app.store' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "DEFAULT_FILENAME",
    "EXPORT_FORMATS",
    "INTERRUPTED_BY_EXIT",
    "OUTCOMES",
    "BatchInfo",
    "ConversationNotFound",
    "ConversationSummary",
    "ExportFormat",
    "Kind",
    "Outcome",
    "PaneInfo",
    "Store",
    "StoreError",
    "StoredConversation",
    "StoredMessage",
    "TurnSaver",
    "Vote",
    "VotePane",
    "export_conversation",
    "format_history",
    "history_path",
]
