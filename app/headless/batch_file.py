"""The prompt file of `triptych batch`: plain text (one prompt a line) or JSON Lines.

Text: every line is a prompt; blank lines and lines starting with `#` are skipped; a prompt's id
is its line number. JSON Lines (a name ending in .jsonl or .ndjson, or a first prompt line that
starts with `{`): one object a line, `{"id": …, "prompt": …, "system": …}`, only `prompt`
required; blank lines are skipped; the id (a string or an integer) defaults to the line number
and must be unique, since resuming a run matches answers by it.

Every problem is a BatchFileError whose message names the file and the line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

MAX_PROMPT_FILE = 256 * 1024 * 1024  # read whole; far above any prompt set
JSONL_SUFFIXES = (".jsonl", ".ndjson")

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
    try:
        if path.is_dir():
            raise BatchFileError(f"{path}: is a directory, not a prompt file")
        with path.open("rb") as handle:
            raw = handle.read(MAX_PROMPT_FILE + 1)
    except FileNotFoundError:
        raise BatchFileError(f"{path}: no such prompt file") from None
    except OSError as exc:
        raise BatchFileError(
            f"{path}: cannot read the prompt file: {exc.strerror or exc}"
        ) from None
    if len(raw) > MAX_PROMPT_FILE:
        raise BatchFileError(f"{path}: the prompt file is larger than 256 MiB")
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise BatchFileError(
            f"{path}:{line}: not UTF-8 text (byte {exc.start}); save the file as UTF-8"
        ) from None
    lines = text.splitlines()
    jsonl = path.suffix.lower() in JSONL_SUFFIXES or _first_prompt_line(lines).startswith("{")
    prompts = _json_lines(path, lines) if jsonl else _text_lines(lines)
    if not prompts:
        what = "blank lines" if jsonl else "blank lines and # comments"
        raise BatchFileError(f"{path}: no prompts in the file (it is empty or holds only {what})")
    return prompts


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


__all__ = ["BatchFileError", "BatchPrompt", "PromptId", "read_prompts"]
