"""The cyclic collector is off while the UI starts and on again from its first frame:
what start-up makes (Textual, the app, the first screen) lives for good, and a full collection
walking it cost a first frame ~30 ms. Checked in a fresh interpreter (the collector is the
process's): through the CLI's own way into the UI, then the real app on the offline demo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import asyncio, gc, json, sys
from pathlib import Path

full = []  # generations of the collections that ran, from the UI's import on
gc.callbacks.append(lambda phase, info: phase == "stop" and full.append(info["generation"]))
seen = {}
enable = gc.enable

def enabled_again():
    seen["collections while starting"] = len(full)
    enable()

gc.enable = enabled_again  # as the app calls it, after its first frame

from app.cli import _import_run_tui

full.clear()  # the CLI's own imports ran with the collector on, as the headless commands do
_import_run_tui()
seen["off while starting"] = not gc.isenabled()

from app.demo.names import with_demo_providers
from app.settings.config import Config
from app.ui.app import TriptychApp

tmp = Path(sys.argv[1])

async def main():
    app = TriptychApp(
        with_demo_providers(Config(path=None)),
        state_file=tmp / "state.toml",
        themes_dir=tmp / "themes",
        history_file=tmp / "history.db",
    )
    async with app.run_test(size=(110, 40)) as pilot:
        for _ in range(100):  # the first frame, then the callback after it
            await pilot.pause()
            if gc.isenabled():
                break
        seen["on after the first frame"] = gc.isenabled()
        seen["start-up heap frozen"] = gc.get_freeze_count() > 0

asyncio.run(main())
print(json.dumps(seen))
"""


def test_no_collection_until_the_first_frame_then_the_collector_runs(tmp_path: Path) -> None:
    env = {**os.environ, "TRIPTYCH_DEMO_PACE": "0", "TRIPTYCH_DATA_DIR": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {
        "off while starting": True,
        "collections while starting": 0,
        "on after the first frame": True,
        "start-up heap frozen": True,
    }
