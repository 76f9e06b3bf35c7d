"""The sandbox on the tools' side: which policy a shell spawn gets, and the way out of it.

A shell tool asks ``shell_sandbox`` for the spawn of its command: ``None`` when the
workspace has no sandbox, its mode is ``danger-full-access``, or this call was approved
to run outside it (``outside_sandbox``: the approval policy's escalation, for the one
rerun it allows); else the sandboxed spawn, or ``SandboxError`` when the mode cannot be
enforced here (the command is then refused, never run unsandboxed).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Final

from dsh.base._sandbox import SandboxError, SandboxPolicy, SandboxSpawn, sandbox_spawn
from dsh.tools._types import ToolResult, Workspace

__all__ = ["active_sandbox", "outside_sandbox", "sandbox_refusal", "shell_sandbox"]

_OUTSIDE: Final[ContextVar[bool]] = ContextVar("dsh_outside_sandbox", default=False)


def active_sandbox(workspace: Workspace) -> SandboxPolicy | None:
    """The policy this call's shell spawns run under (``None``: none)."""
    policy = workspace.sandbox
    if policy is None or not policy.sandboxed or _OUTSIDE.get():
        return None
    return policy


@contextmanager
def outside_sandbox() -> Iterator[None]:
    """Shell spawns in this block (this task and what it awaits) run outside the sandbox."""
    token = _OUTSIDE.set(True)
    try:
        yield
    finally:
        _OUTSIDE.reset(token)


def shell_sandbox(
    workspace: Workspace, argv: Sequence[str], cwd: Path, extra_writable: Sequence[Path] = ()
) -> SandboxSpawn | None:
    """The sandboxed spawn of ``argv`` (``None``: it runs as it is); ``SandboxError`` when
    the sandbox cannot be applied."""
    policy = active_sandbox(workspace)
    if policy is None:
        return None
    project = workspace.project_dir or workspace.cwd
    return sandbox_spawn(
        policy, argv, cwd=cwd, project=project, env=workspace.env, extra_writable=extra_writable
    )


def sandbox_refusal(exc: SandboxError) -> ToolResult:
    """The error result of a command the sandbox could not run (it did not run at all)."""
    return ToolResult.error(f"dsh: {exc}", info={"sandbox": "unavailable"})
