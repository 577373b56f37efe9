"""What the app does with comparisons: start one (`--compare`, or from a chat with "Compare
with…"), reopen a stored one, continue one pane alone in a normal chat, and leave or close them.

A flow: the app calls it (from its `on_…` handlers of the screens' messages) with itself as a
`ChatHost`, so the app stays a thin shell. A comparison lives in
the history as one conversation of kind "compare"; continuing a pane alone copies that pane's
exchanges into a new chat conversation, so the history then holds both, each reopening as what
it is.
"""

from __future__ import annotations

from functools import partial

from app.compare.blind import last_answers, vote_on
from app.compare.spec import MAX_PANES, compare_provider
from app.settings.config import ProviderConfig
from app.store import StoredConversation
from app.store.session import ConversationRecord, PaneHistory
from app.ui.flows.host import ChatHost
from app.ui.flows.shaping import system_label
from app.ui.model_choice import describe
from app.ui.palette import Choice, show_choices
from app.ui.screens.compare import CompareScreen
from app.ui.widgets.compare_pane import ComparePane, settled_history, show_conversation
from app.ui.widgets.compare_panes import PaneMaker
from app.wire.conversation import Conversation


def compare_screen(
    app: ChatHost,
    choices: list[tuple[ProviderConfig, str]],
    *,
    record: ConversationRecord | None = None,
    store_panes: list[int] | None = None,
    blind: bool = False,
    make: type[CompareScreen] = CompareScreen,
) -> CompareScreen:
    """A compare screen built with the app's clock, clients, settings and history (`make`: a
    kind of it, as a batch's prompt is shown)."""
    maker = PaneMaker(
        app.connect,
        app.render_clock,
        app.config.system,
        app.reasoning_open,
        app.tools,
        app.key_missing,
    )
    if record is None:
        record = app.history.record(kind="compare", system=app.config.system)
    providers = app.config.providers  # "Add pane…" offers these
    screen = make(maker, choices, providers, record=record, store_panes=store_panes, blind=blind)
    screen.read_streams(app.history.stream)  # a reopened answer's kept stream, for F2 and F4
    screen.system_shown = system_label(app.config, record.system)  # the header's `system: NAME`
    return screen


def startup_screen(app: ChatHost, names: list[str], *, blind: bool = False) -> CompareScreen:
    """`triptych --compare A,B [--blind]`: names (NAME or NAME:MODEL) the CLI has already
    checked."""
    providers = [compare_provider(name, app.config) for name in names]
    return compare_screen(app, [(p, p.model) for p in providers], blind=blind)


async def install(app: ChatHost, screen: CompareScreen) -> None:
    """Show `screen`: over the chat (so leaving it goes back there), or instead of the
    comparison on screen (whose streams are closed first)."""
    current = app.screen
    if isinstance(current, CompareScreen):
        await current.aclose()
        await app.switch_screen(screen)
    else:
        await app.push_screen(screen)


async def leave_comparison(app: ChatHost) -> None:
    """Back to the chat screen if a comparison is showing (its streams are closed first)."""
    current = app.screen
    if not isinstance(current, CompareScreen):
        return
    await current.aclose()
    await app.pop_screen()  # comparisons are always pushed over the chat screen


async def close_comparisons(app: ChatHost) -> None:
    """At quit: stop every comparison's streams (closing their connections)."""
    for screen in app.screen_stack:
        if isinstance(screen, CompareScreen):
            await screen.aclose()


# -- reopening -----------------------------------------------------------------------------


async def open_stored_comparison(
    app: ChatHost, stored: StoredConversation, *, make: type[CompareScreen] = CompareScreen
) -> CompareScreen | None:
    """Reopen a stored comparison: each pane shows its own answers and carries on from them.

    The panes are those that answered the last prompt: a pane removed before it stays
    removed. One whose provider is no longer configured is left out (and named); at most four
    are shown, the most a comparison has.
    """
    choices: list[tuple[ProviderConfig, str]] = []
    indexes: list[int] = []
    missing: list[str] = []
    for info in stored.last_round:
        provider = app.config.providers.get(info.provider)
        if provider is None:
            missing.append(info.provider or "?")
            continue
        choices.append((provider, info.model or provider.model))
        indexes.append(info.pane)
    if missing:
        app.notify(
            f"Not configured any more, left out: {', '.join(missing)}.",
            severity="warning",
            markup=False,
        )
    if not choices:
        app.notify("None of this comparison's providers is configured.", severity="warning")
        return None
    choices, indexes = choices[:MAX_PANES], indexes[:MAX_PANES]
    record = app.history.resume(stored)
    answers = last_answers(stored, indexes) if stored.blind else {}
    vote = vote_on(app.history.votes(stored.id), answers.values()) if answers else None
    hidden = bool(answers) and vote is None  # left before the vote: blind until it is given
    screen = compare_screen(
        app, choices, record=record, store_panes=indexes, blind=hidden, make=make
    )
    await install(app, screen)
    for pane in screen.panes:
        history = PaneHistory(record, pane=pane.history.pane, owns_prompts=False)
        await pane.show_stored(stored, history)
    if answered_last_prompt(stored, indexes[: len(screen.panes)]):
        screen.rank()  # as it ranked when the last answers came in
    if stored.blind:
        prompts = [m.text for m in stored.messages if m.role == "user"]
        screen.resume_blind(prompts[-1] if prompts else "", answers, vote)
    return screen


