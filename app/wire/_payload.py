"""Small helpers the three decoders share for reading untrusted JSON payloads.

The rule they implement: a data line that is not a JSON object is a broken stream (the engine
ends the turn with `malformed_stream`); inside an object, a field of an unexpected type is
ignored like an unknown field, so one odd value never costs the user the answer.
"""

from __future__ import annotations

import json
from json.scanner import c_make_scanner, py_make_scanner  # type: ignore[attr-defined]
from typing import Any

from app.wire.events import Source, Sources

_JSON_SPACE = " \t\n\r"


class MalformedStream(ValueError):
    """A payload the decoder cannot read; the engine ends the turn with it as the error."""


def malformed(what: str, data: str) -> MalformedStream:
    sample = data if len(data) <= 80 else data[:77] + "..."
    return MalformedStream(f"{what}: {sample!r}")


def is_done(data: str) -> bool:
    """`[DONE]`, spelled with any surrounding whitespace; cheap on large payloads."""
    return len(data) < 32 and data.strip() == "[DONE]"


# json's own C scanner, called directly: `json.loads` spends about a third of its time on
# three Python-level calls and a regex around it. Same parser, same results.
_scan_once = (c_make_scanner or py_make_scanner)(json.JSONDecoder())


def load_object(data: str) -> dict[str, Any]:
    """Parse one data payload; anything but a JSON object is a malformed stream."""
    try:
        if data.startswith("{"):
            payload, end = _scan_once(data, 0)
            if end != len(data) and data[end:].strip(_JSON_SPACE):
                raise ValueError("extra data after the JSON object")
        else:
            payload = json.loads(data)
    except (ValueError, RecursionError, StopIteration):
        raise malformed("a data line is not JSON", data) from None
    if type(payload) is not dict:
        raise malformed("an event is not a JSON object", data)
    return payload


def as_dict(value: object) -> dict[str, Any]:
    return value if type(value) is dict else {}


def as_str(value: object) -> str:
    """An id or name: strings as they are, numbers spelled out, anything else empty."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return ""


def as_index(value: object, default: int = 0) -> int:
    return value if type(value) is int else default


def int_or_none(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def json_text(value: object) -> str | None:
    """Arguments sent as an object (llama.cpp, some gateways) become their JSON text once."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return None


def error_fields(error: object, fallback: str) -> tuple[str | None, str]:
    """(code, message) from an error object or string, in any of the shapes providers use."""
    if isinstance(error, dict):
        code = error.get("code") or error.get("type")
        message = error.get("message")
        if not isinstance(message, str) or not message:
            message = fallback
        return (as_str(code) or None), message
    if isinstance(error, str) and error:
        return None, error
    return None, fallback


def sources_from(items: object) -> Sources:
    """Citations arrive as strings or objects with a url (and maybe a title) in every format."""
    found: list[Source] = []
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, str):
            if item:
                found.append(Source(item))
        elif isinstance(item, dict):
            nested = item.get("url_citation")  # chat annotations nest the citation
            if isinstance(nested, dict):
                item = nested
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
