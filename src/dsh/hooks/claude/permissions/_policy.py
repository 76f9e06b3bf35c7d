"""Claude Code's permission check for one call: rules, then the mode, into allow, deny or ask.

The order is Claude Code's (reference §4): a ``deny`` rule, then an ``ask``
rule, then a PreToolUse hook's ``allow``, then an ``allow`` rule, then the
mode's default. The wordings the model gets are 2.1.332's where the corpus
records them (``touch in '…' needs approval…``, the don't-ask text), Claude
Code's long-standing ``Claude requested permissions…`` text elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal, final

from dsh._frozen import frozen
from dsh.base._real_path import first_link, real_path_or_self
from dsh.hooks.claude.rules._bash import SimpleCommand, split_command
from dsh.hooks.claude.rules._grammar import EDIT_TOOLS, READ_TOOLS, tool_path
from dsh.hooks.claude.rules._modes import (
    FILE_COMMANDS,
    NO_PERMISSION_TOOLS,
    PermissionMode,
    inside,
    inside_real,
    is_read_only,
    written_paths,
)
from dsh.hooks.claude.rules._values import RuleEntry

__all__ = ["PermissionCheck", "check_call", "dont_ask_text"]

_SHELLS: Final = frozenset({"Bash", "PowerShell"})


def dont_ask_text(tool: str) -> str:
    """2.1.332's refusal in ``dontAsk`` mode (``perm-dontask-touch``)."""
    return (
        f"Permission to use {tool} has been denied because Claude Code is running in don't ask"
        " mode. IMPORTANT: You *may* attempt to accomplish this action using other tools that"
        " might naturally be used to accomplish this goal, e.g. using head instead of cat. But"
        " you *should not* attempt to work around this denial in malicious ways, e.g. do not use"
        " your ability to run tests to execute non-test actions. You should only try to work"
        " around this restriction in reasonable ways that do not attempt to bypass the intent"
        " behind this denial. If you believe this capability is essential to complete the"
        " user's request, STOP and explain to the user what you were trying to do and why you"
        " need this permission. Let the user decide how to proceed."
    )


def _plan_text(tool: str) -> str:
    return (
        f"Permission to use {tool} has been denied because Claude Code is running in plan mode:"
        " plan mode only reads and searches, it changes nothing. Finish the plan and present"
        " it; the user leaves plan mode before anything is changed."
    )


@final
@frozen(kw_only=True)
class PermissionCheck:
    """The check's answer: ``allow``, ``deny`` or ``ask``.

    ``text`` is what the model gets for a denial (and for an ask nobody
    answers); ``why`` says what decided (a rule with its file, or the mode);
    ``forced`` marks an ``ask`` rule, which a hook's ``allow`` does not skip;
    ``suggestions`` are the PermissionRequest ``permission_suggestions``.
    """

    kind: Literal["allow", "deny", "ask"]
    why: str
    text: str = ""
    rule: RuleEntry | None = None
    forced: bool = False
    suggestions: tuple[Mapping[str, Any], ...] = ()

    def info(self) -> dict[str, Any]:
        """The JSON detail a denial carries (``permission`` in the tool result's info)."""
        out: dict[str, Any] = {"decided_by": self.why}
        if self.rule is not None:
            out["rule"] = self.rule.rule.declared
            out["source"] = self.rule.source
        return out


def check_call(
    tool: str,
    tool_input: Mapping[str, Any],
    *,
    read_only: bool,
    mode: PermissionMode,
    rules: Sequence[RuleEntry],
    directories: Sequence[Path],
    cwd: Path,
    home: Path | None = None,
    hook_allowed: bool = False,
) -> PermissionCheck:
    """The permission check of one call, in Claude Code's order."""

    def matching(behavior: str, how: Literal["any", "all"] = "any") -> RuleEntry | None:
        for entry in rules:
            if entry.behavior == behavior and entry.rule.matches(
                tool, tool_input, cwd=cwd, home=home, mode=how
            ):
                return entry
        return None

    denied = matching("deny")
    if denied is not None:
        return PermissionCheck(
            kind="deny",
            why=f"deny rule {denied.rule.declared}",
            text=_denied_text(tool, tool_input),
            rule=denied,
        )
    asked = matching("ask")
    if asked is not None:
        if mode == "dontAsk":
            return PermissionCheck(
                kind="deny", why="mode dontAsk", text=dont_ask_text(tool), rule=asked
            )
        text, suggestions = _ask_text(tool, tool_input, directories, cwd)
        return PermissionCheck(
            kind="ask",
            why=f"ask rule {asked.rule.declared}",
            text=text,
            rule=asked,
            forced=True,
            suggestions=suggestions,
        )
    escape = _link_escape(tool, tool_input, mode, directories, cwd)
    if escape is not None:
        return escape
    if hook_allowed:
        return PermissionCheck(kind="allow", why="a PreToolUse hook's allow")
    allowed = _allowed_by_rules(tool, tool_input, rules, cwd=cwd, home=home)
    if allowed is not None:
        return PermissionCheck(
            kind="allow", why=f"allow rule {allowed.rule.declared}", rule=allowed
        )
    return _by_mode(
        tool, tool_input, read_only=read_only, mode=mode, directories=directories, cwd=cwd
    )


