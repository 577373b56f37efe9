"""The prompt file of `triptych batch`: plain text (one prompt a line) or JSON Lines.

Text: every line is a prompt; blank lines and lines starting with `#` are skipped; a prompt's id
is its line number. JSON Lines (a name ending in .jsonl or .ndjson, or a first prompt line that
starts with `{`): one object a line, `{"id": …, "prompt": …, "system": …}`, only `prompt`
required; blank lines are skipped; the id (a string or an integer) defaults to the line number
and must be unique, since resuming a run matches answers by it.

Lines end at a line feed (CRLF too) and nowhere else: U+2028, a form feed or NEL inside a line is
text, as an editor shows it, so the line numbers (the ids) are the ones the editor shows.

Only a regular file is read (a FIFO would block, /dev/zero would never end), and its size is
checked before reading. Every problem is a BatchFileError whose message names the file and
the line.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_PROMPT_FILE = 256 * 1024 * 1024  # read whole; far above any prompt set
JSONL_SUFFIXES = (".jsonl", ".ndjson")
_LINE_END = re.compile(r"\r\n|\r|\n")

PromptId = str | int


class BatchFileError(ValueError):
    """A prompt file that cannot be used; str() names the file and line (exit status 2)."""


@dataclass(frozen=True, slots=True)
class BatchPrompt:
    id: PromptId
    prompt: str
    system: str | None  # the line's own system prompt; None: --system or the config's
    line: int


def read_prompts(path: Path) -> list[BatchPrompt]:
    """The prompts of `path`, in file order."""
    raw = _read_regular(path)
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise BatchFileError(
            f"{path}:{line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8"
        ) from None
    lines = editor_lines(text)
    jsonl = path.suffix.lower() in JSONL_SUFFIXES or _first_prompt_line(lines).startswith("{")
    prompts = _json_lines(path, lines) if jsonl else _text_lines(lines)
    if not prompts:
        what = "blank lines" if jsonl else "blank lines and # comments"
        raise BatchFileError(f"{path}: no prompts in the file (it is empty or holds only {what})")
    return prompts


def _read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file within MAX_PROMPT_FILE. Opened without
    blocking (a FIFO with no writer would wait forever at open) and checked on the open file,
    so what is read is what was checked."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise BatchFileError(f"{path}: no such prompt file") from None
    except IsADirectoryError:
        raise BatchFileError(f"{path}: is a directory, not a prompt file") from None
    except OSError as exc:
        raise BatchFileError(
            f"{path}: cannot read the prompt file: {exc.strerror or exc}"
        ) from None
    try:
        found = os.fstat(fd)
        if stat.S_ISDIR(found.st_mode):
            raise BatchFileError(f"{path}: is a directory, not a prompt file")
        if not stat.S_ISREG(found.st_mode):
            raise BatchFileError(
                f"{path}: not a regular file (a pipe, a device or a socket); "
                "save the prompts to a file and give that"
            )
        if found.st_size > MAX_PROMPT_FILE:
            raise BatchFileError(f"{path}: the prompt file is larger than 256 MiB")
        chunks: list[bytes] = []
        left = MAX_PROMPT_FILE + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise BatchFileError(
            f"{path}: cannot read the prompt file: {exc.strerror or exc}"
        ) from None
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if len(raw) > MAX_PROMPT_FILE:  # it grew since the check
        raise BatchFileError(f"{path}: the prompt file is larger than 256 MiB")
    return raw


def editor_lines(text: str) -> list[str]:
    """`text` split where an editor breaks lines: at LF, CRLF or CR, never at the other breaks
    `str.splitlines` knows (U+2028, U+2029, NEL, form feed, vertical tab, FS, GS, RS)."""
    lines = _LINE_END.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def _first_prompt_line(lines: list[str]) -> str:
    for line in lines:
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped
    return ""


def _text_lines(lines: list[str]) -> list[BatchPrompt]:
    return [
        BatchPrompt(number, line.strip(), None, number)
        for number, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("#")
    ]


def _json_lines(path: Path, lines: list[str]) -> list[BatchPrompt]:
    prompts: list[BatchPrompt] = []
    seen: dict[str, int] = {}  # by str(id): resuming compares ids as text (CSV cells)
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except (ValueError, RecursionError) as exc:
            detail = f" ({exc.msg})" if isinstance(exc, json.JSONDecodeError) else ""
            raise BatchFileError(f"{where}: not a JSON object{detail}") from None
        if not isinstance(item, dict):
            raise BatchFileError(f'{where}: not a JSON object ({{"prompt": "…"}} expected)')
        prompt = item.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            found = "missing" if prompt is None else "not a non-empty string"
            raise BatchFileError(f'{where}: "prompt" is {found}')
        system = item.get("system")
        if system is not None and not isinstance(system, str):
            raise BatchFileError(f'{where}: "system" must be a string')
        prompt_id = item.get("id", number)
        if isinstance(prompt_id, bool) or not isinstance(prompt_id, str | int):
            raise BatchFileError(f'{where}: "id" must be a string or an integer')
        if str(prompt_id) in seen:
            raise BatchFileError(
                f"{where}: id {prompt_id!r} is already used on line {seen[str(prompt_id)]}"
            )
        seen[str(prompt_id)] = number
        prompts.append(BatchPrompt(prompt_id, prompt, system, number))
    return prompts


__all__ = ["BatchFileError", "BatchPrompt", "PromptId", "editor_lines", "read_prompts"]
