"""The sandbox on the tools' side: which policy a shell spawn gets, and the way out of it.

A shell tool asks ``shell_sandbox`` for the spawn of its command: ``None`` when the
workspace has no sandbox, its mode is ``danger-full-access``, or this call was approved
to run outside it (``outside_sandbox``: the approval policy's escalation, for the one
rerun it allows); else the sandboxed spawn, or ``SandboxError`` when the mode cannot be
enforced here (the command is then refused, never run unsandboxed).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dsh.tools._types import ToolResult, Workspace

if TYPE_CHECKING:  # imported when a workspace has a sandbox: a plain run never loads it
    from dsh.base._sandbox import SandboxPolicy, SandboxSpawn
    from dsh.base._sandbox_proxy import Asker

__all__ = [
    "NETWORK_ACCESS",
    "active_sandbox",
    "asking_network",
    "excluded",
    "likely_denied",
    "network_asker",
    "outside_sandbox",
    "sandbox_refusal",
    "shell_sandbox",
]

NETWORK_ACCESS: Final = "SandboxNetworkAccess"
"""The pseudo-tool a sandboxed command's unlisted host is asked about as (2.1.332's name):
here, so the permission policies that name it need not import ``_sandbox_approval``."""

_OUTSIDE: Final[ContextVar[bool]] = ContextVar("dsh_outside_sandbox", default=False)
_ASKER: Final[ContextVar[Asker | None]] = ContextVar("dsh_sandbox_network_asker", default=None)
_COMPOUND: Final = r"[;&|<>`\n]|\$\("  # an operator, a redirection, a substitution


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


@contextmanager
def asking_network(asker: Asker) -> Iterator[None]:
    """Shell spawns in this block ask ``asker`` about a host their sandbox's rules do not list
    (``tools._sandbox_approval.SandboxNetworkApprovals`` sets it around a shell call)."""
    token = _ASKER.set(asker)
    try:
        yield
    finally:
        _ASKER.reset(token)


def network_asker() -> Asker | None:
    """What this call's proxied spawn asks about an unlisted host (``None``: refuse it)."""
    return _ASKER.get()


def excluded(policy: SandboxPolicy, command: str) -> bool:
    """Whether ``command`` is one ``policy`` runs outside the sandbox: a simple command (no
    operator, substitution or redirection a second command could hide behind) whose words
    start with an ``excluded_commands`` entry (``git``, ``docker *``, ``npm run:*``)."""
    if not policy.excluded_commands or re.search(_COMPOUND, command):
        return False
    words = command.split()
    for entry in policy.excluded_commands:
        wanted = entry.removesuffix(":*").removesuffix(" *").removesuffix("*").split()
        if wanted and words[: len(wanted)] == wanted:
            return True
    return False


def shell_sandbox(
    workspace: Workspace,
    argv: Sequence[str],
    cwd: Path,
    extra_writable: Sequence[Path] = (),
    *,
    command: str | None = None,
    unsandboxed: bool = False,
) -> SandboxSpawn | ToolResult | None:
    """The sandboxed spawn of ``argv`` (``None``: it runs as it is), or the error result of a
    command the sandbox cannot run (it must not run at all). ``command`` (the model's command
    line) runs outside when the policy excludes it; ``unsandboxed`` (the call asked to leave
    the sandbox) when the policy lets a call ask."""
    policy = active_sandbox(workspace)
    if policy is None:
        return None
    if command is not None and excluded(policy, command):
        return None
    if unsandboxed and policy.allow_unsandboxed:
        return None
    from dsh.base._sandbox import SandboxError, sandbox_spawn

    project = workspace.project_dir or workspace.cwd
    try:
        return sandbox_spawn(
            policy, argv, cwd=cwd, project=project, env=workspace.env, extra_writable=extra_writable
        )
    except SandboxError as exc:
        return sandbox_refusal(str(exc))


_DENIED_WORDS: Final = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)
_NOT_DENIED: Final = frozenset({2, 126, 127})  # a builtin misused, not executable, not found
_SIGSYS_EXIT: Final = 128 + 31


def likely_denied(returncode: int, output: str) -> bool:
    """Whether a sandboxed command's failure looks like the sandbox's doing, as Codex 0.171
    guesses it (``is_likely_sandbox_denied``): a denial's words in its output, or a death by
    ``SIGSYS`` (the seccomp filter), but never ``2``, ``126`` or ``127`` without the words."""
    if returncode == 0:
        return False
    lower = output.lower()
    if any(word in lower for word in _DENIED_WORDS):
        return True
    return returncode not in _NOT_DENIED and returncode in (_SIGSYS_EXIT, -31)


def sandbox_refusal(why: str) -> ToolResult:
    """The error result of a command the sandbox could not run (it did not run at all)."""
    return ToolResult.error(f"dsh: {why}", info={"sandbox": "unavailable"})
