"""Codex's strict reading of a hook's answer: exit codes, stdout JSON, per-event schemas.

Exit 0: stdout is read. Empty means no opinion; text starting with ``{`` or
``[`` must be one JSON object of the event's output schema (msgspec through
``dsh._schema``, unknown keys forbidden, camelCase,
``hookSpecificOutput.hookEventName`` equal to the event), else the run failed
and counts for nothing; other text is context on SessionStart, SubagentStart
and UserPromptSubmit, ignored on the tool and
compaction events, a failure on Stop, SubagentStop and Interrupt. Then the
rules the schemas cannot say (reference §1.6, §1.7): ``decision: "block"``
needs a non-empty ``reason``; ``reason`` needs a decision; PreToolUse accepts
only ``deny`` with a reason, or ``allow`` with ``updatedInput``, and never
``continue: false``, ``stopReason`` or ``suppressOutput``; and so on. Exit 2
is a block (with the trimmed stderr as the reason) only on the events of
``EXIT2_EVENTS`` and only when stderr is not empty. Every rejection raises
``HookDecodeError`` with the reason, which the bridge shows the user.
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types
# (strings it would evaluate at its first decode).

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, Final, Literal

import msgspec

from dsh._frozen import frozen
from dsh._schema import SchemaRefusal, decode
from dsh.hook_protocol import HookDecodeError, HookRun
from dsh.hooks.codex.events._specs import EXIT2_EVENTS, OUTPUT_IGNORED_EVENTS

__all__ = ["CodexAnswer", "decode_codex_answer"]


@frozen(kw_only=True)
class CodexAnswer:
    """What one hook answered, once Codex's rules admitted it.

    ``block`` is ``decision: "block"`` (or exit 2) with ``reason``; ``halt`` is
    ``continue: false`` with ``stop_reason``; ``plain`` is accepted plain-text
    stdout; ``permission`` is PreToolUse's ``allow``/``deny`` (with
    ``updated_input`` for allow), ``behavior`` PermissionRequest's.
    """

    exit2: bool = False
    block: bool = False
    reason: str | None = None
    halt: bool = False
    stop_reason: str | None = None
    system_message: str | None = None
    additional_context: str | None = None
    plain: str | None = None
    permission: Literal["allow", "deny"] | None = None
    updated_input: Any = None
    behavior: Literal["allow", "deny"] | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The answer's set fields, for its ``hook/result`` event."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and value is not False:
                out[f.name] = value
        return out


class _Out(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An answer's part as Codex's serde reads it: unknown keys refused."""


class _Universal(_Out, frozen=True):
    continue_: bool = msgspec.field(default=True, name="continue")
    stopReason: str | None = None
    suppressOutput: bool | None = None
    systemMessage: str | None = None


class _ContextSpecific(_Out, frozen=True):
    hookEventName: str
    additionalContext: str | None = None


class _PreToolSpecific(_Out, frozen=True):
    hookEventName: str
    permissionDecision: Literal["allow", "deny", "ask"] | None = None
    permissionDecisionReason: str | None = None
    updatedInput: dict[str, Any] | None = None
    additionalContext: str | None = None


class _PermissionRequestDecision(_Out, frozen=True):
    behavior: Literal["allow", "deny"]
    message: str | None = None
    updatedInput: Any = None
    updatedPermissions: Any = None
    interrupt: bool | None = None


class _PermissionSpecific(_Out, frozen=True):
    hookEventName: str
    decision: _PermissionRequestDecision | None = None


class _PostToolSpecific(_Out, frozen=True):
    hookEventName: str
    additionalContext: str | None = None
    updatedMCPToolOutput: Any = None


class _WithContext(_Universal, frozen=True):
    hookSpecificOutput: _ContextSpecific | None = None


class _Blocking(_Universal, frozen=True):
    decision: Literal["block", "approve"] | None = None
    reason: str | None = None


class _PromptOutput(_Blocking, frozen=True):
    hookSpecificOutput: _ContextSpecific | None = None


class _PreToolOutput(_Blocking, frozen=True):
    hookSpecificOutput: _PreToolSpecific | None = None


class _PermissionOutput(_Universal, frozen=True):
    hookSpecificOutput: _PermissionSpecific | None = None


class _PostToolOutput(_Blocking, frozen=True):
    hookSpecificOutput: _PostToolSpecific | None = None


class _InterruptOutput(_Out, frozen=True):
    systemMessage: str | None = None


# ``continue_`` is read under its Python name too (pydantic's ``populate_by_name``, kept).
_CONTINUE_ALIAS: Final[Mapping[str, tuple[str, ...]]] = {"continue": ("continue_",)}

_SCHEMAS: dict[str, type[_Out]] = {
    "SessionStart": _WithContext,
    "SubagentStart": _WithContext,
    "UserPromptSubmit": _PromptOutput,
    "PreToolUse": _PreToolOutput,
    "PermissionRequest": _PermissionOutput,
    "PostToolUse": _PostToolOutput,
    "PreCompact": _Universal,
    "PostCompact": _Universal,
    "Stop": _Blocking,
    "SubagentStop": _Blocking,
    "SessionEnd": _Universal,
    "Interrupt": _InterruptOutput,
}

_PLAIN_CONTEXT = frozenset({"SessionStart", "SubagentStart", "UserPromptSubmit"})
_PLAIN_FAILS = frozenset({"Stop", "SubagentStop", "Interrupt"})
_NO_HALT = frozenset({"PreToolUse", "PermissionRequest"})


