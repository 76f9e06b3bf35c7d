"""No import circle at run time, anywhere in ``dsh``.

The graph is grimp's (what import-linter checks), without ``TYPE_CHECKING`` imports
(they never run) but with function-level ones (they do). A circle is a strongly
connected set of two or more modules. (Issue 26 found seven; the bridges' rooms,
the session store's error, the config's vocabularies and ``dsh run``'s session
runner in its own subcommand module removed them.)
"""

from __future__ import annotations

from collections.abc import Mapping, Set

import grimp


def circles(imports: Mapping[str, Set[str]]) -> list[frozenset[str]]:
    """The strongly connected sets of two or more modules (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(sorted(imports[root])))]
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(imports.get(nxt, ())))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    members: set[str] = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.add(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(frozenset(members))
    return found


def run_time_imports() -> dict[str, set[str]]:
    graph = grimp.build_graph("dsh", exclude_type_checking_imports=True, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def test_circles_finds_a_circle_and_nothing_else() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert circles(imports) == [frozenset({"a", "b", "c"})]


def test_no_import_circle_at_run_time() -> None:
    found = [sorted(c) for c in circles(run_time_imports())]
    assert found == [], f"import circles in dsh: {found}"
