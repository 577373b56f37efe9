"""The conversation history: SQLite in the data dir, saved as it streams, searchable, exportable.

Pure core: no Textual or Rich here, so `triptych history` and `triptych export` work headless.
"""

from app.store.db import DEFAULT_FILENAME, Store, history_path
from app.store.errors import ConversationNotFound, StoreError
from app.store.export import EXPORT_FORMATS, ExportFormat, export_conversation, format_history
from app.store.liveness import INTERRUPTED_BY_EXIT
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
