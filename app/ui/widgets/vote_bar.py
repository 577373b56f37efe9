"""The vote bar of a blind comparison. It asks when every pane is done but never takes the focus:
the answers end while the user may be typing the next prompt, and a key meant for the prompt
(`x` in "explain", `=`, a digit) must never cast a vote. Votes are deliberate: Alt+1…4, Alt+= and
Alt+x from anywhere (the screen's bindings, which call `vote`), or the plain keys once the user
has moved to the bar (shift+tab from the prompt, or a click). Any other key typed on the bar goes
on to the prompt (the screen's). The bar's words say which keys work where the focus is.

A cast vote stays on the bar as `vote: all bad · undo` until the next prompt; undo (alt+u, `u`
on the bar, or a click on the word) asks the screen to take it back (`UndoWanted`)."""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from app.compare.blind import LETTERS, BlindRound, Verdict, verdict, vote_prompt

UNDO_KEY = "alt+u"


def alt_prompt(blind: BlindRound) -> str:
    """The question while the focus is elsewhere: the Alt keys, and how to reach the bar."""
    choices = "  ".join(f"alt+{n} {LETTERS[n - 1]}" for n in range(1, len(blind.order) + 1))
    return (
        f"Which is better?  {choices}  ·  alt+= tie  ·  alt+x all bad"
        "  ·  shift+tab: vote here with 1…, =, x"
    )


def cast_text(what: str) -> Content:
    """`vote: all bad · undo (alt+u) · leaderboard`, `undo` and `leaderboard` clickable (the
    leaderboard is also in the palette); `what` is shown literally."""
    return Content.assemble(
        f"vote: {what} · ",
        ("undo", "@click=undo"),
        (f" ({UNDO_KEY})", "$text-muted"),
        " · ",
        ("leaderboard", "@click=leaderboard"),
    )


class VoteBar(Static, can_focus=True):
    DEFAULT_CSS = """
    VoteBar {
        height: 1;
        width: 1fr;
        padding: 0 1;
        background: $accent 30%;
        color: $foreground;
        text-style: bold;
        display: none;
        &:focus { background: $accent 60%; }
        &.-asking { display: block; }
        &.-shown { display: block; text-style: none; background: $panel; }
    }
    """
    KEY_GROUP: ClassVar[str] = "Vote bar"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "undo", "undo the vote", show=False),
    ]

    class Voted(Message):
        def __init__(self, verdict: Verdict) -> None:
            super().__init__()
            self.verdict = verdict

    class UndoWanted(Message):
        """Take the vote just cast back (the screen removes it from the store)."""

    class LeaderboardWanted(Message):
        """Show the leaderboard, with the vote just cast counted."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.blind: BlindRound | None = None
        self.undoable = False  # a vote cast here is shown, and can be taken back

    def ask(self, blind: BlindRound) -> None:
        """Show the question for this round, leaving the focus where it is."""
        self.blind = blind
        self.undoable = False
        self._say_question()
        self.remove_class("-shown")
        self.add_class("-asking")

    def _say_question(self, focused: bool | None = None) -> None:
        """The keys that vote from where the focus is (`focused`: the bar is getting it, or
        losing it: its own `has_focus` changes after these handlers)."""
        if self.blind is not None:
            here = self.has_focus if focused is None else focused
            self.update(vote_prompt(self.blind) if here else alt_prompt(self.blind))

    def on_focus(self) -> None:
        self._say_question(True)

    def on_blur(self) -> None:
        self._say_question(False)

    def cast(self, what: str) -> None:
        """Say the vote just given (`what`: "all bad", "B (zebra)"), with its undo."""
        self.blind = None
        self.undoable = True
        self.update(cast_text(what))
        self.remove_class("-asking")
        self.add_class("-shown")

    def show(self, text: str) -> None:
        """Say what was voted (a reopened comparison), without asking anything."""
        self.blind = None
        self.undoable = False
        self.update(text)
        self.remove_class("-asking")
        self.add_class("-shown")

    def done(self) -> None:
        self.blind = None
        self.undoable = False
        self.remove_class("-asking", "-shown")

    @property
    def asking(self) -> bool:
        return self.blind is not None

    def vote(self, key: str) -> bool:
        """Cast the vote `key` means (`1`…`4`, `=`, `x`, `escape`); False when it means none."""
        if self.blind is None:
            return False
        result = verdict(key, self.blind)
        if result is None:
            return False
        self.done()
        self.post_message(self.Voted(result))
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.undoable if action == "undo" else True

    def action_undo(self) -> None:
        if self.undoable:
            self.post_message(self.UndoWanted())

    def action_leaderboard(self) -> None:
        """The word `leaderboard` after a vote (a click; no key: keys typed here go on)."""
        if self.undoable:
            self.post_message(self.LeaderboardWanted())

    def on_key(self, event: events.Key) -> None:
        """On the bar, the plain vote keys vote; the rest goes on (printable keys to the
        prompt, by the screen)."""
        key = "=" if event.character == "=" else event.key
        if self.vote(key):
            event.stop()
            event.prevent_default()


__all__ = ["UNDO_KEY", "VoteBar", "alt_prompt", "cast_text"]
