"""A conversation with one provider: its transcript, its status bar and its stream worker.

The pane owns the worker (`@work(group="stream", exclusive=True)` on the pane, so panes side by
side never cancel each other) and the Conversation. The worker only awaits the client, which
fills the Turn in place; drawing happens when the app's render clock calls `flush`.

History goes through the pane's `PaneHistory` (app/store/session.py): the worker waits for
the prompt to be stored before the request, the turn is saved from `flush` (throttled) while it
streams, and once more as soon as it settles (from the worker or `stop`, not when the screen
has caught up). The writes themselves run on the history's writer thread.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from app.display.sanitize import clean_line
from app.display.status_line import (
    DIM,
    STATE,
    WARN,
    Segment,
    StatusInput,
    answer_label,
    status_segments,
)
from app.display.turn_watch import TurnWatch, settled_watch
from app.providers.params import RequestParams
from app.providers.params import fitted_for as fit_params
from app.providers.timing import Timing
from app.settings.config import ConfigError, ProviderConfig
from app.store.branches import AT_END
from app.store.session import PaneHistory, TurnRecord, continued_conversation
from app.ui.render_clock import RenderClock
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import (
    BranchMarker,
    mark_branches,
    mark_drawn,
    message_widgets,
)
from app.ui.widgets.history_turn import EarlierMessages, mount_stored, window_start
from app.ui.widgets.status_bar import StatusBar
from app.ui.widgets.tool_call import tool_round
from app.ui.widgets.transcript import Transcript
from app.ui.widgets.user_message import UserMessage
from app.wire.attachment import Attachment
from app.wire.conversation import Conversation
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:
    from app.providers.prices import Figures
    from app.store.records import StoredConversation, StoredMessage
    from app.wire.turn import Turn
if TYPE_CHECKING:  # the tool loop is loaded when tools are first used
    from app.ui.widgets.tool_rounds import PaneRounds, ToolsSource

STATUS_PERIOD = 0.1  # the status bar redraws at most 10 times a second
EARLIER_MARGIN = 3  # rows from the top of a long reopened conversation that draw the part before
TOOL_CALL = "tool call"  # the state word while a tool call waits or runs
RETRYABLE = frozenset({TurnStatus.STOPPED, TurnStatus.INTERRUPTED, TurnStatus.FAILED})


def starting_tools(servers: list[str]) -> str:
    """The state while a prompt waits for the MCP servers whose tools it offers."""
    return f"starting tools: {', '.join(clean_line(name) for name in servers)}…"


class TurnStreamer(Protocol):
    """What the pane needs from a provider client (app.providers.client.ProviderClient)."""

    async def stream(
        self,
        conversation: Conversation,
        turn: Turn,
        timing: Timing | None = None,
        *,
        model: str | None = None,
        params: RequestParams | None = None,
    ) -> Turn: ...

    async def list_models(self) -> list[str]: ...

    async def aclose(self) -> None: ...


Connect = Callable[[ProviderConfig], TurnStreamer]


class ChatPane(Vertical):
    BLANK = True
    FIT_STATUS = True  # the status bar shortens to one line (a compare pane's wraps instead)
    LABEL_ANSWERS = (
        True  # name each answer's provider · model above it (a compare pane's header does)
    )
    DEFAULT_CSS = """
    ChatPane { height: 1fr; }
    """

    @dataclass
    class TurnDrawn(Message):
        """A settled turn is completely on screen."""

        pane: ChatPane
        turn: Turn

    def __init__(
        self,
        *,
        provider: ProviderConfig,
        model: str,
        connect: Connect,
        clock: RenderClock,
        system: str | None = None,
        keep_reasoning_open: bool = False,
        reading_width: int = 0,
        history: PaneHistory | None = None,
        tools: ToolsSource | None = None,
        key_missing: Callable[[ProviderConfig], str | None] | None = None,
        id: str | None = None,
    ) -> None:
        """`tools`: the app's tools; when some are on, a prompt runs the tool loop.
        `key_missing`: what to say when a provider's key is nowhere (None: it is there)."""
        super().__init__(id=id)
        self._key_missing = key_missing
        self.tools = tools
        self.rounds: PaneRounds | None = None  # while the tool loop runs
        self.waiting_for: list[str] = []  # MCP servers a sent prompt waits for
        self.history = history if history is not None else PaneHistory.off()
        self._record: TurnRecord | None = None
        self._reopened = False
        self._earlier: list[StoredMessage] = []  # not drawn yet: the start of a long reopened one
        self._drawing_earlier = False
        self.provider = provider
        self.model = model
        self.keep_reasoning_open = keep_reasoning_open
        self.conversation = Conversation(system=system)
        # The parameters panel's values: over the provider's `params`, sent with each request;
        # the conversation's (stored with it, restored on reopen, none in a New chat).
        self.params: RequestParams | None = None
        self.transcript = Transcript()
        self.transcript.reading_width = reading_width  # [ui] reading_width
        self.status_bar = StatusBar(fit=self.FIT_STATUS)
        self.current: AssistantTurn | None = None
        self._connect = connect
        self._clock = clock
        self._client: TurnStreamer | None = None
        self._worker: Worker[None] | None = None
        self._timing: Timing | None = None
        self._status_at = float("-inf")
        # Whose figures the status bar shows: after a switch, not the last answer's.
        self._figures_of: tuple[str, str] | None = None
        # The last answer's context use and cost (found on a thread once it settled) and the
        # conversation's running total of costs.
        self._priced: tuple[Turn, Figures] | None = None
        self._spent = 0.0

    @property
    def clock(self) -> RenderClock:
        """The app's render clock this pane draws on (the inspector draws on it too)."""
        return self._clock

    def compose(self) -> ComposeResult:
        yield self.transcript
        yield self.transcript.marker
        yield self.status_bar

    def on_mount(self) -> None:
        self.update_status(self._clock.now())
        self.watch(self.transcript, "scroll_y", self._scrolled, init=False)

    def _scrolled(self, scroll_y: float) -> None:
        """Scrolled up to the top of a long reopened conversation: draw the part before, as
        its button would (which stays, for the keyboard)."""
        if not self._earlier or self._drawing_earlier or scroll_y > EARLIER_MARGIN:
            return
        button = next(iter(self.transcript.query_children(EarlierMessages)), None)
        if button is not None:
            self._drawing_earlier = True
            self.call_later(self.draw_earlier, button)

    # -- state ---------------------------------------------------------------------------------

    @property
    def streaming(self) -> bool:
        """A turn is on its way or not yet fully drawn, or the tool loop is still going."""
        return self.rounds is not None or (self.current is not None and not self.current.drawn)

    @property
    def turn(self) -> Turn | None:
        return None if self.current is None else self.current.turn

    def key_missing(self) -> str | None:
        """`key missing: set $X` for the current provider, else None."""
        return None if self._key_missing is None else self._key_missing(self.provider)

    async def reconnect(self) -> None:
        """The next turn makes a new client (a key was given); a running one keeps its own."""
        if self._client is not None and not self.streaming:
            await self._client.aclose()
            self._client = None
        self.update_status(self._clock.now())

    def client(self) -> TurnStreamer:
        """The provider's client, made on first use (so nothing connects until asked)."""
        if self._client is None:
            self._client = self._connect(self.provider)
        return self._client

    # -- actions -------------------------------------------------------------------------------

    async def send(self, text: str, attachments: tuple[Attachment, ...] = ()) -> bool:
        """Start a turn for `text` (and the files attached to it); False while the previous
        one is still running."""
        if self.streaming:
            return False
        self.conversation.add_user(text, attachments)
        self.history.prompt(text, attachments)  # stored before any request is sent
        await self._start_turn(UserMessage(text, attachments))
        return True

    async def answer(self, *, parent: int | None = AT_END) -> None:
        """A new answer to the conversation's last prompt (an edited or regenerated branch),
        stored after `parent` in the history's tree (by default after the end of the path)."""
        await self._start_turn(parent=parent)

    async def _start_turn(
        self, prompt: UserMessage | None = None, *, parent: int | None = AT_END
    ) -> None:
        """A new answer: to `prompt`, else (a retry) to the last prompt again."""
        self._reopened = False
        now = self._clock.now()
        self._timing = None  # a turn that fails before its request has no timings
        from app.wire.turn import Turn  # with the first answer: the first frame has none

        turn = Turn()
        attempt = 1 if prompt is not None else self._answers_to_last_prompt() + 1
        self.current = AssistantTurn(
            turn,
            TurnWatch(started=now),
            keep_reasoning_open=self.keep_reasoning_open,
            label=answer_label(self.provider.name, self.model, attempt)
            if self.LABEL_ANSWERS
            else "",
        )
        self._figures_of = (self.provider.name, self.model)
        await self.transcript.mount_all([w for w in (prompt, self.current) if w is not None])
        self.transcript.follow()
        self._record = self.history.start_turn(
            self.provider.name, self.model, self.provider.api, parent=parent
        )
        self._status_at = float("-inf")
        self._clock.add(self)
        try:
            client = self.client()
        except ConfigError as exc:
            turn.fail("missing_api_key", str(exc))
            turn.end()
            self._clock.tick_now()
            return
        self._timing = Timing(started=now)
        self._worker = self._stream(client, turn, self._timing, self._record)

    def _answers_to_last_prompt(self) -> int:
        """Answers the last prompt got, less tool rounds (a retry asks from the last one)."""
        count = 0
        for child in reversed(self.transcript.children):
            if isinstance(child, UserMessage):
                break
            count += isinstance(child, AssistantTurn) and not tool_round(child.turn)
        return count

    @work(group="stream", exclusive=True, exit_on_error=False)
    async def _stream(
        self, client: TurnStreamer, turn: Turn, timing: Timing, record: TurnRecord
    ) -> None:
        try:
            await record.written()  # the prompt is in the history before the request is sent
            kit = None if self.tools is None else await self.tools.kit(self._wait_for_tools)
            if kit is not None:  # every client the app makes takes tools (ProviderClient)
                from app.tools.loop import LoopClient, Round
                from app.ui.widgets.tool_rounds import PaneRounds

                self.rounds = PaneRounds(self, kit)
                await self.rounds.run(cast(LoopClient, client), Round(turn, timing), record)
            else:
                await client.stream(
                    self.conversation, turn, timing, model=self.model, params=self.params
                )
        finally:
            self.waiting_for = []  # stopped while the servers started: not waiting any more
            if self.rounds is not None:  # the current round's, which streamed last
                turn, record = self.turn or turn, self._record or record
                timing = self._timing or timing
            if not turn.done:
                turn.end()
            record.finish(turn, timing)  # saved as the stream ends, however far drawing is
            self._end_rounds()
            self._clock.tick_now()  # the last frame now, not on the next tick
            if turn.usage is not None:
                self.run_worker(self._price(turn, self.provider, self.model), exit_on_error=False)

    def _wait_for_tools(self, servers: list[str]) -> None:
        self.waiting_for = servers
        if self.is_attached:
            self.update_status(self._clock.now())

    async def _price(self, turn: Turn, provider: ProviderConfig, model: str) -> None:
        """The answer's share of the model's context and its cost, from the config or the
        [prices] extra's catalogue, looked up on a thread (the catalogue takes a while to
        load) once the answer is in; nothing is shown for a model no one knows."""
        found = await asyncio.to_thread(_figures, provider, model, turn)
        if found.cost is None and found.context_window is None:
            return
        if found.cost is not None:
            self._spent += found.cost
        self._priced = (turn, found)
        if self.is_attached:
            self.update_status(self._clock.now())

    def _end_rounds(self) -> None:
        rounds, self.rounds = self.rounds, None
        if rounds is None:
            return
        rounds.close()
        messages = self.conversation.messages
        last = messages[-1].turn if messages else None
        if last is not None and not (last.text_parts or last.calls):
            messages.pop()  # an empty answer is not sent back (as without tools)
        if self.is_attached:
            self.update_status(self._clock.now())
            self.screen.refresh_bindings()

    def clock_now(self) -> float:
        return self._clock.now()

    def start_round(
        self, turn: Turn, timing: Timing, number: int
    ) -> tuple[AssistantTurn, TurnRecord]:
        """The tool loop's next request (round `number`): a new answer on screen, and in the
        history."""
        label = answer_label(self.provider.name, self.model) + f" · round {number}"
        view = AssistantTurn(
            turn,
            TurnWatch(started=self._clock.now()),
            keep_reasoning_open=self.keep_reasoning_open,
            label=label if self.LABEL_ANSWERS else "",
        )
        self.current, self._timing = view, timing
        self._record = self.history.start_turn(self.provider.name, self.model, self.provider.api)
        self._status_at = float("-inf")
        self.transcript.mount(view)
        self.transcript.follow()
        self._clock.add(self)
        return view, self._record

    @property
    def running_tools(self) -> bool:
        """The tool loop waits for a tool (the user's answer, or a server): Esc stops it."""
        turn = self.turn
        return self.rounds is not None and turn is not None and turn.done

    def stop(self) -> bool:
        """Stop the running stream (once: a second cancel can leak a pooled connection), or
        the tool loop while it waits for a tool (the call's result then says so)."""
        worker, turn = self._worker, self.turn
        if worker is not None and self.running_tools and not worker.is_finished:
            worker.cancel()
            return True
        if worker is None or turn is None or turn.done:
            return False
        if not worker.is_finished and not worker.is_cancelled:
            worker.cancel()
        turn.end(stopped=True)  # a worker cancelled before it started never settles it
        if self._timing is not None and self._timing.ended is None:
            self._timing.ended = self._clock.now()  # the stop is the end
        if self._record is not None:
            self._record.finish(turn, self._timing)  # saved now, before the worker has unwound
        self._clock.tick_now()
        return True

    async def settle(self) -> None:
        """Stop, and wait until the worker has unwound (its connection closed)."""
        self.stop()
        worker = self._worker
        if worker is not None and not worker.is_finished:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        turn = self.turn
        if self._record is not None and turn is not None:
            self._record.finish(turn, self._timing)  # e.g. quitting before the last tick

    async def flush(self, now: float) -> bool:
        """Called by the render clock: draw the turn, and the status at most 10 times a second."""
        view = self.current
        if view is None:
            return True
        timing = self._timing
        if timing is not None and timing.first_token is not None:
            view.turn_watch.first_token_at = timing.first_token  # the client's is exact
        final = await view.flush(now)
        if self._record is not None:
            self._record.tick(view.turn, now)
            if final:
                self._record.finish(view.turn, timing)
        await self.transcript.virtualize()
        self.transcript.settle_anchor()
        if final or now - self._status_at >= STATUS_PERIOD:
            self._status_at = now
            self.update_status(now)
        if final:
            turn = view.turn
            messages = self.conversation.messages
            added = any(m.turn is turn for m in reversed(messages))  # by the tool loop
            if (turn.text_parts or turn.calls) and not added:
                self.conversation.add_assistant(turn)
            self.call_after_refresh(self.transcript.settle_anchor)
            self.transcript.virtualize_later()
            self.post_message(self.TurnDrawn(self, turn).set_sender(self))
        return final

    def update_status(self, now: float) -> None:
        view = None if self._reopened else self.current
        if self._figures_of != (self.provider.name, self.model):
            view = None  # the previous provider's figures are not shown under the new name
        watch = None if view is None else view.turn_watch
        timing = self._timing
        if view is not None and view.turn.done and timing is not None and timing.ended is not None:
            # Measured as the saved timings measure it, so a reopened answer shows the same.
            watch = settled_watch(timing.ttft_ms, timing.duration_ms, view.turn_watch.chars)
            now = watch.ended_at or 0.0
        measured = None if timing is None or timing.ttft_ms is None else timing.ttft_ms / 1000
        info = StatusInput(
            self.provider.name,
            self.model,
            None if view is None else view.turn,
            watch,
            now,
            ttft=None if view is None else measured,
        )
        segments = status_segments(info)
        if self.running_tools and len(segments) > 2:  # not "complete": the loop waits
            segments[2] = (TOOL_CALL, STATE)
        if self.waiting_for and len(segments) > 2:  # not the model: nothing was sent yet
            segments = [*segments[:2], (starting_tools(self.waiting_for), STATE)]
        priced = self._priced
        if view is not None and priced is not None and priced[0] is view.turn:
            segments.extend(_figure_segments(view.turn, priced[1], self._spent))
        missing = self.key_missing() if view is None and len(segments) > 2 else None
        if missing is not None:  # not "ready": Enter would refuse
            segments[2] = (missing, WARN)
        self.status_bar.show(segments)

    async def new_chat(self) -> None:
        await self.settle()
        self.conversation = Conversation(system=self.conversation.system)
        self.history = self.history.fresh()
        self.params = None  # a new conversation starts from the provider's params
        self.current = None
        self._priced, self._spent = None, 0.0
        await self.transcript.remove_children()
        self.transcript.follow()
        self.update_status(self._clock.now())

    # -- history: retry, edit, reopen ------------------------------------------------------------

    @property
    def can_retry(self) -> bool:
        """The last turn did not complete and nothing is running."""
        turn = self.turn
        return not self.streaming and turn is not None and turn.status in RETRYABLE

    async def retry(self) -> bool:
        """Ask the last prompt again as a new request; the unfinished answer stays on screen
        (and in the history) but is not sent back."""
        if not self.can_retry or self.last_prompt() is None:
            return False
        messages = self.conversation.messages
        if messages and messages[-1].turn is self.turn:
            messages.pop()
        await self._start_turn()
        return True

    def last_attachments(self) -> tuple[Attachment, ...]:
        """The files sent with the last prompt."""
        for message in reversed(self.conversation.messages):
            if message.role == "user":
                return message.attachments
        return ()

    def last_prompt(self) -> str | None:
        for message in reversed(self.conversation.messages):
            if message.role == "user":
                return message.text
        return None

    async def replace_last_exchange(
        self, text: str, attachments: tuple[Attachment, ...] = ()
    ) -> bool:
        """Edit and resend: the last prompt and its answers go (screen, history, request);
        `text` and `attachments` are sent in their place."""
        if self.streaming or self.last_prompt() is None:
            return False
        messages = self.conversation.messages
        last_user = max(i for i, m in enumerate(messages) if m.role == "user")
        del messages[last_user:]
        self.history.record.drop_last_exchange()
        prompts = list(self.transcript.query_children(UserMessage))
        if prompts:
            children = list(self.transcript.children)
            first = children.index(prompts[-1])
            if first and isinstance(children[first - 1], BranchMarker):
                first -= 1  # the replaced prompt's `‹ 2/3 ›` goes with it
            await self.transcript.remove_children(children[first:])
        self.current = None
        return await self.send(text, attachments)

    async def show_stored(self, stored: StoredConversation, history: PaneHistory) -> None:
        """Replace the transcript with a finished conversation (its end, if it is long) and
        carry on from it."""
        await self.settle()
        self.history = history
        self._priced, self._spent = None, 0.0
        self.conversation = continued_conversation(stored, history.pane)
        saved = RequestParams.saved(stored.params)  # a comparison's: what this format takes
        fitted = (
            None
            if saved is None
            else fit_params(saved, self.provider.api, self.provider.max_tokens)[0]
        )
        self.params = None if fitted is None or fitted.is_empty else fitted
        self.current = None
        self._record = None
        await self.transcript.remove_children()
        start = window_start(stored.messages)
        self._earlier = stored.messages[:start]
        if start:
            await self.transcript.mount(EarlierMessages(start))
        views = await mount_stored(
            self.transcript,
            stored.messages[start:],
            history.pane,
            keep_reasoning_open=self.keep_reasoning_open,
        )
        self.current = views[-1] if views else None
        await mark_branches(self.transcript, stored.messages, history.pane)  # `‹ 2/3 ›`
        self._reopened = True  # each stored answer shows its own status line
        self.update_status(self._clock.now())
        self.screen.refresh_bindings()  # retry may apply to the last stored answer
        self.transcript.follow()
        self.transcript.scroll_end(animate=False, immediate=False)

    def set_params(self, params: RequestParams | None) -> None:
        """The parameters panel's values for this conversation's next requests, stored with it."""
        self.params = None if params is None or params.is_empty else params
        self.history.record.set_params({} if self.params is None else self.params.as_dict())

    @property
    def earlier(self) -> list[StoredMessage]:
        """The start of a long reopened conversation, not drawn yet (above its button)."""
        return self._earlier

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        button = event.button
        if not isinstance(button, EarlierMessages):
            return
        event.stop()
        await self.draw_earlier(button)

    async def draw_earlier(self, button: EarlierMessages | None = None) -> None:
        """Draw the part of a long reopened conversation just above what is drawn (one window
        of it, as its button does; the find bar does it to show a match there), keeping in view
        what was."""
        if button is None:
            button = next(iter(self.transcript.query_children(EarlierMessages)), None)
            if button is None:
                return
        self._drawing_earlier = True
        try:
            if not self._earlier or not button.is_attached:
                return
            start = window_start(self._earlier)
            batch, self._earlier = self._earlier[start:], self._earlier[:start]
            shown = message_widgets(self.transcript)
            first = shown[0] if shown else None
            was_at = None if first is None else first.virtual_region.y - self.transcript.scroll_y
            await mount_stored(
                self.transcript,
                batch,
                self.history.pane,
                keep_reasoning_open=self.keep_reasoning_open,
                after=button,
            )
            drawn = [w for w in message_widgets(self.transcript) if w not in shown]
            await mark_drawn(self.transcript, drawn, batch, self.history.pane)  # their `‹ 2/3 ›`
            if self._earlier:
                button.label = EarlierMessages.label_for(len(self._earlier))
            else:
                await button.remove()
            if first is not None and was_at is not None:
                before = first.virtual_region.y
                self.call_after_refresh(self._keep_in_view, first, was_at, before)
        finally:
            self._drawing_earlier = False

    def _keep_in_view(self, widget: Widget, at: float, before: int, tries: int = 5) -> None:
        """Scroll so `widget` stands where it stood before the part above it was drawn (once
        the layout has it lower: a refresh may come before the layout that places the part)."""
        if not widget.is_attached:
            return
        if widget.virtual_region.y == before and tries:
            self.call_after_refresh(self._keep_in_view, widget, at, before, tries - 1)
            return
        target = max(0.0, widget.virtual_region.y - at)
        self.transcript.scroll_to(y=target, animate=False, immediate=True)
        # Wake what is in view now (answers drawn earlier and put to sleep too), once the
        # screen has placed it: its regions are the ones virtualizing goes by.
        self.call_after_refresh(self.transcript.virtualize_later)

    async def use(self, provider: ProviderConfig, model: str) -> None:
        """Switch provider and/or model for the next turns (the running one is stopped)."""
        await self.settle()
        if provider != self.provider and self._client is not None:
            await self._client.aclose()
            self._client = None
        self.provider, self.model = provider, model
        self.update_status(self._clock.now())

    async def aclose(self) -> None:
        await self.settle()
        if self._client is not None:
            await self._client.aclose()
            self._client = None


