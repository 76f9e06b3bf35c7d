"""Codex 0.171's model set-up, read from its config layers, for runs under the Codex profile.

The layers (``_codex_layers``: system, user, ``--profile``'s file, a trusted project's
``.codex/config.toml``) give ``model``, ``model_provider`` (default ``openai``) and the
``[model_providers.NAME]`` tables: ``base_url``, ``env_key`` (the variable holding the
key), ``wire_api`` (``responses``, the default, or ``chat``, a dsh extension: Codex
0.171 refuses it), ``query_params`` and ``http_headers`` (tables of strings),
``env_http_headers`` (a header to the variable holding its value). Codex 0.171's built-in
providers, as it sets them up (recorded: ``benchmarks/record_codex_providers.py``,
``tests/fixtures/codex_providers.json``):

- ``openai``: the layers' ``openai_base_url`` (never a project's), else
  ``$OPENAI_BASE_URL`` (a dsh fallback: 0.171 ignores the variable), else OpenAI's; the key
  ``$OPENAI_API_KEY``;
- ``ollama`` and ``lmstudio``: ``$CODEX_OSS_BASE_URL``, else
  ``http://localhost:$CODEX_OSS_PORT/v1`` (the port by default 11434 and 1234), Responses,
  no key;
- ``amazon-bedrock`` (and ``amazon-bedrock-runtime``): AWS-signed requests, refused;
  ``ollama-chat``: refused in Codex's words.

A ``[model_providers.X]`` table for a built-in ``X`` is refused, as 0.171 refuses it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

from dsh.base._env_policy import withhold_variable
from dsh.models._codex_layers import CodexLayers, codex_layers
from dsh.models._types import Model

__all__ = ["codex_model", "codex_model_name", "codex_provider"]

_OPENAI: Final = {"name": "OpenAI", "env_key": "OPENAI_API_KEY", "wire_api": "responses"}
_OSS_PORTS: Final = {"ollama": 11434, "lmstudio": 1234}
"""Codex's local built-in providers and their default ports."""
_BEDROCK: Final = ("amazon-bedrock", "amazon-bedrock-runtime")
_RESERVED: Final = ("openai", *_OSS_PORTS)
_OLLAMA_CHAT_REMOVED: Final = (
    "`ollama-chat` is no longer supported. How to fix: replace `ollama-chat` with `ollama` in"
    " `model_provider` (Codex 0.171)"
)


def codex_model_name(
    environ: Mapping[str, str] | None = None,
    *,
    project: Path | None = None,
    profile: str | None = None,
) -> tuple[str, str] | None:
    """Codex's configured model and the file that set it, or None when none is configured."""
    env = os.environ if environ is None else environ
    layers = codex_layers(env, project=project, profile=profile)
    model = layers.settings.get("model")
    if not isinstance(model, str) or not model.strip():
        return None
    return model.strip(), layers.where("model")


