"""What the segments of a cut table or list share, so that their pieces line up as one.

A table cut into segments (app/display/segments.py) is drawn at the column widths Rich would
give the whole table, worked out from the largest column measures of all its pieces (each
piece measured when it changes, so the work per append is one piece's); an ordered list's
numbers are as wide as the whole list's. When a wider row arrives or the numbers gain a digit,
the other pieces must be drawn again: `changed` says which tables and lists that concerns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.display.markdown_height import (
    NO_JOINS,
    Joins,
    Measure,
    merge_measures,
    shared_widths,
    wraps_no_cell,
)
from app.display.segments import Carry, Construct


def digits_of(number: int) -> int:
    """The smallest number as wide as `number`: what sizes a list's numbers (only the width
    matters, so the pieces are not drawn again for every new item)."""
    return int(10 ** (len(str(number)) - 1))


@dataclass(slots=True)
class SharedLayout:
    """Per cut table or list: its segments, its pieces' measures, the widths at a width."""

    _members: dict[Construct, list[int]] = field(default_factory=dict)
    _sealed: dict[Construct, tuple[Measure, ...]] = field(default_factory=dict)
    _latest: dict[Construct, tuple[int, tuple[Measure, ...]]] = field(default_factory=dict)
    _widths: dict[tuple[Construct, int], tuple[int, ...] | None] = field(default_factory=dict)
    _shapes: dict[Construct, tuple[object, bool]] = field(default_factory=dict)
    _touched: dict[Construct, None] = field(default_factory=dict)

    def join(self, construct: Construct, index: int) -> None:
        """Segment `index` holds a piece of `construct`."""
        members = self._members.setdefault(construct, [])
        if index not in members[-2:]:
            members.append(index)
        self._touched[construct] = None

    def members(self, construct: Construct) -> list[int]:
        return self._members.get(construct, [])

    def touch(self, construct: Construct) -> None:
        """`construct` may have grown (a list's items)."""
        self._touched[construct] = None

    def measure(self, construct: Construct, index: int, measures: tuple[Measure, ...]) -> None:
        """The columns of a table's piece in segment `index` measure so. Only the latest piece
        changes: when another one is measured, the one before is final and folded in."""
        latest = self._latest.get(construct)
        if latest is not None and latest[0] != index:
            self._sealed[construct] = merge_measures(self._sealed.get(construct, ()), latest[1])
        if latest is None or latest != (index, measures):
            self._latest[construct] = (index, measures)
            for key in [key for key in self._widths if key[0] is construct]:
                del self._widths[key]
        self._touched[construct] = None

    def widths(self, construct: Construct, width: int) -> tuple[int, ...] | None:
        key = (construct, width)
        if key not in self._widths:
            self._widths[key] = shared_widths(self._measures(construct), width)
        return self._widths[key]

    def joins(self, head: Carry | None, tail: Construct | None, width: int) -> Joins:
        """How a segment that continues `head` and whose end `tail` continues is drawn."""
        if head is None and tail is None:
            return NO_JOINS
        head_table = tail_table = None
        head_number = head_last = tail_last = None
        if head is not None:
            construct = head.construct
            if construct.kind == "table":
                head_table = self.widths(construct, width) or ()
            elif construct.kind == "numbers":
                head_number, head_last = head.number, digits_of(construct.last_number)
        if tail is not None:
            if tail.kind == "table":
                tail_table = self.widths(tail, width)
            elif tail.kind == "numbers":
                tail_last = digits_of(tail.last_number)
        return Joins(head_table, tail_table, head_number, head_last, tail_last)

    def changed(self, width: int) -> list[tuple[Construct, bool]]:
        """The tables and lists touched since the last call whose pieces are now drawn
        differently at `width` (wider columns or numbers), each with whether their heights
        may have changed too (not for a table whose cells fit before and after: no cell
        wraps, so no row grows or shrinks)."""
        changed: list[tuple[Construct, bool]] = []
        for construct in self._touched:
            if construct.kind == "table":
                fits = wraps_no_cell(self._measures(construct), width)
                shape: tuple[object, bool] = (self.widths(construct, width), fits)
            elif construct.kind == "numbers":
                shape = (digits_of(construct.last_number), False)
            else:
                continue
            before = self._shapes.get(construct)
            if before is not None and before[0] != shape[0]:
                changed.append((construct, not (before[1] and shape[1])))
            self._shapes[construct] = shape
        self._touched.clear()
        return changed

    def _measures(self, construct: Construct) -> tuple[Measure, ...]:
        latest = self._latest.get(construct)
        measures = self._sealed.get(construct, ())
        return measures if latest is None else merge_measures(measures, latest[1])


__all__ = ["SharedLayout", "digits_of"]
