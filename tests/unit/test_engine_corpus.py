"""Every corpus transcript decodes to its expected turn, whole and one byte at a time."""

from __future__ import annotations

import pytest

from app.wire import Api, decode_bytes
from tests.corpus import CASES, ROOT, Case, summarize

IDS = [case.id for case in CASES]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_whole_body(case: Case) -> None:
    assert summarize(decode_bytes(case.api, [case.body])) == case.want()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_byte_reads(case: Case) -> None:
    pieces = [case.body[i : i + 1] for i in range(len(case.body))]
    assert summarize(decode_bytes(case.api, pieces)) == case.want()


def test_every_transcript_has_an_expectation_and_a_reason() -> None:
    for api in Api:
        bodies = {p.stem for p in (ROOT / api.value).glob("*.sse")}
        expectations = {p.stem for p in (ROOT / api.value).glob("*.json")}
        assert bodies == expectations, api
    for case in CASES:
        assert case.expected["covers"].strip(), case.id
        assert set(case.expected) >= {"status", "text", "tool_calls", "usage", "error"}, case.id


@pytest.mark.parametrize(
    ("api", "document"),
    [
        (Api.CHAT, "kenari"),
        (Api.CHAT, "Antara"),
        (Api.CHAT, "Kimi"),
        (Api.MESSAGES, "kenari"),
        (Api.MESSAGES, "Antara"),
        (Api.RESPONSES, "kenari"),
        (Api.RESPONSES, "Antara"),
    ],
)
def test_each_seed_document_has_cases_per_format_it_serves(api: Api, document: str) -> None:
    covering = [c for c in CASES if c.api is api and c.expected["covers"].startswith(document)]
    assert len(covering) >= 2, f"{document} {api}: {len(covering)} cases"


def test_every_status_is_exercised_by_the_corpus() -> None:
    seen = {(case.api, case.expected["status"]) for case in CASES}
    for api in Api:
        assert {(api, s) for s in ("complete", "failed", "interrupted")} <= seen
