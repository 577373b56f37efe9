"""The `--out` file of `triptych batch`: one record per finished answer, written as it finishes.

`.jsonl`: each line is the `ask --json` object plus `prompt_id`, `prompt`, `repeat`, `retries`.
`.csv` and `.md`: the same record as a table row (usage and error split into their own columns,
tool calls as their JSON). Every line is written whole and flushed at once, so a crash or a kill
loses no finished answer.

Resuming. Running again with the same `--out` reads the file first: an answer already
`complete` in it is not asked again. The file is then rewritten (to a temporary file, renamed
over it) with its complete answers only, and the run appends to it, so each answer has one
line. A file that is not a results file, or one from another run (a prompt, provider:model or
repeat the run does not have), is refused before anything is written, naming its line.

Locking. Two runs on one file would each ask what the other is asking and append both answers;
so a run holds an exclusive lock (flock) on `.NAME.lock` beside the file from before it reads
the file until it ends, and a second run is refused at once, naming the first one's process.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from app.display.sanitize import clean, clean_line

if sys.platform != "win32":
    import fcntl

FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".md": "md"}
EXTRA = ("prompt_id", "prompt", "repeat", "retries")
COLUMNS = (
    "prompt_id", "prompt", "repeat", "provider", "model", "api", "status", "text", "reasoning",
    "tool_calls", "server_tools", "finish_reason", "input_tokens", "output_tokens", "cached_tokens",
    "error_code", "error_message", "ttft_ms", "duration_ms", "retries",
)  # fmt: skip
_ANSWER_KEYS = {"provider", "model", "status"}
_MD_CELL = re.compile(r"((?:\\.|[^\\|])*)\|")

Key = tuple[str, str, str, int]  # (prompt id, provider, model, repeat)


class ResultsFileError(ValueError):
    """An --out file this run cannot resume; str() names the file and line (exit status 2)."""


@dataclass(frozen=True, slots=True)
class RunShape:
    """What a results file may hold to belong to this run."""

    prompts: Mapping[str, str]  # prompt id (as text) -> prompt
    providers: frozenset[tuple[str, str]]  # (provider, model)
    repeat: int


def results_format(path: Path) -> str:
    """jsonl, csv or md from the name; ValueError names the choices."""
    found = FORMATS.get(path.suffix.lower())
    if found is None:
        raise ValueError(f"--out {path}: the name must end in .jsonl, .csv or .md")
    return found


def table_row(document: Mapping[str, Any]) -> dict[str, str]:
    """A record as the table's cells (text; an absent value is empty)."""
    usage = document.get("usage") or {}
    error = document.get("error") or {}
    values: dict[str, Any] = {
        **{name: document.get(name) for name in COLUMNS},
        "tool_calls": json.dumps(document["tool_calls"]) if document.get("tool_calls") else "",
        "server_tools": json.dumps(document["server_tools"])
        if document.get("server_tools")
        else "",
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "cached_tokens": usage.get("cached_tokens"),
        "error_code": error.get("code"),
        "error_message": error.get("message"),
    }
    return {name: "" if values[name] is None else str(values[name]) for name in COLUMNS}


def md_cell(value: str) -> str:
    """A Markdown table cell: `|` and `\\` escaped, line breaks as <br>, controls visible."""
    escaped = value.replace("\\", "\\\\").replace("|", "\\|")
    return clean(escaped.replace("\r\n", "\n").replace("\n", "<br>")).strip()


def md_line(cells: Iterable[str]) -> str:
    return "| " + " | ".join(md_cell(cell) for cell in cells) + " |\n"


MD_HEADER = md_line(COLUMNS) + "|" + "---|" * len(COLUMNS) + "\n"


@dataclass(frozen=True, slots=True)
class Kept:
    """The complete answers found in an existing file, and their text as written."""

    keys: frozenset[Key]
    lines: tuple[str, ...]  # each a whole record (a CSV record may span lines), newline-ended
    rows: tuple[dict[str, str], ...] = ()  # each kept answer as the table's cells (COLUMNS)


