"""The find bar (Ctrl+F): a word found in every prompt, reasoning, answer and tool call (its
arguments and result) of a conversation, each match highlighted, the current one scrolled into
view, and a count (`3 of 17`). A match in a collapsed reasoning pane, or in the hidden end of a
long result, opens it, as a click would, to be shown there.

What is searched is the text the transcript's messages hold (app/display/find.py), not what is
drawn: a long answer's segments far from the view are asleep (app/ui/widgets/answer.py), so a
jump to a match there first scrolls to the sleeping segment, which wakes it, then, once it is
drawn, to the match's own row. While an answer streams the matches are counted again a few times
a second, only when the pieces searched changed (`shape_of`); the current match stays current.

Typing in the bar searches as you type; Enter (or Shift+Enter) jumps to the next (previous)
match and leaves the field for the bar itself, where `n` / `N` go on as in a pager, and any other
character goes back into the query. Esc (the screen's) closes it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import ClassVar

from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, Static

from app.display.find import Found, Hit, find_hits, find_pattern
from app.display.sanitize import clean
from app.store.records import StoredMessage
from app.ui.widgets.answer import AnswerView, SegmentPlaceholder
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.branch_marker import message_widgets, shown_messages
from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.markdown_view import StreamedMarkdown
from app.ui.widgets.tool_call import call_find_parts
from app.ui.widgets.user_message import UserMessage

LAYOUT_WAITS = 5  # refreshes a woken segment is given to be laid out
RECOUNT_PERIOD = 0.25  # seconds between counts while the text may grow (an answer streams)
BAR_KEYS = frozenset({"n", "N", "shift+n", "slash"})  # characters that are keys on the bar
KEYS_HINT = "enter/n next · shift+enter/N previous · esc close"


def parts_of(widget: Widget) -> list[str]:
    """The texts a message is searched in: a prompt as drawn; an answer's reasoning, then its
    segments' sources (`AssistantTurn.find_parts`)."""
    if isinstance(widget, UserMessage):
        return [widget.shown]
    if isinstance(widget, AssistantTurn):
        return widget.find_parts()
    return []


def stored_parts(message: StoredMessage) -> list[str]:
    """A message of a long reopened conversation that is not drawn yet: its stored reasoning
    and text, as they will be drawn (the reasoning collapsed, in one piece; the answer then in
    segments, and searched again; then each tool call's arguments and result)."""
    turn = message.turn
    if turn is None:
        return [clean(message.text)]
    parts = [clean(turn.reasoning)] if turn.reasoning else []
    parts.append(clean(message.text))
    for call in turn.calls.values():
        parts += call_find_parts(call)
    return parts


def shape_of(parts: list[list[str]]) -> tuple[tuple[int, ...], ...]:
    """The pieces searched and their lengths: when it changes, the matches are counted again
    (the text grew, or a reasoning pane opened and its one piece became its segments)."""
    return tuple(tuple(len(text) for text in texts) for texts in parts)


def show_found(widget: Widget, pattern: re.Pattern[str] | None, current: Hit | None) -> None:
    if isinstance(widget, UserMessage):
        widget.show_found(pattern, None if current is None else current.nth)
    elif isinstance(widget, AssistantTurn):
        widget.show_found(pattern, None if current is None else (current.part, current.nth))


async def after_refresh(widget: Widget) -> None:
    """Wait for the next refresh: the layout (and every region) is up to date then."""
    done = asyncio.Event()
    widget.call_after_refresh(done.set)
    await done.wait()


