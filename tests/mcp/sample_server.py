"""A real MCP server for the tests, written with the official ``mcp`` SDK (stdio by default).

Tools: ``echo``, ``add``, ``fail`` (an ``isError`` result), ``slow`` (sleeps), ``image`` (a
PNG), ``structured`` (structured content), ``ask`` (an elicitation), ``ask-then-complete``
(one, then its ``notifications/elicitation/complete``), ``env`` (reads one environment
variable), ``spawn`` (leaves a grandchild running). A prompt: ``review``.
``python sample_server.py http PORT`` serves streamable HTTP instead; ``garbage`` writes
lines that are not JSON-RPC and exits; ``crash`` exits at once.
"""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("marker-") else "stdio"
if MODE == "garbage":
    sys.stdout.write('this is not json\n{"jsonrpc": 3}\n')
    sys.stdout.flush()
    sys.stdin.read()
    sys.exit(0)
if MODE == "crash":
    sys.stderr.write("sample server: crashing on purpose\n")
    sys.exit(3)
if MODE == "hang":
    sys.stdin.read()
    sys.exit(0)

from mcp.server.mcpserver import Context, Image, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from pydantic import BaseModel  # noqa: E402

server = MCPServer("sample")

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


@server.tool()
def echo(message: str) -> str:
    """Echoes back the input."""
    return f"Echo: {message}"


@server.tool()
def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return f"The sum of {a} and {b} is {a + b}."


@server.tool()
def fail(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"failed on purpose: {reason}")


@server.tool()
async def slow(seconds: float) -> str:
    """Sleeps."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def image() -> Image:
    """A one-pixel PNG."""
    return Image(data=PNG, format="png")


class Point(BaseModel):
    x: int
    y: int


@server.tool()
def structured(x: int) -> Point:
    """Structured content."""
    return Point(x=x, y=x * 2)


class Answer(BaseModel):
    name: str
    check: bool


@server.tool(name="ask-user")
async def ask(ctx: Context) -> str:
    """Elicits a name."""
    result = await ctx.elicit("Please provide inputs for the following fields:", Answer)
    if result.action == "accept":
        return f"accepted: {result.data.name} {result.data.check}"
    return f"action: {result.action}"


@server.tool(name="ask-then-complete")
async def ask_then_complete(ctx: Context) -> str:
    """Elicits a name, then says the elicitation ``elic-7`` is complete."""
    result = await ctx.elicit("Please provide inputs for the following fields:", Answer)
    await ctx.session.send_elicit_complete("elic-7")
    return f"action: {result.action}"


@server.tool()
def env(name: str) -> str:
    """One environment variable."""
    return os.environ.get(name, "<unset>")


@server.tool()
def spawn(seconds: str = "299.5") -> str:
    """Leaves a sleeping grandchild behind (its own session) and says its pid."""
    child = subprocess.Popen(["sleep", seconds], start_new_session=True)
    return str(child.pid)


@server.prompt()
def review(code: str, style: str = "short") -> str:
    """Review some code."""
    return f"Review this code ({style}): {code}"


def main() -> None:
    if MODE == "http":
        server.run("streamable-http", port=int(sys.argv[2]))
        return
    if MODE == "sse":
        server.run("sse", port=int(sys.argv[2]))
        return
    server.run("stdio")


if __name__ == "__main__":
    main()
