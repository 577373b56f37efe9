"""The key sheet (F1): every binding of the screen it was opened over, grouped by who binds it.

It is read from the bindings themselves (the binding chain Textual walks for a key press, from
the focused widget up to the app), so it cannot fall behind them. Keys bound to the same
action are one row; a binding's tooltip, when it has one, is its longer explanation. Rows whose
action cannot run right now (Esc with nothing streaming) are dimmed, not left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.dom import DOMNode
from textual.keys import format_key
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

ESTIMATE_NOTE = (
    "~ before a number (~54 tok/s, ~120 tokens) marks an estimate: "
    "the provider has not sent its own count yet."
)
KEY_WORDS = {
    "escape": "Esc",
    "pageup": "PageUp",
    "pagedown": "PageDown",
    "backspace": "Backspace",
    "delete": "Delete",
    "super": "Super",
}
KEY_COLUMN = 20
SUFFIXES = re.compile(r"(Screen|Input|Widget)$")


@dataclass(frozen=True, slots=True)
class KeyRow:
    keys: tuple[str, ...]  # as shown: "Ctrl+W", "Alt+Backspace"
    description: str
    tooltip: str = ""
    available: bool = True  # the action can run right now


@dataclass(frozen=True, slots=True)
class KeyGroup:
    title: str
    rows: tuple[KeyRow, ...]


def key_name(key: str) -> str:
    """`ctrl+shift+left` → `Ctrl+Shift+Left`, `question_mark` → `?`, `escape` → `Esc`."""
    *modifiers, last = key.split("+")
    character = format_key(last)  # Textual's own reading: "slash" → "/" (but "enter" → "⏎")
    if len(character) == 1 and character.isascii() and character.isprintable():
        shown = character.upper() if modifiers else character
    else:
        shown = KEY_WORDS.get(last, last.replace("_", " ").title())
    return "+".join([*(KEY_WORDS.get(m, m.title()) for m in modifiers), shown])


def group_title(node: DOMNode) -> str:
    """A node's own KEY_GROUP, else its class name less Screen/Input; the app's is Everywhere."""
    own = getattr(node, "KEY_GROUP", "")
    if own:
        return str(own)
    if isinstance(node, App):
        return "Everywhere"
    return SUFFIXES.sub("", type(node).__name__) or type(node).__name__


def _declared_here(node: DOMNode) -> set[tuple[str, str]]:
    """(key, action) of the bindings the node's own class declares (not inherited ones)."""
    declared: set[tuple[str, str]] = set()
    for item in type(node).__dict__.get("BINDINGS", ()):
        binding = item if isinstance(item, Binding) else Binding(*item)
        for key in binding.key.split(","):
            declared.add((key.strip(), binding.action))
    return declared


def _rows(node: DOMNode, bindings: list[tuple[str, Binding]], app: App[Any]) -> list[KeyRow]:
    merged: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], Binding] = {}
    for key, binding in bindings:
        if binding.system and not binding.description:
            continue
        ident = (binding.action, binding.description)
        merged.setdefault(ident, []).append(key_name(key))
        first.setdefault(ident, binding)
    rows = []
    for ident, keys in merged.items():
        binding = first[ident]
        state = app._check_action_state(binding.action, node)  # what the footer asks too
        rows.append(
            KeyRow(
                tuple(dict.fromkeys(keys)),
                binding.description or binding.action,
                binding.tooltip,
                available=state is not False,
            )
        )
    return rows


def binding_chain(screen: Screen[Any]) -> list[tuple[DOMNode, list[tuple[str, Binding]]]]:
    """The nodes a key press on `screen` is offered to, with their bindings: the focused
    widget (the prompt, if focus is not back yet) up to the app, stopping at a modal screen
    as Textual does."""
    focused = screen.focused or next(iter(screen.query("#prompt")), None)
    nodes = list(focused.ancestors_with_self) if focused is not None else [screen, screen.app]
    chain: list[tuple[DOMNode, list[tuple[str, Binding]]]] = []
    for node in nodes:
        chain.append((node, list(node._bindings)))
        if node.is_modal:
            break
    return chain


