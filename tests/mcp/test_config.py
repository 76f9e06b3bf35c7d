"""MCP configuration as Claude Code and Codex read it: sources, precedence, expansion, errors."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from dsh.mcp import McpConfigError, claude_mcp_servers, codex_mcp_servers, expand


def _write(path: Path, data: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def test_expansion_forms() -> None:
    missing: set[str] = set()
    env = {"A": "a"}
    assert expand("${A}/${B:-dflt}/$A/${C}", env, missing) == "a/dflt/$A/${C}"
    assert missing == {"C"}


def test_sources_precedence_and_expansion(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    project.mkdir()
    env = {"TOKEN_DIR": "/srv", "HOME": str(home)}
    _write(
        home / ".claude.json",
        {
            "mcpServers": {"shared": {"command": "user-cmd"}, "u": {"command": "u"}},
            "projects": {str(project): {"mcpServers": {"l": {"command": "local-cmd"}}}},
        },
    )
    _write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "shared": {"type": "stdio", "command": "${TOKEN_DIR}/bin", "args": ["${X:-x}"]},
                "web": {"type": "http", "url": "http://h/${TOKEN_DIR}", "headers": {"A": "${Q}"}},
            }
        },
    )
    config = claude_mcp_servers(project, home=home, env=env)
    by_name = {s.name: s for s in config.servers}
    assert [s.name for s in config.servers] == ["shared", "u", "web", "l"]
    assert by_name["shared"].source == "project"
    assert by_name["shared"].command == "/srv/bin"
    assert by_name["shared"].args == ("x",)
    assert by_name["u"].source == "user"
    assert by_name["l"].source == "local"
    assert by_name["web"].transport == "http"
    assert by_name["web"].url == "http://h//srv"
    assert config.diagnostics == (".mcp.json: mcpServers.web: missing environment variables: Q",)


def test_disabled_project_servers(tmp_path: Path) -> None:
    project = tmp_path / "p"
    _write(project / ".mcp.json", {"mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}}})
    _write(project / ".claude" / "settings.local.json", {"disabledMcpjsonServers": ["a"]})
    config = claude_mcp_servers(project, home=tmp_path / "h", env={})
    assert [s.name for s in config.servers] == ["b"]


def test_invalid_entries_named_by_file_and_place(tmp_path: Path) -> None:
    project = tmp_path / "p"
    _write(
        project / ".mcp.json",
        {
            "mcpServers": {
                "bad": {"command": "x", "args": ["ok", 3]},
                "ws": {"type": "ws", "url": "ws://h"},
                "good": {"command": "g"},
            }
        },
    )
    config = claude_mcp_servers(project, home=tmp_path / "h", env={})
    assert [s.name for s in config.servers] == ["good"]
    assert (
        config.diagnostics[0] == ".mcp.json: mcpServers.bad.args[1]: Input should be a valid string"
    )
    assert "type 'ws'" in config.diagnostics[1]


def test_mcp_config_strict_and_errors(tmp_path: Path) -> None:
    project = tmp_path / "p"
    _write(project / ".mcp.json", {"mcpServers": {"proj": {"command": "p"}}})
    given = _write(tmp_path / "given.json", {"mcpServers": {"dyn": {"command": "d"}}})
    config = claude_mcp_servers(
        project, home=tmp_path / "h", env={}, mcp_config=[str(given)], strict=True
    )
    assert [(s.name, s.source) for s in config.servers] == [("dyn", "dynamic")]
    inline = '{"mcpServers": {"i": {"type": "sse", "url": "http://x"}}}'
    config = claude_mcp_servers(project, home=tmp_path / "h", env={}, mcp_config=[inline])
    assert {s.name: s.source for s in config.servers} == {"proj": "project", "i": "dynamic"}
    with pytest.raises(McpConfigError, match="file not found"):
        claude_mcp_servers(project, home=tmp_path / "h", env={}, mcp_config=["nope.json"])
    bad = _write(tmp_path / "bad.json", {"mcpServers": {"x": {"type": "http"}}})
    with pytest.raises(McpConfigError, match=r"mcpServers\.x\.url: Field required"):
        claude_mcp_servers(project, home=tmp_path / "h", env={}, mcp_config=[str(bad)])


def test_plugin_servers_get_the_plugin_root(tmp_path: Path) -> None:
    root = tmp_path / "plug"
    _write(root / ".mcp.json", {"mcpServers": {"s": {"command": "${CLAUDE_PLUGIN_ROOT}/srv"}}})
    config = claude_mcp_servers(
        tmp_path / "p", home=tmp_path / "h", env={}, plugin_roots={"tools@m": root}
    )
    (server,) = config.servers
    assert (server.name, server.source, server.command) == (
        "plugin:tools@m:s",
        "plugin",
        f"{root}/srv",
    )


def test_codex_tables() -> None:
    config = tomllib.loads(
        """
