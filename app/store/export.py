"""History as text: the headless list (`triptych history`) and exports (`triptych export`).

Model output is untrusted and these strings usually land on a terminal, so control characters
are made visible (ESC becomes ␛) instead of being passed through as terminal escapes, and bidi
controls and zero-width characters show as U+FFFD, as the TUI shows bidi controls. The store
never holds API keys, so nothing here needs scrubbing; tests assert that stays true.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from app.display.plain_text import plain_snippet
from app.display.sanitize import HIDDEN, reveal_hidden
from app.store.db import Store
from app.store.records import ConversationSummary, StoredConversation, StoredMessage
from app.wire.attachment import Attachment

ExportFormat = Literal["md", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json")
JSON_FORMAT_VERSION = 1

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Escaped in JSON, which keeps the exact text: C1 controls, bidi controls, zero-width characters.
_ESCAPED = re.compile("[\x80-\x9f" + "".join(sorted(HIDDEN)) + "]")


def visible(text: str) -> str:
    """Text safe to print: C0 controls as their Unicode control pictures, C1 as U+FFFD, bidi
    controls and zero-width characters as U+FFFD (as the TUI shows bidi controls)."""
    text = text.replace("\r\n", "\n")
    return reveal_hidden(_CONTROL.sub(_picture, text))


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)
    return "\u2421" if code == 0x7F else "\ufffd"


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).astimezone().strftime("%Y-%m-%d %H:%M")


# -- the list ---------------------------------------------------------------------------------


def format_history(store: Store, *, limit: int = 100, query: str | None = None) -> str:
    """The conversation list, newest first, one line each: id, date, kind, providers, title."""
    found = store.search(query, limit) if query else store.list_conversations(limit)
    if not found:
        return "No matching conversations." if query else "No conversations yet."
    return "\n".join(_summary_line(s) for s in found) + "\n"


def _summary_line(s: ConversationSummary) -> str:
    providers = ", ".join(s.providers) or "-"
    title = s.title or "(empty)"
    line = f"{s.id:>5}  {_when(s.updated_at)}  {s.kind:<7}  {providers:<20}  {title}"
    if s.snippet:
        line += f"\n       {plain_snippet(s.snippet)}"  # as the history screen shows it
    return visible(line)


# -- exports ----------------------------------------------------------------------------------


def export_conversation(
    store: Store,
    conv_id: int,
    fmt: ExportFormat = "md",
    *,
    raw: bool = False,
    all_branches: bool = False,
) -> str:
    """The conversation as Markdown or JSON; raises ConversationNotFound for a bad id.

    A chat's chosen branch, or with `all_branches` every branch (Markdown indents each
    alternative under the fork it leaves from; JSON gives each message its parent and level).
    `raw` adds each answer's kept stream (its recording's JSON Lines; redacted when captured),
    which exports otherwise leave out."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use md or json")
    conversation = store.load(conv_id, all_branches=all_branches)
    streams: dict[int, str | None] | None = None
    if raw:
        streams = {}
        for m in conversation.messages:
            if m.role == "assistant":
                try:
                    streams[m.id] = store.stream_recording(m.id)
                except ValueError as exc:  # a damaged stored stream: say so in its place
                    streams[m.id] = f"(the stored stream cannot be read: {exc})"
    if fmt == "json":
        return to_json(conversation, streams, branches=all_branches)
    return to_markdown(conversation, streams, branches=all_branches)


