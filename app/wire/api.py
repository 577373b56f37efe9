"""The three wire formats a provider speaks, by name (`api = "chat"` in the config).

Its own module so that the config, the store and the first screen name a format without loading
the engine and its decoders (start-up); `app.wire.engine` re-exports it.
"""

from __future__ import annotations

from enum import StrEnum


class Api(StrEnum):
    CHAT = "chat"
    MESSAGES = "messages"
    RESPONSES = "responses"


__all__ = ["Api"]
