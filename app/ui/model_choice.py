"""Choosing a model or a provider in the palette, for a chat and for a comparison's panes.

The model list is the provider's configured models, then what its `GET /models` lists; a model
id the list lacks can be typed; the current one is marked. What the server sends is untrusted:
its error text is shown cleaned, never as markup, and an id with control characters is left out
(it would reach the terminal from the header, and state.toml). The provider list shows each
key's status as `triptych providers` does (where the key comes from, never the key).
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from textual.app import App

from app.display.sanitize import clean_line
from app.headless.provider_list import key_status
from app.settings.config import ProviderConfig
from app.settings.state import valid_model_id
from app.ui.palette import Choice, Typed, show_choices

CURRENT = "current model"

ListModels = Callable[[], Awaitable[list[str]]]


async def model_names(
    app: App[Any], provider: ProviderConfig, list_models: ListModels
) -> list[str]:
    """The provider's configured models, then those its `GET /models` lists (valid ids only,
    with a word for those left out); a failure to list is shown and the configured ones stay."""
    from app.providers.errors import ProviderError  # httpx: not on the start-up path

    names = list(provider.model_choices)
    try:
        listed = await list_models()
    except ProviderError as exc:
        notify_plain(app, f"Could not list models: {exc}")
        listed = []
    except Exception as exc:  # e.g. a missing API key: show it, still offer configured models
        notify_plain(app, str(exc))
        listed = []
    refused = [name for name in listed if not valid_model_id(name)]
    names.extend(name for name in listed if name not in names and valid_model_id(name))
    if refused:
        count = f"{len(refused)} model id{'s' if len(refused) > 1 else ''}"
        notify_plain(app, f"Left out {count} with control characters from {provider.name}.")
    return names


def notify_plain(app: App[Any], text: str) -> None:
    """A warning whose text may come from a server: control characters made visible, and
    never parsed as markup."""
    app.notify(clean_line(text), severity="warning", markup=False)


def show_models(
    app: App[Any],
    names: list[str],
    current: str | None,
    use: Callable[[str], object],
    placeholder: str,
) -> None:
    """The model picker: `use(model)` runs on a choice, listed or typed."""
    choices = [
        Choice(name, partial(use, name), CURRENT if name == current else "") for name in names
    ]
    show_choices(app, choices, placeholder, typed=typed_model(use))


def typed_model(use: Callable[[str], object]) -> Typed:
    def typed(text: str) -> Choice | None:
        if not valid_model_id(text):
            return None
        return Choice(f"Use model {text}", partial(use, text), "not in the list: sent as typed")

    return typed


def describe(provider: ProviderConfig) -> str:
    """api · model · key status, for a provider picker."""
    key = key_status(provider, os.environ)
    return f"{provider.api.value} · {provider.model} · key {key}"


__all__ = ["CURRENT", "describe", "model_names", "notify_plain", "show_models", "typed_model"]
