"""``ToolSearch``: loads deferred tools, as Claude Code 2.1.332's tool of that name does.

Its name, input fields (``query``, ``max_results`` defaulting to 5), output
(``matches``, ``query``, ``total_deferred_tools``), description and result
(one ``tool_reference`` block per match, or ``No matching deferred tools found``)
are 2.1.332's: the recording (conformance case ``task-tools-search``) shows the
input, output and result of a ``select:``; the description and the keyword
ranking are read from the 2.1.332 package. A query is ``select:A,B`` (those
tools, by exact name, else case-insensitively, unknown ones left out), a tool's
exact name, or keywords: each scores a deferred tool by its name's parts
(``TaskCreate``: ``task``, ``create``) and its description's words, a ``+word``
must occur, and the ``max_results`` best with a score are kept. What a match
references is loaded from then on (``dsh.tools._deferred``). Left out, as dsh has
no MCP servers: 2.1.332's MCP prefixes, pending and failed servers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from dsh.messages import Content, ToolReferenceBlock
from dsh.tools._registry import TOOLS
from dsh.tools._types import LazyModel, ToolDefinition, ToolInvocation, ToolResult
from dsh.tools.builtin._common import (
    ArgumentsError,
    parse_arguments,
)
from dsh.tools.builtin._declarations import (
    DEFAULT_MAX_RESULTS,
    TOOL_SEARCH_DEFINITION,
    TOOL_SEARCH_INPUT,
    implement,
)

if TYPE_CHECKING:
    from dsh.tools.builtin._models import ToolSearchInput

__all__ = [
    "TOOL_SEARCH_TOOL",
    "search_tools",
]

_TOOL_SEARCH_INPUT: LazyModel[ToolSearchInput] = TOOL_SEARCH_INPUT
NO_MATCH = "No matching deferred tools found"
# Bounds on what a query may make the search do (a hostile model's query is not unbounded).
MAX_QUERY_CHARS = 1000
MAX_TERMS = 32
MAX_SELECTED = 64

_SELECT = re.compile(r"^select:(.+)$", re.IGNORECASE | re.DOTALL)
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def _name_parts(name: str) -> tuple[list[str], list[str]]:
    """A tool name's fine parts (``TaskCreate``: task, create) and coarse ones (taskcreate)."""
    coarse = [p.lower() for p in re.split(r"[_\-.]+", name) if p]
    fine = [m.lower() for p in re.split(r"[_\-.]+", name) for m in _CAMEL.findall(p)]
    return fine, coarse


def _score(tool: ToolDefinition, terms: Sequence[str]) -> int:
    fine, coarse = _name_parts(tool.name)
    full = tool.name.lower()
    description = tool.description.lower()
    score = 0
    for term in terms:
        if term in fine:
            score += 10
        elif any(term in p for p in fine):
            score += 5
        if term in coarse:
            score += 10
        elif any(term in p for p in coarse):
            score += 3
        if term in full and score == 0:
            score += 3
        if re.search(rf"\b{re.escape(term)}\b", description):
            score += 2
    return score


def _has(tool: ToolDefinition, term: str) -> bool:
    fine, coarse = _name_parts(tool.name)
    return any(term in p for p in (*fine, *coarse)) or bool(
        re.search(rf"\b{re.escape(term)}\b", tool.description.lower())
    )


def _find(name: str, pools: Sequence[Sequence[ToolDefinition]]) -> str | None:
    for pool in pools:
        for tool in pool:
            if tool.name == name:
                return tool.name
    folded = name.lower()
    for pool in pools:
        for tool in pool:
            if tool.name.lower() == folded:
                return tool.name
    return None


def search_tools(
    query: str,
    deferred: Sequence[ToolDefinition],
    everything: Sequence[ToolDefinition],
    max_results: int = DEFAULT_MAX_RESULTS,
) -> list[str]:
    """The names a ToolSearch ``query`` matches: ``select:`` names among every tool (the
    deferred first), else an exact name, else the ``max_results`` best-scored deferred tools."""
    query = query[:MAX_QUERY_CHARS]
    pools = (deferred, everything)
    selected = _SELECT.match(query)
    if selected is not None:
        names = [n.strip() for n in selected.group(1).split(",")][:MAX_SELECTED]
        found = [_find(n, pools) for n in names if n]
        return list(dict.fromkeys(n for n in found if n is not None))
    terms = query.lower().split()[:MAX_TERMS]
    exact = _find(query.strip(), pools) if query.strip() else None
    if exact is not None:
        return [exact]
    required = [t[1:] for t in terms if t.startswith("+") and len(t) > 1]
    ranked = [t for t in terms if not (t.startswith("+") and len(t) > 1)]
    terms = [*required, *ranked] if required else terms
    pool = [d for d in deferred if all(_has(d, t) for t in required)]
    scored = [(s, d.name) for d in pool if (s := _score(d, terms)) > 0]
    scored.sort(key=lambda pair: -pair[0])  # stable: ties keep the registry's order
    return [name for _, name in scored[: max(0, max_results)]]


def present_tool_search(output: dict[str, object]) -> Content:
    """A ToolSearch's result: one ``tool_reference`` per match, as 2.1.332 answers."""
    matches = output["matches"]
    assert isinstance(matches, list)
    if not matches:
        return NO_MATCH
    return tuple(ToolReferenceBlock(str(name)) for name in matches)


async def _run(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_TOOL_SEARCH_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    registry = invocation.ctx.get(TOOLS) if invocation.ctx is not None else None
    everything = registry.definitions() if registry is not None else ()
    deferred = [d for d in everything if d.deferred]
    matches = search_tools(args.query, deferred, everything, args.max_results)
    output: dict[str, object] = {
        "matches": matches,
        "query": args.query,
        "total_deferred_tools": len(deferred),
    }
    return ToolResult.ok(present_tool_search(output), output=output)


TOOL_SEARCH_TOOL = implement(TOOL_SEARCH_DEFINITION, _run, present_tool_search)
