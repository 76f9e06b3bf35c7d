"""The permission policy as a native plugin on ``tools/pre-execute``, and its session state.

``ClaudePermissionsPlugin`` answers every call with Claude Code's check
(``check_call``): ``deny`` refuses it with Claude Code's text, ``allow`` lets
the inner listeners decide, ``ask`` goes to the approval seam (where
PermissionRequest hooks, then the ``APPROVAL`` service, answer; headless and
unanswered, the ask's text is the model's error result). Mounted after the
hooks bridge, it is inner to the PreToolUse listener (hooks run before the
check, as in Claude Code) and every native listener mounted before it sees its
decision through ``next()``.

``PermissionState`` is what the bridge and the policy share for one mount: the
mode (``setMode`` changes it), the session's rules and directories (what a
PermissionRequest ``updatedPermissions`` adds, and what ``/add-dir`` or a
``register_repo_root`` adds: ``agent/directory-added``), the calls a PreToolUse
hook allowed and the asks the policy made (for ``permission_suggestions``). An
update whose ``destination`` is a settings file is also written there
(``persist``, ``permissions._persist``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from dsh.agent import DIRECTORY_ADDED, Agent, DirectorySource
from dsh.approval import ApprovalAllow, ApprovalDecision, ApprovalDeny, ApprovalRequest
from dsh.base import DshError
from dsh.context import Context, Next
from dsh.hooks.claude.permissions._auto import AutoClassifier, UnavailableClassifier
from dsh.hooks.claude.permissions._persist import (
    PERSISTED,
    SCOPE_OF,
    SettingsTargets,
    persist_update,
    rule_text,
)
from dsh.hooks.claude.permissions._policy import PermissionCheck, check_call
from dsh.hooks.claude.rules._grammar import RuleError, parse_rule, rule_root
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.rules._values import (
    PERMISSION_MODES,
    PermissionSettings,
    RuleEntry,
    WorkingDirectory,
    parse_mode,
)
from dsh.tools import (
    APPROVAL_REQUEST,
    PRE_EXECUTE,
    CallStateKey,
    PreToolAllow,
    PreToolDecision,
    ToolCall,
)
from dsh.tools._sandbox import NETWORK_ACCESS

__all__ = [
    "ClaudePermissionsPlugin",
    "PermissionModeError",
    "PermissionState",
    "permission_state",
]


class PermissionModeError(DshError, ValueError):
    """A permission mode the settings disable (``bypassPermissions``), or an unknown one."""


_PARENT_MODE_STANDS: frozenset[str] = frozenset({"bypassPermissions", "acceptEdits", "auto"})


class PermissionState:
    """The permission mode, rules and working directories of one mounted profile."""

    __slots__ = (
        "_asked",
        "_hook_allowed",
        "agent_modes",
        "classifier",
        "directories",
        "home",
        "mode",
        "mode_source",
        "rules",
        "settings",
        "targets",
    )

    def __init__(
        self,
        settings: PermissionSettings,
        *,
        mode: PermissionMode,
        directories: Sequence[WorkingDirectory],
        home: Path | None = None,
        classifier: AutoClassifier | None = None,
        targets: SettingsTargets | None = None,
        mode_source: str = "set for this run",
    ) -> None:
        self.settings = settings
        self.targets = targets
        self.mode_source = mode_source
        # `auto` judges with it; without one, as 2.1.332 here: the check is unavailable.
        self.classifier: AutoClassifier = (
            classifier if classifier is not None else UnavailableClassifier()
        )
        self.mode: PermissionMode = mode
        self.rules: list[RuleEntry] = list(settings.rules)
        self.directories: list[WorkingDirectory] = list(directories)
        self.home = home
        # A custom agent's `permissionMode` (by agent type): `mode_for` applies it.
        self.agent_modes: dict[str, PermissionMode] = {}
        # Kept in each call's own slot, from PreToolUse to PermissionRequest.
        self._hook_allowed: CallStateKey[bool] = CallStateKey("claude-permissions.hook-allowed")
        self._asked: CallStateKey[PermissionCheck] = CallStateKey("claude-permissions.asked")

    def mode_for(self, agent: object) -> PermissionMode:
        """The mode ``agent``'s calls are checked in: a subagent's type's ``permissionMode``
        unless the session's is ``bypassPermissions``, ``acceptEdits`` or ``auto`` (those
        stand), and never ``bypassPermissions`` unless the session is in it (2.1.332)."""
        kind = getattr(agent, "agent_type", None) if getattr(agent, "parent", None) else None
        own = self.agent_modes.get(kind) if isinstance(kind, str) else None
        if own is None or self.mode in _PARENT_MODE_STANDS or own == "bypassPermissions":
            return self.mode
        return own

    def paths(self) -> tuple[Path, ...]:
        return tuple(d.path for d in self.directories)

    def add_directory(self, path: Path, source: str) -> bool:
        """``path`` joins the working directories (once); whether it was new."""
        if path in self.paths():
            return False
        self.directories.append(WorkingDirectory(path=path, source=source))
        return True

    def persist(self, entry: Mapping[str, Any]) -> str | None:
        """Write an applied update to the settings file its ``destination`` names; why not,
        when it stays a session update (``None``: written, or nothing to write)."""
        destination = entry.get("destination")
        if destination not in PERSISTED:
            return None
        if self.targets is None:
            return "no settings file is known for this session"
        file = self.targets.file(destination)
        if entry.get("type") == "addRules" and self.settings.managed_rules_only:
            return f"{file}: managed settings allow only managed permission rules"
        return persist_update(entry, self.targets)

    def edit(self, text: str) -> list[str]:
        """``/permissions add|remove BEHAVIOR RULE [WHERE]``: the rule added to the settings
        file 2.1.332 writes it to (``WHERE``: local, project, user or session), or deleted
        from where it came from (``permissions._edit``); the lines to show (with no text:
        how to edit)."""
        from dsh.hooks.claude.permissions._edit import edit_command

        return edit_command(self, text)

    def report(self) -> list[str]:
        """The session's mode, working directories and rules, each with its source."""
        from dsh.hooks.claude.permissions._report import session_lines

        return session_lines(self)

    def hook_allowed(self, call: ToolCall) -> None:
        """A PreToolUse hook allowed ``call``: the mode's ask is skipped (rules still apply)."""
        call.state[self._hook_allowed] = True

    def asked(self, call: ToolCall) -> PermissionCheck | None:
        """The policy's ask for ``call``, if it asked (for PermissionRequest)."""
        return call.state.get(self._asked)

    def check(self, call: ToolCall) -> PermissionCheck:
        agent = call.agent
        cwd = agent.workspace.cwd if agent is not None else self.paths()[0]
        name, arguments = _as_claude_sees(call)
        checked = check_call(
            name,
            arguments,
            read_only=call.tool is not None and call.tool.read_only,
            mode=self.mode_for(agent),
            rules=self.rules,
            directories=self.paths(),
            cwd=cwd,
            home=self.home,
            hook_allowed=call.state.pop(self._hook_allowed, False),
        )
        if checked.kind == "ask":
            call.state[self._asked] = checked
        return checked

    def apply_update(self, entry: Mapping[str, Any]) -> tuple[str, ...]:
        """Apply one PermissionRequest ``updatedPermissions`` entry for this session; the
        directories it added (DirectoryAdded's). Raises ``ValueError`` for a malformed one."""
        kind = entry.get("type")
        if kind == "setMode":
            mode = parse_mode(entry.get("mode"))
            if mode is None:
                raise ValueError(f"setMode: {entry.get('mode')!r} is not a mode dsh runs in")
            if mode != "bypassPermissions" or self.mode == "bypassPermissions":
                self.mode = mode  # bypass only if the session started in it (Claude Code's rule)
                self.mode_source = f"setMode by a PermissionRequest hook ({self._where(entry)[1]})"
            return ()
        if kind in ("addDirectories", "removeDirectories"):
            listed = entry.get("directories")
            if not isinstance(listed, list) or not all(isinstance(d, str) and d for d in listed):
                raise ValueError(f"{kind}: `directories` must be a list of paths")
            paths = [Path(d).expanduser() for d in listed]
            if kind == "removeDirectories":
                self.directories = [d for d in self.directories if d.path not in paths]
                return ()
            where = self._where(entry)[1]
            added = [p for p in paths if p.is_absolute() and self.add_directory(p, where)]
            return tuple(str(p) for p in added)
        if kind in ("addRules", "replaceRules", "removeRules"):
            self._rules_update(kind, entry)
            return ()
        raise ValueError(f"unknown permission update type {kind!r}")

    def _rules_update(self, kind: str, entry: Mapping[str, Any]) -> None:
        behavior = entry.get("behavior")
        listed = entry.get("rules")
        if behavior not in ("allow", "deny", "ask") or not isinstance(listed, list):
            raise ValueError(f"{kind}: needs `behavior` allow|deny|ask and a `rules` list")
        parsed: list[RuleEntry] = []
        scope, source = self._where(entry)
        root = self._root(entry)
        for item in listed:
            if not isinstance(item, dict) or not isinstance(item.get("toolName"), str):
                raise ValueError(f"{kind}: each rule is {{toolName, ruleContent?}}")
            try:
                rule = parse_rule(rule_text(item), root=root)
            except RuleError as exc:
                raise ValueError(f"{kind}: {exc}") from exc
            parsed.append(RuleEntry(rule=rule, behavior=behavior, source=source, scope=scope))
        declared = {p.rule.declared for p in parsed}
        if kind == "removeRules":
            self.rules = [
                r
                for r in self.rules
                if not (r.behavior == behavior and r.rule.declared in declared)
            ]
        elif kind == "replaceRules":
            self.rules = [r for r in self.rules if r.behavior != behavior or r.scope != scope]
            self.rules.extend(parsed)
        else:
            self.rules.extend(parsed)

    def _where(self, entry: Mapping[str, Any]) -> tuple[str, str]:
        """The scope and source an update's rules and directories are listed with."""
        destination = entry.get("destination")
        if destination in PERSISTED and self.targets is not None:
            return SCOPE_OF[destination], str(self.targets.file(destination))
        return "session", "session"

    def _root(self, entry: Mapping[str, Any]) -> Path:
        """What an update's ``/path`` rules are relative to: its settings file's root; the
        project for a session update (never the directory the session has moved to)."""
        project = self.paths()[0]
        destination = entry.get("destination")
        if destination in PERSISTED and self.targets is not None:
            return rule_root(self.targets.file(destination), project)
        return project


