"""The schema of a Claude Code hook's JSON output (reference §2.4), and the answer it gives.

One validator (``dsh._schema``: msgspec), imported when a hook prints JSON: a
run whose hooks print nothing or plain text never loads it (``_decode.py``
decodes those). A refusal's first reason, in the schema's field order, is the
error the user sees.
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types
# (strings it would evaluate at its first decode, ~1.5 ms of a run's start-up).

from typing import Any, Literal

import msgspec

from dsh._schema import LaxBool, LaxBoolOrNone, SchemaRefusal, decode, lax_bool
from dsh.hook_protocol import HookDecodeError, WrongEvent
from dsh.hooks.claude.answers._answer import HookAnswer, PermissionDecision, PermissionRequestAnswer

__all__ = ["answer_from_json"]


class _PermissionRequestModel(msgspec.Struct, kw_only=True):
    """A PermissionRequest hook's ``hookSpecificOutput.decision`` (reference §3.8)."""

    behavior: Literal["allow", "deny"]
    updatedInput: dict[str, Any] | None = None
    updatedPermissions: list[Any] | None = None
    message: str | None = None
    interrupt: LaxBoolOrNone = None

    def __post_init__(self) -> None:
        self.interrupt = lax_bool(self.interrupt, optional=True)


class _SpecificModel(msgspec.Struct, kw_only=True):
    # PermissionRequest's object; validated only for that event (other events ignore it).
    decision: Any = None

    hookEventName: str | None = None
    additionalContext: str | None = None
    permissionDecision: PermissionDecision | None = None
    permissionDecisionReason: str | None = None
    updatedInput: dict[str, Any] | None = None
    suppressOriginalPrompt: LaxBoolOrNone = None
    displayContent: str | None = None
    watchPaths: list[str] | None = None
    # Any JSON: checked against the tool's output model where it is applied.
    updatedToolOutput: Any = None

    def __post_init__(self) -> None:
        self.suppressOriginalPrompt = lax_bool(self.suppressOriginalPrompt, optional=True)


class _OutputModel(msgspec.Struct, kw_only=True):
    """The JSON a hook may print (reference §2.4); unknown keys are tolerated."""

    continue_: LaxBool = msgspec.field(default=True, name="continue")
    stopReason: str | None = None
    suppressOutput: LaxBoolOrNone = None
    systemMessage: str | None = None
    decision: Literal["block", "approve"] | None = None
    reason: str | None = None
    hookSpecificOutput: _SpecificModel | None = None

    def __post_init__(self) -> None:
        self.continue_ = lax_bool(self.continue_)
        self.suppressOutput = lax_bool(self.suppressOutput, optional=True)


def _invalid(refusal: SchemaRefusal, *prefix: str, named: bool = False) -> HookDecodeError:
    first = refusal.errors[0]
    loc = [str(part) for part in first.loc]
    if named and loc[:1] == ["continue"]:
        loc[0] = "continue_"  # the key as the hook wrote it
    where = ".".join((*prefix, *loc)) or "(top level)"
    return HookDecodeError(f"hook JSON output invalid at {where}: {first.msg}")


def _validate(data: dict[str, Any], event: str) -> _OutputModel | WrongEvent:
    # `continue_`, the field's own name, also sets it when `continue` is absent (as it did).
    named = "continue_" in data and "continue" not in data
    view = {("continue" if k == "continue_" else k): v for k, v in data.items()} if named else data
    try:
        model = decode(view, _OutputModel)
    except SchemaRefusal as exc:
        raise _invalid(exc, named=named) from None
    specific = model.hookSpecificOutput
    if specific is not None and specific.hookEventName not in (None, event):
        return WrongEvent(str(specific.hookEventName))
    if event == "PermissionRequest" and specific is not None and specific.decision is not None:
        try:
            specific.decision = decode(specific.decision, _PermissionRequestModel)
        except SchemaRefusal as exc:
            raise _invalid(exc, "hookSpecificOutput", "decision") from None
    return model


def _permission_request(decision: object) -> PermissionRequestAnswer | None:
    if not isinstance(decision, _PermissionRequestModel):
        return None
    return PermissionRequestAnswer(
        behavior=decision.behavior,
        message=decision.message,
        interrupt=bool(decision.interrupt),
        updated_input=decision.updatedInput,
        updated_permissions=decision.updatedPermissions,
    )


def _answer(exit_code: int, model: _OutputModel, data: dict[str, Any]) -> HookAnswer:
    specific = model.hookSpecificOutput
    # An envelope without hookEventName is dropped, as Claude Code drops it.
    if specific is not None and specific.hookEventName is None:
        specific = None
    return HookAnswer(
        exit_code=exit_code,
        json=data,
        halt=not model.continue_,
        stop_reason=model.stopReason,
        system_message=model.systemMessage,
        decision=model.decision,
        reason=model.reason,
        additional_context=specific.additionalContext if specific else None,
        permission_decision=specific.permissionDecision if specific else None,
        permission_reason=specific.permissionDecisionReason if specific else None,
        updated_input=specific.updatedInput if specific else None,
        suppress_original_prompt=bool(specific.suppressOriginalPrompt) if specific else False,
        permission_request=_permission_request(specific.decision) if specific else None,
        display_content=specific.displayContent if specific else None,
        watch_paths=(
            tuple(specific.watchPaths) if specific and specific.watchPaths is not None else None
        ),
        updated_tool_output=specific.updatedToolOutput if specific else None,
        extensions=_extensions(data) if specific else None,
    )


def _extensions(data: dict[str, Any]) -> dict[str, Any] | None:
    """``hookSpecificOutput.dsh`` when it is an object (Claude Code, like any tool that does
    not know the key, ignores it; so does dsh when it is not an object)."""
    specific = data.get("hookSpecificOutput")
    extensions = specific.get("dsh") if isinstance(specific, dict) else None
    return extensions if isinstance(extensions, dict) else None


def answer_from_json(exit_code: int, data: dict[str, Any], event: str) -> HookAnswer | WrongEvent:
    """The answer a hook's JSON output gives for ``event`` (``HookDecodeError`` if invalid)."""
    model = _validate(data, event)
    if isinstance(model, WrongEvent):
        return model
    return _answer(exit_code, model, data)
