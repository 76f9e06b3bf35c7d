"""Codex's approval policies over the sandbox: when a shell command asks before it runs,
and when a command the sandbox stopped is offered to run outside it.

``SandboxApprovals(policy)`` is a plugin on two seams, for every tool that runs a shell
command line (``ToolDefinition.shell_command``: ``Bash``, Codex's ``exec_command``):

- ``untrusted``: every such call asks first (``tools/pre-execute`` answers ``ask``), but a
  simple command Codex 0.171 knows to be safe (``ls``, ``cat``, ``git status``...: its
  ``is_known_safe_command`` list);
- ``on-failure``: the call runs in the sandbox; when it fails there, the same question
  goes through the approval seam (``approval/request``, where PermissionRequest hooks
  answer, then the terminal or the ACP client) and, approved, the command runs once more
  outside the sandbox (``outside_sandbox``); refused, the sandboxed failure stands;
- ``on-request``: the model may ask to leave the sandbox (the Bash
  ``dangerouslyDisableSandbox`` field; Codex's ``exec_command`` ``sandbox_permissions``, whose
  question ``dsh.hooks.codex.shell`` puts): that call asks first, and runs outside approved;
- ``never``: nothing asks; such a field is ignored (the policy does not let a call leave).

``SandboxNetworkApprovals`` (a sandbox whose proxy asks about unlisted hosts: Claude Code's
``sandbox.network``) settles such a host through the same seam, as a call of the pseudo-tool
``SandboxNetworkAccess`` with input ``{"host": ...}`` and Claude Code 2.1.332's question
``Allow network connection to HOST?``; an allowed host is not asked about again in the
session (2.1.332's session-allowed hosts), and one question is put for concurrent asks.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Final, Literal, TypeAlias, get_args

from dsh.base import FrozenDict, thaw_json
from dsh.context import Context, Next
from dsh.tools._call_state import CallState
from dsh.tools._channels import EXECUTE, PRE_EXECUTE, ExecuteNext
from dsh.tools._decisions import PreToolDecision
from dsh.tools._identity import ToolCall, ToolExecution
from dsh.tools._phases import ask
from dsh.tools._sandbox import NETWORK_ACCESS, active_sandbox, asking_network, outside_sandbox
from dsh.tools._types import ToolResult

__all__ = [
    "APPROVAL_POLICIES",
    "ApprovalPolicy",
    "SandboxApprovals",
    "SandboxNetworkApprovals",
    "known_safe",
]

ApprovalPolicy: TypeAlias = Literal["untrusted", "on-failure", "on-request", "never"]
APPROVAL_POLICIES: tuple[ApprovalPolicy, ...] = get_args(ApprovalPolicy)

_LEAVE: Final = "dangerouslyDisableSandbox"
_SAFE: Final = frozenset(
    {"cat", "cd", "echo", "false", "grep", "head", "ls", "nl", "pwd", "tail", "true", "wc", "which"}
)
_SAFE_GIT: Final = frozenset({"status", "log", "diff", "show", "branch"})
_COMPOUND: Final = re.compile(r"[;&|<>`\n]|\$\(")


def known_safe(command: str) -> bool:
    """Whether ``command`` is a simple command Codex 0.171 runs without asking under
    ``untrusted`` (its ``is_known_safe_command``: reading commands, read-only ``git``)."""
    if _COMPOUND.search(command):
        return False
    words = command.split()
    if not words:
        return False
    if words[0] == "git":
        return len(words) > 1 and words[1] in _SAFE_GIT
    return words[0] in _SAFE


_RERUN: Final = "the command failed in the sandbox ({mode}); run it again outside the sandbox?"


def _shell(call: ToolCall) -> bool:
    return call.tool is not None and call.tool.shell_command is not None


class SandboxApprovals:
    """The approval policy ``policy`` on the shell tools (see the module)."""

    def __init__(self, policy: ApprovalPolicy) -> None:
        if policy not in APPROVAL_POLICIES:
            raise ValueError(f"approval policy {policy!r} is not one of {APPROVAL_POLICIES}")
        self.policy: ApprovalPolicy = policy
        self._ctx: Context | None = None

    def apply(self, ctx: Context) -> None:
        self._ctx = ctx
        if self.policy in ("untrusted", "on-request"):
            ctx.on(PRE_EXECUTE, self._pre_execute)
        if self.policy == "on-failure":
            ctx.on(EXECUTE, self._execute)

    async def _pre_execute(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        decision = await nxt()
        if not _shell(call) or decision.kind != "allow" or call.tool is None:
            return decision
        command = str(call.arguments.get(call.tool.shell_command or "", ""))
        if self.policy == "untrusted" and not known_safe(command):
            return PreToolDecision.ask(f"approval policy untrusted: run {command}?")
        if self.policy == "on-request" and call.arguments.get(_LEAVE) is True:
            return PreToolDecision.ask(f"{call.name} asks to run outside the sandbox: {command}")
        return decision

    async def _execute(self, ex: ToolExecution, nxt: ExecuteNext) -> ToolResult:
        result = await nxt()
        if self._ctx is None or not _shell(ex.call) or not result.is_error:
            return result
        info = thaw_json(result.info) if result.info is not None else None
        policy = active_sandbox(ex.workspace)
        if policy is None or not isinstance(info, dict) or info.get("sandbox") != policy.mode:
            return result  # not stopped by the sandbox (or run outside it already)
        refused, _ = await ask(self._ctx, ex.call, _RERUN.format(mode=policy.mode), ex.signal)
        if refused is not None:
            return result
        with outside_sandbox():
            return await nxt()


class SandboxNetworkApprovals:
    """Asks, through the approval seam, about a host a shell call's sandboxed command wants
    that the proxy's rules do not list (see the module)."""

    def __init__(self) -> None:
        self._ctx: Context | None = None
        self._allowed: set[tuple[str | None, str]] = set()
        self._pending: dict[tuple[str | None, str], asyncio.Future[bool]] = {}

    def apply(self, ctx: Context) -> None:
        self._ctx = ctx
        ctx.on(EXECUTE, self._execute)

    async def _execute(self, ex: ToolExecution, nxt: ExecuteNext) -> ToolResult:
        if not _shell(ex.call) or active_sandbox(ex.workspace) is None:
            return await nxt()

        async def asker(host: str) -> bool:
            return await self._settle(ex, host)

        with asking_network(asker):
            return await nxt()

    async def _settle(self, ex: ToolExecution, host: str) -> bool:
        agent = ex.call.agent
        key = (agent.session_id if agent is not None else None, host)
        if key in self._allowed:
            return True
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._ask(ex, host))
            self._pending[key] = pending
            pending.add_done_callback(lambda _: self._pending.pop(key, None))
        allowed = await asyncio.shield(pending)
        if allowed:
            self._allowed.add(key)
        return allowed

    async def _ask(self, ex: ToolExecution, host: str) -> bool:
        if self._ctx is None:
            return False
        call = dataclasses.replace(
            ex.call,
            name=NETWORK_ACCESS,
            arguments=FrozenDict({"host": host}),
            tool=None,
            original_arguments=None,
            rewritten_by=(),
            state=CallState(),
        )
        refused, _ = await ask(self._ctx, call, f"Allow network connection to {host}?", ex.signal)
        return refused is None
