"""A Markdown widget for streamed, untrusted text, with one shared parser.

Textual's `Markdown.append` asks its parser factory for a parser on every append; building a
MarkdownIt("gfm-like") each time is wasted work at 20 appends a second, so one instance is shared
(parsing keeps no state between calls). Links are not opened on click: model output is
untrusted, and a stray click must not launch a browser.
"""

from __future__ import annotations

from functools import lru_cache

from markdown_it import MarkdownIt
from textual.widgets import Markdown


@lru_cache(maxsize=1)
def shared_parser() -> MarkdownIt:
    return MarkdownIt("gfm-like")


class StreamedMarkdown(Markdown):
    BLANK = True
    DEFAULT_CSS = """
    StreamedMarkdown {
        padding: 0 1;
        margin: 0;
    }
    """

    def __init__(self, *, classes: str | None = None, id: str | None = None) -> None:
        super().__init__(
            None, parser_factory=shared_parser, open_links=False, classes=classes, id=id
        )


__all__ = ["StreamedMarkdown", "shared_parser"]
