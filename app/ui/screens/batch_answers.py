"""One prompt of a batch with its answers side by side: the comparison screen, with Esc going
back to the batch's table once nothing streams (unless the user has moved to the asking vote
bar: there Esc skips). A blind batch's prompt is voted on here, as any blind comparison
reopened."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from app.ui.screens.compare import CompareScreen


class BatchAnswers(CompareScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop_or_back", "stop all / back", priority=True),
    ]

    class Back(Message):
        """Esc with nothing streaming: back to the batch's table."""

        def __init__(self, answers: BatchAnswers) -> None:
            super().__init__()
            self.answers = answers

    batch_row: int | None = None  # the table's row this prompt is

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_or_back":
            return not (self.vote_bar.asking and self.vote_bar.has_focus)
        return super().check_action(action, parameters)

    def action_stop_or_back(self) -> None:
        if self.busy:
            self.action_stop_all()
        else:
            self.post_message(self.Back(self))


__all__ = ["BatchAnswers"]
