"""One change to how Textual keeps strips: a strip divided only at its own end does not keep
itself in its cache.

`Strip.divide` keeps its result in the strip's own cache. Cut only at the strip's end, the
result is `[self]`, so the strip then refers to itself: a cycle that reference counting never
frees, left for a full garbage collection. Textual's compositor divides every line it draws
(`Compositor._render_chops`), and a line that one widget covers whole is cut only at its end:
each line of every frame that replaced an older one was left to the collector, and when the render
clock had frozen it (app/ui/render_clock.py), it stayed until the stream ended.
Returning `[self]` without keeping it costs nothing: the answer is known without work.
The same fix belongs upstream (textual/strip.py, `divide`, textual 8.2.8), with
`crop_extend`, which does the same and which the app's own painting avoids
(app/ui/widgets/markdown_view.py, `fitted`).

`install` is called once by the app; it only swaps the method in, so calling it again is harmless.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.strip import Strip

_textual_divide = Strip.divide


def _divide_without_self_cycle(self: Strip, cuts: Iterable[int]) -> Sequence[Strip]:
    """`Strip.divide`, except that a cut only at the end gives `[self]` uncached."""
    cell_length = self.cell_length
    kept = [cut for cut in cuts if cut <= cell_length]
    if kept == [cell_length]:
        return [self]
    return _textual_divide(self, kept)


def install() -> None:
    Strip.divide = _divide_without_self_cycle  # type: ignore[method-assign]


def installed() -> bool:
    return Strip.divide is _divide_without_self_cycle


__all__ = ["install", "installed"]
