"""What every ``dsh acp`` session is built from, and the one function that builds its host.

``AcpConfig`` is the process's configuration (the model, where sessions live,
the Claude Code profile's switches); ``session_host_options`` turns it, the
client's ``cwd`` and the session's own seams (the ACP approval channel, the
streaming observers, the session plugin) into the ``HostOptions`` of one
session. It is the only place an ACP session's host is described, so the
configuration loader can be wired in here alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh._frozen import frozen
from dsh.agent import AgentOptions
from dsh.approval import ApprovalService
from dsh.context import Plugin
from dsh.hooks import HookSelection, mount_bridges
from dsh.host import HostOptions, Profile, TrustingProfile
from dsh.models import Model
from dsh.session import SessionEvent

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxPolicy

__all__ = ["AcpConfig", "SessionSeams", "session_host_options", "untrusted_lines"]


@final
@frozen(kw_only=True)
class AcpConfig:
    """How ``dsh acp`` builds its sessions; the same switches as ``dsh run``'s.

    ``hooks`` says which bridges and instruction files load and how, exactly as
    ``dsh run``'s flags do (``dsh.hooks.mount_bridges``, shared by both); a person
    is at the editor, so it is ``attended``. ``plugins`` and ``profiles`` are
    mounted in every session, before the bridges; ``agent`` is how each session's agent
    runs its turns (``--max-steps``).
    """

    model: Model
    session_dir: Path
    agent: AgentOptions = field(default_factory=AgentOptions)
    hooks: HookSelection = field(default_factory=lambda: HookSelection(attended=True))
    trust_projects: bool = False
    """``--trust-project``: trust each session's project hooks as it opens (as accepting
    Claude Code's trust question for it); otherwise the client is asked (the trust
    question, ``session/request_permission``), and declined, untrusted ones are left out
    with a notice naming ``dsh hooks trust``."""
    plugins: Sequence[Plugin] = field(default_factory=tuple)
    profiles: Sequence[Profile] = field(default_factory=tuple)
    resolve_model: Callable[[str], Model] | None = None
    """The model a name selects (``/model NAME``, the ``model`` option); ``None``: the
    session's own model (a scripted run has no other)."""
    models: tuple[str, ...] = ()
    """Model names offered in the ``model`` option, after the session's own."""
    sandbox: SandboxPolicy | None = None
    """The sandbox of the model's commands in every session (dsh's configuration's
    ``sandbox_mode``; ``None``: a bridge's, else none). docs/sandbox.md."""


@final
@frozen(kw_only=True)
class SessionSeams:
    """What one ACP session plugs into its host: who answers asks, and who watches."""

    approval: ApprovalService
    plugin: Plugin
    on_event: Callable[[SessionEvent], None]
    on_text: Callable[[str], None]


def untrusted_lines(config: AcpConfig, project: Path) -> list[str]:
    """``<profile> hooks: <line>`` for each item of ``project``'s a session would leave out
    as untrusted (the trust question's text; empty: nothing to ask)."""
    bridges = mount_bridges(project, config.hooks)
    return [
        f"{profile.name} hooks: {line}"
        for profile in bridges.profiles
        if isinstance(profile, TrustingProfile)
        for line in profile.untrusted(project)
    ]


def session_host_options(
    config: AcpConfig,
    project: Path,
    seams: SessionSeams,
    *,
    resume: str | None = None,
    session_id: str | None = None,
    trust: bool = False,
    mcp_servers: Sequence[Any] = (),
) -> HostOptions:
    """The host of one ACP session: ``project`` is the client's ``cwd``; ``resume`` names the
    session ``session/load`` continues, ``session_id`` a new one's id; ``trust`` (the
    client accepted the trust question) trusts the project first, as ``--trust-project``
    does. Hooks, instruction files and trust are those ``dsh run --project PROJECT`` would
    apply, except that untrusted hooks are left out with a notice (the client was asked)."""
    bridges = mount_bridges(project, config.hooks)
    if config.trust_projects or trust:
        for profile in bridges.profiles:
            if isinstance(profile, TrustingProfile):
                profile.trust(project)
    return HostOptions(
        project=project,
        model=config.model,
        session_dir=config.session_dir,
        resume=resume,
        session_id=session_id,
        plugins=(*config.plugins, *bridges.plugins, seams.plugin),
        profiles=(*config.profiles, *bridges.profiles),
        approval=seams.approval,
        agent=config.agent,
        on_event=seams.on_event,
        on_text=seams.on_text,
        mcp_servers=tuple(mcp_servers),
        sandbox=config.sandbox,
    )
