"""``McpCallError``: what every MCP request that got no result raises, whichever transport."""

from __future__ import annotations

from dsh.base import DshError

__all__ = ["McpCallError"]


class McpCallError(DshError, RuntimeError):
    """A call that did not get a result: the server is gone, it timed out, it failed."""
