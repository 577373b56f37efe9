"""Files attached to a prompt: read and recognised, checked against a provider's limits, and
shaped as each wire format takes them. Pure but for `load_attachment`, which reads one file.

A file is recognised by its bytes (PNG, JPEG, WebP and GIF signatures, `%PDF-`, UTF-8 text),
and the name must agree: a `.png` holding a JPEG, or a `.txt` holding a PDF, is refused rather
than sent under the wrong type. Limits are checked before anything is sent, with a message
that names the file, the size and the setting to change.

    | kind  | Chat Completions           | Messages                          | Responses          |
    | image | image_url (data URL)       | image, base64 source              | input_image        |
    | pdf   | file (file_data data URL)  | document, base64 source           | input_file         |
    | text  | text: <file name="…">…     | text: <file name="…">…            | input_text: same   |
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.settings.config import ProviderConfig
from app.wire.attachment import Attachment, Kind

MB = 1_000_000  # providers state their limits in decimal megabytes
READ_CAP = 512 * MB  # never read more than this, whatever a limit says
IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}
IMAGE_NAMES = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WebP", "image/gif": "GIF"}
TEXT_TYPES = {
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".html": "text/html",
    ".xml": "text/xml",
}
SOURCE_SUFFIXES = frozenset((
    ".txt", ".text", ".log", ".rst", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx",
    ".jsx", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".go", ".rs", ".java", ".kt", ".swift",
    ".rb", ".php", ".pl", ".lua", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".sql", ".r", ".jl",
    ".scala", ".hs", ".ml", ".ex", ".exs", ".erl", ".clj", ".dart", ".vue", ".svelte", ".css",
    ".scss", ".toml", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".env", ".diff", ".patch",
    ".tex", ".jsonl", ".ipynb",
))  # fmt: skip


class AttachmentError(ValueError):
    """A file that cannot be attached; str() is the whole message, naming the file."""


def sniff(data: bytes) -> tuple[Kind, str] | None:
    """The kind and media type the bytes say, or None when they are none of ours."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image", "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image", "image/jpeg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "image", "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image", "image/webp"
    if data.startswith(b"%PDF-"):
        return "pdf", "application/pdf"
    if b"\x00" not in data:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return None
        return "text", "text/plain"
    return None


def _described(kind: Kind, media_type: str) -> str:
    if kind == "image":
        return f"a {IMAGE_NAMES[media_type]} image"
    return "a PDF" if kind == "pdf" else "text"


def recognise(name: str, data: bytes) -> Attachment:
    """An Attachment of these bytes, typed by what they are; AttachmentError when the bytes
    are none of ours or disagree with the name's extension."""
    suffix = Path(name).suffix.lower()
    found = sniff(data)
    if found is None:
        if suffix in IMAGE_TYPES or suffix == ".pdf":
            expected = (
                "a PDF" if suffix == ".pdf" else f"a {IMAGE_NAMES[IMAGE_TYPES[suffix]]} image"
            )
            raise AttachmentError(f"{name}: named {suffix} but is not {expected}")
        raise AttachmentError(
            f"{name}: not an image (PNG, JPEG, WebP, GIF), a PDF or a text file (UTF-8)"
        )
    kind, media_type = found
    if suffix in IMAGE_TYPES and media_type != IMAGE_TYPES[suffix]:
        raise AttachmentError(f"{name}: named {suffix} but is {_described(kind, media_type)}")
    if suffix == ".pdf" and kind != "pdf":
        raise AttachmentError(f"{name}: named .pdf but is {_described(kind, media_type)}")
    if (suffix in TEXT_TYPES or suffix in SOURCE_SUFFIXES) and kind != "text":
        raise AttachmentError(f"{name}: named {suffix} but is {_described(kind, media_type)}")
    if kind == "text":
        media_type = TEXT_TYPES.get(suffix, "text/plain")
        data = data.removeprefix(b"\xef\xbb\xbf")
        if suffix == ".json":
            try:
                json.loads(data)
            except (ValueError, RecursionError) as exc:
                raise AttachmentError(f"{name}: named .json but is not JSON ({exc})") from None
    return Attachment(name=name, media_type=media_type, kind=kind, data=data)