class FindBar(Horizontal, can_focus=True):
    """The bar under the conversation; `pane` says which conversation it searches (a
    comparison's selected pane)."""

    DEFAULT_CSS = """
    FindBar {
        height: 1;
        background: $panel;
        display: none;
        padding: 0 1;
        &:focus { background: $primary-muted; }
        #find-label { width: auto; color: $text-muted; padding: 0 1 0 0; }
        #find-query { width: 1fr; }
        #find-count { width: 17; padding: 0 1; text-style: bold; }
        #find-keys { width: auto; color: $text-muted; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "step(1)", "next match", show=False),
        Binding("shift+enter", "step(-1)", "previous match", show=False),
        Binding("n", "step(1)", "next match", show=False),
        Binding("N,shift+n", "step(-1)", "previous match", key_display="N", show=False),
        Binding("slash", "edit_query", "edit the query", key_display="/", show=False),
    ]

    def __init__(self, pane: Callable[[], ChatPane], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._pane_of = pane
        self.pane: ChatPane | None = None
        self.query_input = Input(
            placeholder="find in the conversation", compact=True, select_on_focus=False
        )
        self.query_input.id = "find-query"
        self.count = Static("", id="find-count", markup=False)
        self.pattern: re.Pattern[str] | None = None
        self.found = Found()
        self._earlier: list[StoredMessage] = []  # not drawn yet (a long reopened chat's start)
        self._messages: list[Widget] = []  # drawn, in order; a hit's `message` counts both
        self._marked: set[int] = set()  # id() of the messages given the marks
        self._shape: tuple[tuple[int, ...], ...] = ()  # the pieces searched (`shape_of`)
        self._timer: Timer | None = None
        self._drawing = False  # a jump is drawing the start of a long reopened conversation
        self._to_query = False  # a character typed on the bar went to the query (focus follows)

    def compose(self) -> ComposeResult:
        yield Static("Find", id="find-label")
        yield self.query_input
        yield self.count
        yield Static(KEYS_HINT, id="find-keys", markup=False)

    @property
    def is_open(self) -> bool:
        return bool(self.display)

    # -- opening and closing ------------------------------------------------------------------

    def open(self) -> None:
        """Show the bar with the last query selected, ready to be typed over."""
        self.display = True
        if self._timer is None:
            self._timer = self.set_interval(RECOUNT_PERIOD, self.recount)
        else:
            self._timer.resume()
        self.query_input.focus()
        self.query_input.select_all()
        if self.pattern is not None:
            self.search(self.query_input.value)

    def close(self) -> None:
        """Hide the bar and every highlight (the query is kept for the next Ctrl+F)."""
        self.display = False
        if self._timer is not None:
            self._timer.pause()
        self._unmark()

    def _unmark(self) -> None:
        for widget in self._messages:
            if id(widget) in self._marked:
                show_found(widget, None, None)
        self._marked.clear()

    # -- searching ----------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.search(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.focus()  # n and N are keys now
        self.action_step(1)

    def search(self, query: str) -> None:
        """Find `query` anew; the first match from the top of the view on is the current one
        (as a pager searches forward from where the reader is), and shown."""
        self._unmark()
        self.pane = self._pane_of()
        self.pattern = find_pattern(query)
        self._collect()
        hits = [] if self.pattern is None else self._find()
        self.found = Found(hits)
        if self.pattern is None:
            self.count.update("", layout=False)
            return
        hit = self.found.from_(self._view_top())
        self._mark_all()
        self._show_count()
        if hit is not None:
            self.jump(hit)

    def _collect(self) -> None:
        """The messages searched: those not drawn yet, then those drawn."""
        assert self.pane is not None
        self._earlier = shown_messages(self.pane.earlier, self.pane.history.pane)
        self._messages = message_widgets(self.pane.transcript)

    def _parts(self, messages: list[Widget]) -> list[list[str]]:
        parts = [stored_parts(message) for message in self._earlier]
        return parts + [parts_of(widget) for widget in messages]

    def _find(self) -> list[Hit]:
        assert self.pattern is not None
        parts = self._parts(self._messages)
        self._shape = shape_of(parts)
        return find_hits(parts, self.pattern)

    def _view_top(self) -> Hit:
        """Where the view starts, as a place in the text: the first message, and in an
        answer the first segment, that ends below the top of the view."""
        if self.pane is None:
            return Hit(0, 0, 0, 0)
        top = self.pane.transcript.region.y
        for number, widget in enumerate(self._messages, len(self._earlier)):
            region = widget.region
            if not region or region.bottom <= top:
                continue
            if isinstance(widget, AssistantTurn):
                reasoning = widget.reasoning
                skip = reasoning.find_count()  # the reasoning's pieces come first
                if skip and reasoning.region and reasoning.region.bottom > top:
                    return Hit(number, 0, 0, 0)
                for index, segment in enumerate(widget.answer.segments):
                    if not segment.region:
                        continue
                    if isinstance(segment, SegmentPlaceholder):
                        bottom = segment.region.y + segment.row_of(index)
                        bottom += segment.height_of(index)
                    else:
                        bottom = segment.region.bottom
                    if bottom > top:
                        return Hit(number, skip + index, 0, 0)
            return Hit(number, 0, 0, 0)
        return Hit(0, 0, 0, 0)

    def recount(self) -> None:
        """Count again if the conversation's text changed (an answer streamed on, a new prompt
        was sent); the current match stays current. Linear in the text; nothing is drawn
        again but the messages that are new."""
        if self.pattern is None or self.pane is None or not self.is_open or self._drawing:
            return
        if self._pane_of() is not self.pane:  # another pane of a comparison was selected
            self.search(self.query_input.value)
            return
        messages = message_widgets(self.pane.transcript)
        if messages == self._messages and shape_of(self._parts(messages)) == self._shape:
            return
        gone = any(widget not in messages for widget in self._messages)  # a branch redrawn
        if gone or len(self.pane.earlier) != len(self._earlier):
            self.search(self.query_input.value)
            return
        self._messages = messages
        before = self.found.hit
        self.found.renew(self._find())
        self._mark_all(again=before != self.found.hit)
        self._show_count()

    def _mark_all(self, again: bool = True) -> None:
        """Highlight the matches in every message drawn (with `again`, those marked already
        too)."""
        hit = self.found.hit
        for number, widget in enumerate(self._messages, len(self._earlier)):
            if again or id(widget) not in self._marked:
                current = hit if hit is not None and hit.message == number else None
                show_found(widget, self.pattern, current)
                self._marked.add(id(widget))

    def _show_count(self) -> None:
        # A fixed width: a new count repaints the bar alone, without a layout of the screen.
        self.count.update(Content(self.found.label()), layout=False)

    # -- jumping ------------------------------------------------------------------------------

    def action_step(self, direction: int) -> None:
        if self.pattern is None:
            return
        if self._pane_of() is not self.pane:
            self.search(self.query_input.value)
        before = self.found.hit
        hit = self.found.step(direction)
        self._show_count()
        if hit is None:
            return
        earlier = len(self._earlier)
        for number in {before.message if before else -1, hit.message}:
            if earlier <= number < earlier + len(self._messages):
                message = self._messages[number - earlier]
                show_found(message, self.pattern, hit if number == hit.message else None)
        self.jump(hit)

    def action_edit_query(self) -> None:
        self.query_input.focus()

    def on_key(self, event: events.Key) -> None:
        """On the bar (after Enter), a character other than the keys goes back into the
        query: nothing typed is lost. The focus moves to the query after this key has been
        handled, so the keys typed right after it still arrive here: they follow it into the
        query, `n` and `N` too."""
        if not (self.focused_here and event.is_printable and event.character):
            return
        if event.key in BAR_KEYS and not self._to_query:
            return  # its bindings'
        event.stop()
        event.prevent_default()
        self._to_query = True
        self.query_input.focus()
        self.query_input.insert_text_at_cursor(event.character)

    def on_focus(self) -> None:
        self._to_query = False  # Enter again: n and N are keys once more

    @property
    def focused_here(self) -> bool:
        return self.screen.focused is self

    @work(group="find-jump", exclusive=True, exit_on_error=False)
    async def jump(self, hit: Hit) -> None:
        """A worker, one at a time (the next key typed replaces a jump still going); its
        coroutine is only made when it starts, so a jump replaced before then leaves none
        that was never awaited."""
        await self._jump(hit)

    async def _draw_earlier(self, pane: ChatPane, hit: Hit) -> Hit | None:
        """A match in the start of a long reopened conversation, not drawn yet: draw down to
        it (as its button does), then find again; the same match (by its number) is the
        current one."""
        current = self.found.current
        self._drawing = True  # the count stays as it is meanwhile
        try:
            while len(self._earlier) > hit.message:
                before = len(pane.earlier)
                await pane.draw_earlier()
                self._earlier = shown_messages(pane.earlier, pane.history.pane)
                if len(pane.earlier) == before:
                    return None  # nothing more could be drawn
            await after_refresh(pane.transcript)  # laid out: regions to scroll by
        finally:
            self._drawing = False
        return self._find_again(current)

    def _find_again(self, current: int | None) -> Hit | None:
        """Find anew in what is drawn now, match number `current` the current one again."""
        self._unmark()
        self._collect()
        self.found = Found(self._find())
        if not self.found.hits or current is None:
            return None
        self.found.current = min(current, len(self.found.hits) - 1)
        self._mark_all()
        self._show_count()
        return self.found.hit

    async def _jump(self, hit: Hit) -> None:
        """Scroll to the match: to its segment first (woken on the way if it was asleep), then,
        once that is drawn, to its own row if that is not in view yet."""
        pane = self.pane
        if pane is None:
            return
        if hit.message < len(self._earlier):
            drawn = await self._draw_earlier(pane, hit)
            if drawn is None:
                return
            hit = drawn
        number = hit.message - len(self._earlier)
        if not 0 <= number < len(self._messages):
            return
        transcript = pane.transcript
        widget = self._messages[number]
        transcript.hold()  # the reader looks back: a streaming answer no longer pulls down
        if transcript.is_anchored:
            transcript.release_anchor()
        if not isinstance(widget, AssistantTurn):
            await transcript.bring_into_view(widget, 0)
            return
        where, index, card = widget.piece(hit.part)
        if where == "answer":
            await self._bring_match(pane, widget.answer, index, hit.nth)
        elif where == "reasoning":
            opened = await self._open_reasoning(widget, hit)
            if opened is not None:
                where, index, card = widget.piece(opened.part)
                if where == "reasoning":
                    await self._bring_match(pane, widget.reasoning.body, index, opened.nth)
        elif card is not None:
            place, row = card.match_place(index)  # a long result opens for its match
            await after_refresh(transcript)
            await transcript.bring_into_view(place, row)

    async def _open_reasoning(self, widget: AssistantTurn, hit: Hit) -> Hit | None:
        """A match in a collapsed reasoning pane: opened, as a click on its title would, and
        drawn; then found again, the same match (by its number) the current one."""
        reasoning = widget.reasoning
        if not reasoning.collapsed:
            return hit
        current = self.found.current
        widget.set_reasoning_open(True)
        await reasoning.render_pending()
        assert self.pane is not None
        await after_refresh(self.pane.transcript)  # laid out: regions to scroll by
        found = self._find_again(current)
        return found if found is not None and found.message == hit.message else None

    async def _bring_match(self, pane: ChatPane, view: AnswerView, part: int, nth: int) -> None:
        """Scroll to match `nth` of the view's segment `part`: to the segment first (woken on
        the way if it was asleep), then, once that is drawn, to the match's own row."""
        transcript = pane.transcript
        segments = view.segments
        if part >= len(segments):
            return
        segment = segments[part]
        offset = segment.row_of(part) if isinstance(segment, SegmentPlaceholder) else 0
        if isinstance(segment, SegmentPlaceholder) or not segment.region:
            await transcript.bring_into_view(segment, offset)
            for _ in range(LAYOUT_WAITS):  # woken: drawn once it is laid out
                await after_refresh(transcript)
                segment = view.segments[part]
                if isinstance(segment, StreamedMarkdown) and segment.region:
                    break
        if not isinstance(segment, StreamedMarkdown):
            return
        rows = segment.found_rows()
        row = rows[min(nth, len(rows) - 1)] if rows else 0
        await transcript.bring_into_view(segment, row)


__all__ = ["FindBar", "parts_of", "show_found"]
