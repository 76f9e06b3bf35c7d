"""A hook's JSON answer of the common shape, decoded without pydantic.

Hooks answer with a few keys of exactly the type asked for (``{"decision":
"block", "reason": "..."}``, a ``hookSpecificOutput`` with a permission
decision or added context). For those, ``plain_answer`` gives the same
``HookAnswer`` (or ``WrongEvent``) that ``answers._models.answer_from_json``
gives; for anything else (a value of another type, a null where a value is
required, a PermissionRequest ``decision``, the ``continue_`` spelling) it
answers ``None``, and the pydantic models decode it and alone report what is
wrong. ``tests/hooks_claude/test_output_plain.py`` checks the two against each
other on generated answers.
"""

from __future__ import annotations

from typing import Any, Final

from dsh.hook_protocol import WrongEvent
from dsh.hooks.claude.answers._answer import HookAnswer

__all__ = ["plain_answer"]

_DECISIONS: Final = ("block", "approve")
_PERMISSION_DECISIONS: Final = ("allow", "deny", "ask", "defer")
# The keys of hookSpecificOutput by the type their value must have (None is always allowed).
_SPECIFIC_STR: Final = (
    "hookEventName",
    "additionalContext",
    "permissionDecisionReason",
    "displayContent",
)


def _opt_str(value: object) -> bool:
    return value is None or type(value) is str


def _opt_bool(value: object) -> bool:
    return value is None or value is True or value is False


def _plain_top(data: dict[str, Any]) -> bool:
    if "continue_" in data:  # the field's own name also sets it: the model's to read
        return False
    if "continue" in data and data["continue"] is not True and data["continue"] is not False:
        return False
    decision = data.get("decision")
    if decision is not None and (type(decision) is not str or decision not in _DECISIONS):
        return False
    return (
        _opt_str(data.get("stopReason"))
        and _opt_str(data.get("systemMessage"))
        and _opt_str(data.get("reason"))
        and _opt_bool(data.get("suppressOutput"))
    )


def _plain_specific(specific: dict[str, Any], event: str) -> bool:
    if not all(_opt_str(specific.get(key)) for key in _SPECIFIC_STR):
        return False
    permission = specific.get("permissionDecision")
    if permission is not None and (
        type(permission) is not str or permission not in _PERMISSION_DECISIONS
    ):
        return False
    updated = specific.get("updatedInput")
    if updated is not None and type(updated) is not dict:
        return False
    paths = specific.get("watchPaths")
    if paths is not None and (type(paths) is not list or not all(type(p) is str for p in paths)):
        return False
    if event == "PermissionRequest" and specific.get("decision") is not None:
        return False  # its own model decides
    return _opt_bool(specific.get("suppressOriginalPrompt"))


def plain_answer(
    exit_code: int, data: dict[str, Any], event: str
) -> HookAnswer | WrongEvent | None:
    """The answer ``data`` gives for ``event`` when it has the plain shape, else ``None``."""
    if not _plain_top(data):
        return None
    specific = data.get("hookSpecificOutput")
    if specific is not None:
        if type(specific) is not dict or not _plain_specific(specific, event):
            return None
        named = specific.get("hookEventName")
        if named not in (None, event):
            return WrongEvent(str(named))
        if named is None:  # dropped, as Claude Code drops an envelope without it
            specific = None
    watch = specific.get("watchPaths") if specific else None
    return HookAnswer(
        exit_code=exit_code,
        json=data,
        halt=data.get("continue", True) is False,
        stop_reason=data.get("stopReason"),
        system_message=data.get("systemMessage"),
        decision=data.get("decision"),
        reason=data.get("reason"),
        additional_context=specific.get("additionalContext") if specific else None,
        permission_decision=specific.get("permissionDecision") if specific else None,
        permission_reason=specific.get("permissionDecisionReason") if specific else None,
        updated_input=specific.get("updatedInput") if specific else None,
        suppress_original_prompt=bool(specific.get("suppressOriginalPrompt"))
        if specific
        else False,
        permission_request=None,
        display_content=specific.get("displayContent") if specific else None,
        watch_paths=tuple(watch) if watch is not None else None,
        updated_tool_output=specific.get("updatedToolOutput") if specific else None,
    )
