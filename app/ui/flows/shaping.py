"""The chat's system prompt, chosen in the palette ("System prompt…"): a flow, because the
presets are the config's and the choice shows in the app's header.

The picker lists the `[prompts.NAME]` presets, "No system prompt" and "Edit for this
conversation…"; a name typed that is no preset says so, with the configured ones. The choice
is the conversation's from its next request on, and the history keeps it with the
conversation (reopened, it carries on with it). The header names it: the preset whose text it
is, `default` (the config's `system`), or `custom` (edited here).
"""

from __future__ import annotations

from functools import partial

from app.display.sanitize import clean_line
from app.settings.config import Config, ConfigError
from app.ui.flows.host import ChatHost
from app.ui.palette import Choice, show_choices

NONE = "No system prompt"
EDIT = "Edit for this conversation…"


def system_label(config: Config, system: str | None) -> str:
    """What the header calls the system prompt: a preset's name, `default`, `custom`; "" when
    there is none."""
    if not system:
        return ""
    for name, preset in config.prompts.items():
        if preset.system == system:
            return name
    return "default" if system == config.system else "custom"


def _system_now(app: ChatHost) -> str | None:
    """The system prompt of what is on screen: a comparison's (every pane's), else the chat's."""
    from app.ui.screens.compare import CompareScreen  # loaded with the first comparison

    screen = app.screen
    if isinstance(screen, CompareScreen) and screen.panes:
        return screen.panes[0].conversation.system
    return app.pane.conversation.system


def pick_system_prompt(app: ChatHost) -> None:
    from app.store.records import first_line  # the store's records: not for the first frame

    current = system_label(app.config, _system_now(app))
    choices = [
        Choice(
            name,
            partial(use_system, app, preset.system),
            ("now · " if name == current else "") + first_line(preset.system, 60),
        )
        for name, preset in app.config.prompts.items()
    ]
    choices.append(Choice(NONE, partial(use_system, app, None), "now" if not current else ""))
    choices.append(Choice(EDIT, partial(edit_system_prompt, app), f"now: {current or 'none'}"))
    show_choices(app, choices, "System prompt…", typed=partial(_unknown_preset, app))


def _unknown_preset(app: ChatHost, text: str) -> Choice | None:
    """A typed name that is no preset: choosing it says which ones there are."""
    try:
        app.config.preset(text)
    except ConfigError as exc:
        message = f"No system prompt changed: {exc}"
        return Choice(text, partial(app.notify, message, severity="error", markup=False), "?")
    return None


def edit_system_prompt(app: ChatHost) -> None:
    from app.ui.screens.system_prompt import SystemPromptEditor  # when first edited

    system = _system_now(app)
    label = system_label(app.config, system)

    def done(text: str | None) -> None:
        if text is not None:
            use_system(app, text or None)

    app.push_screen(SystemPromptEditor(system, label), done)


def use_system(app: ChatHost, system: str | None) -> None:
    """The chat's conversation (or the comparison's, every pane) carries on with `system`
    (None: none), stored with it."""
    label = system_label(app.config, system)
    from app.ui.screens.compare import CompareScreen  # loaded with the first comparison

    screen = app.screen
    if isinstance(screen, CompareScreen):
        for pane in screen.panes:
            pane.conversation.system = system
        if screen.record is not None:
            screen.record.set_system(system)
        screen.system_shown = label
        screen.show_title()
    else:
        chat = app.pane
        chat.conversation.system = system
        chat.history.record.set_system(system)
        app.show_title()
    app.notify(
        f"System prompt: {clean_line(label)}, from the next request on."
        if label
        else "No system prompt from the next request on.",
        markup=False,
    )


__all__ = ["EDIT", "NONE", "edit_system_prompt", "pick_system_prompt", "system_label", "use_system"]
