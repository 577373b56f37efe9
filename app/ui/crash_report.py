"""The report printed when the app crashes: the traceback without locals, every secret scrubbed.

Textual's own report shows each frame's local variables, and those hold API keys (a client, a
request's headers, a base URL with `?key=`). This one shows the frames and the exception only,
with every secret of every configured provider (app/settings/redaction.py) replaced.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterable

from rich.text import Text

from app.settings.api_keys import config_secrets
from app.settings.config import Config
from app.settings.redaction import scrub


def crash_report(config: Config, given: Iterable[str] = ()) -> Text:
    """The exception being handled, as plain text (never markup), fit to print. `given`: keys
    given in the app, scrubbed like the config's."""
    kind, error, trace = sys.exc_info()
    lines = traceback.format_exception(kind, error, trace) if error is not None else []
    body = scrub("".join(lines), (*config_secrets(config), *given))
    return Text.assemble(("Triptych crashed; please report this:\n", "bold red"), body)


__all__ = ["crash_report"]
