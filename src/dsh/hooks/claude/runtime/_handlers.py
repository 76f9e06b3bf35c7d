"""``Handlers``: a group of the bridge's listeners over its one ``Runtime``.

The plugin (``_bridge.ClaudeHooksPlugin``) builds one ``Runtime`` and one object
per handler group (lifecycle, subagents, tool events, permission events, command
events, session commands), each taking the runtime, and registers their listeners.
A group reads what it shares under the runtime's own names (``self.catalog``,
``self._state``, ``await self._fire(...)``), bound here once, so a listener reads
the same whichever group it is in and no group inherits another.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dsh.hooks.claude.events._specs import EVENT_SPECS
from dsh.hooks.claude.rules._modes import PermissionMode
from dsh.hooks.claude.runtime._machinery import Runtime

if TYPE_CHECKING:
    from dsh.agent import Agent
    from dsh.hooks.claude.settings._types import HookDeclaration

__all__ = ["Handlers"]


class Handlers:
    """What every handler group shares: the plugin's ``Runtime``, and its names."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.catalog = runtime.catalog
        self.commands = runtime.commands
        self.permissions = runtime.permissions
        self.effort = runtime.effort
        self.attended = runtime.attended
        self.declared = runtime.declared
        self.transcript_path = runtime.transcript_path
        self._state = runtime._state
        self._legacy_warned = runtime._legacy_warned
        self._base = runtime._base
        self._fire = runtime._fire
        self._tool_hooks = runtime._tool_hooks
        self._common_effects = runtime._common_effects
        self._user_errors = runtime._user_errors
        self._inject_contexts = runtime._inject_contexts
        self._settle_background = runtime._settle_background
        self._pre_tool_outcome = runtime._pre_tool_outcome
        self._started = runtime._started

    @property
    def permission_mode(self) -> PermissionMode:
        """The mode hooks are sent (the permission policy's current one, when mounted)."""
        return self.runtime.permission_mode

    def _matching(self, agent: Agent, event: str, value: str | None) -> tuple[HookDeclaration, ...]:
        """The hooks of ``event`` whose matcher selects ``value``; when it has handlers and
        none is selected, the firing that does not happen is logged as a ``hook/skipped``
        (each handler's matcher, and the first time the catalog's left-out ones)."""
        hooks = self.catalog.matching(event, value)
        if not hooks and (self.catalog.for_event(event) or self.runtime.left_out.get(event)):
            field = EVENT_SPECS[event].matcher_field
            about = {field: value} if field is not None else {}
            self.runtime._firing_skipped(agent, event, (), about, None)
        return hooks
