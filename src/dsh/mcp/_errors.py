"""``McpCallError``: what every MCP request that got no result raises, whichever transport;
``McpRequiredError``: a session that does not open because a required server did not start."""

from __future__ import annotations

from dsh.base import DshError

__all__ = ["McpCallError", "McpRequiredError"]


class McpCallError(DshError, RuntimeError):
    """A call that did not get a result: the server is gone, it timed out, it failed."""


class McpRequiredError(DshError, RuntimeError):
    """Servers marked ``required`` (Codex's key) that did not start: the session is not
    opened, as Codex 0.171 does not create its thread (tests/fixtures/codex_required_mcp.json)."""
