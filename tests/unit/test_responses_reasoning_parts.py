"""A reasoning item's `content_part.done` (DeepSeek's and gpt-oss's Responses streams send one,
with `reasoning_text`) is reasoning, not answer text: the answer was "We need answer capital…"."""

from __future__ import annotations

import json

from app.wire.engine import Api, StreamEngine
from app.wire.turn import Turn


def frame(payload: dict[str, object]) -> bytes:
    return f"event: {payload['type']}\ndata: {json.dumps(payload)}\n\n".encode()


def test_a_reasoning_part_done_is_not_answer_text() -> None:
    reasoning = {"type": "reasoning_text", "text": "We need the capital."}
    frames = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "reasoning", "id": "r1"}},
        {"type": "response.reasoning_text.delta", "output_index": 0, "content_index": 0,
         "delta": "We need the capital."},
        {"type": "response.content_part.done", "output_index": 0, "content_index": 0,
         "part": reasoning},
        {"type": "response.output_item.added", "output_index": 1,
         "item": {"type": "message", "id": "m1"}},
        {"type": "response.output_text.delta", "output_index": 1, "content_index": 0,
         "delta": "Paris."},
        {"type": "response.content_part.done", "output_index": 1, "content_index": 0,
         "part": {"type": "output_text", "text": "Paris."}},
        {"type": "response.completed", "response": {"status": "completed"}},
    ]  # fmt: skip
    engine = StreamEngine(Api.RESPONSES)
    turn = Turn()
    turn.apply_all(engine.feed(b"".join(frame(f) for f in frames)))
    turn.apply_all(engine.close())
    assert turn.text == "Paris."
    assert turn.reasoning == "We need the capital."
