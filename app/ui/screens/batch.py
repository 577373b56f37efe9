"""A batch run as a table (`triptych batch … --ui`, or a batch opened from the history): one row
per prompt, one column per provider:model, each cell its status, first token, tok/s, output
tokens and cost, redrawn as answers finish. Enter opens the row's prompt with its answers side by
side (the app does, on `OpenPrompt`); Esc stops a run still going, else goes back.

A blind batch has a vote column and shows a row's cells only once its prompt is voted on, so the
table never says who is behind a letter of the comparison. Every cell is literal Text: prompts
come from a file and names from the config, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from app.compare.batch_table import BatchTable
from app.display.sanitize import clean_line

PROMPT_WIDTH = 32  # characters of a prompt shown in its row


class BatchScreen(Screen[None]):
    DEFAULT_CSS = """
    BatchScreen {
        & > #batch-summary { height: 1; padding: 0 1; color: $text-muted; }
        & > DataTable { height: 1fr; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "stop", "stop the batch"),
        Binding("escape", "back", "back"),
    ]

    class OpenPrompt(Message):
        """Enter on a row: show this prompt's answers side by side."""

        def __init__(self, screen: BatchScreen, row: int) -> None:
            super().__init__()
            self.screen = screen
            self.row = row

    def __init__(self, table: BatchTable, *, stop: Callable[[], None] | None = None) -> None:
        """`stop`: stops the run while it goes on (finished answers are kept); None: a run
        read back from the history."""
        super().__init__()
        self.table = table
        self.stop = stop
        self.running = stop is not None
        # A row's conversation in the history, when the table does not know it yet (a live run
        # stores each prompt as it starts).
        self.conversation_of: Callable[[int], int | None] = lambda _row: None
        self.summary = Static("", id="batch-summary", markup=False)
        self.grid: DataTable[Text] = DataTable(cursor_type="row", zebra_stripes=True)

    def compose(self) -> ComposeResult:
        yield Header(icon="▦")
        yield self.summary
        yield self.grid
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Batch"
        self.sub_title = self.table.title
        columns = ["#", "prompt"]
        if self.table.blind:
            columns.append("vote")
        columns += [clean_line(name) for name in self.table.providers]
        self.grid.add_columns(*columns)
        for index in range(len(self.table.rows)):
            self.grid.add_row(*self._cells(index), key=str(index))
        self._summarize()
        self.grid.focus()

    def _cells(self, index: int) -> list[Text]:
        table = self.table
        row = table.rows[index]
        prompt = clean_line(row.prompt)
        if len(prompt) > PROMPT_WIDTH:
            prompt = prompt[: PROMPT_WIDTH - 1] + "…"
        cells = [Text(row.prompt_id, justify="right"), Text(prompt)]
        if table.blind:
            cells.append(Text(table.vote_text(row)))
        cells += [Text(table.cell_text(row, pane)) for pane in range(len(table.providers))]
        return cells

    def refresh_row(self, index: int) -> None:
        """Redraw one row (an answer started or finished, or its prompt was voted on)."""
        if not self.is_mounted:
            return
        for column, cell in zip(self.grid.ordered_columns, self._cells(index), strict=True):
            self.grid.update_cell(str(index), column.key, cell, update_width=True)
        self._summarize()

    def _summarize(self) -> None:
        done, total = self.table.counts()
        state = "running" if self.running else "done"
        voted = ""
        if self.table.blind:
            count = sum(row.voted for row in self.table.rows)
            voted = f" · {count} of {len(self.table.rows)} voted"
        self.summary.update(
            f"{len(self.table.rows)} prompts × {len(self.table.providers)} providers · "
            f"{done} of {total} answers · {state}{voted} · Enter opens a prompt side by side"
        )

    def run_ended(self) -> None:
        self.running = False
        self._summarize()
        self.refresh_bindings()

    def select_next(self, after: int) -> None:
        """The cursor on the next prompt still to vote on (else the next one)."""
        rows = self.table.rows
        for index in [*range(after + 1, len(rows)), *range(after + 1)]:
            if not rows[index].voted:
                self.grid.move_cursor(row=index)
                return
        self.grid.move_cursor(row=min(after + 1, len(rows) - 1))

    def on_data_table_row_selected(self, message: DataTable.RowSelected) -> None:
        message.stop()
        self.post_message(self.OpenPrompt(self, message.cursor_row))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":  # Esc stops a run still going, else goes back
            return self.running
        if action == "back":
            return not self.running
        return True

    def action_stop(self) -> None:
        if self.stop is not None:
            self.stop()

    def action_back(self) -> None:
        self.dismiss()


__all__ = ["PROMPT_WIDTH", "BatchScreen"]