def read_results(path: Path, fmt: str, shape: RunShape) -> Kept:
    """The complete answers of an existing --out file; nothing when there is no file."""
    try:
        if path.exists() and not path.is_file():  # a directory, a FIFO, /dev/zero: never read
            raise ResultsFileError(f"--out {path}: not a regular file")
        raw = path.read_bytes()
    except FileNotFoundError:
        return Kept(frozenset(), ())
    except OSError as exc:
        raise ResultsFileError(f"--out {path}: cannot read it: {exc.strerror or exc}") from None
    if not raw.strip():
        return Kept(frozenset(), ())
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ResultsFileError(_not_ours(path, raw.count(b"\n", 0, 1) + 1, "not UTF-8")) from None
    if not text.endswith("\n"):  # a line cut short by a crash: it never finished
        text = text[: text.rfind("\n") + 1]
    reader = {"jsonl": _jsonl_records, "csv": _csv_records, "md": _md_records}[fmt]
    spelt, back = _as_written(shape, fmt)
    keys: set[Key] = set()
    lines: list[str] = []
    rows: list[dict[str, str]] = []
    for number, record, line in reader(path, text):
        prompt_id, provider, model, repeat = _check(path, number, record, spelt)
        key = (back[prompt_id], *back_pair(back, provider, model), repeat)
        if record["status"] == "complete" and key not in keys:
            keys.add(key)
            lines.append(line)
            cells = table_row(json.loads(line)) if fmt == "jsonl" else dict(record)
            cells["provider"], cells["model"] = key[1], key[2]  # as the run names them
            rows.append(cells)
    return Kept(frozenset(keys), tuple(lines), tuple(rows))


def _as_written(shape: RunShape, fmt: str) -> tuple[RunShape, dict[str, str]]:
    """The run's prompts and providers as the file spells them (a Markdown cell escapes `|`
    and line breaks), and a map back from each spelling."""
    spell = md_cell if fmt == "md" else (lambda text: text)
    back = {spell(text): text for text in shape.prompts}
    back |= {spell(name): name for pair in shape.providers for name in pair}
    spelt = RunShape(
        prompts={spell(pid): spell(prompt) for pid, prompt in shape.prompts.items()},
        providers=frozenset((spell(p), spell(m)) for p, m in shape.providers),
        repeat=shape.repeat,
    )
    return spelt, back


def back_pair(back: Mapping[str, str], provider: str, model: str) -> tuple[str, str]:
    return back[provider], back[model]


def _not_ours(path: Path, line: int, why: str) -> str:
    return (
        f"--out {path}:{line}: not a results file of `triptych batch` ({why}); "
        "give another --out, or move the file away"
    )


def _check(path: Path, number: int, record: Mapping[str, str], shape: RunShape) -> Key:
    """The record's key, if it belongs to this run."""
    where = f"--out {path}:{number}"
    advice = "give another --out, or move the file away to start afresh"
    prompt_id = record["prompt_id"]
    if prompt_id not in shape.prompts:
        raise ResultsFileError(f"{where}: from another run (prompt id {prompt_id!r}); {advice}")
    if record["prompt"] != shape.prompts[prompt_id]:
        raise ResultsFileError(
            f"{where}: from another run (prompt {prompt_id!r} reads differently); {advice}"
        )
    pair = (record["provider"], record["model"])
    if pair not in shape.providers:
        raise ResultsFileError(
            f"{where}: from another run (provider {pair[0]}:{pair[1]}); {advice}"
        )
    try:
        repeat = int(record["repeat"])
    except ValueError:
        raise ResultsFileError(_not_ours(path, number, "repeat is not a number")) from None
    if not 1 <= repeat <= shape.repeat:
        raise ResultsFileError(f"{where}: from another run (repeat {repeat}); {advice}")
    return (prompt_id, pair[0], pair[1], repeat)


def _lines(text: str) -> list[str]:
    """The file's lines, each with its "\\n": only LF ends a line this module writes, and an
    answer may hold U+2028, NEL or a form feed, which `str.splitlines` would break at."""
    return [line + "\n" for line in text.split("\n")[:-1]]


