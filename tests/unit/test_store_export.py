"""`triptych history` and `triptych export` output, built from a real history file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.store import ConversationNotFound, Store, export_conversation, format_history
from app.store.export import visible
from app.wire.events import (
    END_OF_STREAM,
    ReasoningDelta,
    Source,
    Sources,
    StreamError,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from app.wire.turn import Turn

FAKE_KEY = "sk-test-DO-NOT-LEAK-0123456789abcdef"


def finished(*events: object) -> Turn:
    turn = Turn()
    turn.apply_all(list(events))  # type: ignore[arg-type]
    turn.end()
    return turn


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    # The key is in the environment as it would be for a real provider; nothing may copy it.
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    store = Store.open(tmp_path / "history.sqlite3")
    chat = store.create_conversation(title="Weather", system="Be brief.")
    store.add_user_message(chat, "Weather in Paris?\nThanks")
    turn_id = store.start_turn(chat, provider="openai", model="gpt-x", api="responses")
    turn = finished(
        ReasoningDelta("Need a tool.\nThen answer."),
        TextDelta("Sunny, \x1b[31mred\x1b[0m and 21 °C.\r\nDone"),
        ToolCallStart(0, "call_1", "get_weather"),
        ToolCallArgsDelta(0, '{"city": "Paris"}'),
        ToolCallEnd(0),
        Sources((Source("https://w.example/paris", "Forecast"),)),
        Usage(11, 22, None),
        END_OF_STREAM,
    )
    store.save_turn(turn_id, turn, ttft_ms=250, duration_ms=1500, final=True)
    store.add_user_message(chat, "And tomorrow?")
    failed_id = store.start_turn(chat, provider="openai", model="gpt-x", api="responses")
    failed = finished(TextDelta("Tomor"), StreamError("server_error", "upstream \x9b2J died"))
    store.save_turn(failed_id, failed, final=True)

    compare = store.create_conversation(kind="compare")
    store.add_user_message(compare, "Pick a number")
    for pane, provider in enumerate(["kimi", "anthropic"]):
        pane_turn = store.start_turn(compare, provider=provider, model="m", api="chat", pane=pane)
        store.save_turn(pane_turn, finished(TextDelta(f"{pane + 7}"), END_OF_STREAM), final=True)
    return store


def test_markdown_export_reads_as_a_transcript(history: Store) -> None:
    md = export_conversation(history, 1, "md")
    assert md.startswith("# Weather (#1)\n")
    assert "## System\n\nBe brief." in md
    assert "## You\n\nWeather in Paris?\nThanks" in md
    assert "## openai · gpt-x" in md
    assert "> Need a tool.\n> Then answer." in md
    assert "Sunny, ␛[31mred␛[0m and 21 °C.\nDone" in md  # escapes made visible, CRLF normalised
    assert '```json\n{"city": "Paris"}\n```' in md
    assert "- [Forecast](https://w.example/paris)" in md
    assert "*complete · 11 in / 22 out · first token 250 ms · 1.5 s*" in md
    assert "*failed · error: upstream \ufffd2J died*" in md
    assert "\x1b" not in md
    assert "\x9b" not in md


def test_markdown_export_of_a_comparison_names_the_panes(history: Store) -> None:
    md = export_conversation(history, 2, "md")
    assert "## kimi · m (pane 0)\n\n7" in md
    assert "## anthropic · m (pane 1)\n\n8" in md


def test_json_export_holds_every_field_and_parses(history: Store) -> None:
    text = export_conversation(history, 1, "json")
    assert "\x1b" not in text
    assert "\x9b" not in text
    doc = json.loads(text)
    assert (doc["format"], doc["version"], doc["kind"]) == ("triptych-conversation", 1, "chat")
    user, answer, _, failed = doc["messages"]
    assert user == {
        "id": 1,
        "role": "user",
        "text": "Weather in Paris?\nThanks",
        "created_at": user["created_at"],
        "attachments": [],
    }
    assert answer["text"] == "Sunny, \x1b[31mred\x1b[0m and 21 °C.\r\nDone"  # exact, as received
    assert (answer["provider"], answer["model"], answer["api"], answer["pane"]) == (
        "openai",
        "gpt-x",
        "responses",
        0,
    )
    assert answer["tool_calls"] == [
        {
            "id": "call_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
            "invalid_json": False,
            "result": None,
        }
    ]
    assert answer["usage"] == {"input_tokens": 11, "output_tokens": 22, "cached_tokens": None}
    assert (answer["ttft_ms"], answer["duration_ms"], answer["status"]) == (250, 1500, "complete")
    assert failed["error"] == {"code": "server_error", "message": "upstream \x9b2J died"}
    assert failed["status"] == "failed"


def test_keys_never_reach_the_file_or_any_export(history: Store) -> None:
    outputs = [export_conversation(history, c, f) for c in (1, 2) for f in ("md", "json")]
    outputs.append(format_history(history))
    for text in outputs:
        assert FAKE_KEY not in text
    for file in history.path.parent.iterdir():  # the database, its WAL and shared memory
        assert FAKE_KEY.encode() not in file.read_bytes()
    assert {"api_key", "key", "headers", "authorization"}.isdisjoint(
        json.loads(outputs[1])["messages"][1]
    )


def test_history_lists_newest_first_one_line_each(history: Store) -> None:
    lines = format_history(history).splitlines()
    assert len(lines) == 2
    assert lines[0].split()[0] == "2"
    assert "compare" in lines[0]
    assert "kimi, anthropic" in lines[0]
    assert "Pick a number" in lines[0]
    assert lines[1].split()[0] == "1"
    assert "openai" in lines[1]
    assert lines[1].endswith("Weather")


def test_history_search_and_empty_results(history: Store, tmp_path: Path) -> None:
    found = format_history(history, query="tomorrow")
    assert found.splitlines()[0].split()[0] == "1"
    assert "And tomorrow?" in found
    assert format_history(history, query="zebra") == "No matching conversations."
    empty = Store.open(tmp_path / "empty.sqlite3")
    assert format_history(empty) == "No conversations yet."


def test_export_of_a_missing_conversation_or_format_is_an_error(history: Store) -> None:
    with pytest.raises(ConversationNotFound, match="no conversation 99"):
        export_conversation(history, 99, "md")
    with pytest.raises(ValueError, match="md or json"):
        export_conversation(history, 1, "html")  # type: ignore[arg-type]


def test_visible_shows_controls_and_keeps_layout() -> None:
    assert visible("a\tb\nc\r\nd\re\x07\x7f\x85") == "a\tb\nc\nd␍e␇␡\ufffd"


def test_history_search_snippets_read_without_markdown_marks(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "marks.sqlite3")
    chat = store.create_conversation(title="Marks")
    store.add_user_message(chat, "## The **penguin** plan with `code` and [a link](https://x.y)")
    found = format_history(store, query="penguin")
    snippet = found.splitlines()[1].strip()
    assert snippet == "The penguin plan with code and a link"  # as the history screen shows it
