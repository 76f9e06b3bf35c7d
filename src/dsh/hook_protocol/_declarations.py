"""Declarations of external command hooks: what to run, for how long, where it came from.

A bridge reads its tool's configuration and builds one ``HookCommand`` per
handler. The executor only ever sees an argv: the bridge chooses the shell its
tool uses (``shell_argv``) or the exec form (``exec_argv``, Claude Code's
``args``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypeAlias

from dsh._frozen import frozen
from dsh.base import FrozenDict

if TYPE_CHECKING:
    from dsh.hook_protocol._http import HttpTarget
    from dsh.hook_protocol._in_process import InProcessHook

__all__ = ["HookCommand", "HookOrigin", "OnFailure", "exec_argv", "shell_argv"]

OnFailure: TypeAlias = Literal["ignore", "block"]
"""``ignore``: a failing hook contributes no decision. ``block``: it makes the bridge block."""


@frozen(kw_only=True)
class HookOrigin:
    """Where a hook was declared, for diagnostics and the ``hook/*`` events.

    ``source`` is the file (a settings file, a plugin's ``hooks/hooks.json``,
    ``config.toml``); ``plugin`` names the plugin that shipped it, if any;
    ``event`` is the tool's event name (``PreToolUse``); ``group`` and ``index``
    are the matcher group's position under that event and the handler's position
    in the group, both from 0.
    """

    source: str
    plugin: str | None = None
    event: str
    group: int = 0
    index: int = 0

    def __post_init__(self) -> None:
        if not self.event:
            raise ValueError(f"hook declared in {self.source!r}: the event name is empty")
        if self.group < 0 or self.index < 0:
            raise ValueError(
                f"hook declared in {self.source!r} for {self.event}: group and index must be"
                f" >= 0, got group={self.group} index={self.index}"
            )

    def describe(self) -> str:
        """``PreToolUse[0][1] in /p/.claude/settings.json (plugin x)``: for messages."""
        where = f"{self.event}[{self.group}][{self.index}] in {self.source}"
        return f"{where} (plugin {self.plugin})" if self.plugin is not None else where


def _freeze_env(env: Mapping[str, str] | None, origin: HookOrigin) -> Mapping[str, str] | None:
    if env is None:
        return None
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(
                f"hook {origin.describe()}: env entries must be str to str, got {key!r}: {value!r}"
            )
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"hook {origin.describe()}: invalid env entry {key!r}={value!r}")
    return FrozenDict(env)


@frozen(kw_only=True)
class HookCommand:
    """One external command hook, ready to run.

    ``argv`` is spawned directly (no shell unless ``argv`` names one);
    ``timeout`` is in seconds; ``env`` is added to the inherited environment
    (which lacks the model API keys: see ``spawn_environment``);
    ``cwd`` defaults to the host's current directory.

    ``dedup_key`` says which hooks count as "the same handler" when a bridge asks
    ``run_hooks(..., dedup=True)``: hooks with equal keys run once. ``None``
    means the default key, ``(argv, env, cwd)`` (see ``key``); a bridge that keeps
    copies from different plugins apart puts the plugin into the key.

    ``http``, when set, makes this an HTTP hook: the payload is POSTed to its URL
    instead of a process's stdin (``_http``); ``argv`` then only names it (its URL),
    in messages and the ``hook/*`` events. ``call``, when set, is a hook dsh runs in
    its own process (a model judging the payload: ``_in_process``), under the same
    timeout; ``argv`` again only names it.

    ``inherit_telemetry``: the inherited ``OTEL_*`` variables and
    ``CLAUDE_CODE_OTEL_DIAG_STDERR`` pass to the hook (Codex 0.171 passes them; Claude
    Code 2.1.332 does not, the default: see ``spawn_environment``).
    """

    argv: tuple[str, ...]
    timeout: float
    origin: HookOrigin
    env: Mapping[str, str] | None = None
    cwd: Path | None = None
    on_failure: OnFailure = "ignore"
    dedup_key: Hashable | None = field(default=None)
    http: HttpTarget | None = None
    call: InProcessHook | None = field(default=None, compare=False)
    inherit_telemetry: bool = False

    def __post_init__(self) -> None:
        where = self.origin.describe()
        if isinstance(self.argv, str | bytes) or not isinstance(self.argv, Sequence):
            raise TypeError(f"hook {where}: argv must be a tuple of str, got {self.argv!r}")
        argv = tuple(self.argv)
        if not argv:
            raise ValueError(f"hook {where}: argv is empty")
        for i, arg in enumerate(argv):
            if not isinstance(arg, str):
                raise TypeError(f"hook {where}: argv[{i}] must be str, got {arg!r}")
            if "\0" in arg:
                raise ValueError(f"hook {where}: argv[{i}] contains a NUL byte")
        if not argv[0]:
            raise ValueError(f"hook {where}: argv[0] (the program) is empty")
        if (
            isinstance(self.timeout, bool)
            or not isinstance(self.timeout, int | float)
            or not math.isfinite(self.timeout)
            or self.timeout <= 0
        ):
            raise ValueError(
                f"hook {where}: timeout must be a finite number of seconds > 0,"
                f" got {self.timeout!r}"
            )
        if self.on_failure not in ("ignore", "block"):
            raise ValueError(
                f"hook {where}: on_failure must be 'ignore' or 'block', got {self.on_failure!r}"
            )
        if self.cwd is not None and not isinstance(self.cwd, Path):
            raise TypeError(f"hook {where}: cwd must be a pathlib.Path, got {self.cwd!r}")
        object.__setattr__(self, "argv", argv)
        object.__setattr__(self, "timeout", float(self.timeout))
        object.__setattr__(self, "env", _freeze_env(self.env, self.origin))

    @property
    def key(self) -> Hashable:
        """The deduplication key: ``dedup_key``, else ``(argv, env, cwd)``."""
        if self.dedup_key is not None:
            return self.dedup_key
        env = None if self.env is None else tuple(sorted(self.env.items()))
        return (self.argv, env, self.cwd)


def shell_argv(command: str, shell: str = "sh") -> tuple[str, ...]:
    """The argv that runs ``command`` through ``shell -c`` (the shell form).

    Claude Code uses ``sh -c`` on Linux; Codex the user's shell (``bash -c``
    observed); the bridge picks.
    """
    if not isinstance(command, str) or not command.strip():
        raise ValueError(f"shell-form hook command must be a non-empty string, got {command!r}")
    if not shell:
        raise ValueError("the shell for a shell-form hook is empty")
    return (shell, "-c", command)


def exec_argv(command: str, args: Sequence[str] = ()) -> tuple[str, ...]:
    """The argv of the exec form (Claude Code's ``command`` plus ``args``): no shell.

    ``command`` is looked up on ``PATH`` at spawn time when it has no slash.
    """
    if not isinstance(command, str) or not command:
        raise ValueError(f"exec-form hook command must be a non-empty string, got {command!r}")
    if isinstance(args, str):
        raise TypeError(f"exec-form hook args must be a list of strings, got the string {args!r}")
    for i, arg in enumerate(args):
        if not isinstance(arg, str):
            raise TypeError(f"exec-form hook args[{i}] must be a string, got {arg!r}")
    return (command, *args)
