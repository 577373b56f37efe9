"""The manual: it builds with `mkdocs build --strict` (a broken link or a page missing from the
nav fails), and its reference pages are what docs/gen_reference.py makes from the code now."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))

import gen_reference  # noqa: E402  (docs/ is not a package)

from app import __version__  # noqa: E402

REGENERATE = "run `python docs/gen_reference.py` and commit docs/reference/"


def test_the_manual_builds_strictly(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_reference_page_is_what_the_code_makes_now() -> None:
    pages = gen_reference.generate()
    stale = [
        name
        for name, text in pages.items()
        if not (gen_reference.REFERENCE / name).exists()
        or (gen_reference.REFERENCE / name).read_text(encoding="utf-8") != text
    ]
    assert not stale, f"docs/reference/{', '.join(stale)} out of date: {REGENERATE}"


def test_every_config_key_the_loader_reads_has_a_meaning() -> None:
    read = gen_reference.config_keys_read()
    missing = sorted(read - set(gen_reference.CONFIG_MEANINGS))
    assert not missing, f"config keys without an entry in CONFIG_MEANINGS: {missing}"
    stale = sorted(set(gen_reference.CONFIG_MEANINGS) - read)
    assert not stale, f"CONFIG_MEANINGS explains keys the loader no longer reads: {stale}"


def test_every_key_of_the_json_object_is_documented() -> None:
    emitted = gen_reference.json_keys_emitted()
    missing = sorted(emitted - set(gen_reference.JSON_FIELDS))
    assert not missing, f"`ask --json` keys without an entry in JSON_FIELDS: {missing}"
    stale = sorted(set(gen_reference.JSON_FIELDS) - emitted)
    assert not stale, f"JSON_FIELDS documents keys `ask --json` no longer writes: {stale}"


def test_every_option_the_parser_knows_is_in_the_manual() -> None:
    manual = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    written = set(re.findall(r"--[a-z][a-z-]*", manual))
    missing = sorted(gen_reference.cli_options() - written)
    assert not missing, f"options missing from the manual: {missing}"


def test_the_changelog_tops_with_the_version_triptych_reports() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.MULTILINE)
    assert versions, "CHANGELOG.md has no `## [X.Y.Z] - DATE` section"
    assert versions[0] == __version__, (
        f"CHANGELOG.md's latest version is {versions[0]}, app.__version__ is {__version__}"
    )
    done = subprocess.run(
        [sys.executable, "-m", "app", "--version"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.stdout.strip() == f"triptych {versions[0]}", done.stdout + done.stderr
