"""One change to how Textual lays out: no second whole-screen reflow after every layout.

After a layout, Textual hands each widget the size and virtual size it just computed
(`Widget._size_updated`). Setting `virtual_size` goes through a reactive declared with
`layout=True`, so every widget whose virtual size changed asks for another layout, and the
screen reflows everything a second time, to the same result: nothing watches `virtual_size`, and
the one thing that depends on it, whether a container shows scroll bars, is settled in the same
call (`_scroll_update`), which asks for its own layout when a bar appears or goes. While an answer
streams, every tick grows the answer, its turn and the transcript, so each tick paid for two
reflows; measured at 160x48, the second was 25-30% of a tick's cost.

`ScrollView` (TextArea, Log, DataTable, ...) overrides `_size_updated` and is not affected.
`install` is called once by the app; it only swaps the method in, so calling it again is harmless.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget

_textual_size_updated = Widget._size_updated


def _size_updated_once(
    self: Widget, size: Size, virtual_size: Size, container_size: Size, layout: bool = True
) -> bool:
    """Record the sizes a layout computed without asking for another layout."""
    return _textual_size_updated(self, size, virtual_size, container_size, layout=False)


def install() -> None:
    """Make Textual lay the screen out once per change instead of twice."""
    Widget._size_updated = _size_updated_once  # type: ignore[method-assign]


def installed() -> bool:
    return Widget._size_updated is _size_updated_once


__all__ = ["install", "installed"]
