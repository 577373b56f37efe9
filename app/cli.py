"""Command line entry point. The UI is imported lazily so headless commands start fast."""

from __future__ import annotations

import argparse

from app import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="triptych", description=__doc__)
    parser.add_argument("--version", action="version", version=f"triptych {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    build_parser().parse_args(argv)
    return 0
