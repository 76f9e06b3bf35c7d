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
from typing import final

from dsh._frozen import frozen
from dsh.agent import AgentOptions
from dsh.approval import ApprovalService
from dsh.context import Plugin
from dsh.hooks import HookSelection, mount_bridges
from dsh.host import HostOptions, Profile, TrustingProfile
from dsh.models import Model
from dsh.session import SessionEvent

__all__ = ["AcpConfig", "SessionSeams", "session_host_options"]


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
    Claude Code's trust question for it); otherwise untrusted ones are left out, with a
    notice naming ``dsh hooks trust``."""
    plugins: Sequence[Plugin] = field(default_factory=tuple)
    profiles: Sequence[Profile] = field(default_factory=tuple)


@final
@frozen(kw_only=True)
class SessionSeams:
    """What one ACP session plugs into its host: who answers asks, and who watches."""

    approval: ApprovalService
    plugin: Plugin
    on_event: Callable[[SessionEvent], None]
    on_text: Callable[[str], None]


def session_host_options(
    config: AcpConfig, project: Path, seams: SessionSeams, *, resume: str | None = None
) -> HostOptions:
    """The host of one ACP session: ``project`` is the client's ``cwd``; ``resume`` names the
    session ``session/load`` continues. Hooks, instruction files and trust are those
    ``dsh run --project PROJECT`` would apply."""
    bridges = mount_bridges(project, config.hooks)
    if config.trust_projects:
        for profile in bridges.profiles:
            if isinstance(profile, TrustingProfile):
                profile.trust(project)
    return HostOptions(
        project=project,
        model=config.model,
        session_dir=config.session_dir,
        resume=resume,
        plugins=(*config.plugins, *bridges.plugins, seams.plugin),
        profiles=(*config.profiles, *bridges.profiles),
        approval=seams.approval,
        agent=config.agent,
        on_event=seams.on_event,
        on_text=seams.on_text,
    )
