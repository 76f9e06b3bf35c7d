"""Codex 0.171's config files as every reader of them finds and reads them.

Where ``$CODEX_HOME`` is (``find_codex_home``), one bounded reader of a ``config.toml``
(``read_config``: absent is ``None``, anything Codex would refuse a
``ConfigFileError`` with the reason) and whether the layers trust a project
(``project_trusted``). The model set-up (``_codex_layers``) and the hooks bridge's
catalog (``dsh.hooks.codex.config``) both stand on it, so a file reads the same to
both; each words a refusal its own way (an error, a diagnostic).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dsh.base import read_head

__all__ = ["ConfigFileError", "find_codex_home", "project_trusted", "read_config", "read_file"]


class ConfigFileError(ValueError):
    """A config file that cannot be used: ``path`` and the ``reason`` (``cannot be read: …``,
    ``larger than N bytes``, ``not valid TOML (…)``)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def find_codex_home(env: Mapping[str, str] | None = None) -> Path:
    """``$CODEX_HOME``, else ``~/.codex``, made absolute."""
    environ = os.environ if env is None else env
    configured = environ.get("CODEX_HOME")
    home = Path(configured).expanduser() if configured else Path.home() / ".codex"
    return home.absolute()


def read_file(path: Path, limit: int) -> bytes | None:
    """``path``'s bytes (``None``: absent), read without blocking within ``limit`` bytes;
    ``ConfigFileError`` when it cannot be read or is larger."""
    try:
        head = read_head(path, limit, "config file")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise ConfigFileError(path, f"cannot be read: {reason}") from None
    if head.cut:
        raise ConfigFileError(path, f"larger than {limit} bytes")
    return head.data


def read_config(path: Path, limit: int) -> dict[str, Any] | None:
    """``path`` parsed as TOML (``None``: absent); ``ConfigFileError`` otherwise."""
    data = read_file(path, limit)
    if data is None:
        return None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError) as e:
        raise ConfigFileError(path, f"not valid TOML ({e})") from None


def project_trusted(project: Path, settings: Mapping[str, Any] | None) -> bool:
    """Whether ``settings`` (``[projects."<path>"] trust_level = "trusted"``) trust
    ``project`` or a folder above it."""
    projects = (settings or {}).get("projects")
    if not isinstance(projects, dict):
        return False
    for folder in (project, *project.parents):
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and entry.get("trust_level") == "trusted":
            return True
    return False
