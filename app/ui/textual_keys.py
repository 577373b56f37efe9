"""One change to how Textual reads keys: Alt with a digit, `-` or `=` is that Alt chord, not a
character to type.

Most terminals (xterm, tmux, GNOME's, kitty without its own protocol) send Alt+1 as ESC then `1`.
Textual 8 reads that pair, and ESC with `0`-`9`, `-` or `=`, as the character macOS's Option key
types on a US layout (`¡` for Alt+1, `≠` for Alt+=: the entries for WezTerm on macOS in
`textual/_ansi_sequences.py`, textual 8.2.8). A focused text field then inserts the character, and
no binding for `alt+1` ever sees the key, so the vote keys of a blind comparison would type into
the prompt instead. Read here, ESC and `1` is the key `alt+1` with no character: a binding for it
fires, and nothing is typed when none does. A real `¡` arrives as its own UTF-8 bytes and is
still typed as itself (a Spanish keyboard has the key), so nothing typed changes meaning.

`install` is called once by the app; it only sets table entries, so calling it again is harmless.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from textual import _ansi_sequences

ALT_KEYS = {**{str(digit): f"alt+{digit}" for digit in range(10)}, "-": "alt+minus"}
ALT_KEYS["="] = "alt+equals_sign"


class AltKey(Enum):
    """Values the parser turns into keys without a character, as it does its own `Keys`."""

    ALT_0 = "alt+0"
    ALT_1 = "alt+1"
    ALT_2 = "alt+2"
    ALT_3 = "alt+3"
    ALT_4 = "alt+4"
    ALT_5 = "alt+5"
    ALT_6 = "alt+6"
    ALT_7 = "alt+7"
    ALT_8 = "alt+8"
    ALT_9 = "alt+9"
    ALT_MINUS = "alt+minus"
    ALT_EQUALS = "alt+equals_sign"


SEQUENCES: dict[str, tuple[AltKey, ...]] = {
    "\x1b" + character: (AltKey(key),) for character, key in ALT_KEYS.items()
}


def install() -> None:
    """Read ESC and a digit, `-` or `=` as the Alt chord (see the module's docstring)."""
    table: dict[str, Any] = _ansi_sequences.ANSI_SEQUENCES_KEYS  # type: ignore[assignment]
    table.update(SEQUENCES)


def installed() -> bool:
    table: dict[str, Any] = _ansi_sequences.ANSI_SEQUENCES_KEYS  # type: ignore[assignment]
    return all(table.get(sequence) == keys for sequence, keys in SEQUENCES.items())


__all__ = ["ALT_KEYS", "SEQUENCES", "AltKey", "install", "installed"]
