"""Keys pressed away from the prompt. Focus lands elsewhere often (a selected message, the new
chat's transcript, Tab to a comparison's tab row or pane, the vote bar), and there a letter used
to vanish without a sign. As in a chat web page, a printable key goes to the prompt, typed at
its cursor, unless the focused widget (or the screen) binds that key and can use it now (a
selected message's `e`, the approval row's `r`); Esc always comes back to the prompt.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen
from textual.widgets import Input, TextArea

from app.ui.widgets.prompt import PromptInput


def key_to_prompt(screen: Screen[Any], prompt: PromptInput, event: events.Key) -> None:
    """Called from a screen's `on_key`, which sees the keys no focused widget used."""
    focused = screen.focused
    if not prompt.display:
        return
    if focused is prompt:
        if prompt.took(event):
            return  # the prompt had it and left it to the bindings (Enter, `?`, Alt+a letter)
        # Sent to the widget focused when it was typed, and the focus moved to the prompt
        # before that widget read it: typed right after Ctrl+N or the first letter of a
        # type-through, it is the prompt's too (that widget's bindings no longer apply).
    elif isinstance(focused, TextArea | Input):
        return  # a text field takes its own keys (a tool's inline editor)
    if event.key != "escape" and not event.is_printable:
        return
    bound = screen.active_bindings.get(event.key)
    if bound is not None and bound.enabled:
        return  # the focused widget's (or the screen's) own key: its binding acts on it
    event.stop()
    event.prevent_default()
    screen.set_focus(prompt)  # now: the keys typed after this one go to the prompt
    if event.key != "escape" and event.character is not None:
        prompt.insert(event.character)


__all__ = ["key_to_prompt"]