def _jsonl_records(path: Path, text: str) -> Iterable[tuple[int, dict[str, str], str]]:
    for number, line in enumerate(_lines(text), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except (ValueError, RecursionError):
            raise ResultsFileError(_not_ours(path, number, "not JSON")) from None
        if not isinstance(item, dict) or not (_ANSWER_KEYS | set(EXTRA)) <= set(item):
            raise ResultsFileError(_not_ours(path, number, "not an answer record"))
        record = {name: "" if item[name] is None else str(item[name]) for name in item}
        yield number, record, line


def _csv_records(path: Path, text: str) -> Iterable[tuple[int, dict[str, str], str]]:
    handle = io.StringIO(text, newline="")
    reader = csv.reader(handle)
    try:
        header = next(reader)
    except (StopIteration, csv.Error):
        raise ResultsFileError(_not_ours(path, 1, "no header")) from None
    if tuple(header) != COLUMNS:
        raise ResultsFileError(_not_ours(path, 1, "its header is not the batch columns"))
    while True:
        number = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error:
            raise ResultsFileError(_not_ours(path, number, "not CSV")) from None
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise ResultsFileError(_not_ours(path, number, f"{len(row)} cells, not {len(COLUMNS)}"))
        yield number, dict(zip(COLUMNS, row, strict=True)), csv_line(row)


def csv_line(cells: Iterable[str]) -> str:
    """One CSV record ending in LF. Written with a CRLF terminator, then cut to LF: the writer
    quotes only a cell holding a character of its terminator, and a lone CR left unquoted
    would end the record early when read back."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(list(cells))
    return out.getvalue().removesuffix("\r\n") + "\n"


def _md_records(path: Path, text: str) -> Iterable[tuple[int, dict[str, str], str]]:
    """The records table: the whole file while a run writes it, under `## Records` once
    the run has put the grid and the answers above it."""
    lines = _lines(text)
    head = MD_HEADER.splitlines(keepends=True)
    # Under the last `## Records` (an answer above may hold anything; a record is a table row)
    marks = [n for n, line in enumerate(lines) if line == RECORDS_HEADING]
    start = marks[-1] + 2 if marks else 0
    if lines[start : start + 2] != head:
        raise ResultsFileError(_not_ours(path, 1, "its header is not the batch columns"))
    for number, line in enumerate(lines[start + 2 :], start + 3):
        if not line.strip():
            continue
        body = line.rstrip("\n")
        if not (body.startswith("|") and body.endswith("|")):
            raise ResultsFileError(_not_ours(path, number, "not a table row"))
        cells = [cell.strip() for cell in _MD_CELL.findall(body[1:])]
        if len(cells) != len(COLUMNS):
            raise ResultsFileError(_not_ours(path, number, f"{len(cells)} cells"))
        record = dict(zip(COLUMNS, cells, strict=True))
        yield number, record, line


RECORDS_HEADING = "## Records\n"
EXCERPT = 60  # characters of an answer in its grid cell


def md_unescape(cell: str) -> str:
    """A cell as `md_cell` wrote it, back to its text (line breaks and `|` restored)."""
    out, index = [], 0
    while index < len(cell):
        if cell.startswith("<br>", index):
            out.append("\n")
            index += 4
        elif cell[index] == "\\" and index + 1 < len(cell):
            out.append(cell[index + 1])
            index += 2
        else:
            out.append(cell[index])
            index += 1
    return "".join(out)


def _prompt_order(row: Mapping[str, str]) -> tuple[int, str, int]:
    pid = row["prompt_id"]
    return (int(pid) if pid.isdigit() else 1 << 62, pid, int(row["repeat"] or 1))


def md_grid(rows: Iterable[Mapping[str, str]]) -> str:
    """The run as a reader wants it: a prompt × provider grid (each cell the answer's status
    and its first words, escaped for a table cell), then every answer whole under headings."""
    rows = sorted(rows, key=_prompt_order)
    names = list(dict.fromkeys(f"{r['provider']}:{r['model']}" for r in rows))
    asked: dict[tuple[str, int], dict[str, Mapping[str, str]]] = {}
    prompts: dict[tuple[str, int], str] = {}
    for row in rows:
        key = (row["prompt_id"], int(row["repeat"] or 1))
        asked.setdefault(key, {})[f"{row['provider']}:{row['model']}"] = row
        prompts[key] = row["prompt"]
    out = ["# Batch results\n", "\n", md_line(["prompt", *names])]
    out.append("|" + "---|" * (len(names) + 1) + "\n")
    for (pid, repeat), found in asked.items():
        label = f"{pid}. {_excerpt(prompts[(pid, repeat)])}" + (f" #{repeat}" if repeat > 1 else "")
        cells = [label]
        for name in names:
            answer = found.get(name)
            if answer is None:
                cells.append("–")
                continue
            words = answer["text"] if answer["status"] == "complete" else answer["error_message"]
            cells.append(f"{answer['status']} · {_excerpt(words)}" if words else answer["status"])
        out.append(md_line(cells))
    for (pid, repeat), found in asked.items():
        again = f" (#{repeat})" if repeat > 1 else ""
        out += ["\n", f"## {pid}. {clean_line(_excerpt(prompts[(pid, repeat)], 80))}{again}\n"]
        for name in names:
            answer = found.get(name)
            if answer is None:
                continue
            out += ["\n", f"### {clean_line(name)} · {answer['status']}\n", "\n"]
            body = answer["text"] or answer["error_message"] or "(no text)"
            out.append(body.rstrip("\n") + "\n")
    out += ["\n", RECORDS_HEADING, "\n"]
    return "".join(out)


def _as_read(row: Mapping[str, str]) -> dict[str, str]:
    """A kept .md record's cells as text, the same as this run's answers go into the grid
    (its provider and model come from the run, unescaped already)."""
    named = ("provider", "model")
    return {k: md_unescape(md_cell(v) if k in named else v) for k, v in row.items()}


def _excerpt(text: str, size: int = EXCERPT) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= size else flat[: size - 1] + "…"


@contextlib.contextmanager
def results_lock(path: Path) -> Iterator[None]:
    """Hold the --out file's lock while the block runs; ResultsFileError when another run
    holds it (or it cannot be made: the folder is missing). Where flock is not available
    (Windows) nothing is locked."""
    if sys.platform == "win32":
        yield
        return
    lock = path.with_name(f".{path.name}.lock")
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            why = exc.strerror or exc
            raise ResultsFileError(f"--out {path}: cannot write it: {why}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 24).decode("ascii", "replace").strip()
            os.close(fd)
            by = f" (process {clean_line(holder)})" if holder.isdigit() else ""
            raise ResultsFileError(
                f"--out {path}: another `triptych batch` is writing it{by}; wait for it "
                "to end, or give another --out"
            ) from None
        except OSError:  # a file system without locks: run unlocked, as before there were any
            os.close(fd)
            yield
            return
        # The run before may have removed the lock file between our open and our flock: then
        # what we hold is a file no one else will open; take the one at the path instead.
        try:
            current = os.path.samestat(os.fstat(fd), os.stat(lock))
        except OSError:
            current = False
        if current:
            break
        os.close(fd)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)  # while still held, so no one takes the file it was
        os.close(fd)


class ResultsWriter:
    """Appends records to the --out file, each line whole and flushed."""

    def __init__(self, path: Path, fmt: str, kept: Kept) -> None:
        """Rewrite the file with what is kept; a file that cannot be written is a
        ResultsFileError (said before any request, exit status 2), and the old file stays."""
        self.path = path
        self.fmt = fmt
        self.problem: str | None = None  # why writing stopped mid-run (a full disk)
        # .md: every record, to put the grid above them when the run ends
        self._records = list(kept.lines)
        self._rows = [_as_read(row) for row in kept.rows] if fmt == "md" else []
        head = {"jsonl": "", "csv": csv_line(COLUMNS), "md": MD_HEADER}[fmt]
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with temporary.open("w", encoding="utf-8", newline="") as fresh:
                fresh.write(head + "".join(kept.lines))
                fresh.flush()
                os.fsync(fresh.fileno())
            os.replace(temporary, path)
            self._file: TextIO = path.open("a", encoding="utf-8", newline="")
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise ResultsFileError(
                f"--out {path}: cannot write it: {exc.strerror or exc}"
            ) from None

    def write(self, document: Mapping[str, Any]) -> None:
        """One record: `document` is the ask --json object with EXTRA added, secrets scrubbed.
        After a failed write (a full disk) nothing more is written; `problem` says why."""
        if self.problem is not None:
            return
        if self.fmt == "jsonl":
            line = json.dumps(document) + "\n"
        elif self.fmt == "csv":
            line = csv_line(table_row(document).values())
        else:
            row = table_row(document)
            line = md_line(row.values())
            self._records.append(line)
            # as a resumed run reads it back, so the grid is the same either way
            self._rows.append({k: md_unescape(md_cell(v)) for k, v in row.items()})
        try:
            self._file.write(line)
            self._file.flush()
        except OSError as exc:
            self.problem = f"--out {self.path}: writing failed: {exc.strerror or exc}"

    def close(self) -> None:
        with contextlib.suppress(OSError):  # a full disk: the flush at close fails again
            self._file.close()
        if self.fmt == "md" and self.problem is None and self._rows:
            self._write_grid()

    def _write_grid(self) -> None:
        """The finished .md: the grid and the answers, then the records (what a resumed run
        reads); written beside and renamed over, so a failure leaves the records as they were."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with temporary.open("w", encoding="utf-8", newline="") as fresh:
                fresh.write(md_grid(self._rows) + MD_HEADER + "".join(self._records))
                fresh.flush()
                os.fsync(fresh.fileno())
            os.replace(temporary, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            self.problem = f"--out {self.path}: writing the grid failed: {exc.strerror or exc}"


__all__ = [
    "COLUMNS",
    "EXTRA",
    "Kept",
    "ResultsFileError",
    "ResultsWriter",
    "RunShape",
    "md_grid",
    "md_unescape",
    "read_results",
    "results_format",
    "results_lock",
    "table_row",
]