def _allowed_by_rules(
    tool: str,
    tool_input: Mapping[str, Any],
    rules: Sequence[RuleEntry],
    *,
    cwd: Path,
    home: Path | None,
) -> RuleEntry | None:
    allows = [e for e in rules if e.behavior == "allow"]
    for entry in allows:
        if entry.rule.matches(tool, tool_input, cwd=cwd, home=home, mode="all"):
            return entry
    if tool not in _SHELLS:
        return None
    # A compound command is allowed when each part is: by some allow rule, or as read-only.
    parts = _parts(tool_input)
    if not parts:
        return None
    first: RuleEntry | None = None
    for part in parts:
        by = next(
            (
                e
                for e in allows
                if e.rule.kind != "tool"
                and e.rule.applies_to(tool)
                and e.rule.command_matches(part.text)
            ),
            None,
        )
        if by is None and not is_read_only(part):
            return None
        first = first or by
    return first


def _parts(tool_input: Mapping[str, Any]) -> tuple[SimpleCommand, ...] | None:
    command = tool_input.get("command")
    return split_command(command) if isinstance(command, str) else None


def _by_mode(
    tool: str,
    tool_input: Mapping[str, Any],
    *,
    read_only: bool,
    mode: PermissionMode,
    directories: Sequence[Path],
    cwd: Path,
) -> PermissionCheck:
    if mode == "bypassPermissions":
        return PermissionCheck(kind="allow", why="mode bypassPermissions")
    if tool in NO_PERMISSION_TOOLS:
        return PermissionCheck(kind="allow", why="a tool that needs no permission")
    if _reads_inside(tool, tool_input, read_only, directories, cwd):
        return PermissionCheck(kind="allow", why="read-only")
    if mode == "acceptEdits" and _edits_inside(tool, tool_input, directories, cwd):
        return PermissionCheck(kind="allow", why="mode acceptEdits")
    if mode == "plan":
        return PermissionCheck(kind="deny", why="mode plan", text=_plan_text(tool))
    if mode == "dontAsk":
        return PermissionCheck(kind="deny", why="mode dontAsk", text=dont_ask_text(tool))
    text, suggestions = _ask_text(tool, tool_input, directories, cwd)
    return PermissionCheck(kind="ask", why=f"mode {mode}", text=text, suggestions=suggestions)


def _reads_inside(
    tool: str,
    tool_input: Mapping[str, Any],
    read_only: bool,
    directories: Sequence[Path],
    cwd: Path,
) -> bool:
    if tool in _SHELLS:
        parts = _parts(tool_input)
        return parts is not None and bool(parts) and all(is_read_only(p) for p in parts)
    if tool in EDIT_TOOLS or not (read_only or tool in READ_TOOLS):
        return False
    path = tool_path(tool, tool_input, cwd, normalize=False)
    return path is None or inside_real(path, directories) is not None


def _edits_inside(
    tool: str, tool_input: Mapping[str, Any], directories: Sequence[Path], cwd: Path
) -> bool:
    if tool in EDIT_TOOLS:
        path = tool_path(tool, tool_input, cwd, normalize=False)
        return path is not None and inside_real(path, directories) is not None
    if tool not in _SHELLS:
        return False
    parts = _parts(tool_input)
    if not parts:
        return False
    for part in parts:
        if is_read_only(part):
            continue
        # A file command, or a reading one whose output goes to a file (`echo hi > f`).
        if part.name not in FILE_COMMANDS and not is_read_only(SimpleCommand(part.words)):
            return False
        if any(inside_real(p, directories) is None for p in written_paths(part, cwd)):
            return False
    return True