def to_json(
    conv: StoredConversation,
    streams: Mapping[int, str | None] | None = None,
    *,
    branches: bool = False,
) -> str:
    document = {
        "format": "triptych-conversation",
        "version": JSON_FORMAT_VERSION,
        "id": conv.id,
        "title": conv.title,
        "kind": conv.kind,
        "system": conv.system,
        "created_at": _iso(conv.created_at),
        "updated_at": _iso(conv.updated_at),
        "messages": [_message_dict(m, streams, branches=branches) for m in conv.messages],
    }
    if _branched(conv):  # a comparison whose panes went their own ways: each one's path
        document["pane_paths"] = {
            str(p): [m.id for m in path] for p, path in conv.pane_paths.items()
        }
    text = json.dumps(document, ensure_ascii=False, indent=2)
    # json escapes C0 controls itself; escape C1 and the invisible ones too, so nothing in it
    # acts on a terminal or hides there.
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def _message_dict(
    m: StoredMessage, streams: Mapping[int, str | None] | None, *, branches: bool = False
) -> dict[str, Any]:
    out: dict[str, Any] = {"id": m.id, "role": m.role, "text": m.text}
    if branches:
        out.update(parent_id=m.parent_id, level=m.level, branch=list(_branch(m)))
    out["created_at"] = _iso(m.created_at)
    turn = m.turn
    if turn is None and m.pane is not None:
        out["pane"] = m.pane  # a comparison's prompt sent in that pane only (an edit)
    if turn is None:
        out["attachments"] = [
            {
                "name": a.name,
                "media_type": a.media_type,
                "kind": a.kind,
                "size": a.size,
                "sha256": a.sha256,
            }
            for a in m.attachments
        ]
        return out
    usage = turn.usage
    out.update(
        pane=m.pane,
        provider=m.provider,
        model=m.model,
        api=m.api,
        status=str(turn.status),
        reasoning=turn.reasoning,
        reasoning_signature=turn.reasoning_signature,
        redacted_reasoning=list(turn.redacted_reasoning),
        tool_calls=[
            {
                "id": c.id,
                "name": c.name,
                "arguments": c.arguments,
                "invalid_json": c.invalid_json,
                "result": None if c.result is None else c.result.to_json(),
            }
            for c in turn.tool_calls
        ],
        sources=[{"url": s.url, "title": s.title} for s in turn.sources],
        usage=None
        if usage is None
        else {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cached_tokens": usage.cached_tokens,
        },
        finish_reason=turn.finish_reason,
        finish_detail=turn.finish_detail,
        error=None
        if turn.error is None
        else {"code": turn.error.code, "message": turn.error.message},
        interruption=turn.interruption,
        ttft_ms=m.ttft_ms,
        duration_ms=m.duration_ms,
        params=dict(turn.params),
    )
    if streams is not None:
        out["stream"] = streams.get(m.id)  # the recording's lines, None when none was kept
    return out