def _fail(run: HookRun, why: str) -> HookDecodeError:
    return HookDecodeError(f"hook {run.command.origin.describe()}: {why}")


def _schema_problem(exc: SchemaRefusal) -> str:
    error = exc.errors[0]
    where = ".".join(str(p) for p in error.loc) or "the output"
    if error.type == "extra_forbidden":
        return f"unknown field `{where}` (Codex's output schema forbids it)"
    if error.type == "missing":
        return f"missing field `{where}`"
    return f"invalid `{where}`: {error.msg}"


def decode_codex_answer(run: HookRun, event: str) -> CodexAnswer | None:
    """The answer of ``run`` for ``event`` under Codex's rules; ``HookDecodeError`` if rejected."""
    if run.exit_code == 2 and event in EXIT2_EVENTS:
        stderr = run.stderr.strip()
        if not stderr:
            raise _fail(run, "exited with code 2 but did not write a reason to stderr")
        return CodexAnswer(exit2=True, block=True, reason=stderr)
    if run.exit_code != 0:
        raise HookDecodeError(
            f"hook {run.command.origin.describe()} exited with code {run.exit_code}",
            kind="nonzero_exit",
        )
    text = run.stdout.strip()
    if event in OUTPUT_IGNORED_EVENTS or not text:
        return None
    if not text.startswith(("{", "[")):
        if event in _PLAIN_CONTEXT:
            return CodexAnswer(plain=text)
        if event in _PLAIN_FAILS:
            raise _fail(run, f"invalid {event} hook JSON output (plain text)")
        return None
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise _fail(run, f"stdout is not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise _fail(run, "stdout is JSON but not an object")
    schema = _SCHEMAS[event]
    aliases = _CONTINUE_ALIAS if issubclass(schema, _Universal) else None
    try:
        parsed = decode(raw, schema, aliases=aliases)
    except SchemaRefusal as exc:
        raise _fail(run, _schema_problem(exc)) from None
    return _admit(run, event, parsed)


def _admit(run: HookRun, event: str, out: _Out) -> CodexAnswer:
    """The rules beyond the schema, then the answer."""
    fields: dict[str, Any] = {}
    if isinstance(out, _Universal):
        if event in _NO_HALT and (
            not out.continue_ or out.stopReason is not None or out.suppressOutput is not None
        ):
            raise _fail(
                run, f"`continue`, `stopReason` and `suppressOutput` are invalid on {event}"
            )
        if event == "PostToolUse" and out.suppressOutput is not None:
            raise _fail(run, "`suppressOutput` is invalid on PostToolUse")
        fields.update(halt=not out.continue_, stop_reason=out.stopReason)
    fields["system_message"] = out.systemMessage if hasattr(out, "systemMessage") else None
    specific = getattr(out, "hookSpecificOutput", None)
    if specific is not None:
        if specific.hookEventName != event:
            raise _fail(
                run,
                f"hookSpecificOutput.hookEventName is {specific.hookEventName!r}, not {event!r}",
            )
        fields["additional_context"] = getattr(specific, "additionalContext", None) or None
    if isinstance(out, _Blocking):
        _check_block(run, out)
        fields.update(block=out.decision == "block", reason=out.reason)
    if isinstance(specific, _PreToolSpecific):
        fields.update(_pre_tool(run, specific))
    elif isinstance(specific, _PermissionSpecific) and specific.decision is not None:
        decision = specific.decision
        if (
            decision.updatedInput is not None
            or decision.updatedPermissions is not None
            or decision.interrupt is not None
        ):
            raise _fail(run, "`updatedInput`, `updatedPermissions` and `interrupt` are reserved")
        fields.update(behavior=decision.behavior, message=decision.message)
    elif isinstance(specific, _PostToolSpecific) and specific.updatedMCPToolOutput is not None:
        raise _fail(run, "`updatedMCPToolOutput` is invalid")
    return CodexAnswer(**fields)


def _check_block(run: HookRun, out: _Blocking) -> None:
    if out.decision == "approve":
        raise _fail(run, '`decision: "approve"` is invalid (only "block")')
    if out.decision == "block" and not (out.reason or "").strip():
        raise _fail(run, '`decision: "block"` needs a non-empty `reason`')
    if out.decision is None and out.reason is not None:
        raise _fail(run, "`reason` without `decision`")


def _pre_tool(run: HookRun, s: _PreToolSpecific) -> dict[str, Any]:
    decision = s.permissionDecision
    if decision == "ask":
        raise _fail(run, 'permissionDecision "ask" is not supported (the call proceeds)')
    if decision == "allow" and s.updatedInput is None:
        raise _fail(run, 'permissionDecision "allow" needs `updatedInput`')
    if s.updatedInput is not None and decision != "allow":
        raise _fail(run, '`updatedInput` needs permissionDecision "allow"')
    if decision == "deny" and not (s.permissionDecisionReason or "").strip():
        raise _fail(run, 'permissionDecision "deny" needs a non-empty permissionDecisionReason')
    if decision is None and s.permissionDecisionReason is not None:
        raise _fail(run, "permissionDecisionReason without permissionDecision")
    fields: dict[str, Any] = {"permission": decision, "updated_input": s.updatedInput}
    if decision == "deny":
        fields["reason"] = s.permissionDecisionReason
    return fields
