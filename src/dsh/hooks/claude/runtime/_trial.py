"""One payload through Claude Code's hooks by hand: ``dsh hooks test`` and ``dsh.testing`` share it.

``generated_payload`` builds a Claude Code 2.1.332-shaped payload for an event;
``hooks_for`` picks the admitted hooks that payload selects (by the event's
matcher field); ``try_hook`` runs one of them for real, as ``dsh run`` runs
it, and decodes its answer with ``decode_answer`` (a ``HookTrial``);
``consequences`` says in words what the bridge does with an answer, and
``pre_tool_decision`` is the ``PreToolDecision`` PreToolUse's answers come to,
with the bridge's own precedence and the text the model reads. Nothing else
runs: no tool, no model.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, final

from dsh._frozen import frozen
from dsh.hook_protocol import HookDecodeError, HookRun, MergedAnswers, WrongEvent
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.claude.answers._answer import HookAnswer
from dsh.hooks.claude.answers._decode import decode_answer
from dsh.hooks.claude.events._specs import EVENT_SPECS
from dsh.hooks.claude.runtime._answers import shown_reason
from dsh.hooks.claude.runtime._tool_events import _pre_tool_outcome
from dsh.hooks.claude.settings._types import Catalog, HookDeclaration
from dsh.tools import PreToolDecision

__all__ = [
    "HookTrial",
    "consequences",
    "generated_payload",
    "hooks_for",
    "pre_tool_decision",
    "try_hook",
]

_DEFAULT_INPUTS: Final[dict[str, dict[str, Any]]] = {
    "Bash": {"command": "true", "description": "dsh hooks test"},
    "Read": {"file_path": "README.md"},
    "Write": {"file_path": "dsh-hooks-test.txt", "content": "test\n"},
    "Edit": {"file_path": "README.md", "old_string": "a", "new_string": "b"},
    "Glob": {"pattern": "**/*.py"},
    "Grep": {"pattern": "TODO"},
}

# Event-specific fields of a generated payload (the common ones are added to each).
_EVENT_FIELDS: Final[dict[str, dict[str, Any]]] = {
    "SessionStart": {"source": "startup"},
    "SessionEnd": {"reason": "other"},
    "Setup": {"trigger": "init"},
    "Stop": {"stop_hook_active": False},
    "SubagentStop": {"stop_hook_active": False},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "PostCompact": {"trigger": "manual"},
    "Notification": {"message": "dsh hooks test", "notification_type": "idle_prompt"},
}

_TOOL_EVENTS: Final = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


def generated_payload(
    event: str,
    project: Path,
    *,
    tool: str | None = None,
    tool_input: Mapping[str, Any] | None = None,
    prompt: str | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    """A Claude Code 2.1.332-shaped payload for ``event`` (fields in Claude Code's order)."""
    session = str(uuid.uuid4())
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": str(project / ".dsh-hooks-test" / f"{session}.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event in _TOOL_EVENTS:
        name = tool or "Bash"
        payload["tool_name"] = name
        payload["tool_input"] = dict(tool_input or _DEFAULT_INPUTS.get(name, {}))
        payload["tool_use_id"] = "toolu_" + uuid.uuid4().hex[:24]
        if event == "PostToolUse":
            payload["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
        if event == "PostToolUseFailure":
            payload["error"] = "Exit code 1"
    elif event == "UserPromptSubmit":
        payload["prompt"] = prompt if prompt is not None else "dsh hooks test"
    payload.update(_EVENT_FIELDS.get(event, {}))
    if source is not None and event in ("SessionStart", "Setup"):
        payload["source" if event == "SessionStart" else "trigger"] = source
    return payload


def hooks_for(
    catalog: Catalog, event: str, payload: Mapping[str, Any]
) -> tuple[HookDeclaration, ...]:
    """The admitted hooks of ``event`` whose matcher selects ``payload`` (its matcher field)."""
    field = EVENT_SPECS[event].matcher_field
    value = payload.get(field) if field is not None else None
    return tuple(catalog.matching(event, value if isinstance(value, str) else None))


@final
@frozen(kw_only=True)
class HookTrial:
    """One hook run by hand: the raw ``run``, the decoded ``answer`` (``None``: no decision)
    and, when it came to nothing, the ``problem`` in words (``""``: none)."""

    hook: HookDeclaration
    run: HookRun
    answer: HookAnswer | None
    problem: str = ""


async def try_hook(decl: HookDeclaration, payload: Mapping[str, Any], project: Path) -> HookTrial:
    """Run ``decl`` with ``payload`` in ``project`` as ``dsh run`` would; decode its answer."""
    data = (json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    run = await run_hook(decl.to_command(cwd=project), data)
    if run.exit_code is None:
        why = "timed out" if run.timed_out else run.spawn_error or f"signal {run.signal}"
        return HookTrial(hook=decl, run=run, answer=None, problem=f"no decision: {why}")
    try:
        answer = decode_answer(run, decl.event)
    except HookDecodeError as exc:
        return HookTrial(hook=decl, run=run, answer=None, problem=f"non-blocking error: {exc}")
    if isinstance(answer, WrongEvent):
        problem = f"ignored: it answered for {answer.answered_for}, not {decl.event}"
        return HookTrial(hook=decl, run=run, answer=None, problem=problem)
    return HookTrial(hook=decl, run=run, answer=answer)


def pre_tool_decision(tool: str, trials: Sequence[HookTrial]) -> PreToolDecision:
    """What PreToolUse's answers come to for a call of ``tool``: any denial wins (its text the
    tool error the model reads), then any ask; else allowed, with the hooks' contexts."""
    answers = [(t.hook, t.answer) for t in trials if t.answer is not None]
    outcome = _pre_tool_outcome(tool, MergedAnswers(tuple(answers)))
    if outcome.denials:
        reason = "\n".join(outcome.denials)
        info = {"hook_event": "PreToolUse"}
        return PreToolDecision.deny(reason, info, additional_context=outcome.contexts)
    if outcome.asks:
        return PreToolDecision.ask("\n".join(outcome.asks), additional_context=outcome.contexts)
    return PreToolDecision.allow(additional_context=outcome.contexts)


def consequences(
    event: str, answer: HookAnswer | None, decl: HookDeclaration, tool: str
) -> list[str]:
    """What the bridge does with ``answer``, in words: what is blocked, what the model reads."""
    if answer is None:
        return ["no decision: the event goes on as if the hook were not there"]
    lines = []
    if answer.halt:
        lines.append(f"halts the session (continue: false): {answer.stop_reason or ''}".rstrip())
    if event == "PreToolUse" and answer.permission_decision is not None:
        why = answer.permission_reason or ""
        lines.append(f"permission decision: {answer.permission_decision} {why}".rstrip())
        if answer.permission_decision == "deny":
            lines.append(f"model reads (tool error): PreToolUse:{tool} hook error: {why}")
    if answer.updated_input is not None:
        lines.append(f"tool input replaced by: {json.dumps(answer.updated_input)}")
    if answer.blocks:
        reason = shown_reason(decl, answer)
        target = {
            "PreToolUse": "the tool call is blocked; model reads",
            "UserPromptSubmit": "the prompt is blocked (never reaches the model); user sees",
            "Stop": "the turn goes on; model reads",
            "SubagentStop": "the subagent goes on; it reads",
            "PostToolUse": "model reads after the tool result",
        }.get(event, "blocks; shown")
        lines.append(f"{target}: {reason}")
    if answer.additional_context:
        lines.append(f"model reads (context): {answer.additional_context}")
    if answer.plain and event in ("UserPromptSubmit", "SessionStart"):
        lines.append(f"model reads (context, plain stdout): {answer.plain}")
    if answer.system_message:
        lines.append(f"user sees: {answer.system_message}")
    return lines or ["answers, with nothing for this event to apply"]
