"""A hand-driven stand-in for the provider client, for deterministic snapshots.

Pilot tests use the real client against the fake server; snapshots need the same screen every
run, so here the Turn is filled step by step under a fake clock, each step waiting for the
render clock to draw it. Timings on screen then come from the script, not from the machine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from app.providers.client import Timing
from app.providers.params import RequestParams, format_fields
from app.settings.config import Config, ProviderConfig, UiSettings
from app.ui.app import TriptychApp
from app.wire.conversation import Conversation
from app.wire.engine import Api
from app.wire.events import Event, ReasoningDelta, TextDelta, ToolCallArgsDelta, ToolCallStart
from app.wire.turn import Turn

_TOKENS = (TextDelta, ReasoningDelta, ToolCallStart, ToolCallArgsDelta)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass(frozen=True, slots=True)
class Step:
    at: float  # fake seconds since the prompt was sent
    events: tuple[Event, ...]


@dataclass(slots=True)
class ScriptedStreamer:
    clock: FakeClock
    steps: tuple[Step, ...]
    hang: bool = False  # keep "streaming" after the last step until cancelled
    end_reason: str = ""  # for an interrupted ending: what the transport said
    ticks: Callable[[], int] = lambda: 0
    played: asyncio.Event = field(default_factory=asyncio.Event)

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        *,
        model: str | None = None,
        params: RequestParams | None = None,
    ) -> Turn:
        if params is not None:  # what a Chat Completions body would carry, for the header
            turn.params = {**format_fields(params, Api.CHAT), **params.extra}
        try:
            for step in self.steps:
                self.clock.now = step.at
                tokens = any(isinstance(event, _TOKENS) for event in step.events)
                if timing is not None and timing.first_token is None and tokens:
                    timing.first_token = step.at
                turn.apply_all(list(step.events))
                await self._drawn()
            self.played.set()
            if self.hang:
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            turn.end(stopped=True)
            raise
        turn.end(reason=self.end_reason)
        return turn

    async def _drawn(self) -> None:
        """Two render ticks: the step is observed and drawn before time moves on."""
        start = self.ticks()
        while self.ticks() < start + 2:
            await asyncio.sleep(0.01)

    async def list_models(self) -> list[str]:
        return []

    async def aclose(self) -> None:
        return None


def scripted_app(
    tmp_path: Path,
    steps: tuple[Step, ...],
    *,
    hang: bool = False,
    end_reason: str = "",
    theme: str | None = None,
    reasoning_open: bool = False,
) -> tuple[TriptychApp, ScriptedStreamer]:
    clock = FakeClock()
    streamer = ScriptedStreamer(clock, steps, hang=hang, end_reason=end_reason)
    provider = ProviderConfig(
        name="acme", api=Api.CHAT, base_url="http://127.0.0.1:9/v1", model="acme-large"
    )
    config = Config(
        path=None,
        default="acme",
        providers={"acme": provider},
        ui=UiSettings(theme=theme, reasoning_open=reasoning_open),
    )
    app = TriptychApp(
        config,
        clock=clock,
        connect=lambda _provider: streamer,
        state_file=tmp_path / "state.toml",
        themes_dir=tmp_path / "themes",
    )
    streamer.ticks = lambda: app.render_clock.ticks
    return app, streamer


__all__ = ["FakeClock", "ScriptedStreamer", "Step", "scripted_app"]
