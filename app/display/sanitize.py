"""Make untrusted model text safe to put on a terminal.

Model output may contain escape sequences or control characters meant to move the cursor,
recolour the screen or set the window title. Each one is replaced with a visible stand-in (the
Unicode "control picture", e.g. ESC becomes ␛) so the text is shown literally and nothing is
interpreted by the terminal. Rich/Textual markup is a separate concern: the UI never passes model
text through a markup parser (it builds Content objects), so brackets need no escaping here.
"""

from __future__ import annotations

_KEEP = {"\n", "\t"}


def _build_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):
        if chr(code) not in _KEEP:
            table[code] = chr(0x2400 + code)  # ␀ … ␟
    table[ord("\r")] = ""  # CRLF line endings are common and harmless once the CR is dropped
    table[0x7F] = "\u2421"  # ␡
    for code in range(0x80, 0xA0):  # C1 controls, e.g. the 8-bit CSI 0x9b
        table[code] = "\ufffd"
    # Bidirectional overrides and isolates can make text read differently from what it is.
    for code in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)):
        table[code] = "\ufffd"
    return table


_TABLE = _build_table()

# Characters that draw nothing yet change how the text around them reads or compares: bidi marks
# and zero-width spaces, joiners and the BOM. Printed, they are as misleading as the overrides.
# The zero-width joiner and non-joiner are not among them: emoji sequences and several scripts
# need them, and they cannot reorder text.
_ZERO_WIDTH = (0x061C, 0x180E, 0x200B, 0x200E, 0x200F, *range(0x2060, 0x2065), 0xFEFF)
_BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A))
_HIDDEN_TABLE = dict.fromkeys((*_BIDI, *_ZERO_WIDTH), "�")
HIDDEN = frozenset(map(chr, _HIDDEN_TABLE))


def clean(text: str) -> str:
    """The text with every control character made visible (newlines and tabs kept)."""
    if text.isprintable():  # the common case: nothing to do, and a fast check
        return text
    return text.translate(_TABLE)


def clean_line(text: str) -> str:
    """Like `clean`, for one-line places (titles, status): newlines and tabs become spaces."""
    return clean(text).replace("\n", " ").replace("\t", " ")


_LITERAL_TABLE = {
    **_TABLE,
    **_HIDDEN_TABLE,
    **dict.fromkeys(range(0xD800, 0xE000), "\ufffd"),  # a file name's undecodable bytes
}


def literal(text: str) -> str:
    """Outside text (a name, a path, a server's words) for a line the headless commands print:
    controls as their pictures (ESC as ␛), bidi controls, zero-width characters and lone
    surrogates as U+FFFD; newlines and tabs kept. A name that draws like another is seen to
    differ, and nothing in it reaches the terminal as an escape."""
    if text.isprintable():
        return text
    return text.translate(_LITERAL_TABLE)


def literal_line(text: str) -> str:
    """`literal`, for a message of one line: a newline in a name shows as ␊ (it cannot start a
    line that seems to be the app's own), a tab as a space."""
    return literal(text).replace("\n", "\u240a").replace("\t", " ")


def reveal_hidden(text: str) -> str:
    """Bidi controls and zero-width characters as U+FFFD, the stand-in the TUI draws for bidi
    controls; nothing else changes. For text the headless commands print or export."""
    if text.isprintable():
        return text
    return text.translate(_HIDDEN_TABLE)


__all__ = ["HIDDEN", "clean", "clean_line", "literal", "literal_line", "reveal_hidden"]