def _fence_for(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text`, so it cannot close early."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).astimezone().isoformat(timespec="seconds")


def _branched(conv: StoredConversation) -> bool:
    """Some pane of a comparison has another branch, or a prompt of its own."""
    return any(
        len(m.siblings) > 1 or (m.role == "user" and m.pane is not None)
        for path in conv.pane_paths.values()
        for m in path
    )


def _branch(m: StoredMessage) -> tuple[int, int]:
    """Which of its siblings a message is (1-based) and how many there are."""
    return (m.siblings.index(m.id) + 1 if m.id in m.siblings else 1), max(len(m.siblings), 1)


def to_markdown(
    conv: StoredConversation,
    streams: Mapping[int, str | None] | None = None,
    *,
    branches: bool = False,
) -> str:
    """`branches`: every branch of a chat, each alternative headed `branch N/M` and indented
    two spaces per fork above it."""
    compare = conv.kind in ("compare", "batch")  # side by side: each answer names its pane
    lines = [f"# {conv.title or 'Conversation'} (#{conv.id})", ""]
    lines.append(f"*{conv.kind}, started {_when(conv.created_at)}*")
    lines.append("")
    if conv.system:
        lines += ["## System", "", conv.system, ""]
    for m in conv.messages:
        block = _message_lines(m, compare, streams)
        if branches:
            number, count = _branch(m)
            if count > 1:
                block = [f"*branch {number}/{count}*", "", *block]
            indent = "  " * m.level
            block = [indent + line if line else line for line in block]
        lines += block
    return visible("\n".join(lines).rstrip("\n") + "\n")


def _message_lines(
    m: StoredMessage, compare: bool, streams: Mapping[int, str | None] | None
) -> list[str]:
    """One prompt or answer as Markdown lines, each paragraph followed by a blank line."""
    lines: list[str] = []
    if m.turn is None:
        lines += ["## You" if m.pane is None else f"## You (pane {m.pane})", "", m.text, ""]
        if m.attachments:
            lines += [_attached(a) for a in m.attachments] + [""]
        return "\n".join(lines).split("\n")
    lines += [_assistant_heading(m, compare), ""]
    turn = m.turn
    if turn.reasoning:
        quoted = "\n".join("> " + line for line in turn.reasoning.splitlines())
        lines += ["> **Reasoning**", ">", quoted, ""]
    if m.text:
        lines += [m.text, ""]
    for call in turn.tool_calls:
        lines += [f"**Tool call** `{call.name}` ({call.id})", "", "```json", call.arguments]
        lines += ["```", ""]
        if call.result is not None:
            error = " (error)" if call.result.is_error else ""
            fence = _fence_for(call.result.content)
            lines += [f"**Tool result**{error}, {call.result.origin.value}", ""]
            lines += [fence, call.result.content, fence, ""]
    if turn.sources:
        lines += ["**Sources**", ""]
        lines += [f"- [{s.title or s.url}]({s.url})" for s in turn.sources]
        lines.append("")
    footer = _footer(m)
    if footer:
        lines += [f"*{footer}*", ""]
    if turn.params:
        lines += [f"*sent with: {_sent_with(turn.params)}*", ""]
    stream = None if streams is None else streams.get(m.id)
    if stream:
        fence = "`" * max(3, _longest_run(stream, "`") + 1)
        lines += ["**Raw stream** (a `--record` recording)", "", fence + "jsonl"]
        lines += [stream.rstrip("\n"), fence, ""]
    return "\n".join(lines).split("\n")


def _longest_run(text: str, char: str) -> int:
    longest = run = 0
    for c in text:
        run = run + 1 if c == char else 0
        longest = max(longest, run)
    return longest


def _assistant_heading(m: StoredMessage, compare: bool) -> str:
    who = f"{m.provider} · {m.model}" if m.model else str(m.provider)
    return f"## {who} (pane {m.pane})" if compare else f"## {who}"


def _attached(a: Attachment) -> str:
    """One attached file: its name (as code: a name may hold Markdown), type, size, hash."""
    name = a.name.replace("`", "'")
    return f"- attached `{name}` ({a.media_type}, {a.size:,} bytes, sha256 {a.sha256[:12]})"


def _sent_with(params: dict[str, Any]) -> str:
    """`temperature=0.2, max_tokens=256`: each parameter as its JSON."""
    return ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in params.items()
    )


def _footer(m: StoredMessage) -> str:
    assert m.turn is not None
    turn = m.turn
    parts = [str(turn.status)]
    if turn.error is not None:
        parts.append(f"error: {turn.error.message}")
    if turn.interruption:
        parts.append(turn.interruption)
    if turn.usage is not None:
        parts.append(f"{turn.usage.input_tokens or 0} in / {turn.usage.output_tokens or 0} out")
    if m.ttft_ms is not None:
        parts.append(f"first token {m.ttft_ms} ms")
    if m.duration_ms is not None:
        parts.append(f"{m.duration_ms / 1000:.1f} s")
    return " · ".join(parts)


__all__ = [
    "EXPORT_FORMATS",
    "ExportFormat",
    "export_conversation",
    "format_history",
    "to_json",
    "to_markdown",
    "visible",
]


def write_export(folder: Path, conv_id: int, title: str, fmt: str, text: str) -> Path:
    """Write an export to a new file named after the conversation, owner-only like the history,
    never over an earlier one (`triptych-12-my-title-2.md`)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"triptych-{conv_id}"
    slug = "-".join(re.findall(r"[A-Za-z0-9]+", title.lower()))[:40].strip("-")
    if slug:
        stem += f"-{slug}"
    path = folder / f"{stem}.{fmt}"
    number = 2
    while path.exists():
        path = folder / f"{stem}-{number}.{fmt}"
        number += 1
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return path
