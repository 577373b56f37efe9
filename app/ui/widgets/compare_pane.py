"""One pane of a comparison: a whole ChatPane (its own conversation, stream worker, transcript
and status bar) under a header naming what it asks.

Everything a chat pane does is inherited, including drawing only from the app's one render
clock; what differs is the status line, which leaves provider and model to the header and adds
the total time and the cost, and the figures the ranking line is built from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Static

from app.compare.stats import PaneStats, PaneTimes, pane_stats
from app.compare.status import READY, header_segments, pane_status_segments
from app.display.status_line import STATE, WARN
from app.display.turn_watch import TurnWatch
from app.store import StoredConversation
from app.store.branches import AT_END
from app.store.session import PaneHistory
from app.store.session_records import TurnRecord
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.chat_pane import TOOL_CALL, ChatPane, starting_tools
from app.ui.widgets.status_bar import segments_content
from app.ui.widgets.user_message import UserMessage
from app.wire.conversation import Conversation
from app.wire.events import Usage

KEY_MISSING = "key missing"  # a blind pane's: the variable's name would say whose it is
EARLIER_HIDDEN = "earlier rounds hidden until the vote"


class ComparePaneHeader(Static):
    DEFAULT_CSS = """
    ComparePaneHeader {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $panel;
        color: $foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """


class EarlierNote(Static):
    """Stands for the rounds a blind round hides."""

    DEFAULT_CSS = """
    EarlierNote { height: 1; width: 1fr; padding: 0 1; color: $text-muted; text-style: italic; }
    """


class ComparePane(ChatPane):
    LABEL_ANSWERS = False
    FIT_STATUS = False  # its own segments (state first) wrap in a narrow pane
    DEFAULT_CSS = """
    ComparePane {
        width: 1fr;
        height: 1fr;
        min-width: 20;
        min-height: 6;
        &.-selected > ComparePaneHeader { background: $primary 15%; text-style: bold; }
        /* blind: a reopened answer's label and saved status line name who wrote it */
        &.-blind .turn--label, &.-blind StoredTurnInfo { display: none; }
        /* blind: earlier rounds, revealed, would say which letter is whose */
        &.-earlier-hidden .-earlier-round { display: none; }
        & > EarlierNote { display: none; }
        &.-earlier-hidden > EarlierNote { display: block; }
    }
    """

    @dataclass
    class StateChanged(Message):
        """The pane's state word changed (ready, waiting, streaming, complete, …)."""

        pane: ComparePane

    def __init__(self, *, number: int, label: str, **chat: Any) -> None:
        super().__init__(**chat)
        self.number = number
        self.label = label  # the pane's name in the ranking line and on its tab
        self.state = READY  # the first word of its status line
        self._reveal_pending = False
        self.letter: str | None = None  # set while a blind comparison hides who this is
        self.stored_answer: int | None = None  # a reopened pane's last answer, to vote on
        self.header = ComparePaneHeader("", markup=False)
        self.earlier_note = EarlierNote(EARLIER_HIDDEN, markup=False)

    def compose(self) -> ComposeResult:
        yield self.header
        yield self.earlier_note
        yield from super().compose()

    def on_mount(self) -> None:
        self.show_header()
        super().on_mount()

    def show_header(self) -> None:
        if self.letter is not None:  # blind: the letter only, no provider, model or api
            self.header.update(segments_content([(self.letter, STATE)]))
            return
        self.header.update(
            segments_content(header_segments(self.number, self.provider, self.model))
        )

    def hide(self, letter: str) -> None:
        """Blind: called `letter` everywhere (header, tab, ranking), its cost and the reasons
        of its failures left out."""
        self.letter = letter
        self.label = letter
        self.show_header()
        self._withhold_reasons(True)

    def unhide(self, label: str) -> None:
        """The vote is in: the pane's own name (and cost, and why it failed) again."""
        self.letter = None
        self.label = label
        self.show_header()
        self._withhold_reasons(False)

    def hide_earlier(self, *, but_last_round: bool = False) -> None:
        """Blind: what this pane showed before (all of it, or all before its last prompt, for a
        reopened round) is out of sight until `show_earlier`: answers revealed in an earlier
        round would tell which provider this letter is."""
        children = list(self.transcript.children)
        if but_last_round:
            prompts = [n for n, child in enumerate(children) if isinstance(child, UserMessage)]
            children = children[: prompts[-1]] if prompts else []
        for child in children:
            child.add_class("-earlier-round")
        self.set_class(bool(children), "-earlier-hidden")

    def show_earlier(self) -> None:
        self.remove_class("-earlier-hidden")

    def _withhold_reasons(self, withheld: bool) -> None:
        self.set_class(withheld, "-blind")
        for view in self.transcript.query(AssistantTurn):
            view.withhold_reason(withheld)
        if self.is_mounted:  # the status line too: its cost and error code
            self.update_status(self._clock.now())

    async def _start_turn(
        self, prompt: UserMessage | None = None, *, parent: int | None = AT_END
    ) -> None:
        self.stored_answer = None
        await super()._start_turn(prompt, parent=parent)
        if self.letter is not None and self.current is not None:
            self.current.withhold_reason(True)

    async def show_stored(self, stored: StoredConversation, history: PaneHistory) -> None:
        """This pane's own chosen path of the comparison (each pane branches on its own);
        while blind, its reopened answers still withhold who wrote them."""
        await super().show_stored(stored.for_pane(history.pane), history)
        answers = [m.id for m in stored.for_pane(history.pane).messages if m.pane == history.pane]
        self.stored_answer = answers[-1] if answers else None
        if self.letter is not None:
            self._withhold_reasons(True)

    @property
    def saved_turn(self) -> TurnRecord | None:
        """The current answer's record in the history (its row id once written)."""
        return self._record

    def reveal(self) -> None:
        """Shown again after hiding behind its tab: what streamed meanwhile was laid out in no
        space, so the pane goes to its end, unless the user had scrolled up in it."""
        self._reveal_pending = True

    def on_resize(self, event: events.Resize) -> None:
        if not self._reveal_pending or not event.size.height:
            return
        self._reveal_pending = False  # laid out at its real size now: its end is known
        transcript = self.transcript
        if not transcript.is_anchored:
            transcript.scroll_end(animate=False, immediate=False)
        transcript.call_after_refresh(transcript.settle_anchor)
        self.call_after_refresh(self._rewrap_status)

    def _rewrap_status(self) -> None:
        """The status line was last shown at no width: decide again whether it wraps."""
        segments, self.status_bar.segments = self.status_bar.segments, []
        self.status_bar.show(segments)

    def renumber(self, number: int) -> None:
        self.number = number
        self.show_header()

    def stats(self, now: float) -> PaneStats | None:
        """The figures shown: a blind pane's leave out the cost and the finish reason, which
        say who it is (its price, its api's own words: stop, end_turn, completed), and every
        count but the output's (each format counts input and cache its own way)."""
        stats = self.figures(now)
        if stats is None or self.letter is None:
            return stats
        output = None if stats.usage is None else stats.usage.output_tokens
        # every pane shows an output count (estimated where none came), so that a format
        # that reports no usage at all shows the same fields as one that does
        return replace(stats, cost=None, finish_reason=None, usage=Usage(output_tokens=output))

    def figures(self, now: float) -> PaneStats | None:
        """The current turn in figures (live while it streams); None before the first prompt.

        A reopened pane's current turn is its last stored answer, whose watch holds the saved
        timings on a clock that starts at 0 with the request: the same figures it had live."""
        view = self.current
        if view is None:
            return None
        watch = view.turn_watch
        timing = None if self._reopened else self._timing
        if timing is None:
            times = PaneTimes(watch.started, watch.first_token_at, None, watch.ended_at)
        else:  # the client's: from the request going out, as the timeline and history measure
            ended = timing.ended if timing.ended is not None else watch.ended_at
            last = watch.last_token_at if timing.first_token is not None else None
            times = PaneTimes(timing.started, timing.first_token, last, ended)
        return pane_stats(self.label, self.provider, view.turn, times, watch.chars)

    def update_status(self, now: float) -> None:
        view = self.current
        if view is not None and self._reopened:
            now = settled_at(view.turn_watch)  # the saved figures, not timed against today
        segments = pane_status_segments(
            self.stats(now),
            None if view is None else view.turn,
            None if view is None else view.turn_watch,
            now,
            blind=self.letter is not None,
        )
        missing = self.key_missing() if view is None else None
        if missing is not None:  # not "ready": this pane would fail, sending nothing
            segments = [(KEY_MISSING if self.letter is not None else missing, WARN), *segments[1:]]
        if self.running_tools:  # its tab says so too: the pane may be behind another tab
            segments = [(TOOL_CALL, STATE), *segments[1:]]
        if self.waiting_for:
            segments = [(starting_tools(self.waiting_for), STATE), *segments[1:]]
        self.status_bar.show(segments)
        state = segments[0][0]
        if state != self.state:
            self.state = state
            self.post_message(self.StateChanged(self))


def settled_at(watch: TurnWatch) -> float:
    """The moment a stored turn's figures describe: its end, or the last thing it saw."""
    moments = (watch.ended_at, watch.last_token_at, watch.first_token_at)
    return next((t for t in moments if t is not None), watch.started)


def settled_history(conversation: Conversation) -> Conversation:
    """A copy that ends with an answer: a prompt still being answered is left out."""
    messages = list(conversation.messages)
    while messages and messages[-1].role == "user":
        messages.pop()
    return Conversation(conversation.system, messages)


async def show_conversation(pane: ChatPane, conversation: Conversation) -> None:
    """Give a fresh pane a finished conversation to carry on, drawn at once (not re-timed)."""
    pane.conversation = conversation
    for message in conversation.messages:
        if message.role == "user" or message.turn is None:
            await pane.transcript.mount(UserMessage(message.text))
            continue
        view = AssistantTurn(
            message.turn, TurnWatch(started=0.0), keep_reasoning_open=pane.keep_reasoning_open
        )
        await pane.transcript.mount(view)
        await view.show_settled()
    pane.transcript.scroll_end(animate=False, immediate=False)
    pane.call_after_refresh(pane.transcript.settle_anchor)


__all__ = ["ComparePane", "ComparePaneHeader", "settled_history", "show_conversation"]
