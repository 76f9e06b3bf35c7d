"""A fake machine per test: a home, a project and a managed-settings path under tmp_path."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import Catalog, load_catalog
from dsh.hooks.claude.settings._catalog import PluginRoot

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Machine:
    root: Path
    home: Path
    project: Path
    managed: Path

    @property
    def user_settings(self) -> Path:
        return self.home / ".claude" / "settings.json"

    @property
    def project_settings(self) -> Path:
        return self.project / ".claude" / "settings.json"

    @property
    def local_settings(self) -> Path:
        return self.project / ".claude" / "settings.local.json"

    def write(self, path: Path, data: Any) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2))
        return path

    def fixture(self, name: str, dest: Path) -> Path:
        src = FIXTURES / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest)
        else:
            shutil.copyfile(src, dest)
        return dest

    def load(
        self,
        *,
        settings_files: Sequence[Path | str] = (),
        plugin_roots: Sequence[Path | str | PluginRoot] = (),
        env: Mapping[str, str] | None = None,
    ) -> Catalog:
        return load_catalog(
            self.project,
            settings_files=settings_files,
            plugin_roots=plugin_roots,
            home=self.home,
            managed_path=self.managed,
            env={} if env is None else env,
        )


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return Machine(
        root=tmp_path,
        home=home,
        project=project,
        managed=tmp_path / "etc" / "claude-code" / "managed-settings.json",
    )


def command(cmd: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": cmd, **extra}


def settings(event: str, *handlers: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"hooks": list(handlers)}
    if matcher is not None:
        group["matcher"] = matcher
    return {"hooks": {event: [group]}}
