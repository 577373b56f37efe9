"""Alt with a digit, `-` or `=` from a real terminal (ESC then the key) is the Alt chord with
nothing to type, not the macOS character Textual 8 reads it as (app/ui/textual_keys.py)."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from app.ui import textual_keys


def keys(data: str) -> list[tuple[str, str | None]]:
    parser = XTermParser()
    found = [*parser.feed(data), *parser.feed("")]  # "" ends the input: ESC alone is a key
    return [(e.key, e.character) for e in found if isinstance(e, events.Key)]


def test_esc_and_a_digit_or_equals_is_the_alt_chord_with_no_character() -> None:
    textual_keys.install()
    assert textual_keys.installed()
    assert keys("\x1b1") == [("alt+1", None)]  # was ("inverted_exclamation_mark", "¡")
    assert keys("\x1b4") == [("alt+4", None)]
    assert keys("\x1b=") == [("alt+equals_sign", None)]  # was "≠"
    assert keys("\x1b-") == [("alt+minus", None)]
    assert keys("\x1b[49;3u") == [("alt+1", None)]  # the kitty protocol's Alt+1, as before


def test_what_is_typed_keeps_its_meaning() -> None:
    textual_keys.install()
    assert keys("¡hola") == [
        ("inverted_exclamation_mark", "¡"),  # a Spanish keyboard's key, typed as itself
        ("h", "h"),
        ("o", "o"),
        ("l", "l"),
        ("a", "a"),
    ]
    assert keys("1=") == [("1", "1"), ("equals_sign", "=")]
    assert keys("\x1bx") == [("alt+x", "x")]  # Alt and a letter: Textual's own reading
    assert keys("\x1b") == [("escape", "\x1b")]
    assert keys("\x1b[A") == [("up", None)]
