"""A real MCP server (``sample_server.py``, the official SDK) through ``dsh.mcp``: tools,
results, timeouts, environment, failures, and every process ended at close."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import psutil
import pytest

from dsh.base import FrozenDict, thaw_json
from dsh.context import Context
from dsh.mcp import McpServer
from dsh.mcp._connection import McpConnection
from dsh.mcp._errors import McpCallError
from dsh.mcp._session import McpServers
from dsh.mcp._tools import mcp_tool_name, normalize_name, server_tools
from dsh.messages import ImageBlock, TextBlock
from dsh.tools import McpServerRef, ToolInvocation, ToolRegistry, ToolResult, Workspace

SERVER = str(Path(__file__).with_name("sample_server.py"))


def _server(name: str = "sample", *args: str, **kw: object) -> McpServer:
    return McpServer(
        name=name,
        transport="stdio",
        source="dynamic",
        where=f"test: {name}",
        command=sys.executable,
        args=(SERVER, *args),
        **kw,  # type: ignore[arg-type]
    )


def _sleepers(marker: str) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        if marker in (p.info["cmdline"] or []):
            found.append(p)
    return found


def test_names_as_claude_code_makes_them() -> None:
    assert mcp_tool_name("everything", "get-sum") == "mcp__everything__get-sum"
    assert mcp_tool_name("my server", "a.b") == "mcp__my_server__a_b"
    assert normalize_name("plugin:x@m:s") == "plugin_x_m_s"


async def test_a_real_server_end_to_end(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if "SECRET" not in k}
    env["SAMPLE_FROM_POLICY"] = "policy"
    server = _server(env={"SAMPLE_FROM_CONFIG": "config"}, tool_timeout_sec=2.0)
    connection = McpConnection(server, env=env, cwd=str(tmp_path))
    connection.start()
    await connection.ready()
    assert connection.state == "connected", connection.error
    assert [p.name for p in connection.prompts] == ["review"]
    tools, notices = server_tools(connection)
    assert notices == []
    by_name = {t.name: t for t in tools}
    assert "mcp__sample__ask-user" in by_name
    echo = by_name["mcp__sample__echo"]
    assert echo.deferred
    assert echo.mcp_server == McpServerRef("sample", "dynamic")
    assert echo.input_schema["required"] == ("message",)
    workspace = Workspace(cwd=tmp_path)

    async def call(tool: str, **arguments: object) -> ToolResult:
        name = f"mcp__sample__{tool}"
        invocation = ToolInvocation(name=name, arguments=FrozenDict(arguments), workspace=workspace)
        return await by_name[name].run(invocation)

    result = await call("echo", message="hi")
    assert (result.is_error, result.content) == (False, (TextBlock("Echo: hi"),))
    assert thaw_json(result.output) == [{"type": "text", "text": "Echo: hi"}]
    failed = await call("fail", reason="R")
    assert failed.is_error
    assert failed.text == "Error executing tool fail: failed on purpose: R"  # the server's text
    image = await call("image")
    assert not isinstance(image.content, str)
    (block,) = image.content
    assert isinstance(block, ImageBlock)
    assert block.media_type == "image/png"
    structured = await call("structured", x=2)
    assert '"y": 4' in structured.text
    assert (await call("env", name="SAMPLE_FROM_CONFIG")).text == "config"
    assert (await call("env", name="SAMPLE_FROM_POLICY")).text == "policy"
    slow = await call("slow", seconds=30)
    assert slow.is_error
    assert "timed out after 2s" in slow.text
    # A grandchild the server left behind ends with it.
    await call("spawn")
    assert _sleepers("299.5")
    await connection.close()
    assert str(connection.state) == "closed"
    for _ in range(50):
        if not [p for p in _sleepers("299.5") if p.status() != psutil.STATUS_ZOMBIE]:
            break
        await asyncio.sleep(0.05)
    assert not [p for p in _sleepers("299.5") if p.status() != psutil.STATUS_ZOMBIE]
    with pytest.raises(McpCallError, match="not connected"):
        await connection.call("echo", {"message": "late"})


async def test_servers_that_fail_are_notices_not_stuck_turns(tmp_path: Path) -> None:
    servers = [
        _server("crash", "crash"),
        _server("garbage", "garbage", startup_timeout_sec=1.0),
        _server("hang", "hang", startup_timeout_sec=1.0),
        McpServer(
            name="missing", transport="stdio", source="project", where="x", command="/no/such/cmd"
        ),
    ]
    registry = ToolRegistry(Context())
    manager = McpServers(servers, registry=registry, env=dict(os.environ), cwd=str(tmp_path))
    manager.start()
    await asyncio.wait_for(manager.settled(), 20)
    states = {name: c.state for name, c in manager.connections.items()}
    assert states == dict.fromkeys(("crash", "garbage", "hang", "missing"), "failed")
    notices = "\n".join(manager.notices)
    assert "'crash' (test: crash) failed to start" in notices
    assert "crashing on purpose" in notices
    assert "this is not json" in notices
    assert "'hang' (test: hang) failed to start: timed out" in notices
    assert "command not found: /no/such/cmd" in notices
    await manager.close()
    assert not [d.name for d in registry.definitions() if d.name.startswith("mcp__")]


def test_mcp_tool_hook_input_is_filled_from_the_hook_input() -> None:
    from dsh.mcp._hook import fill_input

    hook_input = {"prompt": "Please run echo hi", "tool_input": {"command": "ls", "n": 2}}
    template = {
        "message": "CASE-MCPH-UPS ${prompt}",
        "nested": ["${tool_input.command}", "${tool_input.n}", "${missing.path}"],
        "n": 3,
    }
    assert fill_input(template, hook_input) == {
        "message": "CASE-MCPH-UPS Please run echo hi",
        "nested": ["ls", "2", ""],
        "n": 3,
    }


async def test_mcp_tool_hook_runs_a_servers_tool(tmp_path: Path) -> None:
    from dsh.mcp._hook import run_mcp_tool_hook

    registry = ToolRegistry(Context())
    manager = McpServers([_server()], registry=registry, env=dict(os.environ), cwd=str(tmp_path))
    manager.start()
    await manager.settled()
    run = await run_mcp_tool_hook(
        manager, "sample", "echo", {"message": "hook ${prompt}"}, {"prompt": "p"}
    )
    assert (run.text, run.error) == ("Echo: hook p", None)
    failed = await run_mcp_tool_hook(manager, "sample", "fail", {"reason": "x"}, {})
    assert failed.error == "Error executing tool fail: failed on purpose: x"
    missing = await run_mcp_tool_hook(manager, "nope", "echo", {}, {})
    assert missing.error == "no MCP server named 'nope' is configured"
    await manager.close()


async def test_blocking_mcp_tool_hooks_need_a_verdict_only_where_2_1_332_does(
    tmp_path: Path,
) -> None:
    """``onFailure: "block"``: plain text is no answer on a gate (PreToolUse), but PreCompact
    and WorktreeCreate take it (their output is the text itself: WorktreeCreate's path), and
    an event that is no gate (PostToolUse) reads it as a success."""
    from dsh.hooks.claude.runtime._mcp_tool_hook import McpToolHook
    from dsh.hooks.claude.settings._types import McpToolTarget

    tiny = Path(__file__).parents[2] / "benchmarks" / "_mcp_tiny_server.py"
    server = McpServer(
        name="tiny", transport="stdio", source="dynamic", where="x",
        command=sys.executable, args=("-S", str(tiny)),
    )  # fmt: skip
    registry = ToolRegistry(Context())
    manager = McpServers([server], registry=registry, env=dict(os.environ), cwd=str(tmp_path))
    manager.start()
    await manager.settled()
    target = McpToolTarget(server="tiny", tool="ping")

    async def fire(event: str) -> tuple[int, str, str]:
        hook = McpToolHook(servers=manager, target=target, event=event, blocks=True)
        answer = await hook(b"{}")
        return answer.exit_code, answer.stdout, answer.stderr

    code, _, why = await fire("PreToolUse")
    assert code == 1
    assert "The MCP tool's answer is not a hook's JSON output, {} or empty." in why
    assert await fire("PreCompact") == (0, "pong", "")
    assert await fire("WorktreeCreate") == (0, "pong", "")
    assert await fire("PostToolUse") == (0, "PostToolUse completed", "")
    await manager.close()


async def test_a_prompt_waits_for_claude_servers_but_not_for_codex_ones(tmp_path: Path) -> None:
    """Codex 0.171 sends its first request without a server still starting past its grace,
    and offers its tools once it connected (tests/fixtures/codex_slow_mcp.json); Claude Code
    waits."""
    tiny = Path(__file__).parents[2] / "benchmarks" / "_mcp_tiny_server.py"
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    gated = f"open({str(gate)!r}).read()\nimport runpy\n"
    gated += f"runpy.run_path({str(tiny)!r}, run_name='__main__')"
    claude = McpServer(
        name="quick", transport="stdio", source="dynamic", where="x",
        command=sys.executable, args=("-S", str(tiny)),
    )  # fmt: skip
    codex = McpServer(
        name="slow", transport="stdio", source="codex", where="y",
        command=sys.executable, args=("-S", "-c", gated), startup_grace_sec=0.0,
    )  # fmt: skip
    registry = ToolRegistry(Context())
    manager = McpServers([claude, codex], registry=registry, env=dict(os.environ), cwd="/")
    manager.start()
    await asyncio.wait_for(manager.awaited(), 20)
    states = {name: c.state for name, c in manager.connections.items()}
    assert states == {"quick": "connected", "slow": "pending"}
    names = {d.name for d in registry.definitions()}
    assert "mcp__quick__ping" in names
    assert "mcp__slow__ping" not in names
    await asyncio.to_thread(gate.write_text, "go")  # the slow server starts now
    await asyncio.wait_for(manager.settled(), 20)
    assert manager.connections["slow"].state == "connected"
    assert "mcp__slow__ping" in {d.name for d in registry.definitions()}
    await manager.close()
