"""What an answer was sent with, in a few words for its header: `temp 0.2 · max 256`.

Read from the parameters stored with the answer (`Turn.params`: the body's fields besides the
conversation, as each format spells them), so a reopened answer shows the same. The knobs get
short names whatever their format's field is called; anything else is shown by its key and a
short value. `stream_options` is Triptych's own request for usage figures, not a choice the
user made, and is left out (the inspector shows the whole body).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from app.display.sanitize import clean_line

SEPARATOR = " · "
LEFT_OUT = frozenset({"stream_options"})
MAX_VALUE = 24  # characters of a value shown for a field that is not a knob
MAX_SHOWN = 120  # characters of the whole summary


def _value(value: Any) -> str:
    if isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, float) and value.is_integer():
        text = f"{value:g}"
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def _word(value: Any) -> str:
    """A knob's own value: a string such as an effort shown without quotes."""
    return clean_line(value)[:MAX_VALUE] if isinstance(value, str) else _value(value)


def _stop(value: Any) -> str:
    if isinstance(value, list) and len(value) != 1:
        return f"stop ×{len(value)}"
    return f"stop {_value(value[0] if isinstance(value, list) else value)}"


def _reasoning(value: Any) -> str:
    """Responses' `reasoning` table: its effort, then its other keys (`summary auto`)."""
    if not isinstance(value, dict) or not value:
        return f"reasoning {_value(value)}"
    pieces = [f"effort {_word(value['effort'])}"] if "effort" in value else []
    pieces += [f"{key} {_word(item)}" for key, item in value.items() if key != "effort"]
    return SEPARATOR.join(pieces)


def _thinking(value: Any) -> str:
    if isinstance(value, dict) and isinstance(value.get("budget_tokens"), int):
        return f"think {value['budget_tokens']}"
    return f"thinking {_value(value)}"


_SHORT = {
    "temperature": lambda v: f"temp {_value(v)}",
    "top_p": lambda v: f"top_p {_value(v)}",
    "max_tokens": lambda v: f"max {_value(v)}",
    "max_output_tokens": lambda v: f"max {_value(v)}",
    "max_completion_tokens": lambda v: f"max {_value(v)}",
    "stop": _stop,
    "stop_sequences": _stop,
    "seed": lambda v: f"seed {_value(v)}",
    "reasoning_effort": lambda v: f"effort {_word(v)}",
    "reasoning": _reasoning,
    "thinking": _thinking,
}


def sent_summary(params: Mapping[str, Any]) -> str:
    """The parameters an answer was sent with, compact and on one line ("" when none)."""
    pieces = []
    for key, value in params.items():
        if key in LEFT_OUT:
            continue
        short = _SHORT.get(key)
        pieces.append(short(value) if short is not None else f"{key} {_value(value)}")
    text = clean_line(SEPARATOR.join(pieces))
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


__all__ = ["sent_summary"]