def _link_escape(
    tool: str,
    tool_input: Mapping[str, Any],
    mode: PermissionMode,
    directories: Sequence[Path],
    cwd: Path,
) -> PermissionCheck | None:
    """A write through a symbolic link that lands outside the working directories: an ask
    in every mode (a deny where the mode cannot ask), naming the link and where it leads."""
    if tool not in EDIT_TOOLS:
        return None
    raw = tool_path(tool, tool_input, cwd, normalize=False)
    written = tool_path(tool, tool_input, cwd)
    if raw is None or written is None or inside(written, directories) is None:
        return None  # written outside already: the mode decides, as for any outside path
    link = first_link(raw)
    if link is None or inside_real(raw, directories) is not None:
        return None
    real = real_path_or_self(raw)
    shown = "', '".join(str(d) for d in directories)
    text = (
        f"Claude requested permissions to write to {written}, but"
        f" {link} is a symbolic link and the path resolves to {real}, outside the working"
        f" directories for this session ('{shown}'). Writing there needs approval."
    )
    why = f"symbolic link {link} resolves outside the working directories"
    if mode in ("dontAsk", "plan"):
        return PermissionCheck(kind="deny", why=why, text=text)
    suggestion = {
        "type": "addDirectories",
        "directories": [str(real.parent)],
        "destination": "session",
    }
    return PermissionCheck(kind="ask", why=why, text=text, forced=True, suggestions=(suggestion,))


def _denied_text(tool: str, tool_input: Mapping[str, Any]) -> str:
    command = tool_input.get("command")
    if tool in _SHELLS and isinstance(command, str):
        return f"Permission to use {tool} with command {command} has been denied."
    return f"Permission to use {tool} has been denied."


def _ask_text(
    tool: str, tool_input: Mapping[str, Any], directories: Sequence[Path], cwd: Path
) -> tuple[str, tuple[Mapping[str, Any], ...]]:
    """What the model gets when nobody answers the ask, and the suggestions a prompt offers."""
    shown = "', '".join(str(d) for d in directories)
    if tool in _SHELLS:
        for part in _parts(tool_input) or ():
            for path in written_paths(part, cwd):
                home = inside_real(path, directories)
                where = "inside" if home is not None else "outside"
                text = (
                    f"{part.name or 'A redirection'} in '{path}' needs approval. The path is"
                    f" {where} the working directories for this session ('{shown}'), and Claude"
                    " Code asks before a shell command creates, changes or removes files there."
                )
                return text, (
                    {
                        "type": "addDirectories",
                        "directories": [str(home or path.parent)],
                        "destination": "session",
                    },
                    {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
                )
        parts = _parts(tool_input) or ()
        words = parts[0].words if parts else ()
        prefix = (
            " ".join(words[:2])
            if len(words) > 1 and not words[1].startswith("-")
            else " ".join(words[:1])
        )
        rule = {"toolName": tool, "ruleContent": f"{prefix}:*"} if prefix else {"toolName": tool}
        return (
            f"Claude requested permissions to use {tool}, but you haven't granted it yet.",
            (
                {
                    "type": "addRules",
                    "rules": [rule],
                    "behavior": "allow",
                    "destination": "localSettings",
                },
            ),
        )
    target = tool_path(tool, tool_input, cwd)
    if target is not None and (tool in EDIT_TOOLS or tool in READ_TOOLS):
        path = target
        verb = "write to" if tool in EDIT_TOOLS else "read from"
        suggestions: list[Mapping[str, Any]] = []
        raw = tool_path(tool, tool_input, cwd, normalize=False) or path
        if inside_real(raw, directories) is None:
            suggestions.append(
                {
                    "type": "addDirectories",
                    "directories": [str(path.parent)],
                    "destination": "session",
                }
            )
        if tool in EDIT_TOOLS:
            suggestions.append({"type": "setMode", "mode": "acceptEdits", "destination": "session"})
        return (
            f"Claude requested permissions to {verb} {path}, but you haven't granted it yet.",
            tuple(suggestions),
        )
    return (
        f"Claude requested permissions to use {tool}, but you haven't granted it yet.",
        (
            {
                "type": "addRules",
                "rules": [{"toolName": tool}],
                "behavior": "allow",
                "destination": "localSettings",
            },
        ),
    )
