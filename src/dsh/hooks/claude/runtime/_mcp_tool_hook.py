"""``type: "mcp_tool"`` hooks: a tool of one of the session's MCP servers, as 2.1.332 calls it.

``McpToolHook`` (a ``dsh.hook_protocol.InProcessHook``) calls the handler's tool with its
``input``, ``${path}`` filled from the hook input (``dsh.mcp._hook``), and answers as
2.1.332 reads the result: text starting with ``{`` is a command hook's stdout (the
bridge decodes its fields as usual); any other text is a success whose shown output is
``<event> completed`` (so on UserPromptSubmit the model reads ``UserPromptSubmit hook
success: UserPromptSubmit completed``, not the tool's text: the ``mcp-tool-handler``
recording); a failure (no such server, not connected, the call failed, ``isError``) is a
non-blocking error, exit 1 with the reason on stderr.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, final

from dsh._frozen import frozen
from dsh.hook_protocol import Answered

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._types import McpToolTarget
    from dsh.mcp._session import McpServers

__all__ = ["McpToolHook"]


@final
@frozen(kw_only=True)
class McpToolHook:
    """One ``mcp_tool`` handler's firing: ``target`` on ``servers`` (``None``: none run)."""

    servers: McpServers | None
    target: McpToolTarget
    event: str

    def describe(self) -> str:
        return f"MCP tool hook {self.target.server}/{self.target.tool}"

    async def __call__(self, payload: bytes) -> Answered:
        from dsh.base import UnsafeJSONError, load_json
        from dsh.mcp._hook import run_mcp_tool_hook

        try:
            hook_input = load_json(payload)
        except UnsafeJSONError as exc:  # dsh made it: cannot happen, but say so if it does
            return Answered(exit_code=1, stderr=f"the hook input is not JSON: {exc}")
        t = self.target
        run = await run_mcp_tool_hook(self.servers, t.server, t.tool, t.input, hook_input)
        if run.error is not None:
            return Answered(exit_code=1, stdout=run.text, stderr=run.error)
        if run.text.lstrip().startswith("{"):
            # JSON (or text 2.1.332 tries as JSON and reports): the decoder reads it.
            return Answered(exit_code=0, stdout=run.text)
        return Answered(exit_code=0, stdout=f"{self.event} completed")