def _as_claude_sees(call: ToolCall) -> tuple[str, Mapping[str, Any]]:
    """``call``'s tool name and input for the rules: another shell tool (one declaring
    ``shell_command``, as Codex's ``exec_command`` does) is ``Bash`` with ``{command}``."""
    field = call.tool.shell_command if call.tool is not None else None
    if field is None or call.name == "Bash":
        return call.name, call.arguments
    command = call.arguments.get(field)
    return "Bash", {"command": command if isinstance(command, str) else ""}


def permission_state(
    settings: PermissionSettings,
    project: Path,
    *,
    mode: PermissionMode | None = None,
    add_dirs: Sequence[Path] = (),
    home: Path | None = None,
    classifier: AutoClassifier | None = None,
    targets: SettingsTargets | None = None,
) -> PermissionState:
    """The state a session starts with: ``mode`` (else the settings' ``defaultMode``, else
    ``default``), the project, ``add_dirs`` (``--add-dir``) and ``additionalDirectories``.

    ``auto`` judges with ``classifier`` (none: ``UnavailableClassifier``, which refuses
    what the mode would ask about, as 2.1.332 does without its safety check). Raises
    ``PermissionModeError`` for ``bypassPermissions`` when a settings file disables it.
    """
    chosen: PermissionMode = mode or settings.default_mode or "default"
    if mode is not None:
        source = "--permission-mode or dsh's configuration"
    elif settings.default_mode is not None:
        source = f"defaultMode in {settings.default_mode_source}"
    else:
        source = "nothing set"
    if chosen not in PERMISSION_MODES:
        raise PermissionModeError(f"unknown permission mode {chosen!r}")
    if chosen == "bypassPermissions" and settings.bypass_disabled_by is not None:
        raise PermissionModeError(
            "permission mode bypassPermissions is disabled by `disableBypassPermissionsMode`"
            f" in {settings.bypass_disabled_by}"
        )
    dirs = [WorkingDirectory(path=project, source="project")]
    dirs += [
        WorkingDirectory(path=Path(p).expanduser().absolute(), source="--add-dir") for p in add_dirs
    ]
    dirs += settings.directories
    unique: dict[Path, WorkingDirectory] = {}
    for d in dirs:
        unique.setdefault(d.path, d)
    return PermissionState(
        settings,
        mode=chosen,
        directories=tuple(unique.values()),
        home=home,
        classifier=classifier,
        targets=targets,
        mode_source=source,
    )


