"""One assistant turn on screen, drawn from a growing `Turn` by the render clock.

The worker fills the Turn; this widget never sees bytes or events. On each tick `flush` takes
only the parts added since the last tick (the Turn's part lists are append-only), so the cost of
a tick does not depend on how long the answer already is.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from app.display.sanitize import clean, clean_line
from app.display.sent_with import SEPARATOR, sent_summary
from app.display.status_line import sentence
from app.display.turn_watch import TurnWatch
from app.ui.widgets.tool_call import ToolCallCard
from app.wire.turn_status import TurnStatus

if TYPE_CHECKING:  # loaded with the first answer: the first frame draws none
    from app.ui.widgets.answer import AnswerView
    from app.ui.widgets.reasoning import ReasoningPane
    from app.wire.turn import Turn

_OUTCOME_MARK = {
    TurnStatus.STOPPED: "■ stopped",
    TurnStatus.INTERRUPTED: "⚠ interrupted",
    TurnStatus.FAILED: "✖ failed",
}


def outcome_text(turn: Turn) -> str:
    """The line under a turn that did not complete, with the reason when one is known."""
    mark = _OUTCOME_MARK.get(turn.status)
    if mark is None:
        return ""
    if turn.error is not None:
        code = f" ({turn.error.code})" if turn.error.code else ""
        return clean_line(f"{mark} — {sentence(turn.error.message)}{code}")
    if turn.interruption:
        return clean_line(f"{mark} — {sentence(turn.interruption)}")
    if turn.status is TurnStatus.STOPPED:
        return f"{mark} — by you; the partial answer is kept"
    return f"{mark} — the stream ended without its final event"


def sources_text(turn: Turn) -> str:
    lines = ["Sources:"]
    for number, source in enumerate(turn.sources, 1):
        title = f"{source.title} — " if source.title else ""
        lines.append(clean_line(f"{number}. {title}{source.url}"))
    return "\n".join(lines)


class AssistantTurn(Vertical):
    BLANK = True
    DEFAULT_CSS = """
    AssistantTurn {
        height: auto;
        margin: 0 0 1 0;
        .turn--label { color: $text-muted; padding: 0 1; }
        .turn--sources { color: $text-muted; padding: 0 1; display: none; }
        .turn--outcome { padding: 0 1; display: none; text-style: bold; }
        .turn--outcome.-stopped, .turn--outcome.-interrupted { color: $text-warning; }
        .turn--outcome.-failed { color: $text-error; }
        .turn--outcome.-empty { color: $text-muted; text-style: italic; }
        .turn--calls { height: auto; }
    }
    AssistantTurn.-selected { border-left: thick $warning; background: $accent 10%; }
    """

    def __init__(
        self, turn: Turn, watch: TurnWatch, *, keep_reasoning_open: bool, label: str = ""
    ) -> None:
        """`label` names who wrote the answer (provider · model, `retry N`), shown above it."""
        super().__init__()
        self.label = label
        self._label = Static(Content(label), markup=False, classes="turn--label")
        self._sent_with: dict[str, object] | None = None  # the params the label shows
        self.turn = turn
        self.turn_watch = watch
        self.keep_reasoning_open = keep_reasoning_open
        from app.display.fences import new_pacer
        from app.ui.widgets.answer import AnswerView  # Markdown's modules: not for start-up
        from app.ui.widgets.reasoning import ReasoningPane

        self.reasoning: ReasoningPane = ReasoningPane(collapsed=False)
        self.answer: AnswerView = AnswerView()
        self.cards: dict[int, ToolCallCard] = {}
        self._calls = Vertical(classes="turn--calls")
        self._sources = Static("", markup=False, classes="turn--sources")
        self._outcome = Static("", markup=False, classes="turn--outcome")
        self._text_seen = 0
        self._reasoning_seen = 0
        self._sources_seen = 0
        self._pending: list[str] = []
        self._pacer = new_pacer()
        self._answer_started = False
        self.drawn = False  # True once the settled turn is completely on screen
        self.reason_withheld = False  # blind: why it failed may name who answered
        self.drawn_event = asyncio.Event()  # set then (the tool loop waits for its cards)

    def compose(self) -> ComposeResult:
        if self.label:
            yield self._label
        yield self.reasoning
        yield self.answer
        yield self._calls
        yield self._sources
        yield self._outcome

    async def flush(self, now: float) -> bool:
        """Draw what arrived since the last tick. True once the turn is over and fully drawn."""
        self.turn_watch.observe(self.turn, now)
        if not self.is_mounted:  # a tool round's view is mounted unawaited: no children yet
            return False
        return await self._draw(now)

    async def show_settled(self) -> None:
        """Draw a turn that is already over (a reopened conversation) in one go. The watch's
        saved timings are kept as they are: nothing is observed, so nothing is re-timed."""
        watch = self.turn_watch
        now = next(
            (t for t in (watch.ended_at, watch.last_token_at) if t is not None), watch.started
        )
        await self._draw(now)
        while not self.answer.caught_up:  # a long answer is given segments a piece at a time
            await self._draw(now)

    async def _draw(self, now: float) -> bool:
        turn = self.turn
        final = turn.done  # read once: the worker may settle the turn while we draw
        if self.label and turn.params is not self._sent_with:
            self._show_sent_with()
        await self._flush_reasoning(now, final)
        await self._flush_answer(now, final)
        final = final and self.answer.caught_up  # else more of the answer on the next tick
        await self._flush_calls()
        if len(turn.sources) != self._sources_seen:
            self._sources_seen = len(turn.sources)
            self._sources.update(Content(sources_text(turn)))
            self._sources.display = True
        if final:
            self._show_outcome()
            self.drawn = True
            self.drawn_event.set()
        return final

    async def _flush_reasoning(self, now: float, final: bool) -> None:
        parts = self.turn.reasoning_parts
        if len(parts) > self._reasoning_seen:
            self.reasoning.add("".join(parts[self._reasoning_seen :]))
            self._reasoning_seen = len(parts)
        if not self.reasoning.chars:
            return
        watch = self.turn_watch
        live = not final and watch.reasoning_ended is None
        known = watch.reasoning_started is not None  # not for a reopened turn
        self.reasoning.set_heading(watch.reasoning_seconds(now) if known else None, live=live)
        if not self._answer_started and (self.turn.text_parts or self.turn.calls):
            self._answer_started = True
            if not self.keep_reasoning_open:
                self.reasoning.collapsed = True
        await self.reasoning.render_pending(final=final)

    async def _flush_answer(self, now: float, final: bool) -> None:
        parts = self.turn.text_parts
        if len(parts) > self._text_seen:
            text = clean("".join(parts[self._text_seen :]))
            self._text_seen = len(parts)
            self._pacer.tracker.feed(text)
            self._pending.append(text)
        if final or (self._pending and self._pacer.due(now)) or not self.answer.caught_up:
            text = "".join(self._pending)
            self._pending.clear()
            self._pacer.flushed(now)
            await self.answer.append(text, final=final)

    async def _flush_calls(self) -> None:
        for index, call in list(self.turn.calls.items()):  # more may come while one mounts
            card = self.cards.get(index)
            if card is None:
                card = self.cards[index] = ToolCallCard(call)
                await self._calls.mount(card)
            card.refresh_from_call()

    def withhold_reason(self, withheld: bool) -> None:
        """A blind comparison's pane: a failure's reason (the server's words, a host) can name
        the provider, so until the vote only its mark shows; then the reason whole."""
        self.reason_withheld = withheld
        if self.drawn:
            self._show_outcome()

    def _show_sent_with(self) -> None:
        """The label names what the request was sent with, once it was built (and again when
        it was built anew, e.g. asked again without `stream_options`)."""
        self._sent_with = params = self.turn.params
        summary = sent_summary(params)
        label = f"{self.label}{SEPARATOR}{summary}" if summary else self.label
        self._label.update(Content(label))

    @property
    def label_text(self) -> str:
        """The header above the answer, as shown."""
        return str(self._label.content)

    def _show_outcome(self) -> None:
        turn = self.turn
        text = outcome_text(turn)
        if self.reason_withheld and turn.status in (TurnStatus.FAILED, TurnStatus.INTERRUPTED):
            text = f"{_OUTCOME_MARK[turn.status]} — why shows after the vote"
        if not text and turn.status is TurnStatus.COMPLETE and not (turn.text_parts or turn.calls):
            text = "(the model sent an empty answer)"
            self._outcome.add_class("-empty")
        if text:
            self._outcome.add_class(f"-{turn.status.value}")
            self._outcome.update(Content(text))
            self._outcome.display = True

    def set_reasoning_open(self, is_open: bool) -> None:
        self.reasoning.collapsed = not is_open

    def find_parts(self) -> list[str]:
        """What the find bar searches, in reading order: the reasoning, the answer's
        segments, then each tool call's arguments and result (a match's `part` counts them
        so; `piece` reads it back)."""
        parts = self.reasoning.find_parts() + self.answer.sources
        for card in self.cards.values():
            parts += card.find_parts()
        return parts

    def piece(self, part: int) -> tuple[str, int, ToolCallCard | None]:
        """Which piece `part` of `find_parts` is: ("reasoning", its segment), ("answer", its
        segment) or ("card", 0 for its arguments or 1 for its result, the card)."""
        reasoning = self.reasoning.find_count()
        if part < reasoning:
            return "reasoning", part, None
        part -= reasoning
        answer = len(self.answer.sources)
        if part < answer:
            return "answer", part, None
        cards = list(self.cards.values())
        index, which = divmod(part - answer, 2)
        return "card", which, cards[index] if index < len(cards) else None

    def show_found(
        self, pattern: re.Pattern[str] | None, current: tuple[int, int] | None = None
    ) -> None:
        """`current`: (part, match in it), parts counted as `find_parts` counts them."""
        where, index, card = ("", 0, None) if current is None else self.piece(current[0])
        nth = 0 if current is None else current[1]
        self.reasoning.show_found(pattern, (index, nth) if where == "reasoning" else None)
        self.answer.show_found(pattern, (index, nth) if where == "answer" else None)
        for each in self.cards.values():
            each.show_found(pattern, (index, nth) if each is card else None)


__all__ = ["AssistantTurn", "outcome_text", "sources_text"]
