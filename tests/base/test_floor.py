"""``dsh.approval`` stands on ``dsh.base`` (frozen JSON), no longer on ``dsh.session``."""

from __future__ import annotations

import ast
from pathlib import Path

import dsh.approval


def _imported(package: Path) -> set[str]:
    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    return names


def test_approval_imports_frozen_json_from_base_not_session() -> None:
    imported = _imported(Path(dsh.approval.__file__).parent)
    assert "dsh.base" in imported
    assert not {m for m in imported if m == "dsh.session" or m.startswith("dsh.session.")}
