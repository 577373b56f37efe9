"""A tool call's result is kept with the call: stored, exported, and sent again on a follow-up."""

from __future__ import annotations

import json
from pathlib import Path

from app.providers.requests import build_body
from app.store import Store
from app.store.export import export_conversation
from app.wire.engine import Api
from app.wire.events import EndOfStream, ToolCallArgsDelta, ToolCallEnd, ToolCallStart
from app.wire.tools import ResultOrigin, ToolResult
from app.wire.turn import Turn


def called_turn() -> Turn:
    turn = Turn()
    turn.apply_all(
        [
            ToolCallStart(0, "call_1", "get_weather"),
            ToolCallArgsDelta(0, '{"city": "Paris"}'),
            ToolCallEnd(0, None),
            EndOfStream(),
        ]
    )
    turn.end()
    turn.calls[0].result = ToolResult("sunny ```x```", True, ResultOrigin.MCP, 13)
    return turn


def test_a_result_survives_the_store_the_export_and_the_next_request(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "history.sqlite3")
    try:
        conv = store.create_conversation()
        store.add_user_message(conv, "weather?")
        turn_id = store.start_turn(conv, provider="p", model="m", api="messages")
        store.save_turn(turn_id, called_turn(), final=True)
        loaded = store.load(conv)
        call = loaded.messages[1].turn.calls[0]  # type: ignore[union-attr]
        assert call.result == ToolResult("sunny ```x```", True, ResultOrigin.MCP, 13)
        exported = json.loads(export_conversation(store, conv, "json"))
        assert exported["messages"][1]["tool_calls"][0]["result"] == {
            "content": "sunny ```x```",
            "is_error": True,
            "origin": "mcp",
            "size": 13,
        }
        markdown = export_conversation(store, conv, "md")
        assert "**Tool result** (error), mcp\n\n````\nsunny ```x```\n````" in markdown
        conversation = loaded.conversation()
        conversation.add_user("and tomorrow?")
        body = build_body(Api.MESSAGES, "m", None, conversation.messages)
        assert body["messages"][2] == {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": "sunny ```x```",
                    "is_error": True,
                },
                {"type": "text", "text": "and tomorrow?"},
            ],
        }
    finally:
        store.close()
