"""The batch table's model (app/compare/batch_table.py): cells filled from a run's news (with
repeats), read back from stored answers (tok/s from the saved timings, cost from the prices), and
a blind batch's row saying nothing per provider until its prompt is voted on."""

from __future__ import annotations

from app.compare.batch_table import ASKING, QUEUED, BatchCell, BatchRow, BatchTable, stored_cell
from app.settings.config import ProviderConfig
from app.store.records import StoredMessage
from app.wire.engine import Api
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus


def table(repeat: int = 1, blind: bool = False) -> BatchTable:
    rows = [BatchRow("1", "a prompt", [BatchCell(), BatchCell()])]
    return BatchTable(["p:m", "q:n"], rows, repeat=repeat, blind=blind)


def turn(status: TurnStatus, output: int | None = 100) -> Turn:
    done = Turn()
    done.text_parts.append("words")
    done.usage = Usage(input_tokens=1_000_000, output_tokens=output)
    done.status = status
    return done


def test_news_fill_a_cell_and_repeats_count_until_the_last() -> None:
    shown = table(repeat=2)
    row = shown.rows[0]
    assert shown.cell_text(row, 0) == f"{QUEUED} 0/2"
    shown.started(0, 0)
    assert shown.cell_text(row, 0) == f"{ASKING} 0/2"
    figures = {"ttft_ms": 420, "tok_s": 61.7, "tokens": 388, "cost": 0.0041}
    shown.finished(0, 0, TurnStatus.COMPLETE, **figures)
    assert shown.cell_text(row, 0) == f"{ASKING} 1/2"  # its second answer still to come
    shown.finished(0, 0, TurnStatus.COMPLETE, **figures)
    assert shown.cell_text(row, 0) == "✓ 420 ms · 62 tok/s · 388 tok · $0.0041"
    assert shown.counts() == (2, 4)
    assert not row.finished
    shown.finished(0, 1, TurnStatus.FAILED, ttft_ms=None, tok_s=None, tokens=1, cost=None)
    shown.finished(0, 1, TurnStatus.FAILED, ttft_ms=None, tok_s=None, tokens=1, cost=None)
    assert shown.cell_text(row, 1) == "✖ failed · – · – tok/s · –"  # no count: not final
    assert row.finished


def test_a_blind_row_shows_nothing_per_provider_until_voted() -> None:
    shown = table(blind=True)
    row = shown.rows[0]
    shown.finished(0, 0, TurnStatus.COMPLETE, ttft_ms=300, tok_s=50.0, tokens=20, cost=None)
    assert shown.cell_text(row, 0) == "·"
    assert shown.cell_text(row, 1) == "·"
    assert shown.vote_text(row) == "answering"
    shown.finished(0, 1, TurnStatus.FAILED, ttft_ms=None, tok_s=None, tokens=None, cost=None)
    assert shown.vote_text(row) == "vote ⏎"
    row.voted = True
    assert shown.vote_text(row) == "voted"
    assert shown.cell_text(row, 0) == "✓ 300 ms · 50 tok/s · 20 tok"
    assert shown.cell_text(row, 1).startswith("✖ failed")


def test_a_stored_cell_takes_the_last_answer_with_its_rate_and_cost() -> None:
    provider = ProviderConfig("p", Api.CHAT, "http://x", "m", price_in=1.0, price_out=2.0)

    def answer(message_id: int, ttft: int, duration: int, done: Turn) -> StoredMessage:
        return StoredMessage(
            message_id, "assistant", "", 0.0, done, pane=0, ttft_ms=ttft, duration_ms=duration
        )

    first = answer(1, 100, 2100, turn(TurnStatus.COMPLETE, 10))
    last = answer(2, 500, 2500, turn(TurnStatus.COMPLETE, 100))  # 100 tokens over 2 s
    cell = stored_cell([first, last], provider)
    assert cell == BatchCell("complete", 2, 500, 50.0, 100, 1.0 + 100 * 2.0 / 1e6)
    assert stored_cell([], provider) == BatchCell()
    cut = stored_cell([answer(3, 100, 200, turn(TurnStatus.STREAMING))], provider)
    assert cut.status == "interrupted"  # a run killed mid-answer
    assert (cut.tokens, cut.cost) == (None, None)
    assert stored_cell([last], None).cost is None  # a provider no longer configured
