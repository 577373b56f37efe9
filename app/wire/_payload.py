"""Small helpers the three decoders share for reading untrusted JSON payloads."""

from __future__ import annotations

from typing import Any

from app.wire.events import Source, Sources


class MalformedStream(ValueError):
    """A payload the decoder cannot read; the engine ends the turn with it as the error."""


def malformed(what: str, data: str) -> MalformedStream:
    sample = data if len(data) <= 80 else data[:77] + "..."
    return MalformedStream(f"{what}: {sample!r}")


def int_or_none(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def sources_from(items: object) -> Sources:
    """Citations arrive as strings or objects with a url (and maybe a title) in every format."""
    found: list[Source] = []
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, str):
            found.append(Source(item))
        elif isinstance(item, dict):
            url = _first_str(item, "url", "uri", "link", "source")
            if url:
                found.append(Source(url, _first_str(item, "title", "name", "cited_text")))
    return Sources(tuple(found))


def _first_str(item: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value:
            return value
    return ""
