"""The environment a hook process is spawned with: dsh's own, minus dsh's model keys.

A hook is a program the user configured; it gets dsh's environment as Claude
Code's and Codex's hooks do, except dsh's model keys, exactly: ``SECRET_ENV_VARS``
(``DSH_API_KEY``, ``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_AUTH_TOKEN``),
the variable ``$DSH_API_KEY_ENV`` names and any a front end registers with
``dsh.base._env_policy.withhold_variable`` (the ``api_key_env`` of a config file).
Other secrets (``AWS_SECRET_ACCESS_KEY``, ``GITHUB_TOKEN``) pass: the environment
policy of the processes the model drives (``EnvironmentPolicy``) is not a hook's.
``$DSH_HOOK_PASS_ENV`` (names, comma- or space-separated) passes named keys on; a
declaration's own ``env`` entry for one is the declaration's choice and is kept.
Every ``OTEL_*`` variable and ``CLAUDE_CODE_OTEL_DIAG_STDERR`` is left out too, as Claude
Code 2.1.332 leaves them out with export on or off (``ANT_OTEL_*`` and ``TRACEPARENT`` pass:
``tests/fixtures/hook_otel_env_claude.json``), so dsh's exporter settings are not a hook's;
unless the command inherits them (``keep_telemetry``: Codex 0.171 passes them all,
``tests/fixtures/hook_otel_env_codex.json``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any, Final

from dsh.base._env_policy import MODEL_KEY_VARIABLES, model_keys

__all__ = [
    "PASS_ENV_SETTING",
    "SECRET_ENV_VARS",
    "HookVariables",
    "add_hook_variables",
    "hook_variables",
    "spawn_environment",
    "withheld_variables",
]

HookVariables = Callable[[Any], Mapping[str, str]]
"""Variables for one hook run, from its ``HookOrigin``: ``TRACEPARENT`` from the telemetry."""

_PROVIDERS: list[HookVariables] = []


def add_hook_variables(provider: HookVariables) -> Callable[[], None]:
    """Give every hook run ``provider``'s variables, until the returned function is called."""
    _PROVIDERS.append(provider)
    return lambda: _PROVIDERS.remove(provider) if provider in _PROVIDERS else None


def hook_variables(added: Mapping[str, str] | None, origin: Any) -> Mapping[str, str] | None:
    """``added`` and the providers' variables for a run from ``origin`` (``added`` as it is,
    with no provider: a plain run pays nothing)."""
    if not _PROVIDERS:
        return added
    merged = dict(added or {})
    for provider in _PROVIDERS:
        merged.update(provider(origin))
    return merged


SECRET_ENV_VARS: Final = MODEL_KEY_VARIABLES
"""The model API key variables no hook inherits unless ``PASS_ENV_SETTING`` names them."""

PASS_ENV_SETTING: Final = "DSH_HOOK_PASS_ENV"
"""The variable naming secret variables hooks may inherit after all (``DSH_API_KEY,...``)."""


def withheld_variables(inherited: Mapping[str, str]) -> frozenset[str]:
    """The model keys set in ``inherited`` that hooks do not get."""
    passed = set(re.split(r"[\s,]+", inherited.get(PASS_ENV_SETTING, "").strip()))
    return frozenset(n for n in model_keys(inherited) if n in inherited and n not in passed)


def _telemetry_variable(name: str) -> bool:
    return name.startswith("OTEL_") or name == "CLAUDE_CODE_OTEL_DIAG_STDERR"


def spawn_environment(
    added: Mapping[str, str] | None,
    inherited: Mapping[str, str] | None = None,
    *,
    keep_telemetry: bool = False,
) -> dict[str, str] | None:
    """The environment to spawn a hook with: ``inherited`` (default ``os.environ``)
    without the withheld secrets (and, unless ``keep_telemetry``, the OpenTelemetry
    variables), then ``added``; ``None`` when that is just ``os.environ``."""
    base = os.environ if inherited is None else inherited
    withheld = withheld_variables(base)
    if not keep_telemetry:
        withheld |= {n for n in base if _telemetry_variable(n)}
    if not withheld and added is None and inherited is None:
        return None
    env = {k: v for k, v in base.items() if k not in withheld}
    env.update(added or {})
    return env
