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
"""

from __future__ import annotations

import re
from typing import Final, Literal, TypeAlias, get_args

from dsh.base import thaw_json
from dsh.context import Context, Next
from dsh.tools._channels import EXECUTE, PRE_EXECUTE, ExecuteNext
from dsh.tools._decisions import PreToolDecision
from dsh.tools._identity import ToolCall, ToolExecution
from dsh.tools._phases import ask
from dsh.tools._sandbox import active_sandbox, outside_sandbox
from dsh.tools._types import ToolResult

__all__ = ["APPROVAL_POLICIES", "ApprovalPolicy", "SandboxApprovals", "known_safe"]

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
