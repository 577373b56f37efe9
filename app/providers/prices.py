"""What a model holds and costs: the config's own figures, else the `genai-prices` catalogue
(prices and context windows of ~1,400 models, kept by its authors; the optional `[prices]`
extra), else nothing. Never a guess: a model neither knows gets no figure.

The catalogue takes a while to load (its data is a large module), so it is only imported when a
figure is first asked for: by `ask --json` once the answer is in, never for the app's first frame.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.compare.stats import turn_cost
from app.settings.config import ProviderConfig
from app.wire.events import Usage

# The catalogue's provider for each built-in name (its own ids); another provider is matched by
# its base URL, which the catalogue knows for the big providers.
PROVIDER_IDS = {
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
    "openrouter": "openrouter",
    "gemini": "google",
    "groq": "groq",
    "deepseek": "deepseek",
    "mistral": "mistral",
    "xai": "x-ai",
    "kimi": "moonshotai",
    "cerebras": "cerebras",
    "together": "together",
    "fireworks": "fireworks",
}


@dataclass(frozen=True, slots=True)
class Figures:
    cost: float | None  # US dollars for this answer; None when unknown
    context_window: int | None  # tokens; None when unknown


def figures(provider: ProviderConfig, model: str, usage: Usage | None) -> Figures:
    """The answer's cost and the model's context window: `price_in`/`price_out` and
    `context_window` in the config win; the catalogue fills in what they leave out. No cost
    without both token counts."""
    priced = provider.price_in is not None and provider.price_out is not None
    cost = turn_cost(provider, usage) if priced else None
    window = provider.context_window
    counted = usage is not None and None not in (usage.input_tokens, usage.output_tokens)
    needs_cost = counted and not priced
    if needs_cost or window is None:
        found = _catalogue_model(provider, model, usage if needs_cost else None)
        if found is not None:
            cost = found[0] if needs_cost else cost
            window = found[1] if window is None else window
    return Figures(cost, window)


def _catalogue_model(
    provider: ProviderConfig, model: str, usage: Usage | None
) -> tuple[float | None, int | None] | None:
    """(cost, context window) from genai-prices; None when it is not installed or does not
    know the model."""
    if provider.name not in PROVIDER_IDS and _on_this_machine(provider.base_url):
        return None  # the demo, a local server, a fake: no catalogue knows them (nor loads)
    try:
        from genai_prices import Usage as PricedUsage
        from genai_prices import calc_price
    except ImportError:
        return None
    where: dict[str, Any] = (
        {"provider_id": PROVIDER_IDS[provider.name]}
        if provider.name in PROVIDER_IDS
        else {"provider_api_url": provider.base_url}
    )
    counts = _counts(usage)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an odd count is no reason to print anything
            priced = calc_price(PricedUsage(**counts), model, **where)
    except Exception:  # not in the catalogue (LookupError), or a provider it cannot place
        return None
    window = priced.model.context_window
    cost = float(priced.total_price) if usage is not None else None
    return cost, window if isinstance(window, int) and window > 0 else None


def _on_this_machine(base_url: str) -> bool:
    host = urlsplit(base_url).hostname if base_url else None
    return host is None or host in ("127.0.0.1", "localhost", "::1")


def _counts(usage: Usage | None) -> dict[str, int]:
    """Our counts as genai-prices reads them: its input includes cache reads and writes, as
    Chat and Responses count it (Messages does not: added back)."""
    if usage is None:
        return {"input_tokens": 0, "output_tokens": 0}
    cached = usage.cached_tokens or 0
    written = usage.cache_write_tokens or 0
    fresh = usage.input_tokens or 0
    total = fresh + cached + written if usage.input_excludes_cached else fresh
    counts = {"input_tokens": total, "output_tokens": usage.output_tokens or 0}
    if cached:
        counts["cache_read_tokens"] = cached
    if written:
        counts["cache_write_tokens"] = written
    return counts


__all__ = ["PROVIDER_IDS", "Figures", "figures"]
