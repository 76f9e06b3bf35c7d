"""The Codex trust fixture: a ``$CODEX_HOME`` whose hook hashes the real Codex 0.171.0 computed.

``fixtures/codex-trust/`` (README there): ``codex-home/`` (a ``hooks.json``
and a ``config.toml`` with inline hooks, a stale trust record and a disabled
hook), ``hooks-list.json`` (what ``codex app-server`` answered to
``hooks/list`` for that home: each hook's key, the hash Codex computed, its
trust status, Codex's warnings), ``config-trusted.toml`` (the ``config.toml``
after dsh's ``dsh hooks trust`` code recorded trust) and
``hooks-list-trusted.json`` (Codex's answer for that trusted home). Paths are
written as ``${CODEX_HOME}`` and ``${PROJECT_DIR}``.

Regenerate with the real binary (``DSH_CODEX`` names it, or ``make bench-tools``):
``.venv/bin/python -m tests.hooks_codex.codex_trust_fixture``.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

from dsh.hooks.codex import CodexProfile

FIXTURE: Final = Path(__file__).parent / "fixtures" / "codex-trust"
HOME: Final = "${CODEX_HOME}"
PROJECT: Final = "${PROJECT_DIR}"
BENCHMARKS: Final = Path(__file__).resolve().parents[2] / "benchmarks"


def materialize(root: Path, *, trusted: bool = False) -> tuple[Path, Path]:
    """The fixture's home under ``root`` (the trusted ``config.toml`` if ``trusted``):
    ``(home, project)``."""
    home = root / "home" / ".codex"
    project = root / "project"
    home.mkdir(parents=True)
    project.mkdir()
    shutil.copy(FIXTURE / "codex-home" / "hooks.json", home / "hooks.json")
    config = FIXTURE / ("config-trusted.toml" if trusted else "codex-home/config.toml")
    (home / "config.toml").write_text(
        config.read_text(encoding="utf-8").replace(HOME, str(home)), encoding="utf-8"
    )
    return home, project


def with_placeholders(value: Any, home: Path, project: Path) -> Any:
    """``value`` (JSON) with this run's paths written as the fixture's placeholders."""
    text = json.dumps(value, ensure_ascii=False)
    text = text.replace(str(home), HOME).replace(str(project), PROJECT)
    return json.loads(text)


def recorded(name: str) -> dict[str, Any]:
    """A recorded ``hooks/list`` answer (``hooks-list.json``, ``hooks-list-trusted.json``)."""
    data: dict[str, Any] = json.loads((FIXTURE / name).read_text(encoding="utf-8"))
    return data


def trust_as_dsh(home: Path, project: Path) -> list[str]:
    """``dsh hooks trust`` for the fixture's home (no system layer)."""
    return list(CodexProfile(home=home, system_dir=None).trust(project))


def codex_listing(codex: str, home: Path, project: Path) -> dict[str, Any]:
    """The real Codex's ``hooks/list`` for ``home``, paths as placeholders."""
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import hooks_list

    return dict(with_placeholders(hooks_list(codex, home, project), home, project))


def regenerate(codex: str) -> None:
    """Ask the real Codex for the fixture's listings, before and after dsh records trust."""
    with tempfile.TemporaryDirectory(prefix="dsh-codex-trust-") as tmp:
        home, project = materialize(Path(tmp).resolve())
        before = codex_listing(codex, home, project)
        trust_as_dsh(home, project)
        trusted = (home / "config.toml").read_text(encoding="utf-8").replace(str(home), HOME)
        after = codex_listing(codex, home, project)
    (FIXTURE / "config-trusted.toml").write_text(trusted, encoding="utf-8")
    for name, listing in (("hooks-list.json", before), ("hooks-list-trusted.json", after)):
        text = json.dumps(listing, ensure_ascii=False, indent=1) + "\n"
        (FIXTURE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(BENCHMARKS))
    from _codex_side import codex_path

    found = codex_path()
    if found is None:
        sys.exit("no codex: set DSH_CODEX or run `make bench-tools`")
    regenerate(found)
    print(f"wrote {FIXTURE}")
