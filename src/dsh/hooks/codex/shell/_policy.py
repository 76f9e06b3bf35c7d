"""Codex's shell tool on a dsh session, and Codex's approval of its sandbox escalations.

``CodexShellPlugin`` registers ``exec_command`` (``_exec_tool``) and is mounted
after the Codex hooks plugin, so it is inner to PreToolUse (Codex runs the hook
first, then its approval check). An unescalated call runs in the session's sandbox
when there is one (docs/sandbox.md), under dsh's permission policy. A call with
``sandbox_permissions: "require_escalated"`` asks to leave the sandbox, and
that is the question dsh puts, as Codex does under its approval policy:

- ``never`` (permission mode ``bypassPermissions``, every ``codex exec`` by
  default): refused before anyone is asked, with Codex's text;
- ``on-request`` (``default``): the approval seam (``approval/request``,
  where PermissionRequest hooks answer with ``decision.behavior``, then
  whoever the host asks); the model reads a refusal as Codex shows one,
  ``exec_command failed: CreateProcess { message: "Rejected(\\"M\\")" }``.
  Headless, with no hook answer and no one to ask, the escalation is declined:
  Codex would ask its automatic reviewer (Guardian, a second model
  conversation), which dsh does not have.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from dsh.base import thaw_json
from dsh.context import Context, Next
from dsh.hooks.codex.config._types import CodexPermissionMode
from dsh.hooks.codex.shell._exec_tool import EXEC_COMMAND, EXEC_COMMAND_TOOL
from dsh.tools import (
    POST_EXECUTE,
    PRE_EXECUTE,
    TOOLS,
    PostToolAccept,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolResult,
)

__all__ = ["NEVER_REJECTION", "CodexShellPlugin", "codex_rejection", "rust_debug"]

NEVER_REJECTION: Final = (
    "approval policy is Never; reject command — you cannot ask for escalated permissions if the"
    " approval policy is Never"
)
"""What Codex 0.171 answers an escalation under approval ``never`` (checked with the binary)."""

HEADLESS_DECLINE: Final = (
    "escalation declined: no PermissionRequest hook approved it and no one can be asked in this"
    " run (dsh has no automatic approval reviewer)"
)
_BY_USER: Final = "rejected by user"
_ESCALATED: Final = "require_escalated"
_PLAIN_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\0": "\\0",
}
_UNPRINTED: Final = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me"})


def rust_debug(text: str) -> str:
    """``text`` as Rust's ``{:?}`` prints a string: quoted, escapes as Rust writes them."""
    import unicodedata  # only for a refused escalation's words

    out = ['"']
    for ch in text:
        plain = _PLAIN_ESCAPES.get(ch)
        if plain is not None:
            out.append(plain)
        elif ch != " " and unicodedata.category(ch) in _UNPRINTED:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def codex_rejection(message: str) -> str:
    """The tool output of a refused ``exec_command`` escalation, as Codex 0.171 words it."""
    inner = rust_debug(f"Rejected({rust_debug(message)})")
    return f"exec_command failed: CreateProcess {{ message: {inner} }}"


def _escalated(call: ToolCall) -> bool:
    return call.name == EXEC_COMMAND and call.arguments.get("sandbox_permissions") == _ESCALATED


def _refusal(info: Any) -> str | None:
    """Why the approval seam refused (``None``: the call was not refused there)."""
    details = thaw_json(info) if info is not None else None
    if not isinstance(details, dict) or details.get("by") != "approval":
        return None
    if details.get("outcome") not in ("rejected", "cancelled"):
        return HEADLESS_DECLINE  # no hook answered, no one to ask
    if details.get("channel") is not None:
        return str(details.get("reason") or _BY_USER)  # a listener's (a hook's) message
    return str(details.get("approval_reason") or _BY_USER)


class CodexShellPlugin:
    """``exec_command`` and its escalation policy (``permission_mode`` is Codex's approval
    policy: ``bypassPermissions`` = ``never``, ``default`` = ``on-request``)."""

    def __init__(self, permission_mode: CodexPermissionMode) -> None:
        self.permission_mode: CodexPermissionMode = permission_mode

    def apply(self, ctx: Context) -> None:
        ctx.add_disposer(ctx.require(TOOLS).register(EXEC_COMMAND_TOOL))
        ctx.on(PRE_EXECUTE, self._pre_execute)
        ctx.on(POST_EXECUTE, self._post_execute)

    async def _pre_execute(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        if not _escalated(call):
            return await nxt()
        if self.permission_mode == "bypassPermissions":
            info = {"bridge": "codex", "approval_policy": "never"}
            return PreToolDecision.deny(NEVER_REJECTION, info)
        command = str(call.arguments.get("cmd", ""))
        why = call.arguments.get("justification")
        reason = f"exec_command asks to run outside the sandbox: {command}"
        return PreToolDecision.ask(f"{reason} ({why})" if isinstance(why, str) and why else reason)

    async def _post_execute(
        self, call: ToolCall, result: ToolResult, nxt: Next[PostToolDecision]
    ) -> PostToolDecision:
        decision = await nxt()
        if call.name != EXEC_COMMAND or result.code != "DENIED":
            return decision
        refusal = _refusal(result.info)
        if refusal is None or not isinstance(decision, PostToolAccept) or decision.content:
            return decision
        return dataclasses.replace(decision, content=codex_rejection(refusal))
