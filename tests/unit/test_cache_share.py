"""The cache-hit share: cached input over all input, the same meaning in every format, kept
through the turn's usage merge and the history, and the words a status bar shows for it."""

from __future__ import annotations

from pathlib import Path

from app.display.status_line import DIM, cache_segment, cache_share_text
from app.store.db import Store
from app.wire import Api, decode_bytes
from app.wire.events import Usage
from app.wire.turn import Turn, TurnStatus
from tests.corpus import ROOT


def test_share_counts_cached_inside_input_for_chat_and_responses() -> None:
    assert Usage(1000, 5, 870).cache_hit_share == 0.87
    assert Usage(1000, 5, 0).cache_hit_share == 0.0


def test_share_adds_the_cache_to_messages_input() -> None:
    # Messages: 4 fresh + 5000 read + 996 written.
    usage = Usage(4, 40, 5000, cache_write_tokens=996, input_excludes_cached=True)
    assert usage.cache_hit_share == 5000 / 6000


def test_no_share_without_counts_to_set_it_against() -> None:
    assert Usage(100, 5, None).cache_hit_share is None
    assert Usage(None, 5, 10).cache_hit_share is None
    assert Usage(0, 5, 0).cache_hit_share is None
    assert Usage(10, 5, 50).cache_hit_share == 1.0  # a server's odd counts never pass 100%


def test_the_turn_keeps_the_messages_cache_counts_across_usage_events() -> None:
    body = (ROOT / "messages" / "code_execution_cache_in_delta.sse").read_bytes()
    turn = decode_bytes(Api.MESSAGES, [body])
    assert turn.usage is not None
    assert turn.usage.input_excludes_cached
    assert turn.usage.cache_hit_share == 5000 / 5004


def test_status_text() -> None:
    assert cache_share_text(Usage(1000, 5, 870)) == "87%"
    assert cache_share_text(Usage(100000, 5, 3)) == "<1%"
    assert cache_share_text(Usage(1000, 5, 0)) == "0%"
    assert cache_share_text(Usage(1000, 5, None)) == ""
    assert cache_share_text(None) == ""
    turn = Turn(usage=Usage(1000, 5, 500))
    assert cache_segment(turn) == [("cache 50%", DIM)]
    assert cache_segment(Turn()) == []
    assert cache_segment(None) == []


def test_the_share_survives_the_history(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    conversation_id = store.create_conversation(title="t")
    store.add_user_message(conversation_id, "hi")
    turn = Turn(
        status=TurnStatus.COMPLETE,
        usage=Usage(4, 40, 5000, cache_write_tokens=996, input_excludes_cached=True),
    )
    turn_id = store.start_turn(conversation_id, provider="p", model="m", api="messages")
    store.save_turn(turn_id, turn, final=True)
    (_, answer) = store.load(conversation_id).messages
    store.close()
    assert answer.turn is not None
    assert answer.turn.usage is not None
    assert answer.turn.usage.cache_hit_share == 5000 / 6000
