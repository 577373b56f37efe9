"""Find benchmark: what Ctrl+F costs in a 20,000-token conversation, and whether it stays linear.

The app runs headless in this process (Textual's test driver, the real TriptychApp), its
answers streamed over loopback HTTP by the tests' fake provider (real SSE, one token per
event): `--exchanges` prompts, their answers `--tokens` tokens in all (Markdown sections of
prose, a list and a code block; the segments far from the view asleep, as in use). Then:

- floor:   one `re.finditer` over the whole conversation's text joined in one string (the
           reference: what finding the word costs with no app around it);
- search:  the find bar's search (every message's text collected and scanned, the matches
           highlighted in every message drawn, the count), best of `--repeat`;
- recount: the count again after the text changed (as while an answer streams);
- jump:    n to the next match, in the first answer, far above and asleep, until it is drawn
           and in view (wall time), and to the match after it;
- stall:   the longest the event loop was held at once during all of that (a 2 ms ticker in
           the loop), against the issue's 100 ms;
- undrawn: the same conversation reopened from the history (only its end drawn): search, and
           the jump that draws its start down to the first answer's match.

Search and floor are also taken at a quarter and a half of the conversation: the ratio staying
flat is the cost staying linear. Not part of the test run.

    .venv/bin/python bench/bench_find.py [--tokens 20000] [--exchanges 10] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.frames import Answer
from app.demo.samples import pieces
from app.settings.config import Config, UiSettings
from app.ui.app import TriptychApp
from app.ui.widgets.assistant_turn import AssistantTurn
from app.ui.widgets.find_bar import FindBar, parts_of, stored_parts
from app.wire.engine import Api
from tests.fakes import provider as fake
from tests.fakes.provider import FakeProvider

RARE = "zanzibar"  # once, in the first answer
COMMON = "kiwi"  # once in every section of every answer
SIZE = (120, 40)
TICK = 0.002


def answer_text(tokens: int, first: bool) -> str:
    """About `tokens` words of Markdown sections; the rare word in the first answer's third."""
    section = 0
    parts: list[str] = []
    words = 0
    while words < tokens:
        prose = " ".join(f"word{i}" for i in range(50))
        rare = f" {RARE}" if first and section == 2 else ""
        parts.append(
            f"## Section {section}\n\n{prose} {COMMON}{rare}.\n\n- point one\n- point two\n\n"
            f"```python\nvalue_{section} = {section}\nprint(value_{section})\n```\n\n"
        )
        words += 70
        section += 1
    return "".join(parts)


class Stalls:
    """The longest the event loop was held at once, from a ticker running in it: as the
    processor time the loop spent between two ticks (what a stall costs on an idle machine; the
    shared benchmark machine stretches wall time by its load) and as wall time."""

    def __init__(self) -> None:
        self.longest = 0.0  # processor time
        self.longest_wall = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            start, cpu = time.perf_counter(), time.thread_time()
            await asyncio.sleep(TICK)
            self.longest = max(self.longest, time.thread_time() - cpu)
            self.longest_wall = max(self.longest_wall, time.perf_counter() - start - TICK)

    def __enter__(self) -> Stalls:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        return self

    def __exit__(self, *_: object) -> None:
        if self._task is not None:
            self._task.cancel()


async def until(pilot: Any, predicate: Callable[[], object], timeout: float = 60.0) -> float:
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout:
            raise TimeoutError("the benchmark's condition never came")
        await pilot.pause(0.005)
    return time.perf_counter() - start


def best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def conversation_text(bar: FindBar) -> str:
    texts = [text for message in bar._earlier for text in stored_parts(message)]
    texts += [text for widget in bar._messages for text in parts_of(widget)]
    return "\n".join(texts)


def in_view(bar: FindBar) -> bool:
    """The current match is drawn, highlighted as current, and inside the transcript."""
    hit, pane = bar.found.hit, bar.pane
    number = -1 if hit is None else hit.message - len(bar._earlier)
    if hit is None or pane is None or not 0 <= number < len(bar._messages):
        return False
    widget = bar._messages[number]
    segments = getattr(getattr(widget, "answer", None), "segments", None)
    if segments is None:
        return bool(widget.region.overlaps(pane.transcript.region))
    segment = segments[hit.part]
    find = getattr(segment, "find", None)
    if find is None or find.current != hit.nth or not segment.region:
        return False
    row = segment.region.y + segment.found_rows()[hit.nth]
    view = pane.transcript.region
    return view.y <= row < view.bottom


async def open_bar(pilot: Any, app: TriptychApp) -> FindBar:
    await pilot.press("ctrl+f")
    return app.screen.query_one(FindBar)


