"""Finding words in a conversation's text (app/display/find.py): what matches, the count and
the current match as text streams in, the spans in drawn lines, and a cost linear in the text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, cast

from app.display.find import Found, Hit, Span, find_hits, find_pattern, line_spans


def pattern(query: str) -> re.Pattern[str]:
    found = find_pattern(query)
    assert found is not None
    return found


def test_the_query_is_literal_case_insensitive_and_any_whitespace_for_a_space() -> None:
    assert find_pattern("   ") is None
    assert pattern("a.b").search("axb") is None
    assert pattern("a.b").search("see A.B here") is not None
    assert pattern("(x+").search("f(x+1)") is not None
    assert pattern("two words").search("two\n   words") is not None  # a soft line break
    assert pattern(" two  words ").pattern == pattern("two words").pattern


def test_hits_are_in_reading_order_numbered_within_each_piece() -> None:
    messages = [["kiwi and Kiwi"], ["no", "one kiwi", "kiwi kiwi"]]
    hits = find_hits(messages, pattern("kiwi"))
    assert [(h.message, h.part, h.start, h.nth) for h in hits] == [
        (0, 0, 0, 0),
        (0, 0, 9, 1),
        (1, 1, 4, 0),
        (1, 2, 0, 0),
        (1, 2, 5, 1),
    ]


def test_stepping_goes_round_the_ends_and_counts() -> None:
    found = Found(find_hits([["a a a"]], pattern("a")))
    assert found.label() == "3 matches"
    assert found.step(-1) == found.hits[2]
    assert found.label() == "3 of 3"
    found.step(1)
    assert found.label() == "1 of 3"
    assert Found().label() == "no matches"
    assert Found().step(1) is None


def test_a_search_starts_from_the_view_and_the_current_match_survives_new_text() -> None:
    texts = [["x"], ["x", "x"], ["x"]]
    found = Found(find_hits(texts, pattern("x")))
    assert found.from_(Hit(1, 0, 0, 0)) == Hit(1, 0, 0, 0)
    assert found.label() == "2 of 4"
    # Text streams on: a new prompt and a match above; the same match stays current.
    texts = [["x x"], ["x", "x"], ["x"], ["x"]]
    found.renew(find_hits(texts, pattern("x")))
    assert found.hit == Hit(1, 0, 0, 0)
    assert found.label() == "3 of 6"
    assert found.from_(Hit(9, 0, 0, 0)) == found.hits[0]  # past the end: from the top


def test_line_spans_find_a_match_wrapped_over_two_lines_once() -> None:
    lines = ["a quick brown", "  fox, brown fox"]
    spans = line_spans(lines, pattern("brown fox"))
    assert spans == {
        0: [Span(8, 13, 0)],
        1: [Span(2, 5, 0), Span(7, 16, 1)],
    }
    assert line_spans(["nothing"], pattern("x")) == {}


class Scanned:
    """A pattern that counts the characters it is given to scan."""

    def __init__(self, inner: re.Pattern[str]) -> None:
        self.inner = inner
        self.chars = 0

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        self.chars += len(text)
        return self.inner.finditer(text)


def conversation(exchanges: int) -> list[list[str]]:
    answer = ["## Part\n\nSome words, one kiwi.\n\n", "```py\nkiwi = 1\n```\n", "More.\n"]
    return [part for _ in range(exchanges) for part in (["a kiwi prompt"], answer)]


def test_the_cost_is_linear_every_character_scanned_once_and_stepping_scans_nothing() -> None:
    for exchanges in (10, 40, 160):
        messages = conversation(exchanges)
        size = sum(len(text) for parts in messages for text in parts)
        scanned = Scanned(pattern("kiwi"))
        found = Found(find_hits(messages, cast(Any, scanned)))
        assert scanned.chars == size  # each character once, however long the conversation
        assert len(found.hits) == 3 * exchanges
        for _ in range(len(found.hits) + 1):
            found.step(1)
        found.renew(found.hits)
        assert scanned.chars == size  # moving from match to match scans nothing again
