"""ConfigChange and FileChanged: settings, skills and watched files that change mid-session.

2.1.332 watches files in the background and fires these events when its watcher notices;
dsh compares the files' contents at fixed points instead: after each tool call, before its
post-tool hooks (so a Bash call that edits a file fires the event where 2.1.332's watcher
did in the recordings: between its PreToolUse and PostToolUse), and before each prompt (a
change made between turns). No timer, no watcher thread, nothing when neither event is
declared.

ConfigChange (``config-change``, ``config-skill`` in tests/fixtures/claude_events.json):
the settings files (``user_settings``, ``project_settings``, ``local_settings``, the managed
file as ``policy_settings``) and the skill files (``skills``), with ``source`` and
``file_path``. FileChanged: the files a FileChanged matcher names (literal file names in
the session's directory) and the ``watchPaths`` a SessionStart, CwdChanged or FileChanged
hook returned (each answer replaces that list), with ``file_path`` and ``event``
(``change``, ``add``, ``unlink``), its groups filtered by the file's name.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from dsh.agent import PROMPT_SUBMIT, Agent, PromptDecision, PromptSource, calling_agent
from dsh.base import read_bounded
from dsh.base._env_policy import model_keys
from dsh.context import Context, Next
from dsh.hook_protocol._sessions import root_session
from dsh.hooks.claude.runtime._answers import blocking
from dsh.hooks.claude.runtime._handlers import Handlers
from dsh.hooks.claude.runtime._machinery import SOURCE
from dsh.hooks.claude.settings._env import EnvLayer, file_env, merged_env, with_layer
from dsh.hooks.claude.settings._types import HookSource, SourceKind
from dsh.messages import Content
from dsh.tools import POST_EXECUTE, PostToolDecision, ToolCall, ToolResult

if TYPE_CHECKING:
    from dsh.hooks.claude.payloads import ConfigChangeHookInput, FileChangedHookInput

__all__ = ["Watches"]

_ENV_KINDS: Final[dict[str, SourceKind]] = {
    "user_settings": "user",
    "project_settings": "project",
    "local_settings": "local",
    "policy_settings": "managed",
}
"""A ConfigChange ``source`` whose file's ``env`` is re-read, and its kind of settings."""

_MAX_BYTES: Final = 1 << 20
"""A watched file is compared by its first MiB (a settings file is far smaller)."""
_MAX_SKILLS: Final = 512
"""Skill files compared per folder, at most."""

Snapshot = dict[Path, str | None]


def _digest(path: Path) -> str | None:
    """The file's content digest; ``None`` when it is not there (or not a readable file)."""
    try:
        if not path.is_file():
            return None
        return hashlib.sha256(read_bounded(path, _MAX_BYTES, "watched file")).hexdigest()
    except (OSError, ValueError):
        return None


def _snapshot(paths: Iterable[Path]) -> Snapshot:
    return {path: _digest(path) for path in paths}


def _changes(before: Snapshot, after: Snapshot) -> list[tuple[Path, str]]:
    """Each path whose content differs, with 2.1.332's ``event`` word."""
    out = []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        out.append((path, "add" if old is None else "unlink" if new is None else "change"))
    return out


