"""The render clock's pace: never more than 15 frames a second, and however busy the
process, never fewer than one every 250 ms while text arrives; full collections walk only what
streaming made. Counted in periods and generations, never timed."""

from __future__ import annotations

import gc

from textual.app import App

from app.ui.render_clock import MAX_PERIOD, PERIOD, RenderClock, next_period


def test_the_period_stays_between_fifteen_frames_a_second_and_one_every_quarter_second() -> None:
    period = PERIOD
    for _ in range(50):  # the busiest process there is
        period = next_period(period, load=2.0)
    assert period <= 0.25
    for _ in range(50):  # an idle one
        period = next_period(period, load=0.0)
    assert period >= 1 / 15
    assert MAX_PERIOD <= 0.25
    assert PERIOD >= 1 / 15


class Ticking:
    async def flush(self, now: float) -> bool:
        return False


async def test_what_lives_when_the_first_stream_starts_is_kept_out_of_full_collections() -> None:
    app: App[None] = App()
    async with app.run_test():
        clock = RenderClock(app)
        before = gc.get_freeze_count()
        clock.add(Ticking())
        assert gc.get_freeze_count() > before  # the app, its screens and modules
        assert gc.get_threshold()[2] > 1_000_000  # and no automatic full collections meanwhile
        clock.stop()
        assert gc.get_freeze_count() == 0  # back in the collector's sight at exit


async def test_what_survives_each_of_the_clocks_collections_is_kept_out_of_the_next() -> None:
    """Each periodic collection walks only what was made since the last (three long
    answers made it a 450 ms stall every five seconds); the one after the last stream ends
    walks everything once, and leaves it frozen again."""
    from app.ui import render_clock

    app: App[None] = App()
    async with app.run_test() as pilot:
        clock = RenderClock(app)
        drawing = Ticking()
        clock.add(drawing)
        render_clock.trim_position_caches()  # what the collection frees of them is not counted
        frozen = gc.get_freeze_count()
        kept = [[n] for n in range(5000)]  # made while streaming, alive for good
        clock.collect_and_freeze()
        assert gc.get_freeze_count() >= frozen + len(kept)

        clock._live.clear()  # the stream ended
        dead = [[n] for n in range(3000)]
        dead.append(dead)  # a cycle, frozen by the next collection, then dropped
        clock.collect_and_freeze()
        before = gc.get_freeze_count()
        del dead
        clock._idle()
        assert gc.get_threshold()[2] < 1_000_000  # automatic full collections again
        await pilot.pause(render_clock.IDLE_COLLECTION_DELAY + 0.3)
        assert gc.get_freeze_count() < before - 2000  # the frozen cycle was collected
        assert gc.get_freeze_count() > len(kept)  # and the rest is out of sight again
        clock.stop()
        assert gc.get_freeze_count() == 0


async def test_a_short_answer_leaves_the_start_up_heap_frozen() -> None:
    """Nothing was frozen by the clock's own collections: no sweep of everything at the end
    (a full walk of the whole heap, the test process's too, for an answer of a few seconds)."""
    from app.ui import render_clock

    app: App[None] = App()
    async with app.run_test() as pilot:
        clock = RenderClock(app)
        dead: list[object] = [[n] for n in range(3000)]
        dead.append(dead)  # a cycle frozen with the start-up heap, then dropped
        clock.add(Ticking())
        del dead
        frozen = gc.get_freeze_count()
        clock._live.clear()  # the stream ended before the clock's first collection
        clock._idle()
        await pilot.pause(render_clock.IDLE_COLLECTION_DELAY + 0.3)
        assert gc.get_freeze_count() > frozen - 1000  # not swept: the cycle is still frozen
        clock.stop()


async def test_each_collection_empties_the_caches_keyed_on_positions_and_text() -> None:
    """A growing answer moves every region to new coordinates and every line is new text, so
    Textual's and Rich's memo caches of them fill to their bounds with entries never asked for
    again (about 7 MB of the 80 MB target); the clock's collections empty them."""
    from rich.cells import cached_cell_len
    from textual.geometry import Region

    from app.ui.render_clock import POSITION_CACHES

    app: App[None] = App()
    async with app.run_test():
        clock = RenderClock(app)
        clock.add(Ticking())
        for y in range(500):
            Region(0, y, 80, 1).intersection(Region(0, 0, 80, 24))
            cached_cell_len(f"line {y} of the answer")
        assert Region.intersection.cache_info().currsize >= 500
        assert cached_cell_len.cache_info().currsize >= 500
        clock.collect_and_freeze()
        assert all(cache.cache_info().currsize == 0 for cache in POSITION_CACHES)  # type: ignore[attr-defined]
        assert Region(0, 3, 80, 1).intersection(Region(0, 0, 80, 24)) == Region(0, 3, 80, 1)
        clock.stop()