[mcp_servers.docs]
command = "docs-server"
args = ["--x"]
env = { A = "1" }
tool_timeout_sec = 5
enabled_tools = ["search"]

[mcp_servers.remote]
url = "http://h/mcp"
bearer_token_env_var = "TOK"
env_http_headers = { "X-K" = "KEYVAR" }

[mcp_servers.off]
command = "x"
enabled = false

[mcp_servers.broken]
command = 3
"""
    )
    servers, problems = codex_mcp_servers(config, file="config.toml", env={"KEYVAR": "k"})
    by_name = {s.name: s for s in servers}
    assert sorted(by_name) == ["docs", "remote"]
    docs = by_name["docs"]
    assert (docs.tool_timeout_sec, docs.startup_timeout_sec) == (5, 10.0)
    assert docs.offers("search")
    assert not docs.offers("other")
    assert by_name["remote"].headers == {"X-K": "k"}
    assert problems == ["config.toml: [mcp_servers.broken] command: Input should be a valid string"]


def test_codex_grace_bounds_the_wait_for_a_server_as_0_171_does() -> None:
    """``mcp_optional_startup_grace_ms``: unset, Codex 0.171's default; ``0``, every server
    waited for (both recorded in tests/fixtures/codex_slow_mcp.json); a wrong one said."""
    table = {"mcp_servers": {"s": {"command": "x"}}}

    def grace(**top: object) -> tuple[float | None, list[str]]:
        (server,), problems = codex_mcp_servers({**top, **table}, file="config.toml")
        return server.startup_grace_sec, problems

    assert grace() == (1.0, [])
    assert grace(mcp_optional_startup_grace_ms=0) == (None, [])
    assert grace(mcp_optional_startup_grace_ms=250) == (0.25, [])
    assert grace(mcp_optional_startup_grace_ms="soon") == (
        1.0,
        ["config.toml: mcp_optional_startup_grace_ms: should be a whole number >= 0"],
    )


def test_the_codex_slow_server_recording_is_what_the_bridge_models() -> None:
    """tests/fixtures/codex_slow_mcp.json (``benchmarks/record_codex_slow_mcp.py``): 0.171's
    first request goes without a server still starting past the grace, its tools come with
    the first request after it answered; a grace of 0 waits for every server; a server past
    its ``startup_timeout_sec`` never comes."""
    recorded = json.loads(
        (Path(__file__).parents[1] / "fixtures" / "codex_slow_mcp.json").read_text()
    )
    cases = {c["case"]: [r["mcp_tools"] for r in c["requests"]] for c in recorded["cases"]}
    first, *_, last = cases["slow-server-default-timeout"]
    assert (first, last) == (["mcp__quick"], ["mcp__quick", "mcp__slow"])
    assert cases["delays-grace-0"][0] == ["mcp__d05", "mcp__d10", "mcp__d15", "mcp__slow"]
    assert all("mcp__slow" not in tools for tools in cases["slow-server-timeout-1"])
    assert cases["grace-default"][0] == cases["grace-1000"][0] == ["mcp__d05", "mcp__d10"]
