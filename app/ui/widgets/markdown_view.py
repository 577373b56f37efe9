"""One widget for a piece of streamed, untrusted Markdown, drawn from cached lines.

The source is rendered by app/display/markdown_render.py into lines at the widget's width, kept
until the source, the width or the theme changes, and painted line by line (Textual's line API).
Layout asks for the height at a width, which renders once and keeps the lines for the paint that
follows. Appending re-renders only this widget's source, so a long answer is cut into several of
them (app/ui/widgets/answer.py) and only the last one changes while it streams.
"""

from __future__ import annotations

from functools import lru_cache

from textual.app import App
from textual.color import Color, ColorParseError
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget

from app.display.markdown_render import MarkdownLook, MarkdownPainter


def theme_colors(app: App[object]) -> dict[str, str]:
    """The theme's colours as plain hex, for Rich (Textual's variables may hold expressions
    such as `auto 60%`, which only Textual can resolve)."""
    colors: dict[str, str] = {}
    for name, value in app.get_css_variables().items():
        try:
            colors[name] = Color.parse(value).hex
        except ColorParseError:
            continue
    foreground = Color.parse(colors.get("foreground", "#e0e0e0"))
    background = Color.parse(colors.get("background", "#000000"))
    colors["text-muted"] = foreground.blend(background, 0.4).hex
    return colors


@lru_cache(maxsize=8)
def painter_for(look: MarkdownLook) -> MarkdownPainter:
    """One painter (a Rich console) per look, shared by every widget using it."""
    return MarkdownPainter(look)


class StreamedMarkdown(Widget):
    DEFAULT_CSS = """
    StreamedMarkdown {
        height: auto;
        padding: 0 1;
    }
    """

    def __init__(self, source: str = "", *, classes: str | None = None) -> None:
        super().__init__(classes=classes)
        self.source = source
        self._look: MarkdownLook | None = None
        self._lines: list[Strip] = []
        self._lines_width = -1  # width the lines were rendered at; -1: render again

    async def append(self, text: str) -> None:
        """Add streamed text; it is drawn on the next layout."""
        if text:
            self.source += text
            self._lines_width = -1
            self.refresh(layout=True)

    def look(self) -> MarkdownLook:
        if self._look is None:
            app = self.app
            self._look = MarkdownLook.from_colors(theme_colors(app), dark=app.current_theme.dark)
        return self._look

    def lines_at(self, width: int) -> list[Strip]:
        if width != self._lines_width:
            rendered = painter_for(self.look()).lines(self.source, width)
            self._lines = [Strip(line) for line in rendered]
            self._lines_width = width
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines_at(width))

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self.lines_at(width)
        style = self.rich_style
        if y >= len(lines):
            return Strip.blank(width, style)
        return lines[y].crop_extend(0, width, style).apply_style(style)

    def notify_style_update(self) -> None:
        """The theme may have changed: colours come from it."""
        self._look = None
        self._lines_width = -1
        super().notify_style_update()


__all__ = ["StreamedMarkdown", "painter_for", "theme_colors"]
