"""``dsh.cli._early``: the cheap guess that has dsh's namespace made before a run reads its
MCP configuration properly: a server named anywhere it may be declared says yes, files
that declare none say no."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.cli._early import servers_likely


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return tmp_path / "home"


def _likely(home: Path, mcp_config: tuple[str, ...] = (), **env: str) -> bool:
    return servers_likely(home.parent / "project", mcp_config, {"HOME": str(home), **env})


def test_nothing_configured_is_no(home: Path) -> None:
    assert not _likely(home)


def test_a_mcp_config_flag_or_a_project_file_is_yes(home: Path) -> None:
    assert _likely(home, ("servers.json",))
    (home.parent / "project" / ".mcp.json").write_text("{}")
    assert _likely(home)


def test_claude_json_with_servers_is_yes_and_with_empty_tables_no(home: Path) -> None:
    config = home / ".claude.json"
    config.write_text(json.dumps({"mcpServers": {}, "projects": {"/p": {"mcpServers": {}}}}))
    assert not _likely(home)
    config.write_text(json.dumps({"projects": {"/p": {"mcpServers": {"s": {"command": "x"}}}}}))
    assert _likely(home)
    moved = home.parent / "claude"
    moved.mkdir()
    config.rename(moved / ".claude.json")
    assert not _likely(home)
    assert _likely(home, CLAUDE_CONFIG_DIR=str(moved))


def test_a_codex_mcp_servers_table_is_yes(home: Path) -> None:
    codex = home / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('model = "m"\n# [mcp_servers.x]\n')
    assert not _likely(home)
    (codex / "config.toml").write_text('model = "m"\n[mcp_servers.docs]\ncommand = "x"\n')
    assert _likely(home)
    project = home.parent / "project" / ".codex"
    project.mkdir()
    (project / "config.toml").write_text("[mcp_servers.y]\nurl = 'http://h'\n")
    assert _likely(home, CODEX_HOME=str(home.parent / "elsewhere"))


def test_a_chosen_process_containment_leaves_the_namespace_to_the_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``process_containment`` in dsh's own configuration (``"marks"``: no namespace at all)
    is read by the run; nothing is prepared before it."""
    from dsh.base import _containment
    from dsh.cli import _early

    started: list[bool] = []
    monkeypatch.setattr(_containment, "prepare_containment", lambda: started.append(True))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DSH_CONFIG_DIR", str(home / "dsh"))
    project = home.parent / "project"
    (project / ".dsh").mkdir()
    (project / ".dsh" / "config.toml").write_text('process_containment = "marks"\n')
    _early.prepare_for_servers(project, ("servers.json",))
    assert started == []
    (project / ".dsh" / "config.toml").unlink()
    (home / "dsh").mkdir()
    (home / "dsh" / "config.toml").write_text('model = "m"\n')
    _early.prepare_for_servers(project, ("servers.json",))
    assert started == [True]
