"""The built wheel, unpacked and run on its own: what it ships works without the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_config_example_works_from_an_installed_wheel(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("triptych-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        assert "app/config.example.toml" in archive.namelist()
        archive.extractall(site)
    # Run from an empty folder with only the unpacked wheel ahead of the venv's packages, so
    # the checkout (and its editable install) cannot be what answers.
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    script = "import app, sys; print(app.__file__, file=sys.stderr); from app.cli import main; "
    script += "raise SystemExit(main(['config', '--example']))"
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == str(site / "app" / "__init__.py")
    assert done.stdout == (ROOT / "config.example.toml").read_text(encoding="utf-8")
