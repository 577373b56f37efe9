"""`@path` in the prompt: where a mention is, what completes it, and the attach dialog's
suggester. Reads directory listings only (a bounded number of entries), never a file.

A mention is `@` at the start of the text or after whitespace, followed by a path with no
spaces (a file whose name has spaces is attached with the palette's "Attach file…"). Relative
paths are read from `root` (the directory Triptych was started in), `~` is the home folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from textual.suggester import Suggester

from app.providers.attachments import IMAGE_TYPES, SOURCE_SUFFIXES, TEXT_TYPES

MENTION = re.compile(r"(?:^|(?<=\s))@(\S+)")
MAX_ENTRIES = 2000  # entries of one directory read for a completion
MAX_SHOWN = 6  # candidates named under the prompt
TRAILING = ",.;:!?)]}\"'"  # punctuation after a mention in prose, not part of the path
FILE_SUFFIXES = frozenset({*IMAGE_TYPES, *TEXT_TYPES, *SOURCE_SUFFIXES, ".pdf"})


@dataclass(frozen=True, slots=True)
class Completion:
    insert: str  # what to add after the cursor ("" when nothing is certain)
    candidates: tuple[str, ...]  # the names that match, folders ending in "/"
    more: bool = False  # more match than are listed


def resolve(token: str, root: Path) -> Path:
    path = Path(os.path.expanduser(token))
    return path if path.is_absolute() else root / path


def mention_before(text: str, column: int) -> str | None:
    """The path typed so far of the mention the cursor ends (`@src/ap|` → `src/ap`)."""
    start = text.rfind("@", 0, column)
    if start < 0 or (start > 0 and not text[start - 1].isspace()):
        return None
    fragment = text[start + 1 : column]
    return None if any(c.isspace() for c in fragment) else fragment


def mentions(text: str, *, closed_only: bool = False) -> list[str]:
    """The mentions in `text`, in order; `closed_only`: those a whitespace already follows
    (the user has moved on from them)."""
    found = []
    for match in MENTION.finditer(text):
        if closed_only and match.end() == len(text):
            continue
        found.append(match.group(1))
    return found


def existing(token: str, root: Path) -> Path | None:
    """The path a mention names, if something is there (trailing punctuation dropped when the
    whole token names nothing: "see @notes.md," names notes.md)."""
    for candidate in (token, token.rstrip(TRAILING)):
        if candidate and os.path.lexists(resolve(candidate, root)):
            return resolve(candidate, root)
    return None


def sent_as(token: str, path: Path, root: Path) -> str:
    """The mention as the provider reads it once its file is attached: the file's name alone
    (`@/home/me/shots/red.png,` → `@red.png,`); where the file lives stays on this machine."""
    suffix = "" if resolve(token, root) == path else token[len(token.rstrip(TRAILING)) :]
    return path.name + suffix


def looks_like_a_file(token: str) -> bool:
    """A mention that names nothing but reads as a file name (`@notes.md`): a typo the user
    should hear about, unlike `@someone` or a decorator in pasted code."""
    return Path(token.rstrip(TRAILING)).suffix.lower() in FILE_SUFFIXES


def complete(fragment: str, root: Path) -> Completion:
    """What completes `fragment` as a path: the common part of every match beyond what is
    typed (a folder gets its `/`), and the matches. Hidden entries only when asked for."""
    folder_part, _, prefix = fragment.rpartition("/")
    if fragment.startswith("/") and not folder_part:
        folder = Path("/")
    else:
        folder = resolve(folder_part + "/" if folder_part else ".", root)
    names: list[str] = []
    more = False
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    more = True
                    break
                if not entry.name.startswith(prefix):
                    continue
                if entry.name.startswith(".") and not prefix.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                names.append(entry.name + "/" if is_dir else entry.name)
    except OSError:
        return Completion("", ())
    names.sort()
    if not names:
        return Completion("", (), more)
    first, last = names[0], names[-1]  # sorted: their common start is everyone's
    size = next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), None)
    common = first[:size] if size is not None else first[: len(last)]
    insert = common[len(prefix) :]
    # The ghost text is drawn as it is and Right inserts it: it stops before the first
    # character a terminal would act on (an OSC 52 in a name would write the clipboard as soon
    # as `@` and a letter are typed) or that draws nothing. The names listed are shown cleaned.
    safe = next((i for i, c in enumerate(insert) if not c.isprintable()), len(insert))
    return Completion(insert[:safe], tuple(names[:MAX_SHOWN]), more or len(names) > MAX_SHOWN)


class PathSuggester(Suggester):
    """Textual's suggester for the attach dialog's path field: completes what is typed."""

    def __init__(self, root: Path) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.root = root

    async def get_suggestion(self, value: str) -> str | None:
        if not value or any(c.isspace() for c in value):
            return None
        insert = complete(value, self.root).insert
        return value + insert if insert else None


__all__ = [
    "Completion",
    "PathSuggester",
    "complete",
    "existing",
    "looks_like_a_file",
    "mention_before",
    "mentions",
    "resolve",
    "sent_as",
]
