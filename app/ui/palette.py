"""What the command palette offers, built fresh each time it opens (so "copy code block N"
matches the latest answer). Switching model asks the provider's `GET /models` only when the
user picks that command."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from app.config import ProviderConfig
from app.display.code_blocks import code_blocks
from app.providers.errors import ProviderError
from app.ui.commands import Choice, show_choices
from app.ui.compare_actions import pick_comparison

if TYPE_CHECKING:
    from app.ui.app import TriptychApp


def palette_choices(app: TriptychApp) -> list[Choice]:
    pane = app.pane
    choices = [
        Choice("Switch provider…", lambda: pick_provider(app), f"now: {pane.provider.name}"),
        Choice("Switch model…", lambda: pick_model(app), f"now: {pane.model}"),
        Choice("New chat", app.action_new_chat, "clear the conversation"),
        Choice("Compare with…", lambda: pick_comparison(app), "side by side, same conversation"),
        Choice("Toggle reasoning panes", app.action_toggle_reasoning, "ctrl+r"),
        Choice("Copy last answer", lambda: copy_answer(app), "raw Markdown, via OSC 52"),
        Choice("Change theme…", app.search_themes, f"now: {app.theme}"),
    ]
    choices += app.history_actions.palette_choices()
    answer = last_answer(app)
    for number, block in enumerate(code_blocks(answer), 1):
        choices.append(Choice(block.label(number), partial(copy_text, app, block.code), "raw code"))
    return choices


def last_answer(app: TriptychApp) -> str:
    for message in reversed(app.pane.conversation.messages):
        if message.role == "assistant" and message.turn is not None:
            return message.turn.text
    turn = app.pane.turn
    return "" if turn is None else turn.text


def copy_text(app: TriptychApp, text: str) -> None:
    app.copy_to_clipboard(text)
    app.notify(f"Copied {len(text)} characters.")


def copy_answer(app: TriptychApp) -> None:
    answer = last_answer(app)
    if not answer:
        app.notify("There is no answer to copy yet.", severity="warning")
        return
    copy_text(app, answer)


def describe(provider: ProviderConfig) -> str:
    return f"{provider.api.value} · {provider.model}"


def pick_provider(app: TriptychApp) -> None:
    choices = [
        Choice(name, partial(app.switch_to, provider, provider.model), describe(provider))
        for name, provider in app.config.providers.items()
    ]
    show_choices(app, choices, "Switch provider…")


def pick_model(app: TriptychApp) -> None:
    app.run_worker(_pick_model(app), group="models", exclusive=True, exit_on_error=False)


async def _pick_model(app: TriptychApp) -> None:
    provider = app.pane.provider
    names = list(provider.model_choices)
    try:
        listed = await app.pane.client().list_models()
    except ProviderError as exc:
        app.notify(f"Could not list models: {exc}", severity="warning", markup=False)
        listed = []
    except Exception as exc:  # e.g. a missing API key: show it, still offer configured models
        app.notify(str(exc), severity="warning", markup=False)
        listed = []
    names.extend(name for name in listed if name not in names)
    choices = [Choice(name, partial(app.switch_to, provider, name)) for name in names]
    show_choices(app, choices, f"Switch model ({provider.name})…")


__all__ = ["last_answer", "palette_choices"]
