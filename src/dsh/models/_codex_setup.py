"""Codex 0.171's model set-up, read from its ``config.toml``, for runs under the Codex profile.

``$CODEX_HOME/config.toml`` (default ``~/.codex``): ``model``, ``model_provider``
(default ``openai``), ``profile`` selecting a ``[profiles.NAME]`` table whose
``model``/``model_provider`` win, and ``[model_providers.NAME]`` tables: ``base_url``,
``env_key`` (the variable holding the key), ``wire_api`` (``responses``, the default,
or ``chat``), ``query_params`` and ``http_headers`` (tables of strings),
``env_http_headers`` (a header to the variable holding its value). The built-in
``openai`` provider is ``$OPENAI_BASE_URL`` (else OpenAI's) with ``$OPENAI_API_KEY``.
``$DSH_CODEX_PROFILE`` names a profile as ``codex --profile`` would.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from dsh.base import read_bounded
from dsh.base._env_policy import withhold_variable
from dsh.models._types import Model

__all__ = ["codex_model", "codex_model_name", "codex_provider"]

_MAX_BYTES = 1 << 20
PROFILE_ENV_VAR = "DSH_CODEX_PROFILE"
_OPENAI = {
    "name": "OpenAI",
    "base_url": None,
    "env_key": "OPENAI_API_KEY",
    "wire_api": "responses",
}


def _config(environ: Mapping[str, str]) -> tuple[dict[str, Any], Path]:
    home = environ.get("CODEX_HOME") or str(Path("~/.codex").expanduser())
    path = Path(home).expanduser() / "config.toml"
    try:
        data = read_bounded(path, _MAX_BYTES, "config file")
    except OSError:
        return {}, path
    import tomllib

    try:
        return tomllib.loads(data.decode("utf-8", errors="replace")), path
    except (tomllib.TOMLDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: not valid TOML: {e}") from None


def _table(value: object, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a table")
    return value


def _settings(environ: Mapping[str, str]) -> tuple[dict[str, Any], Path, str]:
    """The top-level settings with the chosen profile's over them; the file; the profile."""
    config, path = _config(environ)
    name = environ.get(PROFILE_ENV_VAR) or config.get("profile")
    merged = dict(config)
    if isinstance(name, str) and name:
        profiles = _table(config.get("profiles"), f"{path}: profiles")
        if name not in profiles:
            raise ValueError(f"{path}: no profile {name!r} ([profiles.{name}])")
        merged.update(_table(profiles[name], f"{path}: profiles.{name}"))
        return merged, path, name
    return merged, path, ""


def codex_model_name(environ: Mapping[str, str]) -> tuple[str, str] | None:
    """Codex's configured model and where it was found, or None when none is configured."""
    settings, path, profile = _settings(environ)
    model = settings.get("model")
    if not isinstance(model, str) or not model.strip():
        return None
    return model.strip(), f"{path}" + (f", profile {profile}" if profile else "")


def codex_provider(environ: Mapping[str, str]) -> tuple[str, Mapping[str, Any]]:
    """The configured provider's name and table (the built-in ``openai`` when not configured)."""
    settings, path, _ = _settings(environ)
    name = settings.get("model_provider") or "openai"
    if not isinstance(name, str):
        raise ValueError(f"{path}: model_provider must be a string")
    providers = _table(settings.get("model_providers"), f"{path}: model_providers")
    if name in providers:
        return name, _table(providers[name], f"{path}: model_providers.{name}")
    if name == "openai":
        return name, _OPENAI
    raise ValueError(f"{path}: model_provider {name!r} has no [model_providers.{name}] table")


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
) -> Model:
    """``name`` on Codex's configured provider (Responses, or chat completions for
    ``wire_api = "chat"``). Raises ``ValueError`` for a config dsh cannot use."""
    env = os.environ if environ is None else environ
    provider_name, provider = codex_provider(env)
    where = f"model_providers.{provider_name}"
    url = base_url or provider.get("base_url")
    if provider_name == "openai" and not base_url:
        url = env.get("OPENAI_BASE_URL") or url or "https://api.openai.com/v1"
    if not isinstance(url, str) or not url:
        raise ValueError(f"{where}: base_url is missing")
    env_key = provider.get("env_key")
    if isinstance(env_key, str) and env_key:
        withhold_variable(env_key)  # the provider's key: no tool or hook inherits it
    key = api_key or (env.get(env_key) if isinstance(env_key, str) else None)
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