def load_attachment(path: Path, max_bytes: int = READ_CAP, whose: str = "") -> Attachment:
    """Read and recognise one file. A missing path, a directory, a device or FIFO, a file
    larger than `max_bytes` (checked before reading; `whose` says whose limit that is) is an
    AttachmentError naming it."""
    shown = str(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise AttachmentError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise AttachmentError(f"{shown}: is a directory, not a file") from None
    except OSError as exc:
        raise AttachmentError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(descriptor)
        if stat.S_ISDIR(mode.st_mode):
            raise AttachmentError(f"{shown}: is a directory, not a file")
        if not stat.S_ISREG(mode.st_mode):
            raise AttachmentError(f"{shown}: not a regular file")
        cap = min(max_bytes, READ_CAP)
        if mode.st_size > cap:
            raise AttachmentError(
                f"{shown}: {_mb(mode.st_size)}, over the limit of {_mb(cap)}{whose}"
            )
        chunks: list[bytes] = []
        size = 0
        while size <= cap:
            chunk = os.read(descriptor, min(cap + 1 - size, 8 * MB))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > cap:  # it grew while read
            raise AttachmentError(f"{shown}: over the limit of {_mb(cap)}")
    except OSError as exc:
        raise AttachmentError(f"{shown}: cannot read it: {exc.strerror or exc}") from None
    finally:
        os.close(descriptor)
    try:
        return recognise(path.name, b"".join(chunks))
    except AttachmentError as exc:
        raise AttachmentError(str(exc).replace(path.name, shown, 1)) from None


def check_limits(attachments: Sequence[Attachment], provider: ProviderConfig) -> None:
    """AttachmentError when the files break the provider's limits: count, each, all."""
    limits = provider.attachment_limits
    where = f"{provider.name}'s limit"
    setting = f"[providers.{provider.name}.attachments]"
    if len(attachments) > limits.max_files:
        raise AttachmentError(
            f"{len(attachments)} files, over {where} of {limits.max_files} (max_files in {setting})"
        )
    for attachment in attachments:
        if attachment.size > limits.max_file_mb * MB:
            raise AttachmentError(
                f"{attachment.name}: {_mb(attachment.size)}, over {where} of "
                f"{_mb(round(limits.max_file_mb * MB))} per file (max_file_mb in {setting})"
            )
    total = sum(a.size for a in attachments)
    if total > limits.max_total_mb * MB:
        raise AttachmentError(
            f"{_mb(total)} in all, over {where} of {_mb(round(limits.max_total_mb * MB))} "
            f"(max_total_mb in {setting})"
        )


def read_limit(providers: Sequence[ProviderConfig]) -> tuple[int, str]:
    """The most bytes worth reading of one file for these providers (the smallest limit),
    and whose limit it is, as a message ends: " (max_file_mb of small)"."""
    if not providers:
        return READ_CAP, ""
    smallest = min(providers, key=lambda p: p.attachment_limits.max_file_mb)
    limit = round(smallest.attachment_limits.max_file_mb * MB)
    return limit, f" per file (max_file_mb in [providers.{smallest.name}.attachments])"


def _mb(size: int) -> str:
    return f"{size:,} bytes" if size < MB // 10 else f"{size / MB:.1f} MB"


# -- each format's shape ---------------------------------------------------------------------


def chat_content(text: str, attachments: Sequence[Attachment]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for a in attachments:
        if a.kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": a.data_url}})
        elif a.kind == "pdf":
            parts.append({"type": "file", "file": {"filename": a.name, "file_data": a.data_url}})
        else:
            parts.append({"type": "text", "text": a.as_text_part()})
    return parts


def messages_blocks(text: str, attachments: Sequence[Attachment]) -> list[dict[str, Any]]:
    """Files first, then the prompt: the order Anthropic recommends."""
    blocks: list[dict[str, Any]] = []
    for a in attachments:
        source = {"type": "base64", "media_type": a.media_type, "data": a.base64}
        if a.kind == "image":
            blocks.append({"type": "image", "source": source})
        elif a.kind == "pdf":
            blocks.append({"type": "document", "source": source, "title": a.name})
        else:
            blocks.append({"type": "text", "text": a.as_text_part()})
    blocks.append({"type": "text", "text": text})
    return blocks


def responses_content(text: str, attachments: Sequence[Attachment]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = [{"type": "input_text", "text": text}]
    for a in attachments:
        if a.kind == "image":
            parts.append({"type": "input_image", "image_url": a.data_url})
        elif a.kind == "pdf":
            parts.append({"type": "input_file", "filename": a.name, "file_data": a.data_url})
        else:
            parts.append({"type": "input_text", "text": a.as_text_part()})
    return parts


__all__ = [
    "AttachmentError",
    "chat_content",
    "check_limits",
    "load_attachment",
    "messages_blocks",
    "read_limit",
    "recognise",
    "responses_content",
    "sniff",
]
