"""The pydantic models of a Claude Code hook's JSON output, and the answer they decode to.

Imported (with pydantic) when a hook prints JSON: a run whose hooks print
nothing or plain text never loads them (``answers/_decode.py`` decodes those).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dsh.hook_protocol import HookDecodeError, WrongEvent
from dsh.hooks.claude.answers._answer import HookAnswer, PermissionDecision, PermissionRequestAnswer

__all__ = ["answer_from_json"]


# defer_build: a validator is built at its first use, so a run whose hooks print no JSON
# never builds one.
class _PermissionRequestModel(BaseModel):
    """A PermissionRequest hook's ``hookSpecificOutput.decision`` (reference §3.8)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    behavior: Literal["allow", "deny"]
    updatedInput: dict[str, Any] | None = None
    updatedPermissions: list[Any] | None = None
    message: str | None = None
    interrupt: bool | None = None


class _SpecificModel(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    # PermissionRequest's object; validated only for that event (other events ignore it).
    decision: Any = None

    hookEventName: str | None = None
    additionalContext: str | None = None
    permissionDecision: PermissionDecision | None = None
    permissionDecisionReason: str | None = None
    updatedInput: dict[str, Any] | None = None
    suppressOriginalPrompt: bool | None = None
    displayContent: str | None = None
    watchPaths: list[str] | None = None
    # Any JSON: checked against the tool's output model where it is applied.
    updatedToolOutput: Any = None


class _OutputModel(BaseModel):
    """The JSON a hook may print (reference §2.4); unknown keys are tolerated."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    continue_: bool = Field(default=True, alias="continue")
    stopReason: str | None = None
    suppressOutput: bool | None = None
    systemMessage: str | None = None
    decision: Literal["block", "approve"] | None = None
    reason: str | None = None
    hookSpecificOutput: _SpecificModel | None = None


def _validate(data: dict[str, Any], event: str) -> _OutputModel | WrongEvent:
    try:
        model = _OutputModel.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise HookDecodeError(f"hook JSON output invalid at {where}: {first['msg']}") from exc
    specific = model.hookSpecificOutput
    if specific is not None and specific.hookEventName not in (None, event):
        return WrongEvent(str(specific.hookEventName))
    if event == "PermissionRequest" and specific is not None and specific.decision is not None:
        try:
            specific.decision = _PermissionRequestModel.model_validate(specific.decision)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(("hookSpecificOutput", "decision", *map(str, first["loc"])))
            raise HookDecodeError(f"hook JSON output invalid at {where}: {first['msg']}") from exc
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


def _answer(exit_code: int, model: _OutputModel | None, data: dict[str, Any] | None) -> HookAnswer:
    if model is None:
        return HookAnswer(exit_code=exit_code)
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
    )


def answer_from_json(exit_code: int, data: dict[str, Any], event: str) -> HookAnswer | WrongEvent:
    """The answer a hook's JSON output gives for ``event`` (``HookDecodeError`` if invalid)."""
    model = _validate(data, event)
    if isinstance(model, WrongEvent):
        return model
    return _answer(exit_code, model, data)
