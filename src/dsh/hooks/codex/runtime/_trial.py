"""One payload through Codex's hooks by hand, for ``dsh.testing``: run, decode, decide.

``codex_payload`` builds a Codex 0.171-shaped payload for an event (the common
fields in Codex's order, then the event's own); ``codex_hooks_for`` picks the
running hooks that payload selects (by the event's matcher field);
``try_codex_hook`` runs one for real, as a session runs it (the user's shell,
``CODEX_HOME`` set), and decodes its answer with Codex's strict rules
(``decode_codex_answer``); ``codex_pre_tool_decision`` is the
``PreToolDecision`` PreToolUse's answers come to, with the text the model
reads. Nothing else runs: no tool, no model. (A reason longer than the
session's context limit is not cut here, as a session would cut it.)
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, final

from dsh._frozen import frozen
from dsh.hook_protocol import HookDecodeError, HookRun
from dsh.hook_protocol._context_total import within_total
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.codex.answers._decode import CodexAnswer, decode_codex_answer
from dsh.hooks.codex.config._types import CodexCatalog, CodexHook
from dsh.hooks.codex.events._specs import MATCHER_FIELDS
from dsh.hooks.codex.runtime._machinery import _user_shell, codex_stdin
from dsh.hooks.codex.runtime._tool_events import _blocked_text, codex_tool_input, hook_tool_name
from dsh.tools import PreToolDecision

__all__ = [
    "CodexHookTrial",
    "codex_hooks_for",
    "codex_payload",
    "codex_pre_tool_decision",
    "try_codex_hook",
]

_TOOL_EVENTS: Final = ("PreToolUse", "PostToolUse", "PermissionRequest")
# Event-specific fields of a generated payload, after the common ones.
_EVENT_FIELDS: Final[dict[str, dict[str, Any]]] = {
    "SessionStart": {"source": "startup"},
    "SessionEnd": {"reason": "other"},
    "Stop": {"stop_hook_active": False, "last_assistant_message": None},
    "PreCompact": {"trigger": "manual"},
    "PostCompact": {"trigger": "manual"},
}
# Fields an event's payload leaves out (as the bridge's ``_base`` is told).
_WITHOUT: Final[dict[str, frozenset[str]]] = {
    "SessionStart": frozenset({"turn_id"}),
    "SessionEnd": frozenset({"turn_id", "model", "permission_mode"}),
    "PreCompact": frozenset({"permission_mode"}),
    "PostCompact": frozenset({"permission_mode"}),
}


def codex_payload(
    event: str,
    project: Path,
    *,
    tool: str | None = None,
    tool_input: Mapping[str, Any] | None = None,
    prompt: str | None = None,
    model: str = "scripted",
) -> dict[str, Any]:
    """A Codex 0.171-shaped payload for ``event`` (a shell call is ``Bash`` with ``{command}``)."""
    common: dict[str, Any] = {
        "session_id": str(uuid.uuid4()),
        "turn_id": str(uuid.uuid4()),
        "transcript_path": None,
        "cwd": str(project),
        "hook_event_name": event,
        "model": model,
        "permission_mode": "bypassPermissions",
    }
    left_out = _WITHOUT.get(event, frozenset())
    payload = {k: v for k, v in common.items() if k not in left_out}
    if event in _TOOL_EVENTS:
        name = tool or "Bash"
        arguments = dict(tool_input or {"command": "true"})
        payload["tool_name"] = hook_tool_name(name)
        description = event == "PermissionRequest"
        payload["tool_input"] = codex_tool_input(name, arguments, description=description)
        if event != "PermissionRequest":
            payload["tool_use_id"] = "call_" + uuid.uuid4().hex[:24]
        if event == "PostToolUse":
            payload["tool_response"] = ""
    elif event == "UserPromptSubmit":
        payload["prompt"] = prompt if prompt is not None else "dsh.testing"
    payload.update(_EVENT_FIELDS.get(event, {}))
    return payload


def codex_hooks_for(
    catalog: CodexCatalog, event: str, payload: Mapping[str, Any]
) -> tuple[CodexHook, ...]:
    """The running hooks of ``event`` whose matcher selects ``payload`` (its matcher field)."""
    field = MATCHER_FIELDS.get(event)
    value = payload.get(field) if field is not None else None
    return tuple(catalog.matching(event, value if isinstance(value, str) else None))


@final
@frozen(kw_only=True)
class CodexHookTrial:
    """One Codex hook run by hand: the raw ``run``, the decoded ``answer`` (``None``: no
    decision) and, when Codex's rules rejected it or it did not end, the ``problem``."""

    hook: CodexHook
    run: HookRun
    answer: CodexAnswer | None
    problem: str = ""


async def try_codex_hook(
    hook: CodexHook, payload: Mapping[str, Any], project: Path, *, codex_home: Path | None
) -> CodexHookTrial:
    """Run ``hook`` with ``payload`` in ``project`` as a session would; decode its answer."""
    env = {"CODEX_HOME": str(codex_home)} if codex_home is not None else {}
    command = hook.to_command(shell=_user_shell(), cwd=project, env=env)
    run = await run_hook(command, codex_stdin(payload))
    if run.exit_code is None:
        why = "timed out" if run.timed_out else run.spawn_error or f"signal {run.signal}"
        return CodexHookTrial(hook=hook, run=run, answer=None, problem=f"no decision: {why}")
    try:
        answer = decode_codex_answer(run, hook.event)
    except HookDecodeError as exc:
        return CodexHookTrial(hook=hook, run=run, answer=None, problem=f"failed: {exc.reason}")
    return CodexHookTrial(hook=hook, run=run, answer=answer)


def codex_pre_tool_decision(
    tool: str, tool_input: Mapping[str, Any], trials: Sequence[CodexHookTrial]
) -> PreToolDecision:
    """What PreToolUse's answers come to for that call: any block wins, the first reason in
    configured order becoming the tool output the model reads; else allowed, with contexts."""
    answers = [t.answer for t in trials if t.answer is not None]
    texts = [
        (t.hook.command, t.answer.additional_context)
        for t in trials
        if t.answer is not None and t.answer.additional_context
    ]
    contexts = tuple(within_total("PreToolUse", texts)) if texts else ()
    denial = next((a for a in answers if a.block or a.permission == "deny"), None)
    if denial is not None and denial.reason:
        text = _blocked_text(tool, tool_input, denial.reason)
        info = {"hook_event": "PreToolUse", "bridge": "codex"}
        return PreToolDecision.deny(text, info, additional_context=contexts)
    return PreToolDecision.allow(additional_context=contexts)