def key_groups(screen: Screen[Any]) -> list[KeyGroup]:
    """The screen's keys first, then the focused widget's own, then the app's, then what the
    widget inherits from Textual (its standard editing or moving keys)."""
    app = screen.app
    own: list[KeyGroup] = []
    everywhere: list[KeyGroup] = []
    standard: list[KeyGroup] = []
    for node, bindings in binding_chain(screen):
        title = group_title(node)
        if isinstance(node, App):
            everywhere.append(KeyGroup(title, tuple(_rows(node, bindings, app))))
            continue
        if isinstance(node, Screen):
            rows = _rows(node, bindings, app)
            if rows:
                own.insert(0, KeyGroup(title, tuple(rows)))
            continue
        here = _declared_here(node)
        mine = _rows(node, [(k, b) for k, b in bindings if (k, b.action) in here], app)
        other = _rows(node, [(k, b) for k, b in bindings if (k, b.action) not in here], app)
        if mine:
            own.append(KeyGroup(title, tuple(mine)))
        if other:
            standard.append(KeyGroup(f"{title}: standard keys", tuple(other)))
    return [*own, *everywhere, *standard]


def sheet_content(groups: list[KeyGroup]) -> Content:
    """Literal text (descriptions are never markup); unavailable rows dimmed."""
    lines: list[Content] = []
    widths = [len(", ".join(row.keys)) for group in groups for row in group.rows]
    width = min(KEY_COLUMN, max(widths, default=0))  # a longer list of keys pushes its row
    for group in groups:
        if lines:
            lines.append(Content(""))
        lines.append(Content.styled(group.title, "bold $text-primary"))
        for row in group.rows:
            keys = ", ".join(row.keys)
            text_style = "" if row.available else "$text-muted"
            pieces: list[str | Content | tuple[str, str]] = [
                "  ",
                (f"{keys:<{width}}", "bold $text-accent" if row.available else "$text-muted"),
                "  ",
                (row.description, text_style),
            ]
            if row.tooltip:
                pieces.append((f" — {row.tooltip}", "$text-muted"))
            lines.append(Content.assemble(*pieces))
    return Content("\n").join(lines)


class KeysScreen(ModalScreen[None]):
    """The sheet itself; Esc (or F1, or q) closes it."""

    DEFAULT_CSS = """
    KeysScreen {
        align: center middle;
        background: $background 60%;
    }
    KeysScreen > #sheet {
        width: 96;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: round $primary;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        background: $surface;
        padding: 0 1;
    }
    KeysScreen #keys-scroll { width: 1fr; height: auto; max-height: 75vh; }
    KeysScreen #keys { width: 1fr; height: auto; }
    KeysScreen #note {
        width: 1fr;
        height: auto;
        border-top: solid $primary 40%;
        color: $text-muted;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f1,q", "close", "close", show=False),
    ]

    def __init__(self, groups: list[KeyGroup], title: str = "Keys") -> None:
        super().__init__()
        self.groups = groups
        self.sheet_text = sheet_content(groups)
        self.sheet_title = title

    def compose(self) -> ComposeResult:
        with Vertical(id="sheet") as sheet:
            sheet.border_title = self.sheet_title
            sheet.border_subtitle = "Esc closes"
            with VerticalScroll(id="keys-scroll"):
                yield Static(self.sheet_text, id="keys", markup=False)
            yield Static(Content(ESTIMATE_NOTE), id="note", markup=False)

    @property
    def plain(self) -> str:
        return f"{self.sheet_text.plain}\n{ESTIMATE_NOTE}"

    def action_close(self) -> None:
        self.dismiss()


__all__ = ["ESTIMATE_NOTE", "KeyGroup", "KeyRow", "KeysScreen", "key_groups", "key_name"]
