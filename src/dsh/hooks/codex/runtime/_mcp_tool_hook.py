"""``type = "mcp_tool"`` Codex hooks: a tool of one of the session's MCP servers, as Codex
0.171 calls it.

``CodexMcpToolHook`` (a ``dsh.hook_protocol.InProcessHook``) calls the handler's tool with
its ``input``, each ``${path}`` filled from the hook input (``dsh.mcp._hook``), and answers
with the tool's text as a command hook's stdout, which the bridge decodes as usual (a
``permissionDecision: deny`` denies: ``tests/fixtures/mcp_hooks.json``, case
``codex-mcp-tool-hook``). No such server, a server not connected, a failed call or
``isError`` is a failed hook (exit 1, the reason as its stderr).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, final

from dsh._frozen import frozen
from dsh.hook_protocol import Answered

if TYPE_CHECKING:
    from dsh.hooks.codex.config._types import CodexMcpTool
    from dsh.mcp._session import McpServers

__all__ = ["CodexMcpToolHook"]


@final
@frozen(kw_only=True)
class CodexMcpToolHook:
    """One ``mcp_tool`` handler's firing: ``target`` on ``servers`` (``None``: none run)."""

    servers: McpServers | None
    target: CodexMcpTool

    def describe(self) -> str:
        return f"MCP tool hook {self.target.server}/{self.target.tool}"

    async def __call__(self, payload: bytes) -> Answered:
        from dsh.mcp._hook import run_on_hook_input

        t = self.target
        run = await run_on_hook_input(self.servers, t.server, t.tool, t.input, payload)
        if run.error is not None:
            return Answered(exit_code=1, stdout=run.text, stderr=run.error)
        return Answered(exit_code=0, stdout=run.text)