class ClaudePermissionsPlugin:
    """Claude Code's permission check on ``tools/pre-execute``: ``ctx.plugin(plugin)`` it."""

    __slots__ = ("state",)

    def __init__(self, state: PermissionState) -> None:
        self.state = state

    def apply(self, ctx: Context) -> None:
        ctx.on(PRE_EXECUTE, self._check)
        ctx.on(DIRECTORY_ADDED, self._directory_added)
        ctx.on(APPROVAL_REQUEST, self._network_access)

    async def _network_access(
        self, call: ToolCall, req: ApprovalRequest, nxt: Next[ApprovalDecision]
    ) -> ApprovalDecision:
        """A sandboxed command's unlisted host, as 2.1.332 settles it by the mode: allowed in
        ``bypassPermissions``, refused in ``dontAsk``, judged by the classifier in ``auto``,
        else asked (the terminal, an ACP client; no PermissionRequest hook fires for it)."""
        if call.name != NETWORK_ACCESS:
            return await nxt()
        mode = self.state.mode_for(call.agent)
        if mode == "bypassPermissions":
            return ApprovalAllow(reason="mode bypassPermissions")
        if mode == "dontAsk":
            return ApprovalDeny(f"Network access to {call.arguments.get('host')} was denied")
        if mode == "auto":
            denial = await self.state.classifier.classify(call)
            return ApprovalAllow() if denial is None else ApprovalDeny(denial.message)
        return await nxt()

    async def _directory_added(self, agent: Agent, path: Path, source: DirectorySource) -> None:
        # `/add-dir`, `register_repo_root`: a working directory for the checks too.
        if agent.parent is None:
            self.state.add_directory(path, source)

    async def _check(self, call: ToolCall, nxt: Next[PreToolDecision]) -> PreToolDecision:
        if call.tool is None:
            return await nxt()  # an unknown tool is refused by the registry anyway
        state = self.state
        checked = state.check(call)
        if checked.kind == "deny":
            return PreToolDecision.deny(checked.text, {"permission": checked.info()})
        if checked.kind == "ask" and not checked.forced and state.mode == "auto":
            # Auto mode: the classifier judges what the mode would ask about.
            denial = await state.classifier.classify(call)
            if denial is not None:
                info = {"decided_by": "auto-mode classifier", "auto_denied": denial.reason}
                return PreToolDecision.deny(denial.message, {"permission": info})
            return await nxt()
        decision = await nxt()
        if checked.kind == "allow" or not isinstance(decision, PreToolAllow):
            return decision  # an inner deny or ask stands
        return PreToolDecision.ask(checked.text, additional_context=decision.additional_context)
