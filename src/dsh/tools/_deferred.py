"""Deferred tools: which registered tools the model is offered, given the history.

Claude Code 2.1.332 offers its rarer tools deferred: it names them to the model and leaves
their schemas out until a ToolSearch call loads them, which ToolSearch answers with
``tool_reference`` blocks. So a deferred tool is loaded once a tool result in the history
references it: the projection says so, with nothing kept on the side (a resumed session has
what its log has; a compaction that summarizes the result away unloads the tool again, to be
searched for anew). ToolSearch itself is offered only while some registered tool is deferred.
A deferred tool called before it is loaded still runs, as in Claude Code.
"""

from __future__ import annotations

from collections.abc import Iterable

from dsh.messages import ModelMessage, ToolResultMessage
from dsh.messages._messages import referenced_tools
from dsh.tools._types import ToolDefinition

__all__ = ["TOOL_SEARCH", "deferred_announcement", "loaded_tools", "offered_tools"]

TOOL_SEARCH = "ToolSearch"
"""Claude Code's name of the tool that loads deferred tools."""


def loaded_tools(messages: Iterable[ModelMessage]) -> frozenset[str]:
    """The tools the history's tool results reference: the deferred ones among them are loaded."""
    names: set[str] = set()
    for message in messages:
        if isinstance(message, ToolResultMessage) and not isinstance(message.content, str):
            names.update(referenced_tools(message.content))
    return frozenset(names)


def offered_tools(
    definitions: Iterable[ToolDefinition], messages: Iterable[ModelMessage]
) -> tuple[ToolDefinition, ...]:
    """The tools a request with ``messages`` offers: every tool not deferred, and the deferred
    ones the messages loaded; ToolSearch only when some tool is deferred. Without a ToolSearch
    to load them, deferred tools are offered like the others."""
    tools = tuple(definitions)
    deferred = any(d.deferred for d in tools)
    searchable = deferred and any(d.name == TOOL_SEARCH for d in tools)
    if not searchable:
        return tuple(d for d in tools if d.name != TOOL_SEARCH or deferred)
    loaded = loaded_tools(messages)
    return tuple(d for d in tools if not d.deferred or d.name in loaded)


def deferred_announcement(definitions: Iterable[ToolDefinition]) -> str | None:
    """What tells the model which tools ToolSearch can load (2.1.332's wording), or None
    when no tool is deferred or there is no ToolSearch to load them with.

    Every deferred tool is named, loaded or not, so the text stays the same all session long
    (a prompt cache keeps it); in name order, as 2.1.332 lists them."""
    tools = tuple(definitions)
    names = sorted(d.name for d in tools if d.deferred)
    if not names or all(d.name != TOOL_SEARCH for d in tools):
        return None
    return (
        f"The following deferred tools are now available via {TOOL_SEARCH}. Their schemas are"
        " NOT loaded \u2014 calling them directly will fail with InputValidationError. Use"
        f' {TOOL_SEARCH} with query "select:<name>[,<name>...]" to load tool schemas before'
        " calling them:\n" + "\n".join(names)
    )
