"""No module of explorer imports, directly or through others, a module that imports it back;
nor does a package: the pieces side by side in one package (``engine.header``,
``engine.launch``, ``engine.executor``, ...) import each other one way only, so each can be read
knowing only those below it.

The graph holds every import grimp finds, those inside functions too: a lazy import hides a
cycle from the interpreter, not from the reader.
"""

from collections import deque
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent


def import_graph() -> dict[str, set[str]]:
    """Each module of explorer and the modules of explorer it imports."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT))
        graph = grimp.build_graph("explorer", cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of two or more modules (or a module importing itself),
    as one concrete cycle through it: ``[a, b, ..., a]``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges[v]:
                groups.append(group)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return [_shortest_cycle(edges, group) for group in groups]


def _shortest_cycle(edges: dict[str, set[str]], group: set[str]) -> list[str]:
    start = min(group)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges[v] & group):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if w not in came_from:
                came_from[w] = v
                queue.append(w)
    raise AssertionError(f"{sorted(group)} is not a cycle")


def sibling_graph(edges: dict[str, set[str]], package: str) -> dict[str, set[str]]:
    """The pieces directly inside ``package`` (its modules and sub-packages) and, for each, the
    pieces beside it that any module inside it imports."""
    prefix = package + "."

    def piece(module: str) -> str | None:
        if not module.startswith(prefix):
            return None
        return prefix + module[len(prefix) :].split(".")[0]

    pieces: dict[str, set[str]] = {}
    for module, imported in edges.items():
        importer = piece(module)
        if importer is None:
            continue
        pieces.setdefault(importer, set())
        for other in filter(None, map(piece, imported)):
            pieces.setdefault(other, set())
            if other != importer:
                pieces[importer].add(other)
    return pieces


def packages(edges: dict[str, set[str]], under: str) -> list[str]:
    """``under`` and every package below it."""
    return sorted({m.rsplit(".", 1)[0] for m in edges if m.startswith(under + ".")} | {under})


def test_cycles_are_found_and_named():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert sorted(cycles(edges)) == [["a", "b", "c", "a"], ["e", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_pieces_of_a_package_are_its_children_with_their_imports():
    edges = {
        "p": set(),
        "p.a": set(),
        "p.a.x": {"p.b.y"},
        "p.b": set(),
        "p.b.y": {"p.a", "q"},
        "p.c": {"p.a.x"},
        "q": set(),
    }
    assert sibling_graph(edges, "p") == {"p.a": {"p.b"}, "p.b": {"p.a"}, "p.c": {"p.a"}}
    assert cycles(sibling_graph(edges, "p")) == [["p.a", "p.b", "p.a"]]
    assert packages(edges, "p") == ["p", "p.a", "p.b"]


def test_the_graph_is_explorer():
    edges = import_graph()
    assert "explorer.selection" in edges["explorer.cli.run"]
    assert "explorer.engine.executor" in edges["explorer.cli.run"]


def test_no_import_cycle():
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" → ".join(c) for c in found)


def test_no_package_cycle_in_the_engine():
    """header, launch, measure, record, executor, remote and the rest: each imports only
    pieces that never import it back, at every depth of the engine."""
    edges = import_graph()
    assert "explorer.engine.launch" in packages(edges, "explorer.engine")
    engine = sibling_graph(edges, "explorer.engine")
    assert {"explorer.engine.header", "explorer.engine.launch", "explorer.engine.record"} <= set(
        engine
    )
    found = [
        c
        for package in packages(edges, "explorer.engine")
        for c in cycles(sibling_graph(edges, package))
    ]
    assert found == [], "package cycles: " + "; ".join(" → ".join(c) for c in found)
