"""The comparison screen: 2 to 4 panes side by side, one prompt that sends the same conversation
to every pane, and a ranking line once all are done. When the terminal is too narrow for every
pane side by side, the selected pane shows whole under a row of tabs naming each pane and its
state (stacked panes would leave each a few lines, and the first one's answer pushed the rest off).

Each pane is a whole ChatPane with its own worker, so a slow, failing or stopped provider holds
no other back and its failure shows in its own pane only; all of them draw from the app's one
render clock. Esc stops every stream; Ctrl+S stops the selected pane only. The selected pane
(Alt+←/→, Tab/click into it, or its tab) is also the one Ctrl+G continues alone in a normal chat.

History: the comparison is one conversation of kind "compare" in the store. The screen stores
each shared prompt once; each pane saves its own answers under its own pane index. What a pane
carries on without having been asked (the chat a comparison started from, or the pane a new
pane was added from) is stored for it just before the next prompt: a comparison left before
asking anything leaves no pane in the history that never answered.

Blind (`--blind`, or the palette's "Blind comparison" for the next prompt): every prompt shuffles
the panes with the screen's own `rng` (BlindRound) and lays them out in letter order, each called
only `A`–`D` and shown without its cost, until every pane is done and the vote bar is answered;
then the names come back and the vote goes to the history's store (on its writer thread).

What needs the app goes up as a message declared here (continue alone, export, the reasoning
panes); what the screen needs comes down when it is made (the pane maker, the providers "Add
pane…" offers). The palette's commands are this screen's own (`COMMANDS`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Footer, Header

from app.compare.blind import LETTERS, BlindRound, Verdict, naming, verdict, vote_text
from app.compare.leaderboard import vote_pane
from app.compare.spec import MAX_PANES, MIN_PANES, pane_labels
from app.display.sanitize import clean_line
from app.settings.config import ProviderConfig
from app.store import ExportFormat, Store
from app.store.session import ConversationRecord, PaneHistory
from app.store.votes import Vote
from app.ui.clipboard import copy_text
from app.ui.model_choice import describe, model_names, show_models
from app.ui.palette import Choice, ScreenCommands, show_choices
from app.ui.render_clock import MAX_PERIOD
from app.ui.screens.branching import (
    BRANCH_BINDINGS,
    CANCEL_BRANCH_EDIT,
    LEAVE_SELECTION,
    STILL_ANSWERING,
)
from app.ui.screens.chat import ChatScreen
from app.ui.screens.compare_branching import CompareBranchKeys
from app.ui.screens.compare_shaping import CompareShaping, fit_pane
from app.ui.screens.compare_wire import CompareWire
from app.ui.screens.finding import CLOSE_FIND, FIND_BINDINGS, FindKeys, code_block_choices
from app.ui.screens.tool_keys import TOOL_BINDINGS, ToolKeys
from app.ui.screens.typing import key_to_prompt
from app.ui.widgets.chat_pane import ChatPane
from app.ui.widgets.compare_pane import ComparePane, settled_history, show_conversation
from app.ui.widgets.compare_panes import ComparePanes, PaneMaker
from app.ui.widgets.compare_ranking import CompareRanking, FullRanking
from app.ui.widgets.compare_tabs import PaneTabs, Tab, tab_label
from app.ui.widgets.prompt import PromptInput
from app.ui.widgets.vote_bar import UNDO_KEY, VoteBar

# A blind round's votes from anywhere, the prompt too: Alt chords, which no typing sends (in a
# real terminal Alt+1 arrives as ESC and `1`: app/ui/textual_keys.py). Priority bindings, so a
# focused text field never sees them; each applies only while the vote bar asks.
VOTE_BINDINGS: list[BindingType] = [
    *(
        Binding(f"alt+{n}", f"vote('{n}')", f"vote {LETTERS[n - 1]}", show=False, priority=True)
        for n in range(1, MAX_PANES + 1)
    ),
    Binding("alt+equals_sign", "vote('=')", "vote: a tie", show=False, priority=True),
    Binding("alt+x", "vote('x')", "vote: all bad", show=False, priority=True),
    Binding(UNDO_KEY, "undo_vote", "undo vote", priority=True, tooltip="the vote just cast"),
]
VOTE_WORDS = {"tie": "tie", "all_bad": "all bad", "skipped": "skipped"}

# Columns a pane needs beside others: its status line and a code line fit without wrapping
# every few words. Narrower than this per pane and the comparison shows one pane under tabs.
SIDE_BY_SIDE_WIDTH = 50

Carry = Callable[[ConversationRecord], None]


def longest_period(panes: int) -> float:
    """The render clock's longest period under load while `panes` panes show: every layout
    walks every pane, so a tick costs more with more panes; stretching the period with them
    keeps the event loop free for keys (measured: bench/bench_compare.py, bench/README.md)."""
    return MAX_PERIOD * max(1.0, panes / 2)


class CompareCommands(ScreenCommands):
    """The comparison's commands (the chat-only ones are left out)."""

    def commands(self) -> Sequence[Choice]:
        screen = self.screen
        return screen.commands() if isinstance(screen, CompareScreen) else ()