def _figures(provider: ProviderConfig, model: str, turn: Turn) -> Figures:
    from app.providers.prices import figures  # with the first priced answer, on its thread

    return figures(provider, model, turn.usage)


def _figure_segments(turn: Turn, found: Figures, spent: float) -> list[Segment]:
    """`ctx 34% of 200k` (the request's input and the answer's output against the model's
    window) and `$0.0123 · Σ $0.41` (this answer, the conversation so far)."""
    from app.compare.stats import format_cost

    parts: list[Segment] = []
    usage = turn.usage
    window = found.context_window
    if usage is not None and window and usage.input_tokens is not None:
        used = usage.input_tokens + (usage.output_tokens or 0)
        if usage.input_excludes_cached:
            used += (usage.cached_tokens or 0) + (usage.cache_write_tokens or 0)
        parts.append((f"ctx {round(100 * used / window)}% of {_tokens(window)}", DIM))
    if found.cost is not None:
        parts.append((format_cost(found.cost), DIM))
        parts.append((f"Σ {format_cost(spent)}", DIM))
    return parts


def _tokens(count: int) -> str:
    """200k, 1M, 1.05M: a window's size as people say it."""
    if count >= 1_000_000:
        return f"{count / 1_000_000:.3g}M"
    return f"{count / 1000:.3g}k" if count >= 1000 else str(count)


__all__ = ["TOOL_CALL", "ChatPane", "Connect", "TurnStreamer"]