def scaling(bar: FindBar, repeat: int) -> list[tuple[int, float, float]]:
    """Search against the floor on the first quarter, half and all of the conversation."""
    rows = []
    messages = bar._messages
    pattern = re.compile(COMMON, re.IGNORECASE)
    for share in (4, 2, 1):
        bar._messages = messages[: max(2, len(messages) // share)]
        text = conversation_text(bar)
        floor = best(repeat, lambda text=text: sum(1 for _ in pattern.finditer(text)))
        bar.pattern = pattern
        search = best(repeat, bar._find)
        rows.append((len(text), floor, search))
    bar._messages = messages
    return rows


async def live(args: argparse.Namespace, data: Path) -> None:
    provider = FakeProvider()
    config = Config(
        path=None,
        default="fake",
        providers={"fake": provider.provider(Api.CHAT, name="fake", model="m")},
        ui=UiSettings(),
    )
    app = TriptychApp(
        config, state_file=data / "state.toml", themes_dir=data / "themes", history_file=data / "h"
    )
    per_answer = args.tokens // args.exchanges
    async with app.run_test(size=SIZE) as pilot:
        for number in range(args.exchanges):
            text = answer_text(per_answer, number == 0)
            provider.push(fake.stream(Api.CHAT, Answer(text=pieces(text))))
            app.screen.query_one("#prompt").focus()
            await pilot.press(*f"question {number}", "enter")
            await until(pilot, lambda: app.pane.current is not None and app.pane.current.drawn)
        await pilot.pause(0.3)
        answers = app.pane.transcript.query(AssistantTurn)
        tokens = sum(len(pieces(widget.answer.source)) for widget in answers)
        phases: dict[str, Stalls] = {}
        with Stalls() as phases["the word typed into the prompt (reference)"]:
            await pilot.press(*COMMON)
            await pilot.pause(0.2)
        bar = await open_bar(pilot, app)
        with Stalls() as phases["the word typed into the find bar"]:
            for key in COMMON:  # searched as typed
                await pilot.press(key)
                await until(pilot, lambda: in_view(bar))
            await pilot.pause(0.2)
        with Stalls() as phases["counted again (text grew)"]:
            start = time.perf_counter()
            bar._searched = -1  # as if an answer had grown
            bar.recount()
            recount = time.perf_counter() - start
            await pilot.pause(0.2)
        with Stalls() as phases["jump to the first answer (asleep)"]:
            bar.query_input.value = RARE
            await until(pilot, lambda: bar.found.hits and str(bar.count.content) == "1 of 1")
            jump_far = await until(pilot, lambda: in_view(bar))
            await pilot.pause(0.2)
        bar.query_input.value = COMMON
        await until(pilot, lambda: in_view(bar))
        bar.focus()
        with Stalls() as phases["n: the next match"]:
            await pilot.press("n")
            jump_next = await until(pilot, lambda: in_view(bar))
            await pilot.pause(0.2)
        text = conversation_text(bar)
        floor_pattern = re.compile(COMMON, re.IGNORECASE)
        floor = best(args.repeat, lambda: sum(1 for _ in floor_pattern.finditer(text)))
        search = best(args.repeat, lambda: bar.search(COMMON))
        count = len(bar.found.hits)
        print(
            f"live: {args.exchanges} exchanges, {tokens:,} answer tokens, {len(text):,} chars, "
            f"{count} matches of {COMMON!r}"
        )
        print(f"  floor (re.finditer over the joined text)  {floor * 1000:8.2f} ms")
        print(f"  search (collect, scan, highlight, count)  {search * 1000:8.2f} ms"
              f" = {search / floor:.1f}x the floor")  # fmt: skip
        print(f"  counted again                             {recount * 1000:8.2f} ms")
        print(f"  jump to the first answer (asleep), wall   {jump_far * 1000:8.1f} ms")
        print(f"  n to the next match, wall                 {jump_next * 1000:8.1f} ms")
        print("  longest stall of the event loop (processor ms, wall ms; target < 100):")
        for name, stalls in phases.items():
            print(f"    {name:<45} {stalls.longest * 1000:7.1f} {stalls.longest_wall * 1000:7.1f}")
        print("  linear: search against the floor on a quarter, a half and all of it")
        for chars, low, high in scaling(bar, args.repeat):
            print(f"    {chars:>9,} chars  {low * 1000:6.2f} ms  {high * 1000:6.2f} ms  "
                  f"{high / low:4.1f}x")  # fmt: skip
    provider.close()


def reopened_app(data: Path) -> tuple[TriptychApp, FakeProvider]:
    provider = FakeProvider()
    config = Config(
        path=None,
        default="fake",
        providers={"fake": provider.provider(Api.CHAT, name="fake", model="m")},
        ui=UiSettings(),
    )
    app = TriptychApp(
        config,
        state_file=data / "state.toml",
        themes_dir=data / "themes",
        history_file=data / "h",
        continue_last=True,
    )
    return app, provider


async def reopened(data: Path) -> None:
    """The conversation reopened: drawn whole with its button's batches (the reference),
    then, in a new start of the app, found and jumped to from the find bar."""
    app, provider = reopened_app(data)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pane.earlier)
        provider.close()
        await pilot.pause(0.3)
        undrawn = len(app.pane.earlier)
        with Stalls() as button:
            start = time.perf_counter()
            while app.pane.earlier:
                await app.pane.draw_earlier()
                await pilot.pause()
            drawn = time.perf_counter() - start
    app, provider = reopened_app(data)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.pane.earlier)
        provider.close()
        await pilot.pause(0.3)
        bar = await open_bar(pilot, app)
        with Stalls() as stalls:
            start = time.perf_counter()
            bar.query_input.value = RARE  # as typed at once (pasted)
            bar.search(RARE)
            search = time.perf_counter() - start
            jump = await until(pilot, lambda: in_view(bar), 300)
    print(f"reopened: {undrawn} stored messages not drawn at first")
    print(f"  search                                    {search * 1000:8.2f} ms")
    print(f"  drawn whole by its button (reference), wall {drawn * 1000:6.1f} ms")
    print(f"  jump into the undrawn start, wall         {jump * 1000:8.1f} ms")
    print("  longest stall (processor ms, wall ms; target < 100):")
    print(f"    {'the button, batch after batch (reference)':<45} {button.longest * 1000:7.1f} "
          f"{button.longest_wall * 1000:7.1f}")  # fmt: skip
    print(f"    {'the find bar drawing down to the match':<45} {stalls.longest * 1000:7.1f} "
          f"{stalls.longest_wall * 1000:7.1f}")  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--exchanges", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)  # the live run's history is the one reopened
        asyncio.run(live(args, data))
        asyncio.run(reopened(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
