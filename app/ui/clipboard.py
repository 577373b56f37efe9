"""Copying text, and saying truthfully where it went.

Textual copies with OSC 52, an escape sequence asking the terminal to set its clipboard. Nothing
answers it, so the app cannot know whether it worked, and inside tmux it usually does not: tmux's
default `set-clipboard external` ignores OSC 52 from the programs it runs. So inside tmux ($TMUX
set) the text is also handed to tmux itself, `tmux load-buffer -w -` (its paste buffer, and with
`-w` tmux offers it to the outer terminal's clipboard too), in a worker so the UI never waits on
it; the notice then says where the text is, or plainly what to set when it went nowhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from textual.app import App
from textual.notifications import SeverityLevel

TMUX_TIMEOUT = 5.0  # seconds: a tmux server that does not answer is given up on
TMUX_SETTING = "set -g set-clipboard on"


@dataclass(frozen=True, slots=True)
class Notice:
    text: str
    severity: SeverityLevel = "information"


def in_tmux(environ: Mapping[str, str]) -> bool:
    return bool(environ.get("TMUX"))


def terminal_notice(what: str) -> Notice:
    """Outside tmux: OSC 52 was sent, and nothing says whether the terminal took it."""
    return Notice(
        f"Sent {what} to the terminal's clipboard (OSC 52). If nothing pastes, the terminal "
        "ignores OSC 52: select with Shift+drag instead."
    )


def tmux_notice(what: str, error: str | None, set_clipboard: str | None) -> Notice:
    """Inside tmux, after `load-buffer` (`error` None: it worked) and with tmux's
    `set-clipboard` option (None: unknown)."""
    if error is None:
        where = f"Copied {what} into tmux's paste buffer (prefix ] pastes it)"
        if set_clipboard == "off":
            return Notice(
                f"{where}. tmux keeps it to itself: {TMUX_SETTING} in tmux passes it on to the "
                "terminal's clipboard."
            )
        return Notice(f"{where}; tmux also offers it to the terminal's clipboard.")
    if set_clipboard == "on":  # tmux forwards the app's own OSC 52
        return Notice(
            f"Sent {what} to the terminal's clipboard through tmux (OSC 52); tmux's paste "
            f"buffer was not set ({error})."
        )
    return Notice(
        f"Nothing was copied: inside tmux, OSC 52 is ignored unless {TMUX_SETTING} is set in "
        f"tmux, and handing the text to tmux failed ({error}).",
        "error",
    )


async def _tmux(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    """Run tmux (the server $TMUX names); (exit code, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        "tmux",
        *args,
        stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(stdin), TMUX_TIMEOUT)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    code = process.returncode if process.returncode is not None else -1
    return code, out.decode(errors="replace").strip(), err.decode(errors="replace").strip()


async def load_tmux_buffer(text: str) -> str | None:
    """Hand `text` to tmux; None when it took it, else why not (in words)."""
    try:
        code, _, err = await _tmux("load-buffer", "-w", "-", stdin=text.encode())
    except FileNotFoundError:
        return "tmux is not on PATH"
    except TimeoutError:
        return f"tmux did not answer within {TMUX_TIMEOUT:.0f} s"
    except OSError as exc:
        return f"tmux could not be run: {exc.strerror or exc}"
    if code:
        return err.splitlines()[0] if err else f"tmux load-buffer exited with {code}"
    return None


async def tmux_set_clipboard() -> str | None:
    """tmux's `set-clipboard` option (on, external or off), or None if it cannot be read."""
    try:
        code, out, _ = await _tmux("show-options", "-gv", "set-clipboard")
    except (OSError, TimeoutError):
        return None
    return out if code == 0 and out in {"on", "external", "off"} else None


async def _copy_in_tmux(app: App[Any], text: str, what: str) -> None:
    error = await load_tmux_buffer(text)
    notice = tmux_notice(what, error, await tmux_set_clipboard())
    app.notify(notice.text, severity=notice.severity, markup=False)


def copy_text(app: App[Any], text: str, what: str = "") -> None:
    """Copy `text` (OSC 52, and tmux's buffer inside tmux) and tell the user where it went.
    `what` names it in the notice; by default its length."""
    App.copy_to_clipboard(app, text)  # Textual's own: OSC 52, and App.clipboard
    what = what or f"{len(text)} characters"
    if not in_tmux(os.environ):
        notice = terminal_notice(what)
        app.notify(notice.text, severity=notice.severity, markup=False)
        return
    app.run_worker(_copy_in_tmux(app, text, what), group="clipboard", exit_on_error=False)


__all__ = [
    "Notice",
    "copy_text",
    "in_tmux",
    "load_tmux_buffer",
    "terminal_notice",
    "tmux_notice",
    "tmux_set_clipboard",
]
