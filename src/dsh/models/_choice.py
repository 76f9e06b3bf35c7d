"""Which provider a run talks to, and why: the model name, the environment, config.

``choose_provider`` decides, first rule that applies:

1. ``scripted:FILE`` is the scripted model.
2. A provider named outright: a spec's prefix (``anthropic:NAME``, ``responses:NAME``,
   ``chat:NAME``) or the ``provider`` setting (config, ``DSH_PROVIDER``).
3. No model named: ``$ANTHROPIC_MODEL``, or an Anthropic key (``$ANTHROPIC_API_KEY``,
   ``$ANTHROPIC_AUTH_TOKEN``) with no dsh or OpenAI key, is Claude Code's set-up: the
   Messages API, ``$ANTHROPIC_MODEL`` or 2.1.332's default model. Under the Codex
   profile, Codex's ``model`` from its config layers (``_codex_layers``).
4. A dsh base URL (``--base-url``, ``DSH_BASE_URL``, config) is a chat-completions
   endpoint.
5. Under the Codex profile, a name when Codex's layers set ``model`` or
   ``model_provider``: Codex's provider, as ``codex -m NAME`` uses it. Else
   ``$OPENAI_BASE_URL`` with nothing of Anthropic's in the environment is a
   chat-completions endpoint.
6. A Claude name (``claude-…``, or Claude Code's aliases ``sonnet``, ``opus``,
   ``haiku``) is the Messages API; any other name chat completions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, final

from dsh._frozen import frozen

__all__ = [
    "CLAUDE_DEFAULT_MODEL",
    "CLAUDE_MODEL_ENV_VAR",
    "PROVIDERS",
    "ProviderChoice",
    "ProviderName",
    "choose_provider",
]

ProviderName = Literal["scripted", "anthropic", "responses", "chat"]
PROVIDERS: tuple[ProviderName, ...] = ("anthropic", "responses", "chat")
"""The providers a user can name (``provider`` setting, a spec's ``NAME:`` prefix)."""
_ALIASES = ("sonnet", "opus", "haiku")
_DSH_KEYS = ("DSH_API_KEY", "OPENAI_API_KEY")
# Claude Code's set-up (rule 3), here so that choosing needs no Messages API module.
CLAUDE_MODEL_ENV_VAR = "ANTHROPIC_MODEL"
CLAUDE_DEFAULT_MODEL = "claude-opus-5-5"
"""2.1.332's default model, as the recordings show it (``from_model``)."""


@final
@frozen
class ProviderChoice:
    """The provider, the model name as given to it, and why (for ``dsh config show``)."""

    provider: ProviderName
    model: str
    reason: str


def _claude_name(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered.startswith("claude") or lowered in _ALIASES


def choose_provider(
    spec: str | None,
    *,
    provider: str | None = None,
    base_url: str | None = None,
    codex_profile: bool = False,
    project: Path | None = None,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ProviderChoice | None:
    """The provider for ``spec`` (None: no model named and none set up; see the module).

    ``codex_profile``: the run is under the Codex profile, its ``project`` the one whose
    ``.codex/config.toml`` is a layer and ``profile`` Codex's ``--profile`` (``_codex_layers``);
    ``ValueError`` for a Codex config Codex would refuse."""
    environ = os.environ if env is None else env
    spec = (spec or "").strip()
    if spec.startswith("scripted:"):
        return ProviderChoice("scripted", spec, "the model spec is scripted:FILE")
    head, sep, rest = spec.partition(":")
    if sep and head in PROVIDERS and rest.strip():
        return ProviderChoice(_named(head), rest.strip(), f"the model spec's {head}: prefix")
    if provider and spec:
        return ProviderChoice(_named(provider), spec, f"the provider setting ({provider})")
    if not spec:
        codex = (project, profile) if codex_profile else None
        return _set_up(environ, provider, codex)
    if base_url or environ.get("DSH_BASE_URL"):
        return ProviderChoice("chat", spec, "a dsh base URL is set: a chat-completions endpoint")
    if codex_profile and not _claude_name(spec):
        from dsh.models._codex_layers import codex_layers

        layers = codex_layers(environ, project=project, profile=profile)
        where = layers.where("model_provider") or layers.where("model")
        if where:
            why = f"the model named on Codex's configured provider ({where}), as codex -m"
            return ProviderChoice("responses", spec, why)
    if environ.get("OPENAI_BASE_URL") and not _anthropic_set_up(environ):
        # A gateway speaking chat completions may well serve Claude models by name.
        why = "$OPENAI_BASE_URL is set and nothing of Anthropic's: a chat-completions endpoint"
        return ProviderChoice("chat", spec, why)
    if _claude_name(spec):
        return ProviderChoice("anthropic", spec, f"{spec!r} is a Claude model name")
    return ProviderChoice("chat", spec, f"{spec!r} is not a Claude model name")


def _anthropic_set_up(environ: Mapping[str, str]) -> bool:
    names = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL")
    return any(environ.get(name) for name in names)


def _named(name: str) -> ProviderName:
    for known in PROVIDERS:
        if name == known:
            return known
    raise ValueError(f"provider must be one of {', '.join(PROVIDERS)}, not {name!r}")


def _set_up(
    environ: Mapping[str, str],
    provider: str | None,
    codex: tuple[Path | None, str | None] | None,
) -> ProviderChoice | None:
    """No model named: Claude Code's environment, else Codex's config under its profile."""
    if provider in (None, "anthropic"):
        if model := environ.get(CLAUDE_MODEL_ENV_VAR, "").strip():
            why = f"${CLAUDE_MODEL_ENV_VAR} is set (Claude Code's)"
            return ProviderChoice("anthropic", model, why)
        keys = [k for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN") if environ.get(k)]
        if keys and (provider == "anthropic" or not any(environ.get(k) for k in _DSH_KEYS)):
            why = f"${keys[0]} is set and no model is named: Claude Code's default model"
            return ProviderChoice("anthropic", CLAUDE_DEFAULT_MODEL, why)
    if codex is not None and provider in (None, "responses"):
        from dsh.models._codex_setup import codex_model_name

        found = codex_model_name(environ, project=codex[0], profile=codex[1])
        if found is not None:
            model, where = found
            return ProviderChoice("responses", model, f"Codex's config ({where})")
    return None
