"""A batch run as a table of prompts x providers: each cell one provider's answers to one prompt
(status, first token, tok/s, output tokens, cost), filled live from a run's news or read back
from the history, for the batch screen.

A blind batch's row says nothing per provider until its prompt is voted on: a cell's figures (or
which column is still asking, or failed) would tell which letter of the comparison is whom.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from app.compare.stats import format_cost, turn_cost
from app.display.speed import format_ms
from app.settings.config import ProviderConfig
from app.store.records import StoredConversation, StoredMessage
from app.store.votes import Vote
from app.wire.turn import TurnStatus

QUEUED = "queued"
ASKING = "asking"
_MARKS = {"complete": "✓", "failed": "✖", "interrupted": "⚠", "stopped": "■"}


@dataclass(frozen=True, slots=True)
class BatchCell:
    """One provider's answers to one prompt (its last finished repeat's figures)."""

    status: str = QUEUED  # queued, asking, or the last finished answer's status
    done: int = 0  # answers finished, of the run's repeats
    ttft_ms: int | None = None
    tok_s: float | None = None
    tokens: int | None = None
    cost: float | None = None


@dataclass(slots=True)
class BatchRow:
    prompt_id: str
    prompt: str
    cells: list[BatchCell]
    conv_id: int | None = None  # its conversation in the history, once stored
    voted: bool = False

    @property
    def finished(self) -> bool:
        return all(cell.status not in (QUEUED, ASKING) for cell in self.cells)


@dataclass(slots=True)
class BatchTable:
    providers: list[str]  # provider:model, in pane order
    rows: list[BatchRow]
    repeat: int = 1
    blind: bool = False
    title: str = ""
    tag: str | None = None  # the run's --tag: votes on its prompts carry it
    by_line: dict[int, int] = field(default_factory=dict)  # a prompt's file line -> its row

    def started(self, row: int, pane: int) -> None:
        cells = self.rows[row].cells
        cells[pane] = replace(cells[pane], status=ASKING)

    def finished(
        self,
        row: int,
        pane: int,
        status: TurnStatus,
        *,
        ttft_ms: int | None,
        tok_s: float | None,
        tokens: int | None,
        cost: float | None,
    ) -> None:
        cells = self.rows[row].cells
        done = cells[pane].done + 1
        shown = str(status) if done >= self.repeat else ASKING
        cells[pane] = BatchCell(shown, done, ttft_ms, tok_s, tokens, cost)

    def counts(self) -> tuple[int, int]:
        """(answers finished, answers in the run)."""
        done = sum(cell.done for row in self.rows for cell in row.cells)
        return done, len(self.rows) * len(self.providers) * self.repeat

    def hidden(self, row: BatchRow) -> bool:
        return self.blind and not row.voted

    def cell_text(self, row: BatchRow, pane: int) -> str:
        cell = row.cells[pane]
        if self.hidden(row):  # nothing per provider before the vote
            return "·"
        if cell.status in (QUEUED, ASKING):
            return cell.status if self.repeat == 1 else f"{cell.status} {cell.done}/{self.repeat}"
        complete = cell.status == "complete"
        mark = _MARKS.get(cell.status, "?")
        ttft = "–" if cell.ttft_ms is None else format_ms(cell.ttft_ms / 1000)
        parts = [f"{mark} {ttft}" if complete else f"{mark} {cell.status} · {ttft}"]
        parts.append("– tok/s" if cell.tok_s is None else f"{cell.tok_s:.0f} tok/s")
        # A count is final only once the answer completed (Messages says 1 at its start).
        parts.append(f"{cell.tokens} tok" if complete and cell.tokens is not None else "–")
        if cell.cost is not None:
            parts.append(format_cost(cell.cost))
        return " · ".join(parts)

    def vote_text(self, row: BatchRow) -> str:
        """The blind batch's own column: whether the prompt waits for a vote."""
        if row.voted:
            return "voted"
        return "vote ⏎" if row.finished else "answering"


def stored_cell(messages: Sequence[StoredMessage], provider: ProviderConfig | None) -> BatchCell:
    """A cell from one pane's stored answers (oldest first): the last one's figures."""
    answers = [m for m in messages if m.turn is not None]
    if not answers:
        return BatchCell()
    last = answers[-1]
    turn = last.turn
    assert turn is not None
    status = turn.status
    if status is TurnStatus.STREAMING:  # cut off when the run was killed
        status = TurnStatus.INTERRUPTED
    complete = status is TurnStatus.COMPLETE
    tokens = turn.usage.output_tokens if turn.usage is not None and complete else None
    tok_s = None
    if tokens and last.ttft_ms is not None and last.duration_ms is not None:
        generating = (last.duration_ms - last.ttft_ms) / 1000
        tok_s = tokens / generating if generating > 0 else None
    cost = turn_cost(provider, turn.usage) if provider is not None and complete else None
    return BatchCell(str(status), len(answers), last.ttft_ms, tok_s, tokens, cost)


def stored_table(
    providers: Sequence[str],
    conversations: Sequence[StoredConversation],
    configured: Mapping[str, ProviderConfig],
    votes: Mapping[int, Sequence[Vote]],
    *,
    blind: bool,
    title: str = "",
    tag: str | None = None,
) -> BatchTable:
    """A batch run read back from the history: one row per conversation (prompt), one column per
    provider:model of the run (`providers`, in pane order); costs from today's prices."""
    rows: list[BatchRow] = []
    repeat = 1
    for stored in conversations:
        prompts = [m for m in stored.messages if m.role == "user"]
        repeat = max(repeat, len(prompts))
        cells = []
        for pane, key in enumerate(providers):
            name = key.split(":", 1)[0]
            mine = [m for m in stored.messages if m.role == "assistant" and m.pane == pane]
            cells.append(stored_cell(mine, configured.get(name)))
        text = prompts[0].text if prompts else ""
        voted = bool(votes.get(stored.id))
        rows.append(BatchRow(str(len(rows) + 1), text, cells, stored.id, voted))
    return BatchTable(list(providers), rows, repeat=repeat, blind=blind, title=title, tag=tag)


__all__ = [
    "ASKING",
    "QUEUED",
    "BatchCell",
    "BatchRow",
    "BatchTable",
    "stored_cell",
    "stored_table",
]
