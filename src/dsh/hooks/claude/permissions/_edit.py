"""``/permissions``' edits: a rule added to, or deleted from, where 2.1.332 keeps it.

Claude Code 2.1.332's ``/permissions`` adds a rule (``Add a new rule…``) as one
``addRules`` update whose ``destination`` the user picks: ``localSettings`` ("Project
settings (local)": ``.claude/settings.local.json``), ``projectSettings`` ("Project
settings": ``.claude/settings.json``) or ``userSettings`` ("User settings":
``~/.claude/settings.json``), applied to the session and written to that file
(``Added allow rule Bash(npm test *)``). Deleting a rule removes it from the source it
came from (``removeRules`` with that destination; a session rule from the session
alone: ``Deleted allow rule …``); a rule of a file ``/permissions`` does not edit
(managed policy, ``--settings``, a plugin) cannot be deleted (``Could not delete … —
the rule is unchanged``). The same code writes a PermissionRequest hook's
``updatedPermissions`` (``_persist``), so the file keeps its other keys and indentation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, Literal

from dsh.hooks.claude.permissions._persist import Destination
from dsh.hooks.claude.rules._grammar import RuleError, parse_rule
from dsh.hooks.claude.rules._values import BEHAVIORS

if TYPE_CHECKING:
    from dsh.hooks.claude.permissions._plugin import PermissionState

__all__ = ["DESTINATIONS", "USAGE", "add_rule", "delete_rule", "edit_command"]

DESTINATIONS: Final[Mapping[str, Destination | Literal["session"]]] = {
    "local": "localSettings",
    "project": "projectSettings",
    "user": "userSettings",
    "session": "session",
}
"""Where ``/permissions add`` may put a rule (2.1.332's three files in its order, and the
session alone), by the scope word a rule is listed with."""


USAGE: Final = (
    "/permissions add allow|ask|deny RULE [local|project|user|session]  (default: local, "
    ".claude/settings.local.json)\n/permissions remove allow|ask|deny RULE"
)


def edit_command(state: PermissionState, text: str) -> list[str]:
    """``/permissions TEXT`` (``add|remove BEHAVIOR RULE [WHERE]``): the lines to show, the
    edit's or what is wrong with ``TEXT`` (a ``dsh:`` line and the usage)."""
    words = text.split(None, 2)
    if not words:
        return [USAGE]
    try:
        if len(words) < 3:
            raise ValueError("say what to do")
        action, behavior, rule = words
        head, _, last = rule.rpartition(" ")
        where = "local"
        if head and last in DESTINATIONS:
            rule, where = head, last
        if action == "add":
            return add_rule(state, behavior, rule, where)
        if action in ("remove", "delete"):
            return delete_rule(state, behavior, rule)
        raise ValueError(f"{action}: add or remove a rule")
    except ValueError as exc:
        return [f"dsh: /permissions {text}: {exc}", USAGE]


def _rule_value(text: str) -> dict[str, Any]:
    """``Tool(content)`` as 2.1.332's rule value ``{toolName, ruleContent?}``."""
    try:
        rule = parse_rule(text)
    except RuleError as exc:
        raise ValueError(f"{text.strip()}: {exc}") from exc
    value: dict[str, Any] = {"toolName": rule.tool}
    if rule.specifier is not None:
        value["ruleContent"] = rule.specifier
    return value


def _behavior(behavior: str) -> str:
    if behavior not in BEHAVIORS:
        raise ValueError(f"{behavior}: a rule is allow, ask or deny")
    return behavior


def add_rule(state: PermissionState, behavior: str, text: str, where: str) -> list[str]:
    """Add the rule ``text`` to ``behavior``'s list in ``where`` (``DESTINATIONS``' keys);
    the lines to show. ``ValueError`` for a rule, behavior or place that is not one."""
    behavior = _behavior(behavior)
    destination = DESTINATIONS.get(where)
    if destination is None:
        raise ValueError(f"{where}: save a rule in local, project, user or session")
    value = _rule_value(text)
    declared = text.strip()
    entry = {"type": "addRules", "rules": [value], "behavior": behavior}
    if destination == "session":
        if not _present(state, behavior, declared, where):
            state.apply_update({**entry, "destination": "session"})
        return [f"Added {behavior} rule {declared} for this session only, not saved to settings"]
    saved = {**entry, "destination": destination}
    why = state.persist(saved)
    if why is not None:  # it holds for the session, as a hook's update that could not be saved
        state.apply_update({**entry, "destination": "session"})
        return [
            f"Added {behavior} rule {declared} for this session only, not saved to settings: {why}"
        ]
    if not _present(state, behavior, declared, where):
        state.apply_update(saved)
    file = state.targets.file(destination) if state.targets is not None else None
    return [f"Added {behavior} rule {declared}", f"  saved in {file}"]


def delete_rule(state: PermissionState, behavior: str, text: str) -> list[str]:
    """Delete the rule ``text`` from ``behavior``'s list wherever ``/permissions`` may edit
    it (the settings file each copy came from, or the session); the lines to show."""
    behavior = _behavior(behavior)
    value = _rule_value(text)
    declared = parse_rule(text).declared
    found = [r for r in state.rules if r.behavior == behavior and r.rule.declared == declared]
    if not found:
        return [f"Could not delete {declared} — no {behavior} rule {declared} is in force"]
    lines: list[str] = []
    for scope in dict.fromkeys(r.scope for r in found):
        destination = DESTINATIONS.get(scope)
        source = next(r.source for r in found if r.scope == scope)
        if destination is None:
            lines.append(
                f"Could not delete {declared} — the rule is unchanged ({scope}: {source} is "
                "not a settings file /permissions edits)"
            )
            continue
        entry = {"type": "removeRules", "rules": [value], "behavior": behavior}
        if destination != "session":
            why = state.persist({**entry, "destination": destination})
            if why is not None:
                lines.append(f"Could not delete {declared} — the rule is unchanged: {why}")
                continue
        _forget(state, behavior, declared, scope)
        lines.append(f"Deleted {behavior} rule {declared} ({scope}: {source})")
    return lines


def _present(state: PermissionState, behavior: str, declared: str, scope: str) -> bool:
    return any(
        r.behavior == behavior and r.rule.declared == declared and r.scope == scope
        for r in state.rules
    )


def _forget(state: PermissionState, behavior: str, declared: str, scope: str) -> None:
    """The session stops applying ``scope``'s copy of the rule (the others stay)."""
    state.rules = [
        r
        for r in state.rules
        if not (r.behavior == behavior and r.rule.declared == declared and r.scope == scope)
    ]
