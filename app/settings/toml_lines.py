"""Which line of a TOML file defines a key, so a config error can point at it.

tomllib returns plain dicts without positions; this scans the text for table headers and
`key =` lines instead. Best effort by design: keys inside inline tables or odd layouts fall back
to the nearest enclosing key or table that was found.
"""

from __future__ import annotations

import json
import re

Keys = tuple[str, ...]

_SEGMENT = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_SEGMENT}(?:\s*\.\s*{_SEGMENT})*"
_HEADER = re.compile(rf"^\s*\[\[?\s*({_DOTTED})\s*\]\]?")
_ASSIGN = re.compile(rf"^\s*({_DOTTED})\s*=")
_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _unquote(segment: str) -> str:
    if segment.startswith('"'):
        try:
            value = json.loads(segment)
        except ValueError:
            return segment[1:-1]
        return value if isinstance(value, str) else segment[1:-1]
    if segment.startswith("'"):
        return segment[1:-1]
    return segment


def split_keys(dotted: str) -> Keys:
    return tuple(_unquote(s) for s in re.findall(_SEGMENT, dotted))


def dotted(keys: Keys) -> str:
    """The key path as the user would write it: providers.kenari.api, providers."my model"."""
    return ".".join(k if _BARE.match(k) else json.dumps(k) for k in keys)


def _toggles_multiline(line: str) -> bool:
    return (line.count('"""') + line.count("'''")) % 2 == 1


class KeyLines:
    """Maps key paths to the 1-based line that defines them."""

    def __init__(self, text: str) -> None:
        self._lines: dict[Keys, int] = {}
        table: Keys = ()
        in_multiline = False
        for number, line in enumerate(text.splitlines(), start=1):
            if in_multiline:
                in_multiline = not _toggles_multiline(line)
                continue
            if header := _HEADER.match(line):
                table = split_keys(header.group(1))
                self._lines.setdefault(table, number)
            elif assign := _ASSIGN.match(line):
                self._lines.setdefault(table + split_keys(assign.group(1)), number)
                in_multiline = _toggles_multiline(line)
        # The first line under every prefix, built once: a file with thousands of problems
        # then locates each in constant time instead of scanning every key for each.
        self._first_below: dict[Keys, int] = {}
        for keys, number in self._lines.items():
            for end in range(1, len(keys) + 1):
                prefix = keys[:end]
                if number < self._first_below.get(prefix, number + 1):
                    self._first_below[prefix] = number

    def line_of(self, keys: Keys) -> int | None:
        """The key's own line, else its first sub-key's, else its nearest parent's."""
        if keys in self._lines:
            return self._lines[keys]
        if keys in self._first_below:
            return self._first_below[keys]
        for end in range(len(keys) - 1, 0, -1):
            if keys[:end] in self._lines:
                return self._lines[keys[:end]]
        return None
