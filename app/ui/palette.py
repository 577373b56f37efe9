"""What the command palette offers, built fresh each time it opens (so "copy code block N"
matches the latest answer). Switching model asks the provider's `GET /models` only when the
user picks that command."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from app.display.code_blocks import code_blocks
from app.ui import clipboard
from app.ui.commands import Choice, show_choices
from app.ui.compare_actions import pick_comparison
from app.ui.model_choice import describe, model_names, show_models

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
        Choice(
            "Copy last answer",
            lambda: copy_answer(app),
            "raw Markdown",
        ),
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
    clipboard.copy_text(app, text)  # says where it went (OSC 52, tmux)


def copy_answer(app: TriptychApp) -> None:
    answer = last_answer(app)
    if not answer:
        app.notify("There is no answer to copy yet.", severity="warning")
        return
    copy_text(app, answer)


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
    names = await model_names(app, provider, lambda: app.pane.client().list_models())
    use = partial(app.switch_to, provider)
    show_models(app, names, app.pane.model, use, f"Switch model ({provider.name})…")


__all__ = ["last_answer", "palette_choices"]
