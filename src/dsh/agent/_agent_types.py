"""Agent types: what the ``Agent`` tool can start by ``subagent_type``, and with what.

A bridge (the Claude Code one reads ``.claude/agents/*.md``) provides ``AGENT_TYPES``; the
``Agent`` tool looks the model's ``subagent_type`` up in it and starts the child with that
type's tools, model and system prompt. ``SUBAGENT_MODELS`` is how a type's ``model`` (an
alias such as ``haiku``, or a full name) becomes a ``Model``: the front end that chose the
session's model provides it (``dsh run``: the same endpoint, as ``/model NAME``). Without
it a type's child runs on its parent's model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, final

from dsh._frozen import frozen
from dsh.context import ServiceKey
from dsh.models import Model

if TYPE_CHECKING:
    from dsh.base._worktree import WorktreeSettings

__all__ = [
    "AGENT_TYPES",
    "SUBAGENT_MODELS",
    "WORKTREE_MAKER",
    "WORKTREE_SETTINGS",
    "AgentType",
    "AgentTypes",
]

BUILT_IN: Final = "built-in"


@final
@frozen(kw_only=True)
class AgentType:
    """One agent type: its name and description (what the model is told), the tools it is
    offered (``tools``: only these, ``None``: all; ``disallowed_tools`` never), its model
    (``None``: its parent's, ``"inherit"`` likewise), its permission mode (``None``: the
    session's), its system prompt (``None``: its parent's) and where it was found."""

    name: str
    description: str
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    permission_mode: str | None = None
    prompt: str | None = None
    source: str = BUILT_IN
    path: Path | None = None
    """The file it was read from (``None``: built in)."""
    isolation: str | None = None
    """``"worktree"``: each child runs in a git worktree of its own (``_isolation``)."""

    def offers(self, tool: str) -> bool:
        """Whether a child of this type gets ``tool``."""
        if tool in self.disallowed_tools:
            return False
        return self.tools is None or "*" in self.tools or tool in self.tools

    def offered(self, names: Iterable[str]) -> frozenset[str] | None:
        """The tool names of ``names`` this type gets; ``None`` when it gets them all."""
        if (self.tools is None or "*" in self.tools) and not self.disallowed_tools:
            return None
        return frozenset(n for n in names if self.offers(n))

    def tools_text(self) -> str:
        """``(Tools: …)`` as 2.1.332 lists it: ``*`` for a built-in with every tool, ``All
        tools``, ``All tools except A, B``, the tools left, or ``None``."""
        if self.tools is None or "*" in self.tools:
            if self.disallowed_tools:
                return "All tools except " + ", ".join(self.disallowed_tools)
            return "*" if self.source == BUILT_IN else "All tools"
        left = [t for t in self.tools if t not in self.disallowed_tools]
        return ", ".join(left) if left else "None"


GENERAL_PURPOSE: Final = AgentType(
    name="general-purpose",
    description=(
        "General-purpose agent for researching complex questions, searching for code, and"
        " executing multi-step tasks. When you are searching for a keyword or file and are not"
        " confident that you will find the right match in the first few tries use this agent"
        " to perform the search for you."
    ),
)
"""2.1.332's default type (its description word for word): every tool, the parent's model."""


@final
@frozen
class AgentTypes:
    """The agent types a session offers (``general-purpose`` always among them).

    ``labels`` are type names the ``Agent`` tool takes without a type of their own (a bridge's
    built-in types dsh does not have): the default agent runs under that name, and a refusal
    names them with the others."""

    types: tuple[AgentType, ...] = ()
    labels: tuple[str, ...] = ()

    def all(self) -> tuple[AgentType, ...]:
        """Every type, sorted as 2.1.332 lists them (by name, case aside); the first of a
        name wins, and ``general-purpose`` is there unless a type of that name replaces it."""
        seen: dict[str, AgentType] = {}
        for t in (*self.types, GENERAL_PURPOSE):
            seen.setdefault(t.name, t)
        return tuple(sorted(seen.values(), key=lambda t: t.name.lower()))

    def get(self, name: str) -> AgentType | None:
        found = next((t for t in self.all() if t.name == name), None)
        return GENERAL_PURPOSE if found is None and name in self.labels else found

    def names(self) -> tuple[str, ...]:
        """Every name the ``Agent`` tool takes, types and labels, sorted as 2.1.332 names
        them in a refusal (case aside)."""
        names = {t.name for t in self.all()} | set(self.labels)
        return tuple(sorted(names, key=str.lower))

    def listing(self) -> str:
        """The list 2.1.332 gives the model (in a system message), word for word."""
        rows = "\n".join(
            f"- {t.name}: {t.description} (Tools: {t.tools_text()})" for t in self.all()
        )
        return (
            f"Available agent types for the Agent tool:\n{rows}\n\n"
            "When you launch multiple agents for independent work, send them in a single"
            " message with multiple tool uses so they run concurrently."
        )


AGENT_TYPES: ServiceKey[AgentTypes] = ServiceKey("agent-types")
"""The agent types the ``Agent`` tool offers (none provided: ``general-purpose`` only)."""

SUBAGENT_MODELS: ServiceKey[Callable[[str], Model]] = ServiceKey("subagent-models")
"""A type's ``model`` name to the model its child runs on."""

WORKTREE_MAKER: ServiceKey[Callable[[Any, str], Awaitable[Path]]] = ServiceKey("worktree-maker")
"""What makes an ``isolation: worktree`` subagent's worktree in place of git, given the parent
agent and the worktree's name (``agent-<agent id>``): its path, or ``dsh.base.DshError`` with
the words the caller's model reads. The Claude Code bridge provides it when a WorktreeCreate
hook is declared (2.1.332 runs that hook in place of ``git worktree add``); a worktree made
so is never removed by dsh."""

WORKTREE_SETTINGS: ServiceKey[WorktreeSettings] = ServiceKey("worktree-settings")
"""The ``worktree`` settings (base ref, sparse paths, linked folders) git follows when it
makes an ``isolation: worktree`` subagent's worktree, as for ``--worktree`` (2.1.332 makes
both with one function). The Claude Code bridge provides the settings' ``worktree``; without
it, the defaults."""
