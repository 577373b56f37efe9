"""Plain `triptych` skips building the parser (its first frame); what it stands in
for must stay what the parser gives."""

from __future__ import annotations

import subprocess
import sys

from app.cli import no_arguments
from app.cli_parser import build_parser


def test_no_arguments_is_what_the_parser_gives_for_none() -> None:
    assert vars(no_arguments()) == vars(build_parser().parse_args([]))


def test_plain_triptych_loads_no_argument_parser() -> None:
    """argparse and gettext are ~2 ms of the first frame; the UI's own modules included, since
    any of them importing argparse would bring the cost back."""
    script = (
        "import sys; import app.cli, app.ui.app; app.cli.no_arguments(); "
        "print(sorted(m for m in ('argparse', 'gettext', 'app.cli_parser') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]", result.stdout
    assert "argparse" in sys.modules  # pytest reads its own command line with it: a real name
