"""``Handlers``: a group of the Codex bridge's listeners over its one ``Runtime``.

The plugin (``_bridge.CodexHooksPlugin``) builds one ``Runtime`` and one object
per handler group (lifecycle, tool events, model events), each taking the
runtime, and registers their listeners. A group reads what it shares under the
runtime's own names (``self.catalog``, ``self._state``, ``await self._fire(...)``),
bound here once, so no group inherits another.
"""

from __future__ import annotations

from dsh.hooks.codex.runtime._machinery import Runtime

__all__ = ["Handlers"]


class Handlers:
    """What every handler group shares: the plugin's ``Runtime``, and its names."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.catalog = runtime.catalog
        self.declared = runtime.declared
        self._state = runtime._state
        self._base = runtime._base
        self._bounded = runtime._bounded
        self._contexts = runtime._contexts
        self._fire = runtime._fire
        self._matching = runtime._matching
        self._inject_contexts = runtime._inject_contexts
        self._settle = runtime._settle
        self._pre_tool_outcome = runtime._pre_tool_outcome
