"""SVG snapshots of the batch table: a run partway (answers complete, failed,
asking, queued; priced) and a blind batch with one prompt voted on. The tables are built by hand,
so every figure on screen is the test's. Update with `pytest --snapshot-update`."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

from app.compare.batch_table import ASKING, BatchCell, BatchRow, BatchTable
from app.ui.screens.batch import BatchScreen

SnapCompare = Callable[..., bool]
PROVIDERS = ["kenari:k-large", "antara:a-2", "kimi:kimi-k2"]


def done(ttft_ms: int, tok_s: float, tokens: int, cost: float | None) -> BatchCell:
    return BatchCell("complete", 1, ttft_ms, tok_s, tokens, cost)


def table(*, blind: bool = False) -> BatchTable:
    rows = [
        BatchRow(
            "1",
            "Explain the difference between a process and a thread",
            [
                done(412, 61.8, 388, 0.0041),
                done(655, 43.2, 512, 0.0019),
                done(298, 88.0, 301, None),
            ],
            voted=blind,
        ),
        BatchRow(
            "2",
            "Write a haiku about [bold]markup[/bold]",
            [
                done(380, 58.1, 23, 0.0003),
                BatchCell("failed", 1, None, None, None, None),
                done(270, 91.5, 19, None),
            ],
        ),
        BatchRow(
            "4",
            "Summarise RFC 9110 in five bullets",
            [BatchCell(ASKING), BatchCell(ASKING), done(305, 84.0, 240, None)],
        ),
        BatchRow("5", "What is a monad?", [BatchCell(), BatchCell(), BatchCell(ASKING)]),
    ]
    return BatchTable(PROVIDERS, rows, blind=blind, title="prompts.txt")


class Host(App[None]):
    def __init__(self, shown: BatchTable, *, running: bool) -> None:
        super().__init__()
        self.shown = shown
        self.running = running

    def on_mount(self) -> None:
        self.push_screen(BatchScreen(self.shown, stop=(lambda: None) if self.running else None))


def test_a_batch_partway(snap_compare: SnapCompare) -> None:
    assert snap_compare(Host(table(), running=True), terminal_size=(150, 12))


def test_a_blind_batch_with_one_prompt_voted(snap_compare: SnapCompare) -> None:
    assert snap_compare(Host(table(blind=True), running=False), terminal_size=(150, 12))