class Watches(Handlers):
    """The two events' listeners (``ClaudeHooksPlugin.apply`` mounts them, outermost)."""

    def _mount_watches(self, ctx: Context) -> None:
        config, files = self.declared("ConfigChange"), self.declared("FileChanged")
        if not config and not files:
            return
        self._watch_config, self._watch_files = config, files
        self._settings = self._settings_files()
        self._config = _snapshot(self._config_paths()) if config else {}
        self._matched = self._matcher_files() if files else ()
        self._dynamic: tuple[Path, ...] = ()
        self._env_layers: tuple[EnvLayer, ...] = self.catalog.env_layers
        self._files = _snapshot(self._matched) if files else {}
        self.runtime.on_watch_paths = self._set_watch_paths
        ctx.on(POST_EXECUTE, self._after_call)
        ctx.on(PROMPT_SUBMIT, self._before_prompt)

    # -- the points where files are compared ------------------------------------------------

    async def _after_call(
        self, call: ToolCall, result: ToolResult, nxt: Next[PostToolDecision]
    ) -> PostToolDecision:
        agent = calling_agent(call.agent)
        if agent is not None:
            await self._compare(agent)
        return await nxt()

    async def _before_prompt(
        self, agent: Agent, content: Content, source: PromptSource, nxt: Next[PromptDecision]
    ) -> PromptDecision:
        await self._compare(agent)
        return await nxt()

    async def _compare(self, agent: Agent) -> None:
        if self._watch_config:
            now = _snapshot(self._config_paths())
            changed, self._config = _changes(self._config, now), now
            for path, _event in changed:
                await self._config_change(agent, path)
        if self._watch_files:
            now = _snapshot(self._files)
            changed, self._files = _changes(self._files, now), now
            for path, event in changed:
                await self._file_changed(agent, path, event)

    # -- ConfigChange ---------------------------------------------------------------------

    def _settings_files(self) -> dict[Path, str]:
        """The settings files 2.1.332 watches, each with its ``source``."""
        project = self.catalog.project_dir
        home = Path(os.environ.get("HOME") or Path.home())
        configured = os.environ.get("CLAUDE_CONFIG_DIR")
        config_dir = Path(configured).expanduser() if configured else home / ".claude"
        files = {
            config_dir / "settings.json": "user_settings",
            project / ".claude" / "settings.json": "project_settings",
            project / ".claude" / "settings.local.json": "local_settings",
        }
        for entry in self.catalog.sources:
            if entry.source.kind == "managed" and entry.source.path is not None:
                files[entry.source.path] = "policy_settings"
        self._skill_dirs = (project / ".claude" / "skills", config_dir / "skills")
        return files

    def _config_paths(self) -> list[Path]:
        paths = list(self._settings)
        for folder in self._skill_dirs:
            if folder.is_dir():
                paths.extend(sorted(folder.glob("*/SKILL.md"))[:_MAX_SKILLS])
        return paths

    async def _config_change(self, agent: Agent, path: Path) -> None:
        source = self._settings.get(path, "skills")
        hooks = self._matching(agent, "ConfigChange", source)
        if hooks:
            payload: ConfigChangeHookInput = self._base(
                root_session(agent),
                "ConfigChange",
                permission=False,
                agent_fields=False,
                effort=False,
            )
            payload["source"] = source
            payload["file_path"] = str(path)
            merged = await self._fire(agent, "ConfigChange", hooks, payload)
            # A block (exit 2, `decision: "block"`) keeps the change out of the session;
            # 2.1.332 shows neither its reason nor its stderr (debug log only), nor does dsh.
            if blocking(merged):
                return
        if source in _ENV_KINDS:
            self._apply_env(root_session(agent), path, _ENV_KINDS[source])

    def _apply_env(self, root: Agent, path: Path, kind: SourceKind) -> None:
        """The changed file's ``env`` applied to the session as 2.1.332 applies it
        (``config-change``): every later hook and Bash command sees the new values, and a
        name no file sets any more is gone. A project's only while it is trusted."""
        if kind in ("project", "local") and not self.catalog.project_env_trusted:
            return
        layers = self._env_layers
        before = merged_env(layers)
        self._env_layers = with_layer(layers, HookSource(kind=kind, path=path), file_env(path))
        after = merged_env(self._env_layers)
        keys = model_keys(os.environ)  # never to a hook or a command
        hook_env, command_env = self.runtime._settings_env, root.workspace.env
        for name in before.keys() - after.keys():
            hook_env.pop(name, None)
            command_env.pop(name, None)
        for name, value in after.items():
            if name not in keys:
                hook_env[name] = command_env[name] = value

    # -- FileChanged -------------------------------------------------------------------

    def _matcher_files(self) -> tuple[Path, ...]:
        """The literal file names FileChanged matchers name, in the session's directory."""
        names: list[str] = []
        for hook in self.catalog.for_event("FileChanged"):
            declared = hook.matcher.declared
            if declared:
                names.extend(n.strip() for n in declared.split("|") if n.strip())
        project = self.catalog.project_dir
        return tuple(dict.fromkeys(project / name for name in names))

    def _set_watch_paths(self, agent: Agent, paths: Sequence[str]) -> None:
        """A SessionStart, CwdChanged or FileChanged hook's ``watchPaths``: the new dynamic
        list (the matchers' files stay watched)."""
        if not getattr(self, "_watch_files", False):
            return  # no FileChanged hook: nothing would fire
        cwd = agent.workspace.cwd
        self._dynamic = tuple(dict.fromkeys((cwd / p).resolve() for p in paths))
        watched = (*self._matched, *self._dynamic)
        self._files = {p: self._files[p] if p in self._files else _digest(p) for p in watched}

    async def _file_changed(self, agent: Agent, path: Path, event: str) -> None:
        hooks = self._matching(agent, "FileChanged", path.name)
        if not hooks:
            return
        payload: FileChangedHookInput = self._base(
            agent, "FileChanged", permission=False, effort=False
        )
        payload["file_path"] = str(path)
        payload["event"] = event
        merged = await self._fire(agent, "FileChanged", hooks, payload)
        for _, answer in merged.answers:
            if answer.system_message:
                agent.notice(answer.system_message, source=f"{SOURCE}:FileChanged")
        self._user_errors(agent, "FileChanged", merged)
        self.runtime.watch_paths_from(agent, merged)
