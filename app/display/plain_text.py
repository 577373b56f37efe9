"""Markdown shown as plain words: a search snippet in the history list is a line cut out of an
answer, so its headings, emphasis, code marks, bullets and link syntax would only be noise.

The snippet may be cut in the middle of a construct and its lines may already be joined into
one, so marks are recognised where they stand (a bullet or heading mark standing alone, an
emphasis run touching a word on one side only) rather than by parsing the Markdown.
"""

from __future__ import annotations

import re

_IMAGE_OR_LINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\s]|\([^()\s]*\))*\)?")
_CUT_LINK_TARGET = re.compile(r"\]\([^)\s]*$")  # a link whose target the cut left open
_REFERENCE = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_FENCE = re.compile(r"(?:`{3,}|~{3,})[\w+-]*")
_BACKTICKS = re.compile(r"`+")
# Runs of * _ ~ that open (start of text or after space/punctuation, before a non-space) or close
# (after a non-space, before the end, space or punctuation): never inside a word (snake_case).
_EMPHASIS = re.compile(
    r"(?:(?<![\w*_~])[*_~]{1,3}(?=[^\s*_~]))|(?:(?<=[^\s*_~])[*_~]{1,3}(?![\w*_~]))"
)
# Marks that stand alone between spaces: a heading's #s, a bullet, a quote, a rule.
_LONE_MARK = re.compile(r"(?:(?<=\s)|^)(?:#{1,6}|[-*+>]|[-*_]{3,}|\\)(?=\s|$)")
_SPACES = re.compile(r"\s+")


def plain_snippet(text: str) -> str:
    """`text` on one line, without Markdown marks; the words and their order are kept."""
    text = _IMAGE_OR_LINK.sub(r"\1", text)
    text = _REFERENCE.sub(r"\1", text)
    text = _CUT_LINK_TARGET.sub("", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _FENCE.sub(" ", text)
    text = _BACKTICKS.sub("", text)
    text = _LONE_MARK.sub(" ", text)
    text = _EMPHASIS.sub("", text)
    return _SPACES.sub(" ", text).strip()


__all__ = ["plain_snippet"]
