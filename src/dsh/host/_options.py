"""``HostOptions``: everything a host is built from, as one typed value."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.agent import AgentOptions
from dsh.approval import ApprovalBroker, ApprovalService
from dsh.base import FrozenDict
from dsh.context import Plugin
from dsh.host._profile import Profile
from dsh.host._system_prompt import SystemPrompt
from dsh.models import Model
from dsh.session import SessionEvent, SessionStore

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy
    from dsh.mcp import McpServer

__all__ = ["HostOptions"]


@final
@frozen(kw_only=True)
class HostOptions:
    """How to build a host: the project, the model, where sessions live, what to mount.

    The session is new unless ``resume`` (continue that session) or ``fork`` (a
    new session starting from a copy of that one) names one. ``store`` wins
    over ``session_dir`` (a JSONL store there; default: ``$DSH_DATA_DIR`` or
    the user data directory). ``plugins`` are mounted in order, then each of
    ``profiles``. The built-in tools come with the ``Agent`` tool unless
    ``subagents`` is false. ``approval`` is the ``APPROVAL`` service: by default a broker
    with no channel (nobody can answer an ask, so it is denied, after the
    ``approval/request`` listeners, PermissionRequest hooks among them, had
    their say); ``None`` provides none. ``agent`` is how each agent runs its
    turns (the step limit, the compaction budget, ...); ``system`` the prompt it
    is sent; ``on_event`` and ``on_text`` watch it. ``environment`` is a
    ``[shell_environment_policy]`` table (Codex's vocabulary, ``dsh.base.EnvironmentPolicy``)
    over dsh's defaults and what a profile's configuration says (Codex's ``config.toml``):
    the environment of every process the model drives. ``mcp_servers`` are MCP servers the
    session starts beside those its profiles configure (``--mcp-config`` servers come through
    the Claude Code profile; an ACP client's ``mcpServers`` come here); ``dsh.mcp``.
    """

    project: Path
    model: Model
    session_dir: Path | None = None
    store: SessionStore | None = None
    resume: str | None = None
    fork: str | None = None
    session_id: str | None = None
    """A new session's id, chosen before the host opens (an ACP session asks its client
    about trust under it first); default: a fresh one."""
    plugins: Sequence[Plugin] = ()
    profiles: Sequence[Profile] = ()
    builtin_tools: bool = True
    approval: ApprovalService | None = field(default_factory=ApprovalBroker)
    agent: AgentOptions = field(default_factory=AgentOptions)
    system: str | SystemPrompt | None = field(default_factory=SystemPrompt)
    """A ``SystemPrompt`` (default: dsh's coding-agent prompt and the environment block,
    rendered per agent), a string sent as it is, or ``None`` for no system prompt."""
    subagents: bool = True
    """Offer the ``Agent`` tool (subagents) with the built-in tools."""
    on_event: Callable[[SessionEvent], None] | None = None
    on_text: Callable[[str], None] | None = None
    environment: Mapping[str, Any] = field(default_factory=FrozenDict)
    mcp_servers: Sequence[McpServer] = ()
    sandbox: SandboxPolicy | None = None
    """The sandbox of every process the model drives (``dsh.base._sandbox``; ``None``: none,
    unless a profile's configuration gives one: Codex's ``sandbox_mode``)."""

    def __post_init__(self) -> None:
        if self.resume is not None and self.fork is not None:
            raise ValueError("HostOptions: resume and fork exclude each other")
        if self.session_id is not None and (self.resume is not None or self.fork is not None):
            raise ValueError("HostOptions: session_id names a new session, not resume or fork")
