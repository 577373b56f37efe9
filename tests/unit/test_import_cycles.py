"""No import cycle among the modules of `app/`, counting every import the source holds: those
inside functions and under `TYPE_CHECKING` too. import-linter's contracts check the
direction of imports between named layers; this checks every module against every other, so a
circle hidden behind a deferred import (how the UI's circle ran before) fails here."""

from __future__ import annotations

import grimp


def import_cycles(package: str) -> list[list[str]]:
    """The strongly connected groups of more than one module (and modules importing themselves)
    in `package`'s import graph, as grimp reads it from the source (every import statement)."""
    graph = grimp.build_graph(package, include_external_packages=False)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm; the graph is ~100 modules deep at most
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in edges[module]:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in edges[module]:
                groups.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return sorted(groups)


def test_no_import_cycle_among_the_modules_of_app() -> None:
    assert import_cycles("app") == []
