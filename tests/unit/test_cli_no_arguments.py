"""Plain `triptych` skips building the parser (issue 12: its first frame); what it stands in
for must stay what the parser gives."""

from __future__ import annotations

from app.cli import build_parser, no_arguments


def test_no_arguments_is_what_the_parser_gives_for_none() -> None:
    assert vars(no_arguments()) == vars(build_parser().parse_args([]))
