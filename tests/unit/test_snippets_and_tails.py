"""Small text helpers behind the history list and the collapsed reasoning pane: a search
snippet shown without Markdown marks, and a one-line reasoning tail that starts at a word."""

from __future__ import annotations

from app.compare.stats import PaneStats
from app.compare.status import pane_status_segments
from app.display.open_marks import close_open_marks
from app.display.plain_text import plain_snippet
from app.display.turn_watch import TurnWatch
from app.ui.widgets.reasoning import last_line
from app.wire.turn import Turn, TurnStatus


def test_snippet_loses_headings_emphasis_code_and_bullets() -> None:
    text = "## Ethylene **gas**, mostly `C2H4` and __more__ *of it* - one - two * three + four"
    assert plain_snippet(text) == "Ethylene gas, mostly C2H4 and more of it one two three four"


def test_snippet_links_and_images_keep_their_words() -> None:
    text = "See [the wiki](https://example.org/a_(b)) and ![a diagram](x.png) or <https://x.org>"
    assert plain_snippet(text) == "See the wiki and a diagram or https://x.org"


def test_snippet_fences_quotes_and_rules_go() -> None:
    text = "Try this: ```python def f(): pass ``` > quoted --- *** end ~~old~~"
    assert plain_snippet(text) == "Try this: def f(): pass quoted end old"


def test_snippet_cut_mid_construct_and_multiline() -> None:
    assert plain_snippet("…the **bold start") == "…the bold start"
    assert plain_snippet("a link [cut](https://exa…") == "a link cut"
    assert plain_snippet("# Title\n\n1. first\n- second\n> third") == "Title 1. first second third"


def test_snippet_keeps_what_is_not_markdown() -> None:
    for text in ("snake_case_name and __init__", "2*3 = 6, a*b", "C# and F#", "100%"):
        kept = plain_snippet(text)
        assert kept.replace(" ", "")[:3] == text.replace(" ", "")[:3]
    assert plain_snippet("snake_case_name") == "snake_case_name"
    assert plain_snippet("2*3 = 6") == "2*3 = 6"
    assert plain_snippet("C# and F#") == "C# and F#"


def test_reasoning_tail_starts_at_a_word() -> None:
    text = "first line\n" + "alpha beta gamma delta epsilon zeta eta theta"
    for width in range(8, 40):
        tail = last_line(text, width)
        assert len(tail) <= width
        assert tail.startswith("…")
        body = tail[1:]
        assert text.endswith(body)
        assert text[len(text) - len(body) - 1] == " ", (width, tail)  # cut before a word
    assert last_line("short line", 40) == "short line"
    # one word longer than the tail: nothing to cut at, keep its end
    assert last_line("x" * 50, 10) == "…" + "x" * 9


def test_a_waiting_compare_pane_shows_the_time_waited() -> None:
    watch = TurnWatch(started=100.0)
    stats = PaneStats(
        label="p",
        status=TurnStatus.STREAMING,
        ttft=None,
        duration=None,
        rate=None,
        usage=None,
        finish_reason=None,
        cost=None,
    )
    words = [text for text, _ in pane_status_segments(stats, Turn(), watch, now=102.5)]
    assert words[0] == "waiting"
    assert "total 2.50s" in words  # labelled: the time so far


def test_open_marks_are_closed_only_where_they_open_a_word() -> None:
    cases = {
        "_demo: offline ": "_demo: offline_",
        "Streamed as **real": "Streamed as **real**",
        "Call `print": "Call `print`",
        "***both": "***both***",
        "# Head\n\nsome ~~old": "# Head\n\nsome ~~old~~",
        "a mark with no words yet **": "a mark with no words yet ",
    }
    for source, drawn in cases.items():
        assert close_open_marks(source) == drawn
    for kept in ("a **b** c", "snake_case", "2*3", "- item\n- it", "```py\nx = _a", "__init__"):
        assert close_open_marks(kept) == kept
