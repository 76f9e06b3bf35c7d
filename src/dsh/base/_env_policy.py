"""The environment of every process the model drives, as Codex's ``shell_environment_policy``.

``EnvironmentPolicy`` is Codex's policy with Codex's vocabulary and algorithm
(``codex-rs`` ``shell_environment.rs``): start from ``inherit`` (``all``, ``core``: the
variables of ``CORE_VARIABLES``, ``none``); unless ``ignore_default_excludes``, drop
names matching ``DEFAULT_EXCLUDES``; drop names matching ``exclude``; add ``set``; when
``include_only`` is not empty, keep only names matching it. Patterns are Codex's
(the ``wildmatch`` crate's): ``*`` any run of characters, ``?`` one, everything else
literal, ASCII letters matched without case. dsh's defaults differ from Codex's in one
thing: the default excludes apply unless turned off (Codex's ``ignore_default_excludes``
defaults to true), and they also name ``PASSWORD`` and ``CREDENTIAL``.

Whatever the policy says, dsh's own model keys (``model_keys``) never reach such a
process: they are removed last. Hooks, which the user wrote, are not under the policy:
they keep dsh's environment less the model keys (``dsh.hook_protocol``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from dataclasses import field, replace
from typing import Any, Final, Literal, TypeAlias, final, get_args

from dsh._frozen import frozen
from dsh.base._json import FrozenDict

__all__ = [
    "CORE_VARIABLES",
    "DEFAULT_EXCLUDES",
    "KEY_ENV_SETTING",
    "MODEL_KEY_VARIABLES",
    "EnvironmentPolicy",
    "Inherit",
    "model_keys",
    "name_matches",
    "withhold_variable",
]

Inherit: TypeAlias = Literal["all", "core", "none"]

CORE_VARIABLES: Final = (
    *("PATH", "SHELL", "TMPDIR", "TEMP", "TMP"),
    *("HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "USER"),
)
"""What ``inherit = "core"`` keeps on Unix (Codex's common and Unix core variables)."""

DEFAULT_EXCLUDES: Final = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "*CREDENTIAL*")
"""Codex's default excludes (``*KEY*``, ``*SECRET*``, ``*TOKEN*``) and dsh's two more."""

MODEL_KEY_VARIABLES: Final = (
    "DSH_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
)
"""The variables dsh reads (or will read) a model key from: no model-driven process or hook
gets them (with the variable ``KEY_ENV_SETTING`` names and those ``withhold_variable`` adds)."""

KEY_ENV_SETTING: Final = "DSH_API_KEY_ENV"
"""The variable naming the variable the model's API key is read from: a model key too."""

_POLICY_KEYS: Final = ("inherit", "ignore_default_excludes", "exclude", "set", "include_only")

_registered: set[str] = set()


def withhold_variable(name: str) -> None:
    """Count ``name`` among this process's model keys too (a config's ``api_key_env``)."""
    _registered.add(name)


def model_keys(environ: Mapping[str, str]) -> frozenset[str]:
    """The names of dsh's model keys, as ``environ`` (which may name one more) has them."""
    names = {*MODEL_KEY_VARIABLES, *_registered}
    named = environ.get(KEY_ENV_SETTING, "").strip()
    if named:
        names.add(named)
    return frozenset(names)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    parts = [".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern]
    # re.ASCII with IGNORECASE folds ASCII letters only, as wildmatch's to_ascii_lowercase.
    return re.compile("".join(parts), re.DOTALL | re.IGNORECASE | re.ASCII)


def name_matches(pattern: str, name: str) -> bool:
    """Whether ``name`` matches the Codex pattern ``pattern`` (the whole name, any case)."""
    return _compiled(pattern).fullmatch(name) is not None


def _matches_any(name: str, patterns: tuple[str, ...]) -> bool:
    return any(name_matches(p, name) for p in patterns)


@final
@frozen(kw_only=True)
class EnvironmentPolicy:
    """Codex's ``[shell_environment_policy]``, with dsh's defaults (see the module)."""

    inherit: Inherit = "all"
    ignore_default_excludes: bool = False
    exclude: tuple[str, ...] = ()
    set: Mapping[str, str] = field(default_factory=FrozenDict)
    include_only: tuple[str, ...] = ()

    def environment(self, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment for a process the model drives, from ``inherited`` (default
        ``os.environ``): Codex's five steps, then without dsh's model keys."""
        source = os.environ if inherited is None else inherited
        if self.inherit == "all":
            env = dict(source)
        elif self.inherit == "core":
            env = {k: v for k, v in source.items() if k in CORE_VARIABLES}
        else:
            env = {}
        if not self.ignore_default_excludes:
            env = {k: v for k, v in env.items() if not _matches_any(k, DEFAULT_EXCLUDES)}
        if self.exclude:
            env = {k: v for k, v in env.items() if not _matches_any(k, self.exclude)}
        env.update(self.set)
        if self.include_only:
            env = {k: v for k, v in env.items() if _matches_any(k, self.include_only)}
        for name in model_keys(source):
            env.pop(name, None)
        return env

    def layered(self, table: Mapping[str, Any], *, strict: bool = True) -> EnvironmentPolicy:
        """This policy with a ``[shell_environment_policy]`` table over it, merged as Codex
        merges config layers: a key the table sets replaces this one's, except ``set``,
        whose variables are added one by one. Raises ``ValueError`` naming a bad key;
        ``strict``: an unknown key is one (Codex's own file may hold keys dsh does not use)."""
        changes: dict[str, Any] = {}
        for key, value in table.items():
            if key not in _POLICY_KEYS:
                if strict:
                    raise ValueError(f"unknown key {key!r} (known: {', '.join(_POLICY_KEYS)})")
                continue
            changes[key] = _checked(key, value)
        if "set" in changes:
            changes["set"] = FrozenDict({**self.set, **changes["set"]})
        return replace(self, **changes)


def _checked(key: str, value: Any) -> Any:
    if key == "inherit":
        if value not in get_args(Inherit):
            raise ValueError(f"inherit: {value!r} is not one of all, core, none")
        return value
    if key == "ignore_default_excludes":
        if not isinstance(value, bool):
            raise ValueError(f"ignore_default_excludes: {value!r} is not true or false")
        return value
    if key == "set":
        if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            raise ValueError("set: not a table of variable names to strings")
        bad = [k for k in value if not k or "=" in k or "\x00" in k or "\x00" in value[k]]
        if bad:
            raise ValueError(f"set: {bad[0]!r} is not an environment variable")
        return dict(value)
    if not isinstance(value, (list, tuple)) or not all(isinstance(p, str) for p in value):
        raise ValueError(f"{key}: not a list of patterns")
    return tuple(value)
