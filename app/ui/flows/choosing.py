"""Choosing the chat's provider or model in the palette ("Switch provider…", "Switch model…"):
a flow, because the choice changes what the app remembers (state.toml) and shows (the header),
not only the chat screen. The model list asks the provider's `GET /models` only when the user
picks that command. (A comparison's panes choose their own models on their screen.)
"""

from __future__ import annotations

from functools import partial

from app.ui.flows.host import ChatHost
from app.ui.model_choice import describe, model_names, show_models
from app.ui.palette import Choice, show_choices


def pick_provider(app: ChatHost) -> None:
    choices = [
        Choice(name, partial(app.switch_to, provider, provider.model), describe(provider))
        for name, provider in app.config.providers.items()
    ]
    show_choices(app, choices, "Switch provider…")


def pick_model(app: ChatHost) -> None:
    app.run_worker(_pick_model(app), group="models", exclusive=True, exit_on_error=False)


async def _pick_model(app: ChatHost) -> None:
    provider = app.pane.provider
    names = await model_names(app, provider, lambda: app.pane.client().list_models())
    use = partial(app.switch_to, provider)
    show_models(app, names, app.pane.model, use, f"Switch model ({provider.name})…")


__all__ = ["pick_model", "pick_provider"]
