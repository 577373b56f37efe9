"""The chat's status bar says how much of the model's context the last request used and what
the answer cost, with the conversation's running total: `ctx 1% of 400k · $0.00021 · Σ $0.00042`.
From the config's figures or the [prices] extra's catalogue; without either, neither (and no
error). Looked up on a thread once the answer is in."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from app.compare.stats import format_cost, turn_cost
from app.settings.config import Config
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import SIZE, make_app, send, wait_drawn, wait_until


def openai_at(fake_provider: FakeProvider, **changes: object) -> Config:
    """The catalogue's `openai` name (so the catalogue knows its models), served by the fake."""
    provider = fake_provider.provider(Api.CHAT, name="openai", model="gpt-5-mini", **changes)
    return Config(path=None, default="openai", providers={"openai": provider})


async def test_context_share_cost_and_running_total_from_the_catalogue(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    prices = pytest.importorskip("genai_prices")
    fake_provider.push(fake.stream(Api.CHAT), fake.stream(Api.CHAT))
    app = make_app(openai_at(fake_provider), tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await send(pilot, "hi")
        await wait_drawn(pilot)
        await wait_until(pilot, lambda: "Σ" in app.pane.status_bar.plain, what="the cost")
        turn = app.pane.turn
        assert turn is not None
        assert turn.usage is not None
        counts = prices.Usage(
            input_tokens=turn.usage.input_tokens,
            cache_read_tokens=turn.usage.cached_tokens,
            output_tokens=turn.usage.output_tokens,
        )
        priced = prices.calc_price(counts, "gpt-5-mini", provider_id="openai")
        cost = float(priced.total_price)
        window = priced.model.context_window
        assert window == 400_000
        shown = app.pane.status_bar.plain
        assert "ctx 0% of 400k" in shown  # a few tokens of 400,000
        assert f"{format_cost(cost)} · Σ {format_cost(cost)}" in shown
        await send(pilot, "again")
        await wait_until(
            pilot,
            lambda: f"Σ {format_cost(2 * cost)}" in app.pane.status_bar.plain,
            what="the running total",
        )


async def test_the_configs_figures_win(fake_provider: FakeProvider, tmp_path: Path) -> None:
    fake_provider.push(fake.stream(Api.CHAT))
    config = openai_at(fake_provider, price_in=1.0, price_out=2.0, context_window=100)
    app = make_app(config, tmp_path)
    async with app.run_test(size=(160, 40)) as pilot:
        await send(pilot, "hi")
        await wait_drawn(pilot)
        await wait_until(pilot, lambda: "Σ" in app.pane.status_bar.plain, what="the cost")
        turn = app.pane.turn
        assert turn is not None
        assert turn.usage is not None
        used = (turn.usage.input_tokens or 0) + (turn.usage.output_tokens or 0)
        cost = turn_cost(config.providers["openai"], turn.usage)
        assert cost is not None
        shown = app.pane.status_bar.plain
        assert f"ctx {used}% of 100" in shown
        assert f"{format_cost(cost)} · Σ {format_cost(cost)}" in shown


async def test_without_the_extra_or_figures_nothing_is_shown(
    fake_provider: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "genai_prices", None)  # as if not installed
    fake_provider.push(fake.stream(Api.CHAT))
    app = make_app(replace(openai_at(fake_provider)), tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "hi")
        await wait_drawn(pilot)
        await pilot.pause(0.5)  # the lookup has had its chance
        shown = app.pane.status_bar.plain
        assert "complete" in shown
        assert "ctx" not in shown
        assert "$" not in shown
