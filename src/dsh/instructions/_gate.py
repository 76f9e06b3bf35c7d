"""The seam through which project trust decides which project instructions files load.

A project's own ``CLAUDE.md`` family (scopes ``Project`` and ``Local``) is text
a cloned repository puts in front of the model; the floor that keeps trust
records (the hook bridge) hands the loader an ``InstructionsGate`` that admits
the reviewed files and names the others. User and managed files never pass
through it. ``fingerprint`` is the hash a trust record keeps for a file: what
the model would read from it, under its path relative to the project.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol

from dsh.agent import InstructionsScope
from dsh.instructions._claude_md import LoadedInstructions

__all__ = [
    "PROJECT_SCOPES",
    "InstructionsGate",
    "fingerprint",
    "project_controlled",
    "shown_path",
]

PROJECT_SCOPES: Final[frozenset[InstructionsScope]] = frozenset({"Project", "Local"})
"""The scopes a project controls: its ``CLAUDE.md`` files, rules and their imports."""


class InstructionsGate(Protocol):
    """Which of the project's instructions files may load (trust), and a notice for the rest."""

    def admit(
        self, loaded: Sequence[LoadedInstructions], /
    ) -> tuple[list[LoadedInstructions], str | None]:
        """``loaded`` without the project files not trusted, and one notice naming them
        (``None`` when nothing was left out, or it was already said)."""
        ...


def project_controlled(item: LoadedInstructions) -> bool:
    """A file of the project's own (``Project``/``Local`` scope, imports included)."""
    return item.file.scope in PROJECT_SCOPES


def shown_path(path: Path, project: Path) -> str:
    """``path`` relative to ``project`` when inside it, else as it is."""
    try:
        return str(Path(os.path.abspath(path)).relative_to(os.path.abspath(project)))
    except ValueError:
        return str(path)


def fingerprint(item: LoadedInstructions, project: Path) -> str:
    """SHA-256 over the file's place (relative to ``project``), scope, importer and text."""
    parent = item.file.parent_path
    declared = {
        "path": shown_path(item.file.path, project),
        "scope": item.file.scope,
        "parent": None if parent is None else shown_path(parent, project),
        "text": item.text,
    }
    text = json.dumps(declared, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
