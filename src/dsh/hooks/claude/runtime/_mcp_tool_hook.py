"""``type: "mcp_tool"`` hooks: a tool of one of the session's MCP servers, as 2.1.332 calls it.

``McpToolHook`` (a ``dsh.hook_protocol.InProcessHook``) calls the handler's tool with its
``input``, ``${path}`` filled from the hook input (``dsh.mcp._hook``), and answers as
2.1.332 reads the result: text starting with ``{`` is a command hook's stdout (the
bridge decodes its fields as usual); any other text is a success whose shown output is
``<event> completed`` (so on UserPromptSubmit the model reads ``UserPromptSubmit hook
success: UserPromptSubmit completed``, not the tool's text: the ``mcp-tool-handler``
recording); a failure (no such server, not connected, the call failed, ``isError``) is a
non-blocking error, exit 1 with the reason on stderr.

With ``onFailure: "block"`` (``blocks``) a failure fails closed, as 2.1.332's code does it:
the handler's declaration is ``on_failure="block"``, and its stderr is 2.1.332's words
(``fail_closed_text``): ``failed; blocking because onFailure is "block" and the hook got no
usable answer from its MCP server...``, then ``MCP server 'S' not connected`` when it is not,
or a fixed sentence for a failed call, a tool's error, or an answer that is no hook output
(plain text, or JSON holding nothing but ``reason``, on the events that need a verdict:
``_VERDICT_EVENTS``, which leave out PreCompact and WorktreeCreate as 2.1.332 does), whose
details 2.1.332 keeps out of the model's sight. Without it, a server that is gone fails open
(a non-blocking error), as 2.1.332 does.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen
from dsh.hook_protocol import Answered

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._types import McpToolTarget
    from dsh.mcp._session import McpServers

__all__ = ["McpToolHook", "fail_closed_text"]

_BLOCKING: Final = (
    'blocking because onFailure is "block" and the hook got no usable answer from its MCP'
    " server. The user needs to fix the cause (in a session, /mcp shows the server's state) or"
    " ask whoever manages the hook; Claude should not change the hook or work around it."
)
_HIDDEN: Final = (
    " Details are left out of this message, since the MCP server may have written them. To see"
    " them, start Claude Code with --debug and try again: they go to its debug log."
)
_VERDICT_EVENTS: Final = frozenset(
    {
        "PreToolUse",
        "PermissionRequest",
        "PreSkillShellCommand",
        "PreModelSwitch",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "ConfigChange",
        "Elicitation",
        "ElicitationResult",
        "PostToolBatch",
        "TaskCreated",
    }
)
"""The events whose blocking handler must give a verdict: plain text is no answer there.
2.1.332's set of gates (``E8``) less PreCompact, which it excepts by name; elsewhere
(WorktreeCreate, PostToolUse, ...) plain text is a success."""
_TEXT_EVENTS: Final = frozenset({"PreCompact", "WorktreeCreate"})
"""Where the tool's plain text is the hook's output itself, as 2.1.332's executor outside
the main loop gives it (WorktreeCreate's path), not ``<event> completed``."""
_WHY: Final = {
    "call": "The call to the MCP server failed.",
    "tool": "The MCP tool returned an error.",
    "no_verdict": "The MCP tool's answer is not a hook's JSON output, {} or empty.",
}


def fail_closed_text(server: str, failure: str, *, timed_out: bool = False) -> str:
    """2.1.332's reason for an ``onFailure: "block"`` mcp_tool handler that failed (what
    follows ``[server/tool]: ``)."""
    head = f"{'timed out' if timed_out else 'failed'}; {_BLOCKING}"
    if timed_out:
        return head
    if failure == "not_connected":
        return f"{head}\nMCP server '{server}' not connected"
    return (
        f"{head}\n{_WHY.get(failure, 'The hook got no answer that Claude Code can use.')}{_HIDDEN}"
    )


def _no_verdict(text: str) -> bool:
    """Whether ``text`` is, for a blocking handler, no hook output: plain text, or JSON with no
    field but ``reason`` (``{}`` and nothing at all are answers)."""
    stripped = text.strip()
    if not stripped or stripped.replace(" ", "") == "{}":
        return False
    try:
        data = json.loads(stripped)
    except ValueError:
        return True
    return not isinstance(data, dict) or not (set(data) - {"reason"})


@final
@frozen(kw_only=True)
class McpToolHook:
    """One ``mcp_tool`` handler's firing: ``target`` on ``servers`` (``None``: none run)."""

    servers: McpServers | None
    target: McpToolTarget
    event: str
    blocks: bool = False
    """``onFailure: "block"``: a failure fails closed (its stderr is ``fail_closed_text``)."""

    def describe(self) -> str:
        return f"MCP tool hook {self.target.server}/{self.target.tool}"

    async def __call__(self, payload: bytes) -> Answered:
        from dsh.mcp._hook import run_on_hook_input

        t = self.target
        run = await run_on_hook_input(self.servers, t.server, t.tool, t.input, payload)
        verdict = self.blocks and self.event in _VERDICT_EVENTS
        if verdict and run.error is None and _no_verdict(run.text):
            return Answered(exit_code=1, stderr=fail_closed_text(t.server, "no_verdict"))
        if run.error is not None:
            if self.blocks:
                failure = run.failure or "call"
                return Answered(exit_code=1, stderr=fail_closed_text(t.server, failure))
            return Answered(exit_code=1, stdout=run.text, stderr=run.error)
        if run.text.lstrip().startswith("{"):
            # JSON (or text 2.1.332 tries as JSON and reports): the decoder reads it.
            return Answered(exit_code=0, stdout=run.text)
        if self.event in _TEXT_EVENTS:
            return Answered(exit_code=0, stdout=run.text)
        return Answered(exit_code=0, stdout=f"{self.event} completed")
