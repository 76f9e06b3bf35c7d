"""Codex's approval policies over the sandbox: when a shell command asks before it runs,
and when a command the sandbox stopped is offered to run outside it.

``SandboxApprovals(policy)`` is a plugin on two seams, for every tool that runs a shell
command line (``ToolDefinition.shell_command``: ``Bash``, Codex's ``exec_command``):

- ``untrusted``: every such call asks first (``tools/pre-execute`` answers ``ask``);
- ``on-failure``: the call runs in the sandbox; when it fails there, the same question
  goes through the approval seam (``approval/request``, where PermissionRequest hooks
  answer, then the terminal or the ACP client) and, approved, the command runs once more
  outside the sandbox (``outside_sandbox``); refused, the sandboxed failure stands;
- ``on-request`` and ``never``: nothing here (``on-request``'s escalation is the model's to
  ask for: Codex's ``exec_command`` ``sandbox_permissions``, ``dsh.hooks.codex.shell``).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

from dsh.base import thaw_json
from dsh.context import Context, Next
from dsh.tools._channels import EXECUTE, PRE_EXECUTE, ExecuteNext
from dsh.tools._decisions import PreToolDecision
from dsh.tools._identity import ToolCall, ToolExecution
from dsh.tools._phases import ask
from dsh.tools._sandbox import active_sandbox, outside_sandbox
from dsh.tools._types import ToolResult

__all__ = ["APPROVAL_POLICIES", "ApprovalPolicy", "SandboxApprovals"]

ApprovalPolicy: TypeAlias = Literal["untrusted", "on-failure", "on-request", "never"]
APPROVAL_POLICIES: tuple[ApprovalPolicy, ...] = get_args(ApprovalPolicy)

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
        if self.policy == "untrusted":
            ctx.on(PRE_EXECUTE, self._pre_execute)
        if self.policy == "on-failure":
            ctx.on(EXECUTE, self._execute)

    async def _pre_execute(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        decision = await nxt()
        if not _shell(call) or decision.kind != "allow":
            return decision
        command = call.arguments.get(call.tool.shell_command or "", "") if call.tool else ""
        return PreToolDecision.ask(f"approval policy untrusted: run {command}?")

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
