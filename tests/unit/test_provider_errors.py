"""Error messages from bodies and transport failures; whole JSON answers; header redaction."""

from __future__ import annotations

import json
import ssl

import httpx
import pytest

from app.providers.documents import document_events
from app.providers.errors import (
    error_from_body,
    html_text,
    http_error,
    scrub,
    transport_error,
)
from app.providers.record import redact_headers
from app.wire.events import END_OF_STREAM, Event, StreamError, TextDelta
from app.wire.turn import Turn, TurnStatus


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"error": {"message": "Rate limit", "type": "requests", "code": "rate_limit_exceeded"}},
            ("rate_limit_exceeded", "Rate limit"),
        ),
        (
            {"error": {"message": "Bad", "type": "invalid_request_error"}},
            ("invalid_request_error", "Bad"),
        ),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ("overloaded_error", "Overloaded"),
        ),
        ({"error": "quota exhausted"}, (None, "quota exhausted")),
        ({"message": "Unauthorized"}, (None, "Unauthorized")),
        ({"detail": "Not Found"}, (None, "Not Found")),
        (
            {"detail": [{"loc": ["body"], "msg": "bad"}]},
            (None, '[{"loc": ["body"], "msg": "bad"}]'),
        ),
    ],
)
def test_json_error_shapes(body: object, expected: tuple[str | None, str]) -> None:
    assert error_from_body(json.dumps(body).encode()) == expected


def test_error_sent_as_an_event_stream() -> None:
    body = b'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n'
    assert error_from_body(body, "text/event-stream") == ("api_error", "boom")


def test_html_page_is_stripped_trimmed_and_titled() -> None:
    page = (
        "<html><head><title>503 Service Unavailable</title><script>var x = '<b>';</script></head>"
        "<body><h1>503 Service Unavailable</h1><p>Try &amp; retry.</p>"
        + "<p>x</p>" * 400
        + "</body>"
    )
    text = html_text(page)
    assert text.startswith("503 Service Unavailable Try & retry.")
    assert "<" not in text
    assert "var x" not in text
    assert len(text) <= 300
    assert text.endswith("…")


def test_http_error_messages() -> None:
    assert http_error(404, b"") == StreamError("http_404", "HTTP 404 Not Found")
    assert http_error(500, b"  oops  ") == StreamError("http_500", "HTTP 500: oops")
    dated = http_error(429, b"", retry_after="Wed, 21 Oct 2026 07:28:00 GMT")
    assert dated.message == "HTTP 429 Too Many Requests (retry after Wed, 21 Oct 2026 07:28:00 GMT)"


def test_scrub_replaces_every_copy_and_ignores_no_key() -> None:
    assert scrub("k1 and k1", ["k1", None, ""]) == "[redacted] and [redacted]"
    assert scrub("nothing", [None]) == "nothing"


@pytest.mark.parametrize(
    ("exc", "message"),
    [
        (
            httpx.ConnectError("[Errno -2] Name or service not known"),
            "could not connect to api.example.test:443 (the host name could not be resolved)",
        ),
        (
            httpx.ConnectError("[Errno -3] Temporary failure in name resolution"),
            "could not connect to api.example.test:443 (the host name could not be resolved)",
        ),
        (
            httpx.ConnectError("All connection attempts failed"),
            "could not connect to api.example.test:443 (All connection attempts failed)",
        ),
        (
            httpx.ConnectTimeout(""),
            "could not connect to api.example.test:443 within 10 s (timed out)",
        ),
        (httpx.ReadTimeout(""), "no answer from api.example.test:443 within 10 s (timed out)"),
    ],
)
def test_transport_errors_read_plainly(exc: Exception, message: str) -> None:
    error = transport_error(exc, "https://api.example.test/v1/chat/completions", timeout=10)
    assert error.message == message


def test_tls_verification_failure_is_named() -> None:
    cause = ssl.SSLCertVerificationError(1, "certificate verify failed")
    cause.verify_message = "self-signed certificate"
    exc = httpx.ConnectError("[SSL: CERTIFICATE_VERIFY_FAILED]")
    exc.__cause__ = cause
    error = transport_error(exc, "https://h.test:8443/v1")
    assert (
        error.message
        == "could not connect to h.test:8443 (TLS certificate not trusted: self-signed certificate)"
    )


def test_redact_headers_by_name_and_by_value() -> None:
    headers = {
        "Authorization": "Bearer k",
        "x-api-key": "k",
        "X-Custom": "prefix-secret-suffix",
        "Accept": "text/event-stream",
    }
    assert redact_headers(headers, ["secret"]) == {
        "Authorization": "[redacted]",
        "x-api-key": "[redacted]",
        "X-Custom": "[redacted]",
        "Accept": "text/event-stream",
    }


def settle(events: list[Event]) -> Turn:
    turn = Turn()
    turn.apply_all(events)
    turn.end()
    return turn


def test_whole_chat_completion_with_kimi_usage_in_choice() -> None:
    document = {
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Hi", "reasoning_content": "hm"},
                "finish_reason": "stop",
                "usage": {"prompt_tokens": 3, "completion_tokens": 2},
            }
        ],
    }
    turn = settle(document_events(document))
    assert (turn.status, turn.text, turn.reasoning, turn.finish_reason) == (
        TurnStatus.COMPLETE,
        "Hi",
        "hm",
        "stop",
    )
    assert turn.usage is not None
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (3, 2)


def test_whole_message_keeps_thinking_signature_and_redacted_blocks() -> None:
    document = {
        "type": "message",
        "content": [
            {"type": "thinking", "thinking": "t", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "Hello"},
        ],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 2},
    }
    turn = settle(document_events(document))
    assert turn.status is TurnStatus.COMPLETE
    assert (turn.reasoning, turn.reasoning_signature, turn.redacted_reasoning) == (
        "t",
        "sig",
        ["opaque"],
    )
    assert (turn.text, turn.finish_reason) == ("Hello", "max_tokens")
    assert turn.usage is not None
    assert turn.usage.cached_tokens == 2


def test_whole_failed_response_fails() -> None:
    document = {
        "object": "response",
        "status": "failed",
        "output": [],
        "error": {"code": "server_error", "message": "it broke"},
    }
    turn = settle(document_events(document))
    assert turn.status is TurnStatus.FAILED
    assert turn.error == StreamError("server_error", "it broke")


def test_incomplete_response_document_is_complete_with_its_reason() -> None:
    document = {
        "object": "response",
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [{"type": "message", "content": [{"type": "output_text", "text": "Part"}]}],
    }
    events = document_events(document)
    assert TextDelta("Part") in events
    assert events[-1] is END_OF_STREAM
    turn = settle(events)
    assert (turn.finish_reason, turn.finish_detail) == ("incomplete", "max_output_tokens")


def test_unknown_json_answer_fails_with_a_sample() -> None:
    (error,) = document_events({"hello": "world"})
    assert isinstance(error, StreamError)
    assert error.code == "unexpected_answer"
    assert '{"hello": "world"}' in error.message
