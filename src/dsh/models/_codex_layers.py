"""Codex 0.171's config layers, as it stacks them for its model set-up.

Lowest precedence first: the system's ``/etc/codex/config.toml``, the user's
``$CODEX_HOME/config.toml`` (default ``~/.codex``), the profile's
``$CODEX_HOME/NAME.config.toml`` (``codex --profile NAME``: dsh's ``--profile``, or
``$DSH_CODEX_PROFILE``; a file that is absent is no layer, as Codex takes it), and the
project's ``.codex/config.toml``. Tables merge key by key, any other value of a higher
layer replaces a lower one's. What the binary does, recorded with it
(``benchmarks/record_codex_model_config.py``, ``tests/fixtures/codex_model_config.json``):

- the legacy ``profile = "NAME"`` key of the user's file is refused
  (``legacy `profile = "p1"` config is no longer supported; …``), and ``--profile NAME``
  with a ``[profiles.NAME]`` table there too; a ``[profiles.NAME]`` table nothing selects
  is ignored; a profile name is ASCII letters, digits, ``_`` and ``-``;
- the project's layer loads only when the project is trusted (``[projects."<path>"]
  trust_level = "trusted"`` in the layers below, for the project or a folder above it, as
  the hooks bridge reads it); an untrusted project's file is not even parsed;
- from the project's layer, the keys Codex refuses there (``PROJECT_LOCAL_CONFIG_DENYLIST``:
  ``model_provider``, ``model_providers``, ``openai_base_url``, ``profile``, ``notify``,
  ``otel``…) are dropped with Codex's warning: a cloned repository cannot choose where the
  user's key is sent. Its ``model`` is used.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, final

from dsh._frozen import frozen
from dsh.models._codex_files import ConfigFileError, find_codex_home, project_trusted, read_config

__all__ = ["PROFILE_ENV_VAR", "CodexLayers", "check_profile_name", "codex_layers"]

PROFILE_ENV_VAR: Final = "DSH_CODEX_PROFILE"
"""Names a profile when ``--profile`` does not, as ``codex --profile`` would."""
SYSTEM_CONFIG: Final = Path("/etc/codex/config.toml")
_MAX_BYTES: Final = 1 << 20
PROJECT_DENYLIST: Final = (
    "openai_base_url",
    "chatgpt_base_url",
    "apps_mcp_product_sku",
    "model_provider",
    "model_providers",
    "notify",
    "profile",
    "profiles",
    "experimental_realtime_webrtc_call_base_url",
    "experimental_realtime_ws_base_url",
    "otel",
)
"""The keys Codex 0.171 ignores in a project's ``config.toml``, in the order it names them."""


@final
@frozen
class CodexLayers:
    """The merged settings, which file set each top-level key last, and Codex's warnings."""

    settings: Mapping[str, Any]
    origin: Mapping[str, str]
    warnings: tuple[str, ...]

    def where(self, key: str) -> str:
        """The file that set ``key`` (``""``: none did)."""
        return self.origin.get(key, "")


def check_profile_name(name: str) -> str:
    """``name`` when it is a plain profile name, else ``ValueError`` in Codex's words."""
    if name and all(c.isascii() and (c.isalnum() or c in "_-") for c in name):
        return name
    return _refuse(f"invalid --profile value `{name}`; pass a plain name such as `work`")


def _refuse(message: str) -> str:
    raise ValueError(message)


def _read(path: Path, *, label: str = "") -> dict[str, Any] | None:
    """``path`` parsed (``None``: absent); ``ValueError`` naming it when Codex would refuse it."""
    try:
        return read_config(path, _MAX_BYTES)
    except ConfigFileError as e:
        raise ValueError(f"{label}{e}") from None


def _merge(base: dict[str, Any], overlay: Mapping[str, Any]) -> None:
    for key, value in overlay.items():
        below = base.get(key)
        if isinstance(below, dict) and isinstance(value, dict):
            merged = dict(below)
            _merge(merged, value)
            base[key] = merged
        else:
            base[key] = value


def _user_layer(path: Path, profile: str | None) -> dict[str, Any]:
    user = _read(path) or {}
    legacy = user.get("profile")
    if legacy is not None:
        name = legacy if isinstance(legacy, str) else str(legacy)
        raise ValueError(
            f'{path}: legacy `profile = "{name}"` config is no longer supported; use'
            f" `--profile {name}` with `{name}.config.toml` instead (Codex 0.171)"
        )
    profiles = user.get("profiles")
    if profile is not None and isinstance(profiles, dict) and profile in profiles:
        raise ValueError(
            f"--profile `{profile}` cannot be used while {path} contains legacy"
            f" `[profiles.{profile}]` config; move those settings into"
            f" {path.parent / f'{profile}.config.toml'} and remove the legacy table"
            " (Codex 0.171)"
        )
    return user


def codex_layers(
    environ: Mapping[str, str],
    *,
    project: Path | None = None,
    profile: str | None = None,
    system: Path | None = SYSTEM_CONFIG,
) -> CodexLayers:
    """The layers merged (see the module); ``ValueError`` naming the file for one Codex
    would refuse. ``profile`` defaults to ``$DSH_CODEX_PROFILE``."""
    profile = profile or environ.get(PROFILE_ENV_VAR) or None
    if profile is not None:
        check_profile_name(profile)
    home = find_codex_home(environ)
    settings: dict[str, Any] = {}
    origin: dict[str, str] = {}
    warnings: list[str] = []

    def add(layer: Mapping[str, Any] | None, path: Path) -> None:
        if layer:
            _merge(settings, layer)
            origin.update(dict.fromkeys(layer, str(path)))

    if system is not None:
        add(_read(system), system)
    user = home / "config.toml"
    add(_user_layer(user, profile), user)
    if profile is not None:
        chosen = home / f"{profile}.config.toml"
        add(_read(chosen, label=f"--profile {profile}: "), chosen)
    if project is not None:
        local = project.absolute() / ".codex" / "config.toml"
        if local.parent != home and project_trusted(project.absolute(), settings):
            layer = _read(local) or {}
            dropped = [key for key in PROJECT_DENYLIST if key in layer]
            if dropped:
                warnings.append(
                    f"Ignored unsupported project-local config keys in {local}:"
                    f" {', '.join(dropped)}. If you want these settings to apply, manually set"
                    " them in your user-level config.toml."
                )
            add({k: v for k, v in layer.items() if k not in PROJECT_DENYLIST}, local)
    return CodexLayers(settings=settings, origin=origin, warnings=tuple(warnings))
