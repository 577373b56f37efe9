"""On a wide terminal a chat's prose and prompts are laid out at most `[ui] reading_width`
columns wide (100 by default), left-aligned; 0 lets them use the whole width."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.demo.frames import Answer
from app.ui.widgets.prompt import PromptInput
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider
from tests.ui.helpers import fake_config, make_app, screen_text, send, wait_drawn

WIDE = (160, 40)
ANSWER = Answer(text=tuple(f"answer{i} " for i in range(150)))
PROMPT = " ".join(f"prompt{i}" for i in range(40))


def widest(text: str, word: str) -> tuple[int, int]:
    """(leftmost start, rightmost end) of the screen rows holding `word`, without the
    scrollbar, which stays at the screen's edge."""
    rows = [line[: WIDE[0] - 2].rstrip() for line in text.splitlines() if word in line]
    assert rows, word
    return min(len(r) - len(r.lstrip()) for r in rows), max(len(r) for r in rows)


@pytest.mark.parametrize(("reading_width", "at_most"), [(None, 100), (60, 60), (0, 160)])
async def test_prose_and_prompts_keep_to_the_reading_width(
    fake_provider: FakeProvider, tmp_path: Path, reading_width: int | None, at_most: int
) -> None:
    fake_provider.push(fake.stream(Api.CHAT, ANSWER))
    ui = {} if reading_width is None else {"reading_width": reading_width}
    app = make_app(fake_config(fake_provider, **ui), tmp_path)
    async with app.run_test(size=WIDE) as pilot:
        prompt = app.screen.query_one("#prompt", PromptInput)
        prompt.load_text(PROMPT)  # typed key by key it would take most of the test's time
        await send(pilot, "")
        await wait_drawn(pilot)
        text = screen_text(app)
        for word in ("answer", "prompt"):
            left, right = widest(text, word)
            assert left <= 3  # left-aligned, not centred
            assert right <= at_most, (word, right)
            assert right > at_most - 15, (word, right)  # and the room is used
