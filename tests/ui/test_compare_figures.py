"""One set of figures in a comparison: each pane's TTFT, duration and tok/s are the client's
(from the request going out, as the inspector's timeline measures them), so the pane's status
line, the ranking, the timeline row under it and the history say the same numbers. They once
said 0.69 / 0.49 / 0.58 s in the panes and 403 / 399 / 507 ms on the timeline for the same
answers: the panes timed from the prompt, before the client was made and the history written.
Real app, three fake providers over loopback HTTP (one per format), a history file."""

from __future__ import annotations

import re
from pathlib import Path

from app.display.speed import format_seconds
from app.ui.screens.compare_wire import visible_rows
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.compare_helpers import (
    NAMES,
    all_drawn,
    answer,
    ask,
    compare_screen,
    config_for,
    load_last,
)
from tests.ui.helpers import make_app, wait_until

WIDE = (200, 50)


def ranked(ranking: str, figure: str) -> dict[str, str]:
    """{"cc": "403 ms", ...} from the ranking's part for `figure`."""
    part = next(p for p in ranking.split(" · ") if p.startswith(f"{figure}: "))
    order = re.split(r" › | = ", part.removeprefix(f"{figure}: "))
    return {entry.split(" ", 1)[0]: entry.split(" ", 1)[1] for entry in order}


async def test_panes_ranking_timeline_and_history_give_one_ttft(
    fakes: dict[Api, FakeProvider], tmp_path: Path
) -> None:
    db = tmp_path / "history.sqlite3"
    for n, (api, name) in enumerate(NAMES.items()):
        pieces = tuple(f"{name}{i} " for i in range(12))
        fakes[api].push(fake.stream(api, answer(*pieces), delay=0.03 + n * 0.01))
    app = make_app(config_for(fakes), tmp_path, history_file=db, compare=list(NAMES.values()))
    async with app.run_test(size=WIDE) as pilot:
        screen = compare_screen(app)
        await pilot.press("f4")  # the timeline rows
        await ask(pilot, "count")
        await all_drawn(pilot)
        await wait_until(pilot, lambda: screen.ranking.display, what="the ranking")
        screen.draw_timelines()
        await pilot.pause()
        rows = visible_rows(screen.panes)
        assert len(rows) == 3
        ranking = screen.ranking.text
        firsts, totals = ranked(ranking, "first token"), ranked(ranking, "total")
        shown: dict[str, tuple[int, str, str]] = {}
        for pane, row in zip(screen.panes, rows, strict=True):
            status = pane.status_bar.plain
            ttft = row.timeline.figures().ttft_ms
            assert ttft is not None
            assert f"TTFT {ttft} ms" in status, (status, ttft)
            assert firsts[pane.label] == f"{ttft} ms"
            total = next(t for t, _ in pane.status_bar.segments if t.startswith("total "))
            assert total == f"total {totals[pane.label]}"
            rate = next(t for t, _ in pane.status_bar.segments if t.endswith("tok/s"))
            figures = row.timeline.figures()
            assert figures.tokens_per_second is not None
            assert rate == f"{figures.tokens_per_second:.1f} tok/s", (rate, figures)
            shown[pane.label] = (ttft, total, rate)
    stored = load_last(db)
    answers = {m.provider: m for m in stored.messages if m.role == "assistant"}
    assert set(answers) == set(shown)
    for name, (ttft, total, _rate) in shown.items():
        assert answers[name].ttft_ms == ttft
        duration = answers[name].duration_ms
        assert duration is not None
        assert total == f"total {format_seconds(duration / 1000)}"