def answered_last_prompt(stored: StoredConversation, panes: list[int]) -> bool:
    """Every one of `panes` answered the conversation's last prompt: the answers each pane
    shows last are then one round of the comparison, and rank against each other."""
    answered: set[int] = set()
    for message in reversed(stored.messages):
        if message.role == "user" and message.pane is None:  # not a pane's own edit
            break
        if message.role == "assistant" and message.pane is not None:
            answered.add(message.pane)
    return bool(panes) and answered >= set(panes)


# -- from a chat, and back -------------------------------------------------------------------


async def compare_from_chat(app: ChatHost, provider: ProviderConfig) -> None:
    """ "Compare with…": the chat's provider and `provider` side by side, both carrying on the
    chat so far (copied into the new comparison's history for both panes with its first
    prompt: left before that, the comparison is not stored, and the chat is the last one)."""
    chat = app.pane
    if chat.streaming:
        app.notify("Still answering — press Esc to stop it first.", severity="warning")
        return
    conversation = settled_history(chat.conversation)
    screen = compare_screen(app, [(chat.provider, chat.model), (provider, provider.model)])
    indexes = [p.history.pane for p in screen.panes]
    answered_by = chat.provider, chat.model
    screen.carry_later(lambda record: copy_exchanges(record, conversation, indexes, *answered_by))
    await install(app, screen)
    for pane in screen.panes:
        await show_conversation(pane, _copy(conversation))


async def continue_alone(app: ChatHost, pane: ComparePane) -> None:
    """The chosen pane's conversation carries on in the normal chat, as a new chat in the
    history holding that pane's exchanges."""
    conversation = settled_history(pane.conversation)
    provider, model = pane.provider, pane.model
    await leave_comparison(app)
    chat = app.pane
    await chat.new_chat()
    await app.use_provider(provider, model)
    copy_exchanges(chat.history.record, conversation, [chat.history.pane], provider, model)
    await show_conversation(chat, conversation)
    app.notify(f"Continuing with {provider.name} · {model} alone.", markup=False)


def copy_exchanges(
    record: ConversationRecord,
    conversation: Conversation,
    store_panes: list[int],
    provider: ProviderConfig,
    model: str,
) -> None:
    """Write `conversation` (answered by `provider` and `model`) into `record`: each prompt
    once, each answer once per pane index that carries it on."""
    for message in conversation.messages:
        if message.role == "user" or message.turn is None:
            record.prompt(message.text)
            continue
        for index in store_panes:
            saved = record.start_turn(
                pane=index, provider=provider.name, model=model, api=provider.api.value
            )
            saved.finish(message.turn)


def pick_comparison(app: ChatHost) -> None:
    """The chat palette's "Compare with…": choose the provider to put beside the chat's."""

    def start(provider: ProviderConfig) -> None:
        app.run_worker(compare_from_chat(app, provider), group="switch", exit_on_error=False)

    offered = [
        Choice(name, partial(start, provider), describe(provider))
        for name, provider in app.config.providers.items()
    ]
    show_choices(app, offered, f"Compare {app.pane.provider.name} with…")


def _copy(conversation: Conversation) -> Conversation:
    return Conversation(conversation.system, list(conversation.messages))


__all__ = [
    "answered_last_prompt",
    "close_comparisons",
    "compare_from_chat",
    "compare_screen",
    "continue_alone",
    "copy_exchanges",
    "install",
    "leave_comparison",
    "open_stored_comparison",
    "pick_comparison",
    "startup_screen",
]
