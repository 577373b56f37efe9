"""The vote bar of a blind comparison: it takes focus above the prompt when every pane is done,
and says the verdict with a message (`VoteBar.Voted`); the screen reveals and stores it."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Static

from app.compare.blind import BlindRound, Verdict, verdict, vote_prompt


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
        &.-asking { display: block; }
        &.-shown { display: block; text-style: none; background: $panel; }
    }
    """

    class Voted(Message):
        def __init__(self, verdict: Verdict) -> None:
            super().__init__()
            self.verdict = verdict

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.blind: BlindRound | None = None

    def ask(self, blind: BlindRound) -> None:
        """Show the question for this round and take focus."""
        self.blind = blind
        self.update(vote_prompt(blind))
        self.remove_class("-shown")
        self.add_class("-asking")
        self.focus()

    def show(self, text: str) -> None:
        """Say what was voted (a reopened comparison), without asking anything."""
        self.blind = None
        self.update(text)
        self.remove_class("-asking")
        self.add_class("-shown")

    def done(self) -> None:
        self.blind = None
        self.remove_class("-asking", "-shown")

    @property
    def asking(self) -> bool:
        return self.blind is not None

    def on_key(self, event: events.Key) -> None:
        if self.blind is None:
            return
        key = "=" if event.character == "=" else event.key
        result = verdict(key, self.blind)
        if result is None:
            return
        event.stop()
        event.prevent_default()
        self.done()
        self.post_message(self.Voted(result))


__all__ = ["VoteBar"]