class CompareScreen(FindKeys, CompareShaping, CompareBranchKeys, ToolKeys, CompareWire):
    COMMANDS: ClassVar[set[Any]] = {CompareCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        CLOSE_FIND,  # with the find bar open, Esc closes it (not the streams)
        *VOTE_BINDINGS,  # "undo vote" shows in the footer while it applies
        *TOOL_BINDINGS,  # in the footer while a pane's tool call waits for its approval
        LEAVE_SELECTION,  # with a pane's message selected (branches), Esc goes back
        *BRANCH_BINDINGS,  # on the selected pane's messages (app/ui/screens/compare_branching.py)
        *FIND_BINDINGS,  # ctrl+f in the selected pane; with a message selected, c, y and /
        Binding("escape", "stop_all", "stop all", priority=True),
        Binding("ctrl+s", "stop_selected", "stop pane"),
        Binding("alt+left", "select(-1)", "pane ←"),
        Binding("alt+right", "select(1)", "pane →"),
        Binding("ctrl+g", "continue_alone", "continue alone"),
        Binding("ctrl+r", "toggle_reasoning", "reasoning"),
        Binding("ctrl+o", "show_history", "history", show=False),
        # Priority, and the prompt focused at once: letters typed with it are the prompt's
        # (ChatScreen's Ctrl+N).
        Binding("ctrl+n", "new_comparison", "new", show=False, priority=True),
        Binding("f3", "parameters", "parameters", show=False, tooltip="every pane's"),
        Binding("pageup", "scroll_pane(-1)", "scroll up", show=False, priority=True),
        Binding("pagedown", "scroll_pane(1)", "scroll down", show=False, priority=True),
        CANCEL_BRANCH_EDIT,
    ]

    class ContinueAlone(Message):
        """Ctrl+G: carry `pane`'s conversation on in the normal chat, alone."""

        def __init__(self, pane: ComparePane) -> None:
            super().__init__()
            self.pane = pane

    class ExportRequested(Message):
        """Export the comparison (`record`, None without history) as `fmt`."""

        def __init__(self, record: ConversationRecord | None, fmt: ExportFormat) -> None:
            super().__init__()
            self.record = record
            self.fmt: ExportFormat = fmt

    class ChooseToolsRequested(Message):
        """ "Choose tools…": which configured tools every pane offers with the next prompts."""

    class ToggleReasoningRequested(Message):
        """Ctrl+R: open or close every reasoning pane; the app says, through
        `keep_reasoning_open`, whether new turns start with theirs open."""

        def __init__(self, comparison: CompareScreen) -> None:
            super().__init__()
            self.comparison = comparison

    def __init__(
        self,
        maker: PaneMaker,
        choices: list[tuple[ProviderConfig, str]],
        providers: Mapping[str, ProviderConfig],
        *,
        record: ConversationRecord | None = None,
        store_panes: list[int] | None = None,
        blind: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        """`choices`: (provider, model) per pane, in order; `providers`: those "Add pane…"
        offers (the configured ones). `record`: the conversation in the
        history (None: no history); `store_panes`: each pane's index in it (default 0, 1, …).
        `blind`: hide who is who from the first prompt on; `rng` shuffles (seeded in tests)."""
        super().__init__()
        self.blind = blind
        self.rng = rng if rng is not None else random.Random()
        self.round: BlindRound | None = None  # the current prompt's letters, while blind
        self._round_panes: list[ComparePane] = []  # the panes BlindRound's indexes refer to
        self._round_prompt = ""
        self._awaiting_vote = False
        self._held: list[str] = []  # start-up warnings that name a pane, shown after the vote
        self.vote_tag: str | None = None  # a batch's --tag, which its votes carry
        self.maker = maker
        self.providers = providers
        self.record = record
        labels = pane_labels([_with_model(p, m) for p, m in choices])
        indexes = store_panes if store_panes is not None else list(range(len(choices)))
        self.panes: list[ComparePane] = [
            maker.make(number, label, provider, model, self._pane_history(index))
            for number, (label, (provider, model), index) in enumerate(
                zip(labels, choices, indexes, strict=True), 1
            )
        ]
        self.selected = 0
        self._tab_ids: dict[int, str] = {}  # id(pane) -> its tab's id
        self._tab_serial = 0
        self.tabs = PaneTabs(*(self._new_tab(pane) for pane in self.panes), id="pane-tabs")
        self.container = ComparePanes()
        self.ranking = CompareRanking(id="ranking")
        self.prompt = PromptInput(id="prompt")
        self.prompt.path_root = self.attaching.root  # `@path` (CompareShaping)
        self.vote_bar = VoteBar(id="vote-bar")
        self.prompt.refusal = self.send_refused
        self._cast: list[int] | None = None  # the vote on the bar: its id once it is stored
        # Written to the record before the next prompt: (the pane it is for, or None for all).
        self._carries: list[tuple[ComparePane | None, Carry]] = []

    def compose(self) -> ComposeResult:
        yield Header(icon="◧")
        yield self.tabs
        with Horizontal(id="compare-body"):  # the inspector (F2) opens beside the panes
            with self.container:
                yield from self.panes
            yield self.inspector
        yield self.ranking
        yield self.vote_bar
        yield self.prompt
        yield self.chips
        yield Footer()

    def _pane_history(self, index: int) -> PaneHistory | None:
        if self.record is None:
            return None
        return PaneHistory(self.record, pane=index, owns_prompts=False)

    def on_mount(self) -> None:
        self.title = "Compare"
        if self.blind:
            self._shuffle()
        self._select(0)
        self._arrange(self.size.width)
        self.prompt.focus()

    def on_resize(self, event: events.Resize) -> None:
        self._arrange(event.size.width)

    def _arrange(self, width: int) -> None:
        tabbed = self.panes_width(width) < SIDE_BY_SIDE_WIDTH * len(self.panes)
        self.container.set_class(tabbed, "-tabbed")
        if tabbed:
            self._focus_away_from_hidden()
        elif self.tabs.display:  # every pane shows again
            for pane in self.panes:
                pane.reveal()
        self.tabs.display = tabbed
        self.show_title()
        if self.is_current:
            self.maker.clock.max_period = longest_period(len(self.panes))

    def show_title(self) -> None:
        named = f" · system: {self.system_shown}" if self.system_shown else ""
        self.sub_title = clean_line(" · ".join(p.label for p in self.panes) + named)

    def on_screen_resume(self) -> None:
        self.maker.clock.max_period = longest_period(len(self.panes))

    def on_screen_suspend(self) -> None:
        self.maker.clock.max_period = MAX_PERIOD

    def on_unmount(self) -> None:
        self.maker.clock.max_period = MAX_PERIOD

    # -- selection -------------------------------------------------------------------------

    @property
    def selected_pane(self) -> ComparePane:
        return self.panes[self.selected]

    def _select(self, index: int) -> None:
        before = self.selected_pane if self.selected < len(self.panes) else None
        self.selected = index % len(self.panes)
        for number, pane in enumerate(self.panes):
            pane.set_class(number == self.selected, "-selected")
        self.tabs.active = self._tab_ids[id(self.selected_pane)]
        if self.tabs.display:
            self._focus_away_from_hidden()
            if self.selected_pane is not before:
                self.selected_pane.reveal()
        self.branch_pane_selected()

    def _focus_away_from_hidden(self) -> None:
        """A pane hidden behind its tab keeps no focus: the prompt takes it back."""
        focused = self.focused
        if focused is None:
            return
        for pane in self.panes:
            if pane is not self.selected_pane and focused in pane.walk_children():
                self.prompt.focus()
                return

    def action_select(self, step: int) -> None:
        self._select(self.selected + step)

    # -- the tab row -----------------------------------------------------------------------

    def _new_tab(self, pane: ComparePane) -> Tab:
        self._tab_serial += 1
        tab_id = f"pane-tab-{self._tab_serial}"
        self._tab_ids[id(pane)] = tab_id
        return Tab(tab_label(pane.number, pane.label, pane.state), id=tab_id)

    def _relabel_tab(self, pane: ComparePane) -> None:
        tab_id = self._tab_ids.get(id(pane))
        if tab_id is not None:
            self.tabs.relabel(tab_id, tab_label(pane.number, pane.label, pane.state))

    def on_compare_pane_state_changed(self, message: ComparePane.StateChanged) -> None:
        self._relabel_tab(message.pane)

    def on_tabs_tab_activated(self, message: PaneTabs.TabActivated) -> None:
        # A stale activation (another tab became active since it was sent) is let go: acting
        # on it would activate its tab again, and two such messages would ping-pong forever.
        if message.tab.id != self.tabs.active:
            return
        for index, pane in enumerate(self.panes):
            if self._tab_ids.get(id(pane)) == message.tab.id and index != self.selected:
                self._select(index)
                return

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        for index, pane in enumerate(self.panes):
            if event.widget in pane.walk_children() or event.widget is pane:
                self._select(index)
                return

    # -- sending and stopping --------------------------------------------------------------

    @property
    def busy(self) -> list[ComparePane]:
        return [pane for pane in self.panes if pane.streaming]

    def on_key(self, event: events.Key) -> None:
        key_to_prompt(self, self.prompt, event)  # typed on a pane, a tab, the bar: the prompt's

    def send_refused(self) -> str | None:
        """Why Enter cannot send now (the prompt says it and keeps the draft as it is)."""
        editing = self._editing()
        if editing is not None:  # a pane's prompt edited: only that pane answers it
            streaming = editing.pane.streaming
            return STILL_ANSWERING.format(what="send the edit") if streaming else None
        busy = self.busy
        if not busy:
            return None
        names = ", ".join(str(p.number) for p in busy)
        return f"Pane {names} is still answering — Esc stops all, ctrl+s the selected pane."

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        if await self.send_branch_edit(message.text):  # an edited prompt: its pane only
            return
        busy = self.busy
        if busy:
            self.prompt.load_text(message.text)
            names = ", ".join(str(p.number) for p in busy)
            self.notify(
                f"Pane {names} is still answering — Esc stops all, ctrl+s the selected pane.",
                severity="warning",
            )
            return
        outgoing = await self.attachments_for_send(message.text)
        if outgoing is None:
            return  # said; the prompt and its chips stay
        text, attachments = outgoing.text, outgoing.attachments
        self.ranking.clear()
        if self.vote_bar.asking:  # a new prompt before the vote: this round is skipped
            self._vote(Verdict("skipped"))
        self.vote_bar.done()  # a vote shown from before
        if self.blind:
            self._shuffle()
            for pane in self.panes:
                pane.hide_earlier()
            self._round_prompt = text
            self._awaiting_vote = True
            if self.record is not None:
                self.record.mark_blind()
        if self.record is not None:
            self._write_carries(self.record)
            self.record.prompt(text, attachments)  # once, before any request is sent
        for pane in self.panes:
            await pane.send(text, attachments)
        await self.attaching.sent()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        branch = self.branch_action_applies(action)
        if branch is not None:
            return branch
        tool = self.tool_action_applies(action)
        if tool is not None:
            return tool
        finding = self.find_action_applies(action)
        if finding is not None:
            return finding
        if action == "stop_all":
            return any(
                (p.turn is not None and not p.turn.done) or p.running_tools for p in self.panes
            )
        if action == "continue_alone":  # out of the footer while blind: it names the pane
            return not self.hidden
        if action == "vote":
            blind = self.vote_bar.blind
            return blind is not None and verdict(str(parameters[0]), blind) is not None
        if action == "undo_vote":
            return self.vote_bar.undoable
        return True

    async def action_show_history(self) -> None:
        """Ctrl+O: the history names every provider, so not while the comparison is blind."""
        if not self._refuse_hidden():
            await self.app.run_action("show_history")

    def find_pane(self) -> ChatPane:
        return self.selected_pane

    def action_stop_all(self) -> None:
        for pane in self.panes:
            pane.stop()
        self.refresh_bindings()

    def action_stop_selected(self) -> None:
        if not self.selected_pane.stop():
            self.notify(f"Pane {self.selected_pane.number} is not answering.", timeout=3)
        self.refresh_bindings()

    def on_chat_pane_turn_drawn(self, message: ChatPane.TurnDrawn) -> None:
        self.refresh_bindings()
        self.rank()

    def rank(self) -> None:
        """Rank the panes' current turns once none is still answering (a pane added since the
        last prompt has none and is left out). Also for a reopened comparison whose last
        prompt every pane answered: its figures are the stored ones."""
        if self.busy:
            return
        now = self.maker.clock.now()
        stats = [s for pane in self.panes if (s := pane.stats(now)) is not None]
        if len(stats) >= 2:
            self.ranking.rank(stats)
        else:
            self.ranking.clear()
        done = all(p.turn is not None and p.turn.done for p in self._round_panes)
        if self._awaiting_vote and self.round is not None and done:
            self._awaiting_vote = False
            self.vote_bar.ask(self.round)  # the focus stays where it is: a vote is deliberate
            self.refresh_bindings()

    # -- blind -------------------------------------------------------------------------------

    def _shuffle(self) -> None:
        """A new round: the panes laid out (and numbered) in a fresh letter order, hidden."""
        if self.round is None or not self._round_panes:
            self._round_panes = list(self.panes)
        base = self._round_panes
        self.round = BlindRound.shuffled(len(base), self.rng)
        self.panes = [base[index] for index in self.round.order]
        for slot, pane in enumerate(self.panes):
            pane.number = slot + 1
            pane.hide(LETTERS[slot])
            self._relabel_tab(pane)
            if slot == 0:
                self.container.move_child(pane, before=0)
            else:
                self.container.move_child(pane, after=self.panes[slot - 1])
        self.call_after_refresh(self._reorder_tabs)  # once the tab row has its tabs
        if self.is_mounted:  # pane A: the one selected last round would say who it is now
            self._select(0)
            self._arrange(self.size.width)
            self.refresh_bindings()

    def _reorder_tabs(self) -> None:
        self.tabs.reorder([self._tab_ids[id(pane)] for pane in self.panes])

    @property
    def hidden(self) -> bool:
        """Who is who is hidden: a blind round not yet voted on."""
        return self.round is not None and not self.round.revealed

    def hold_back(self, notices: Sequence[str]) -> list[str]:
        """Of the start-up warnings, those a blind comparison shows now (naming none of its
        panes' providers or models); the rest wait for the first vote."""
        if not self.blind:
            return list(notices)
        shown, self._held = naming(
            notices, [w for p in self.panes for w in (p.provider.name, p.model)]
        )
        return shown

    def action_vote(self, key: str) -> None:
        """Alt+1…4, Alt+=, Alt+x: the vote bar's key, from wherever the focus is."""
        self.vote_bar.vote(key)

    def on_vote_bar_voted(self, message: VoteBar.Voted) -> None:
        message.stop()
        self._vote(message.verdict)
        self.vote_bar.cast(self._vote_words(message.verdict))
        self.refresh_bindings()

    def _vote_words(self, verdict: Verdict) -> str:
        """The vote as the bar says it once the names are back: `B (zebra)`, `all bad`."""
        if verdict.winner is None or self.round is None:
            return VOTE_WORDS.get(verdict.outcome, verdict.outcome)
        pane = self._round_panes[verdict.winner]
        return f"{self.round.letter(verdict.winner)} ({pane.label})"

    def on_vote_bar_leaderboard_wanted(self, message: VoteBar.LeaderboardWanted) -> None:
        message.stop()
        self.show_leaderboard()

    def on_vote_bar_undo_wanted(self, message: VoteBar.UndoWanted) -> None:
        message.stop()
        self.action_undo_vote()

    def action_undo_vote(self) -> None:
        """Take the vote on the bar back: out of the store, so no leaderboard counts it."""
        if not self.vote_bar.undoable:
            return
        cast, self._cast = self._cast, None
        self.vote_bar.done()
        self.refresh_bindings()
        record = self.record
        if cast is not None and record is not None:

            def delete(store: Store) -> None:
                for vote_id in cast:  # stored by then: the writer keeps the order asked
                    store.delete_vote(vote_id)

            record.history.submit(delete)
        self.notify("Vote undone: the leaderboard no longer counts it.", timeout=4)

    def _vote(self, verdict: Verdict) -> None:
        """Reveal the names and store the verdict with the round's panes and figures."""
        assert self.round is not None
        self.vote_bar.done()
        self._cast = None
        self.round = self.round.reveal()
        panes = list(self._round_panes)
        now = self.maker.clock.now()
        figures = [
            (p.provider.name, p.model, p.figures(now), p.saved_turn, p.stored_answer) for p in panes
        ]
        for pane in panes:
            pane.letter = None
        self._relabel()
        for pane in panes:
            pane.unhide(pane.label)
            pane.show_earlier()
        self._arrange(self.size.width)
        self.rank()
        self.prompt.focus()
        self.refresh_bindings()  # the keys that name a pane are back
        held, self._held = self._held, []
        for text in held:
            self.notify(text, severity="warning", timeout=8, markup=False)
        record, prompt = self.record, self._round_prompt
        if record is None or record.history.store is None:
            return
        cast: list[int] = []
        self._cast = cast

        def write(store: Store) -> None:
            vote_panes = tuple(
                vote_pane(name, model, stats, stored if saved is None else saved.turn_id)
                for name, model, stats, saved, stored in figures
            )
            vote = Vote(
                prompt,
                vote_panes,
                verdict.outcome,
                verdict.winner,
                conversation_id=record.conv_id,
                tag=self.vote_tag,
            )
            cast.append(store.record_vote(vote))

        record.history.submit(write)

    def resume_blind(self, prompt: str, answers: Mapping[int, int], vote: Vote | None) -> None:
        """A blind comparison reopened: its last round (`answers`: stored pane -> answer id)
        waits for the vote again, hidden, or shows the `vote` it was given."""
        self.blind = True
        if vote is not None or self.round is None:
            if vote is not None:
                self.vote_bar.show(vote_text(vote))
            return
        for slot, pane in enumerate(self.panes):
            pane.hide(LETTERS[slot])  # again: its stored answers were mounted since
            pane.hide_earlier(but_last_round=True)
            pane.stored_answer = answers.get(pane.history.pane)
        self._round_prompt = prompt
        self._awaiting_vote = True
        self.rank()

    def start_blind(self) -> None:
        """The palette's "Blind comparison": from the next prompt on, who is who is hidden."""
        if self.busy:
            self.notify("Wait until every pane is done, then start blind.", severity="warning")
            return
        self.blind = True
        self.round = None
        self._round_panes = []
        self.ranking.clear()  # it names the panes
        self._shuffle()
        now = self.maker.clock.now()
        for pane in self.panes:  # their status lines showed the costs
            pane.update_status(now)
        self.notify("Blind from the next prompt: the names show again after your vote.")

    def _refuse_hidden(self) -> bool:
        if self.hidden:
            self.notify("Not while the comparison is blind: vote first.", severity="warning")
            return True
        return False

    # -- carrying on ------------------------------------------------------------------------

    def carry_later(self, carry: Carry, pane: ComparePane | None = None) -> None:
        """Store `carry` with the next prompt (dropped with `pane` if it is removed first)."""
        self._carries.append((pane, carry))

    def _write_carries(self, record: ConversationRecord) -> None:
        carries, self._carries = self._carries, []
        for _pane, carry in carries:
            carry(record)

    # -- panes -----------------------------------------------------------------------------

    async def add_pane(self, provider: ProviderConfig, model: str) -> ComparePane | None:
        """A new pane at the end; it carries on the selected pane's conversation."""
        if self.blind:
            self.notify("A blind comparison keeps its panes.", severity="warning")
            return None
        if len(self.panes) >= MAX_PANES:
            self.notify(f"A comparison has at most {MAX_PANES} panes.", severity="warning")
            return None
        source = self.selected_pane
        if source.streaming:  # it carries on the source's conversation: a whole one
            self.notify(
                f"Pane {source.number} is still answering; add a pane once it is done.",
                severity="warning",
            )
            return None
        index = 1 + max(p.history.pane for p in self.panes)  # never reuse a stored pane index
        pane = self.maker.make(
            len(self.panes) + 1, provider.name, provider, model, self._pane_history(index)
        )
        self.panes.append(pane)
        self._relabel()
        await self.tabs.add_tab(self._new_tab(pane))
        await self.container.mount(pane)
        await show_conversation(pane, settled_history(source.conversation))
        fit_pane(pane, self.current_params())  # the parameters every pane has
        source_index = source.history.pane
        shown = [] if self.record is None else self.record.path_of(source_index)  # its branch
        self.carry_later(lambda record: record.carry(source_index, index, shown), pane)
        self._arrange(self.size.width)
        self._select(len(self.panes) - 1)
        return pane

    async def remove_pane(self, pane: ComparePane | None = None) -> bool:
        """Stop and drop a pane (the selected one by default); a comparison keeps two."""
        if self.blind:
            self.notify("A blind comparison keeps its panes.", severity="warning")
            return False
        pane = pane if pane is not None else self.selected_pane
        if len(self.panes) <= MIN_PANES:
            self.notify(f"A comparison needs at least {MIN_PANES} panes.", severity="warning")
            return False
        await pane.aclose()
        self.panes.remove(pane)
        self._carries = [(p, carry) for p, carry in self._carries if p is not pane]
        await self.tabs.remove_tab(self._tab_ids.pop(id(pane)))
        await pane.remove()
        for number, remaining in enumerate(self.panes, 1):
            remaining.renumber(number)
        self._relabel()
        self._select(min(self.selected, len(self.panes) - 1))
        self._arrange(self.size.width)
        if self.ranking.display:  # it named the pane that is gone
            self.rank()
        return True

    def _relabel(self) -> None:
        labels = pane_labels([_with_model(p.provider, p.model) for p in self.panes])
        for pane, label in zip(self.panes, labels, strict=True):
            pane.label = label
            self._relabel_tab(pane)

    # -- the command palette ---------------------------------------------------------------

    def commands(self) -> list[Choice]:
        """What the palette offers over this screen (CompareCommands lists them)."""
        pane = self.selected_pane
        where = f"pane {pane.number}: {pane.label}"
        tools = Choice(
            "Choose tools…",
            lambda: self.post_message(self.ChooseToolsRequested()),
            "which tools every pane offers",
        )
        if self.hidden:  # nothing that names or changes who is who
            return [
                Choice("Stop selected pane", self.action_stop_selected, f"ctrl+s · {where}"),
                Choice("Toggle reasoning panes", self.action_toggle_reasoning, "ctrl+r"),
                tools,  # the config's tools, the same for every pane: they name no one
                Choice("Copy selected pane's answer", self._copy_answer, where),
                self._find_choice(where),
                Choice("Change theme…", self.app.search_themes, f"now: {self.app.theme}"),
                *self.wire_commands(),
                *self.shaping_commands(),
                *self._ranking_commands(),
                *code_block_choices(self.app, pane),
            ]
        choices = [
            Choice("Switch model…", self.pick_pane_model, f"pane {pane.number} now: {pane.model}"),
            Choice("Add pane…", self.pick_pane_provider, f"{len(self.panes)} of {MAX_PANES}"),
            Choice("Remove selected pane", self._remove_selected, where),
            Choice("Stop selected pane", self.action_stop_selected, f"ctrl+s · {where}"),
            Choice("Continue with selected pane alone", self.action_continue_alone, where),
            Choice("New comparison", self.action_new_comparison, "clear every pane"),
            Choice("Toggle reasoning panes", self.action_toggle_reasoning, "ctrl+r"),
            tools,
            Choice("Copy selected pane's answer", self._copy_answer, where),
            self._find_choice(where),
            Choice("Export comparison as Markdown", partial(self._export, "md"), "exports/"),
            Choice("Export comparison as JSON", partial(self._export, "json"), "exports/"),
            Choice("Change theme…", self.app.search_themes, f"now: {self.app.theme}"),
            *self.wire_commands(),
            *self.shaping_commands(),
        ]
        choices.extend(self._ranking_commands())
        choices.append(Choice("Leaderboard", self.show_leaderboard, "ratings from blind votes"))
        if not self.blind:
            choices.append(Choice("Blind comparison", self.start_blind, "from the next prompt"))
        choices.extend(code_block_choices(self.app, pane))  # the selected pane's answers
        return choices

    def _find_choice(self, where: str) -> Choice:
        run = lambda: self.app.call_later(self.run_action, "find")  # noqa: E731
        return Choice("Find in the conversation", run, f"ctrl+f · {where}")

    def _ranking_commands(self) -> list[Choice]:
        if not self.ranking.display:
            return []
        return [Choice("Show the full ranking", self.show_full_ranking, "every figure's order")]

    def show_full_ranking(self) -> None:
        if self.ranking.display:
            self.app.push_screen(FullRanking(self.ranking.whole()))

    def show_leaderboard(self) -> None:
        """Not while the round is blind: the leaderboard's figures (median TTFT, cost) would
        say which letter is whose."""
        if self.hidden:
            self.notify("Vote first: the leaderboard's figures would say who is who.", timeout=4)
            return
        self.post_message(ChatScreen.LeaderboardRequested())

    def pick_pane_provider(self) -> None:
        """Add a pane: which provider, then which of its models."""
        offered = [
            Choice(name, partial(self._pick_new_pane_model, provider), describe(provider))
            for name, provider in self.providers.items()
        ]
        show_choices(self.app, offered, "Add a pane asking…")

    def _pick_new_pane_model(self, provider: ProviderConfig) -> None:
        self.run_worker(
            self._new_pane_model(provider), group="models", exclusive=True, exit_on_error=False
        )

    async def _new_pane_model(self, provider: ProviderConfig) -> None:

        async def listing() -> list[str]:
            client = self.maker.connect(provider)  # only to list; the pane makes its own
            try:
                return await client.list_models()
            finally:
                await client.aclose()

        names = await model_names(self.app, provider, listing)
        use = partial(self._add_later, provider)
        show_models(self.app, names, None, use, f"Add a pane asking {provider.name} with…")

    def _add_later(self, provider: ProviderConfig, model: str) -> None:
        self.run_worker(self.add_pane(provider, model), exit_on_error=False)

    def pick_pane_model(self) -> None:
        """Switch the selected pane's model (the others keep theirs)."""
        pane = self.selected_pane
        self.run_worker(self._pane_model(pane), group="models", exclusive=True, exit_on_error=False)

    async def _pane_model(self, pane: ComparePane) -> None:
        names = await model_names(self.app, pane.provider, lambda: pane.client().list_models())
        use = partial(self._switch_later, pane)
        where = f"pane {pane.number}: {pane.provider.name}"
        show_models(self.app, names, pane.model, use, f"Switch model ({where})…")

    def _switch_later(self, pane: ComparePane, model: str) -> None:
        self.run_worker(self.switch_pane_model(pane, model), exit_on_error=False)

    async def switch_pane_model(self, pane: ComparePane, model: str) -> bool:
        """The pane asks `model` from its next prompt on; refused while it answers."""
        if pane not in self.panes or self._refuse_hidden():
            return False
        if pane.streaming:
            self.notify(
                f"Pane {pane.number} is still answering; switch its model once it is done.",
                severity="warning",
            )
            return False
        await pane.use(pane.provider, model)
        pane.show_header()
        self._relabel()
        self._arrange(self.size.width)
        return True

    def _remove_selected(self) -> None:
        self.run_worker(self.remove_pane(), exit_on_error=False)

    def _export(self, fmt: ExportFormat) -> None:
        self.post_message(self.ExportRequested(self.record, fmt))

    def _copy_answer(self) -> None:
        turn = self.selected_pane.turn
        text = "" if turn is None else turn.text
        if not text:
            self.notify("The selected pane has no answer to copy yet.", severity="warning")
            return
        number = self.selected_pane.number
        copy_text(self.app, text, f"{len(text)} characters from pane {number}")

    # -- other actions ---------------------------------------------------------------------

    def action_continue_alone(self) -> None:
        if self._refuse_hidden():
            return
        pane = self.selected_pane
        if pane.streaming:
            self.notify("That pane is still answering; stop it or wait.", severity="warning")
            return
        self.post_message(self.ContinueAlone(pane))

    def action_toggle_reasoning(self) -> None:
        self.post_message(self.ToggleReasoningRequested(self))

    def keep_reasoning_open(self, opened: bool) -> None:
        """New turns in every pane start with their reasoning open (or closed)."""
        for pane in self.panes:
            pane.keep_reasoning_open = opened

    async def action_new_comparison(self) -> None:
        """Every pane starts afresh, together in one new conversation of the history."""
        self.forget_branches()
        self.set_focus(self.prompt)
        self.refresh_bindings()  # no "cancel edit" any more
        for pane in self.panes:
            await pane.new_chat()
        self._carries = []
        if self.record is not None:
            self.record = self.record.history.record(kind="compare", system=self.record.system)
        for index, pane in enumerate(self.panes):
            history = self._pane_history(index)
            if history is not None:
                pane.history = history
        self.ranking.clear()

    async def action_scroll_pane(self, direction: int) -> None:
        await self.selected_pane.transcript.page(direction)

    async def aclose(self) -> None:
        for pane in self.panes:
            await pane.aclose()


def _with_model(provider: ProviderConfig, model: str) -> ProviderConfig:
    return provider if provider.model == model else replace(provider, model=model)


__all__ = ["SIDE_BY_SIDE_WIDTH", "CompareCommands", "CompareScreen", "longest_period"]
