"""Figures and labels a user reads: an estimate until the provider's
final count arrives, no previous provider's figures under a new name, the same figures live and
reopened, and every answer named by who wrote it."""

from __future__ import annotations

from pathlib import Path

from app.demo.frames import Answer
from app.settings.config import Config, UiSettings
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.history_turn import StoredTurnInfo
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, screen_text, send, wait_drawn, wait_until

WORDS = Answer(text=tuple(f"word{n} " for n in range(40)), input_tokens=9)


def two_providers(fake_provider: FakeProvider, api: Api = Api.CHAT) -> Config:
    first = fake_provider.provider(api, name="fake", model="m-1")
    second = fake_provider.provider(api, name="other", model="m-2")
    return Config(
        path=None, default="fake", providers={"fake": first, "other": second}, ui=UiSettings()
    )


def figures(segments: list[tuple[str, str]]) -> list[str]:
    """The measured part of a status line: TTFT, speed and usage."""
    return [text for text, _ in segments if "TTFT" in text or "tok/s" in text or "out " in text]


async def test_messages_placeholder_usage_is_not_shown_as_the_count(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    # message_start says output_tokens 1; the real count comes in message_delta at the end.
    fake_provider.push(fake.stream(Api.MESSAGES, WORDS, delay=0.03))
    app = make_app(two_providers(fake_provider, Api.MESSAGES), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        pane = app.pane
        await wait_until(
            pilot,
            lambda: "tok/s" in pane.status_bar.plain and "– tok/s" not in pane.status_bar.plain,
        )
        live = pane.status_bar.plain
        assert "out 1 " not in live + " "
        assert "in 9 out ~" in live
        assert "~" in next(text for text in live.split(" · ") if "tok/s" in text)
        await wait_drawn(pilot)
        done = pane.status_bar.plain
        assert f"in 9 out {WORDS.output_tokens}" in done
        speed = next(text for text in done.split(" · ") if "tok/s" in text)
        assert not speed.startswith("~")


async def test_after_a_switch_the_status_shows_no_figures_of_the_previous_provider(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    config = two_providers(fake_provider)
    app = make_app(config, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hello")
        await wait_drawn(pilot)
        assert "TTFT" in app.pane.status_bar.plain
        await app.use_provider(config.providers["other"], "m-2")
        await pilot.pause()
        assert app.pane.status_bar.plain == "other · m-2 · ready"


async def test_every_answer_is_labelled_live_and_reopened_with_the_same_figures(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    fake_provider.push(
        fake.stream(Api.CHAT, WORDS, delay=0.01), fake.stream(Api.CHAT, WORDS, delay=0.01)
    )
    config = two_providers(fake_provider)
    first = make_app(config, tmp_path, history_file=db)
    async with first.run_test(size=SIZE) as pilot:
        await send(pilot, "one")
        await wait_drawn(pilot)
        live_first = figures(first.pane.status_bar.segments)
        await first.use_provider(config.providers["other"], "m-2")
        await send(pilot, "two")
        await wait_drawn(pilot)
        live_second = figures(first.pane.status_bar.segments)
        labels = [view.label for view in first.pane.transcript.query(AssistantTurn)]
        assert labels == ["fake · m-1", "other · m-2"]
        text = screen_text(first)
        assert "fake · m-1" in text
        assert "other · m-2" in text
    again = make_app(config, tmp_path, history_file=db, continue_last=True)
    async with again.run_test(size=SIZE) as pilot:
        transcript = again.pane.transcript
        await wait_until(pilot, lambda: len(transcript.query(StoredTurnInfo)) == 2, what="reload")
        labels = [view.label for view in transcript.query(AssistantTurn)]
        assert labels == ["fake · m-1", "other · m-2"]
        infos = list(transcript.query(StoredTurnInfo))
        assert figures(infos[0].segments) == live_first
        assert figures(infos[1].segments) == live_second