def _table(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a table")
    return value


def codex_provider(
    layers: CodexLayers, environ: Mapping[str, str] | None = None
) -> tuple[str, Mapping[str, Any], str]:
    """The configured provider's name, its table (a built-in's as Codex 0.171 sets it up,
    from ``environ`` and the layers) and the file that chose it; ``ValueError`` naming the
    file for one Codex refuses or dsh cannot use."""
    env = os.environ if environ is None else environ
    name = layers.settings.get("model_provider") or "openai"
    where = layers.where("model_provider") or layers.where("model_providers") or "config.toml"
    if not isinstance(name, str):
        raise ValueError(f"{where}: model_provider must be a string")
    providers = _table(layers.settings.get("model_providers"), f"{where}: model_providers")
    source = layers.where("model_providers") or where
    if reserved := [key for key in _RESERVED if key in providers]:
        listed = ", ".join(f"`{key}`" for key in reserved)
        raise ValueError(
            f"{source}: model_providers contains reserved built-in provider IDs: {listed}."
            " Built-in providers cannot be overridden. Rename your custom provider (for"
            f" example, `{reserved[0]}-custom`). (Codex 0.171)"
        )
    if name == "openai":
        base = layers.settings.get("openai_base_url")
        if base is not None and not isinstance(base, str):
            raise ValueError(f"{layers.where('openai_base_url')}: openai_base_url must be a string")
        if not base:
            base = env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        return name, {**_OPENAI, "base_url": base}, layers.where("openai_base_url") or where
    if name in _OSS_PORTS:
        return name, {"name": "gpt-oss", "base_url": _oss_url(env, _OSS_PORTS[name])}, where
    if name == "ollama-chat":
        raise ValueError(f"{where}: {_OLLAMA_CHAT_REMOVED}")
    if name in _BEDROCK:
        raise ValueError(
            f"{where}: model_provider {name!r} is Codex's Amazon Bedrock provider, whose requests"
            " are signed with AWS credentials (SigV4): dsh does not sign them. Use a gateway that"
            " speaks Responses, declared as your own [model_providers.NAME] with its base_url"
        )
    if name not in providers:
        raise ValueError(f"{where}: model_provider {name!r} has no [model_providers.{name}] table")
    return name, _table(providers[name], f"{source}: model_providers.{name}"), source


def _oss_url(env: Mapping[str, str], default_port: int) -> str:
    """A local built-in's base URL as 0.171 makes it: ``$CODEX_OSS_BASE_URL`` (not blank),
    else ``http://localhost:PORT/v1`` with ``$CODEX_OSS_PORT`` when it is a port number."""
    url = env.get("CODEX_OSS_BASE_URL", "")
    if url.strip():
        return url
    port = env.get("CODEX_OSS_PORT", "").strip()
    number = port.isascii() and port.isdigit() and len(port) <= 5
    chosen = int(port) if number and int(port) < 1 << 16 else None
    return f"http://localhost:{default_port if chosen is None else chosen}/v1"


def _strings(value: object, where: str) -> dict[str, str]:
    table = _table(value, where)
    if not all(isinstance(v, str) for v in table.values()):
        raise ValueError(f"{where}: every value must be a string")
    return {str(k): str(v) for k, v in table.items()}


def codex_model(
    name: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    environ: Mapping[str, str] | None = None,
    project: Path | None = None,
    profile: str | None = None,
    warn: Callable[[str], None] | None = None,
) -> Model:
    """``name`` on Codex's configured provider (Responses, or chat completions for
    ``wire_api = "chat"``); Codex's warnings (a project's refused keys) go to ``warn``.
    Raises ``ValueError`` for a config dsh cannot use, naming its file."""
    env = os.environ if environ is None else environ
    layers = codex_layers(env, project=project, profile=profile)
    for line in layers.warnings:
        if warn is not None:
            warn(line)
    provider_name, provider, source = codex_provider(layers, env)
    where = f"{source}: model_providers.{provider_name}"
    url = base_url or provider.get("base_url")
    if not isinstance(url, str) or not url:
        raise ValueError(f"{where}: base_url is missing")
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"{where}: base_url {url!r} is not an http:// or https:// URL")
    env_key = provider.get("env_key")
    if env_key is not None and not isinstance(env_key, str):
        raise ValueError(f"{where}: env_key must be a string (a variable's name)")
    if env_key:
        withhold_variable(env_key)  # the provider's key: no tool or hook inherits it
    key = api_key or (env.get(env_key) if env_key else None)
    headers = _strings(provider.get("http_headers"), f"{where}.http_headers")
    for header, variable in _strings(
        provider.get("env_http_headers"), f"{where}.env_http_headers"
    ).items():
        withhold_variable(variable)
        if value := env.get(variable):
            headers[header] = value
    query = urlencode(_strings(provider.get("query_params"), f"{where}.query_params"))
    wire = provider.get("wire_api") or "responses"
    if wire == "chat":
        from dsh.models._openai import OpenAICompatibleModel

        return OpenAICompatibleModel(name, base_url=url, api_key=key)
    if wire != "responses":
        raise ValueError(f"{where}: wire_api must be responses or chat, not {wire!r}")
    from dsh.models._provider import StreamingModel
    from dsh.models._responses import ResponsesFormat

    fmt = ResponsesFormat(name, api_key=key, query=query, extra_headers=headers)
    return StreamingModel(name, fmt, url)
