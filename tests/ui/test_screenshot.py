"""The palette's "Screenshot" on a machine with no Downloads folder (a server, a fresh account):
it saves to the data directory's screenshots/ and says where (Textual's own save failed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, fake_config, make_app, wait_until


async def test_a_screenshot_without_downloads_goes_to_the_data_dir(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))  # no user-dirs.dirs there
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))
    shots = tmp_path / "data" / "screenshots"
    app = make_app(fake_config(fake_provider), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Screenshot")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: shots.is_dir() and any(shots.glob("*.svg")), what="svg")
        saved = next(shots.glob("*.svg"))
        # Textual's driver writes the file in its own thread and says where once it is whole.
        await wait_until(
            pilot,
            lambda: any(str(saved) in str(n.message) for n in app._notifications),
            what="where it was saved",
        )
        assert saved.read_text(encoding="utf-8").startswith("<svg")
    assert not (home / "Downloads").exists()
