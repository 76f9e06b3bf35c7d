"""The temporary place a test runs in: a project with its hook files, and homes of its own.

``sandbox(project)`` yields a ``Sandbox``: a temporary directory holding the
project (``project/``, unless one is given), an empty Claude Code home, an
empty ``CODEX_HOME`` and the trust records, so neither your own
``~/.claude`` and ``~/.codex`` nor your trust decisions change what a test
sees. ``write_project`` puts ``.claude/settings.json``, ``.codex/hooks.json``
and any other files into the project. The profiles it makes read only the
project's declarations, trusted as they are (a test declares its own hooks).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, final

from dsh._frozen import frozen
from dsh.hooks.claude import Catalog, ClaudeCodeProfile, load_catalog
from dsh.hooks.codex import CodexCatalog, CodexProfile, load_codex_catalog
from dsh.host import Profile

__all__ = ["Sandbox", "sandbox", "write_project"]


@final
@frozen
class Sandbox:
    """A test's temporary directory (``root``) and the project in it (or the one given)."""

    root: Path
    project: Path

    @property
    def claude_home(self) -> Path:
        return self.root / "claude-home"

    @property
    def codex_home(self) -> Path:
        return self.root / "codex-home"

    def claude_profile(self) -> ClaudeCodeProfile:
        """Claude Code's profile for the project alone: no user, managed or installed plugin
        settings, the project's hooks trusted, transcripts and trust kept in the sandbox."""
        return ClaudeCodeProfile(
            home=self.claude_home,
            managed_path=self.root / "managed-settings.json",
            env={},
            discover_installed_plugins=False,
            require_trust=False,
            transcript_dir=self.root / "transcripts",
            trust_dir=self.root / "trust",
            instructions_config_dir=self.claude_home / ".claude",
            instructions_managed_dir=self.root / "managed",
        )

    def codex_profile(self) -> CodexProfile:
        """Codex's profile for the project alone: an empty ``CODEX_HOME``, no system layer,
        the project and its hooks trusted."""
        self.codex_home.mkdir(exist_ok=True)
        return CodexProfile(
            home=self.codex_home,
            system_dir=None,
            env={},
            trust_project=True,
            bypass_trust=True,
            trust_dir=self.root / "trust",
        )

    def claude_catalog(self) -> Catalog:
        """The Claude Code hooks the project declares (what ``claude_profile`` reads)."""
        return load_catalog(
            self.project,
            home=self.claude_home,
            managed_path=self.root / "managed-settings.json",
            env={},
            discover_installed_plugins=False,
        )

    def codex_catalog(self) -> CodexCatalog:
        """The Codex hooks the project declares (what ``codex_profile`` reads)."""
        self.codex_home.mkdir(exist_ok=True)
        return load_codex_catalog(
            self.project,
            home=self.codex_home,
            system_dir=None,
            env={},
            trust_project=True,
            bypass_trust=True,
        )

    def profiles(self) -> tuple[Profile, ...]:
        """The profiles for the hook files the project has (``.claude/``, ``.codex/``)."""
        found: list[Profile] = []
        if (self.project / ".claude").is_dir():
            found.append(self.claude_profile())
        if (self.project / ".codex").is_dir():
            found.append(self.codex_profile())
        return tuple(found)


@contextmanager
def sandbox(project: Path | None = None) -> Iterator[Sandbox]:
    """A fresh ``Sandbox``, removed when the block ends (a given ``project`` is left as is)."""
    with tempfile.TemporaryDirectory(prefix="dsh-testing-") as tmp:
        root = Path(tmp)
        if project is None:
            project = root / "project"
            project.mkdir()
        (root / "claude-home").mkdir()
        yield Sandbox(root, project.resolve())


def write_project(
    project: Path,
    *,
    claude_settings: Mapping[str, Any] | None = None,
    codex_hooks: Mapping[str, Any] | None = None,
    files: Mapping[str, str] | None = None,
) -> None:
    """Write ``.claude/settings.json``, ``.codex/hooks.json`` and ``files`` (relative path ->
    text; a file whose text starts with ``#!`` is made executable) into ``project``."""
    written = dict(files or {})
    if claude_settings is not None:
        written[".claude/settings.json"] = json.dumps(claude_settings, indent=2)
    if codex_hooks is not None:
        written[".codex/hooks.json"] = json.dumps(codex_hooks, indent=2)
    for relative, text in written.items():
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if text.startswith("#!"):
            path.chmod(0o755)
