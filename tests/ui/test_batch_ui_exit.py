"""`triptych batch … --ui` exits as `triptych batch` does: 0 when every answer
is complete, 1 otherwise, 130 when stopped. Through the CLI and the app's runner (`run_tui`),
the app run headless with a pilot that waits for the run to end (or stops it), then quits."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from app import cli
from app.ui.app import TriptychApp
from app.ui.screens.batch import BatchScreen
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import answer
from tests.ui.helpers import wait_until

NAMES = {Api.CHAT: "zebra", Api.MESSAGES: "quokka"}
Drive = Callable[[Pilot[Any]], Awaitable[None]]


def config_file(fakes: dict[Api, FakeProvider], tmp_path: Path) -> Path:
    path = tmp_path / "triptych.toml"
    path.write_text(
        "".join(
            f'[providers.{name}]\napi = "{api.value}"\nbase_url = "{fakes[api].url}"\n'
            f'model = "{name}-model"\nmax_concurrency = 1\n'
            for api, name in NAMES.items()
        )
    )
    return path


def ended(pilot: Pilot[Any]) -> bool:
    return any(n.message.startswith("Batch ") for n in pilot.app._notifications)


async def until_ended(pilot: Pilot[Any]) -> None:
    await wait_until(pilot, lambda: ended(pilot), what="the batch's end")
    await pilot.press("ctrl+q")


def stopping(fakes: dict[Api, FakeProvider]) -> Drive:
    async def stop(pilot: Pilot[Any]) -> None:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, BatchScreen), what="table")
        await wait_until(pilot, lambda: all(fakes[api].requests for api in NAMES), what="asked")
        await pilot.press("escape")  # stops the run, as Ctrl+C stops `triptych batch`
        await until_ended(pilot)

    return stop


def batch_ui(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, drive: Drive
) -> int:
    monkeypatch.setenv("TRIPTYCH_DATA_DIR", str(tmp_path / "data"))

    def headless(self: TriptychApp, **_: Any) -> Any:
        return App.run(self, headless=True, size=(160, 30), auto_pilot=drive)

    monkeypatch.setattr(TriptychApp, "run", headless)
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("first\nsecond\n")
    compare = ",".join(NAMES.values())
    argv = ["--config", str(config_file(fakes, tmp_path)), "batch", str(prompts)]
    return cli.main([*argv, "--compare", compare, "--ui"])


def test_every_answer_complete_exits_0(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for api in NAMES:
        fakes[api].push(fake.stream(api, answer("one")), fake.stream(api, answer("two")))
    assert batch_ui(fakes, tmp_path, monkeypatch, until_ended) == 0


def test_a_failed_answer_exits_1(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fakes[Api.CHAT].push(fake.stream(Api.CHAT, answer("one")), fake.stream(Api.CHAT, answer("2")))
    fakes[Api.MESSAGES].push(
        fake.stream(Api.MESSAGES, answer("one")),
        fake.http_error(Api.MESSAGES, 500, "server_error", "overloaded"),
    )
    assert batch_ui(fakes, tmp_path, monkeypatch, until_ended) == 1


def test_stopped_exits_130(
    fakes: dict[Api, FakeProvider], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for api in NAMES:
        fakes[api].push(fake.paced_forever(api), fake.paced_forever(api))
    assert batch_ui(fakes, tmp_path, monkeypatch, stopping(fakes)) == 130
