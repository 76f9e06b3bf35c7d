"""``dsh mcp list``: each MCP server a session here would start, where it was declared, its
state once started (or why it is not), its tools and its prompts.

The servers are Claude Code's (``.mcp.json``, ``~/.claude.json``, ``--mcp-config``, plugins)
and Codex's (``config.toml``), as ``dsh run`` reads them; a project server that is not
trusted is listed, not started. Each listed server is started (all at once, each within its
start-up timeout) and ended before the command returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from dsh.cli._render import terminal_safe

__all__ = ["mcp_list"]


def _declared(
    project: Path, mcp_config: Sequence[str], strict: bool
) -> tuple[list[Any], dict[str, str], list[str]]:
    from dsh.hooks.claude import ClaudeCodeProfile
    from dsh.hooks.codex import load_codex_catalog

    profile = ClaudeCodeProfile(mcp_config=tuple(mcp_config), strict_mcp_config=strict)
    servers, notes = profile.mcp_servers_of(project)
    review = profile.review(project)
    refused: dict[str, str] = {s.server.name: s.state for s in review.servers if not s.trusted}
    found = list(servers)
    problems = list(notes)
    if not strict:
        catalog = load_codex_catalog(project)
        names = {s.name for s in found}
        found += [s for s in catalog.mcp_servers if s.name not in names]
        problems += [d.describe() for d in catalog.diagnostics if "mcp_servers" in d.reason]
    return found, refused, problems


async def _started(servers: list[Any], project: Path) -> Any:
    from dsh.base import EnvironmentPolicy
    from dsh.context import Context
    from dsh.mcp._session import McpServers
    from dsh.tools import ToolRegistry

    manager = McpServers(
        servers,
        registry=ToolRegistry(Context()),
        env=EnvironmentPolicy().environment(),
        cwd=str(project),
    )
    manager.start()
    await manager.settled()
    return manager


def mcp_list(project: Path, mcp_config: Sequence[str], strict: bool) -> int:
    """Print the servers; returns 1 when one failed to start, else 0."""
    from dsh.mcp import McpConfigError
    from dsh.mcp._tools import mcp_tool_name

    try:
        servers, refused, problems = _declared(project.resolve(), mcp_config, strict)
    except McpConfigError as exc:
        raise click.ClickException(str(exc)) from None
    startable = [s for s in servers if s.name not in refused]

    async def run() -> int:
        manager = await _started(startable, project) if startable else None
        failed = 0
        try:
            for server in servers:
                where = f"{server.source}, {server.where}"
                click.echo(terminal_safe(f"{server.name} ({where})"))
                click.echo(terminal_safe(f"  {server.transport}: {server.shown()}"))
                if server.name in refused:
                    state = refused[server.name]
                    click.echo(f"  state: {state}, not started (dsh hooks trust trusts it)")
                    continue
                assert manager is not None
                connection = manager.connections[server.name]
                if connection.state != "connected":
                    failed = 1
                    click.echo(terminal_safe(f"  state: failed: {connection.error}"))
                    continue
                click.echo("  state: connected")
                tools = [mcp_tool_name(server.name, t.name) for t in connection.tools]
                click.echo(terminal_safe(f"  tools ({len(tools)}): {', '.join(tools) or '-'}"))
                prompts = ["/" + mcp_tool_name(server.name, p.name) for p in connection.prompts]
                if prompts:
                    click.echo(terminal_safe(f"  prompts: {', '.join(prompts)}"))
        finally:
            if manager is not None:
                await manager.close()
        if not servers:
            click.echo("no MCP servers configured")
        for problem in problems:
            click.echo(terminal_safe(f"warning: {problem}"), err=True)
        return failed

    from dsh.base._child_watcher import use_pidfd_child_watcher

    use_pidfd_child_watcher()
    return asyncio.run(run())
