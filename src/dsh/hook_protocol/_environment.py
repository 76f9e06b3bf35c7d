"""The environment a hook process is spawned with: dsh's own, minus its secrets.

A hook is a program from a settings file the user may not have written; it
gets dsh's environment as Claude Code's hooks do, except the model API key
variables (``SECRET_ENV_VARS``, the variable ``$DSH_API_KEY_ENV`` names, and
any a front end registers with ``withhold_variable``: the ``api_key_env`` of a
config file). ``$DSH_HOOK_PASS_ENV`` (names, comma- or space-separated) passes
named ones on; a declaration's own ``env`` entry for one is the declaration's
choice and is kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Final

__all__ = [
    "KEY_ENV_SETTING",
    "PASS_ENV_SETTING",
    "SECRET_ENV_VARS",
    "spawn_environment",
    "withheld_variables",
    "withhold_variable",
]

SECRET_ENV_VARS: Final = ("DSH_API_KEY", "OPENAI_API_KEY")
"""The model API key variables no hook inherits unless ``PASS_ENV_SETTING`` names them."""

PASS_ENV_SETTING: Final = "DSH_HOOK_PASS_ENV"
"""The variable naming secret variables hooks may inherit after all (``DSH_API_KEY,...``)."""


KEY_ENV_SETTING: Final = "DSH_API_KEY_ENV"
"""The variable naming the variable the model's API key is read from: withheld too."""

_registered: set[str] = set()


def withhold_variable(name: str) -> None:
    """Withhold ``name`` from every hook of this process too (a config's ``api_key_env``)."""
    _registered.add(name)


def withheld_variables(inherited: Mapping[str, str]) -> frozenset[str]:
    """The secret variables set in ``inherited`` that hooks do not get."""
    passed = set(re.split(r"[\s,]+", inherited.get(PASS_ENV_SETTING, "").strip()))
    secrets = {*SECRET_ENV_VARS, *_registered}
    named = inherited.get(KEY_ENV_SETTING, "").strip()
    if named:
        secrets.add(named)
    return frozenset(n for n in secrets if n in inherited and n not in passed)


def spawn_environment(
    added: Mapping[str, str] | None, inherited: Mapping[str, str] | None = None
) -> dict[str, str] | None:
    """The environment to spawn a hook with: ``inherited`` (default ``os.environ``)
    without the withheld secrets, then ``added``; ``None`` when that is just ``os.environ``."""
    base = os.environ if inherited is None else inherited
    withheld = withheld_variables(base)
    if not withheld and added is None and inherited is None:
        return None
    env = {k: v for k, v in base.items() if k not in withheld}
    env.update(added or {})
    return env
