"""What the app remembers between runs (last provider, model, theme), kept in its own state.toml.

With the choice it keeps what config.toml said when it was remembered (`config_default`, the
remembered provider's `config_model`, and `config_theme`), so an edit of the config since can
win over it. A file written before those fields existed still reads: they are simply unknown.

It is separate from config.toml so the user's file — and its comments — is never rewritten.
Losing it costs nothing, so a missing or broken file reads as "nothing remembered" instead of an
error, and it is replaced atomically so a crash mid-write cannot leave half a file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import tomllib
from dataclasses import asdict, dataclass
from pathlib import Path

from app.display.sanitize import clean_line

HEADER = "# Written by triptych to remember your last choices. Settings go in config.toml.\n"


@dataclass(frozen=True, slots=True)
class State:
    provider: str | None = None
    model: str | None = None
    theme: str | None = None
    config_default: str | None = None  # the config's `default` when the choice was remembered
    config_model: str | None = None  # ... and the remembered provider's configured `model`
    config_theme: str | None = None  # ... and its `ui.theme` ("" when it set none)


FIELDS = ("provider", "model", "theme", "config_default", "config_model", "config_theme")
MODEL_FIELDS = ("model", "config_model")


def valid_model_id(model: str) -> bool:
    """A model id fit to store and show: not empty, no surrounding space, and no control
    characters, C1 codes or bidi overrides (a server's `GET /models` may send any of them,
    and an escape sequence would reach the terminal from the header)."""
    return bool(model) and model.strip() == model and clean_line(model) == model


def _valid(name: str, value: str) -> bool:
    if name == "config_theme":
        return True  # "" records that the config named no theme
    return valid_model_id(value) if name in MODEL_FIELDS else bool(value)


def load_state(path: Path) -> State:
    """The remembered state; any unreadable file or value is simply forgotten."""
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return State()
    values = {
        name: value
        for name in FIELDS
        if isinstance(value := document.get(name), str) and _valid(name, value)
    }
    return State(**values)


def save_state(path: Path, state: State) -> None:
    """Write atomically (temp file + rename in the same dir). Raises OSError; callers should
    treat a failure as a lost preference, not as fatal."""
    path.parent.mkdir(parents=True, exist_ok=True)
    values = {
        name: value
        for name, value in asdict(state).items()
        if value is not None and _valid(name, value)
    }
    import tomli_w  # only when something changed: most starts write nothing

    text = HEADER + tomli_w.dumps(values)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
