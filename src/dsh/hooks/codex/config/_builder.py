"""``HookBuilder``: a catalog's handlers as Codex 0.171 admits them, numbered, with their trust.

Each declared handler of a source (``_parse``) becomes a ``CodexHook`` in display
order, or a ``CodexDiagnostic`` saying why not, in Codex's words: a matcher that does
not compile skips its group, an empty or unsafe ``command`` its handler; timeouts get
Codex's defaults and caps (and dsh's own bound, ``MAX_RUN_TIMEOUT``); an ``mcp_tool``
handler names a server's tool. Its trust (``_trust``): managed hooks always run; the
others by the hash Codex records for them, or when trust is bypassed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Final, final

from dsh._frozen import frozen
from dsh.base import freeze_json
from dsh.hook_protocol._regex import unsafe_char_problem
from dsh.hooks.codex.config._matcher import CodexMatcher, CodexMatcherError
from dsh.hooks.codex.config._parse import DeclaredHandler, McpToolHandler, ParsedSource
from dsh.hooks.codex.config._trust import HookState, hook_hash, hook_key, mcp_hook_hash
from dsh.hooks.codex.config._types import (
    CodexDiagnostic,
    CodexHook,
    CodexLayer,
    CodexMcpTool,
    TrustStatus,
)
from dsh.hooks.codex.events._specs import (
    CONTEXT_LIMIT_EVENTS,
    DEFAULT_TIMEOUT,
    MATCHER_FIELDS,
    SHORT_TIMEOUT_CAP,
    SHORT_TIMEOUT_DEFAULT,
    SHORT_TIMEOUT_EVENTS,
)

if TYPE_CHECKING:  # a plugin's hooks come only from a config that lists plugins
    from dsh.hooks.codex.config._plugins import PluginHooks

__all__ = ["MAX_RUN_TIMEOUT", "HookBuilder"]

MAX_RUN_TIMEOUT: Final = 7 * 24 * 3600
"""Seconds dsh lets a hook run at most, whatever its ``timeout`` says (Codex sets no bound)."""


@frozen
class _At:
    """Where a handler was declared: its source, layer, declaration, matcher and plugin."""

    source: Path
    layer: CodexLayer
    declared: DeclaredHandler
    matcher: CodexMatcher
    plugin: PluginHooks | None


@final
class HookBuilder:
    """Numbers the handlers in display order and gives each its trust."""

    def __init__(
        self, states: Mapping[str, HookState], *, bypass: bool, managed_only: bool
    ) -> None:
        self.states = states
        self.bypass = bypass
        self.managed_only = managed_only
        self.hooks: list[CodexHook] = []
        self.diagnostics: list[CodexDiagnostic] = []
        self.order = 0

    def add(
        self,
        source: Path,
        layer: CodexLayer,
        parsed: ParsedSource,
        *,
        plugin: PluginHooks | None = None,
    ) -> None:
        self.diagnostics.extend(parsed.diagnostics)
        bad_groups: set[tuple[str, int]] = set()
        for declared in parsed.handlers:
            hook = self._hook(source, layer, declared, bad_groups, plugin)
            self.order += 1
            if hook is not None:
                self.hooks.append(hook)

    def _warn(
        self, source: Path, declared: DeclaredHandler, reason: str, *, group_only: bool = False
    ) -> None:
        self.diagnostics.append(
            CodexDiagnostic(
                source=str(source),
                reason=reason,
                event=declared.event,
                group=declared.group,
                index=None if group_only else declared.index,
            )
        )

    def _hook(
        self,
        source: Path,
        layer: CodexLayer,
        declared: DeclaredHandler,
        bad: set[tuple[str, int]],
        plugin: PluginHooks | None,
    ) -> CodexHook | None:
        event, h = declared.event, declared.handler
        if (event, declared.group) in bad:
            return None
        try:
            matcher = (
                CodexMatcher.parse(declared.matcher)
                if event in MATCHER_FIELDS
                else CodexMatcher.everything(declared.matcher)
            )
        except CodexMatcherError as exc:
            bad.add((event, declared.group))
            self._warn(
                source, declared, f"{exc}: the group is skipped, as Codex skips it", group_only=True
            )
            return None
        if isinstance(h, McpToolHandler):
            return self._mcp_hook(source, layer, declared, h, matcher, plugin)
        if not h.command.strip():
            self._warn(source, declared, "`command` is empty: skipped")
            return None
        problem = unsafe_char_problem(h.command)
        if problem is not None:
            self._warn(source, declared, f"`command` has {problem}: skipped")
            return None
        short = event in SHORT_TIMEOUT_EVENTS
        timeout = (
            h.timeout
            if h.timeout is not None
            else (SHORT_TIMEOUT_DEFAULT if short else DEFAULT_TIMEOUT)
        )
        timeout = max(timeout, 1)
        if short and timeout > SHORT_TIMEOUT_CAP:
            self._warn(
                source,
                declared,
                f"clamping {event} hook timeout to {SHORT_TIMEOUT_CAP}s (as Codex does)",
            )
            timeout = SHORT_TIMEOUT_CAP
        run_async = h.run_async and event != "SessionEnd"
        context_limit = h.additional_context_limit
        if context_limit is not None and event not in CONTEXT_LIMIT_EVENTS:
            self._warn(
                source,
                declared,
                f"ignoring additionalContextLimit for {event}: this event cannot emit"
                " additionalContext (as Codex does)",
            )
            context_limit = None
        if h.run_async and not run_async:
            self._warn(
                source, declared, "running async SessionEnd hook synchronously (as Codex does)"
            )
        digest = hook_hash(
            event,
            declared.matcher,
            command=h.command,
            timeout=timeout,
            run_async=h.run_async,
            status_message=h.status_message,
            additional_context_limit=context_limit,
        )
        if timeout > MAX_RUN_TIMEOUT:
            self._warn(source, declared, f"timeout {timeout}s is cut to {MAX_RUN_TIMEOUT}s")
        at = _At(source, layer, declared, matcher, plugin)
        return self._made(
            at,
            command=h.command,
            timeout=timeout,
            digest=digest,
            status_message=h.status_message,
            run_async=run_async,
            additional_context_limit=context_limit,
        )

    def _mcp_hook(
        self,
        source: Path,
        layer: CodexLayer,
        declared: DeclaredHandler,
        h: McpToolHandler,
        matcher: CodexMatcher,
        plugin: PluginHooks | None,
    ) -> CodexHook | None:
        """An ``mcp_tool`` handler, as 0.171 admits it (empty names: skipped, as it says)."""
        event = declared.event
        if not h.server.strip() or not h.tool.strip():
            self._warn(source, declared, "`mcp_tool`: server and tool must not be empty: skipped")
            return None
        short = event in SHORT_TIMEOUT_EVENTS
        default = SHORT_TIMEOUT_DEFAULT if short else DEFAULT_TIMEOUT
        timeout = max(h.timeout if h.timeout is not None else default, 1)
        if short:
            timeout = min(timeout, SHORT_TIMEOUT_CAP)
        target = CodexMcpTool(server=h.server, tool=h.tool, input=freeze_json(h.input or {}))
        digest = mcp_hook_hash(
            event,
            declared.matcher,
            server=h.server,
            tool=h.tool,
            input=h.input or {},
            timeout=timeout,
            status_message=h.status_message,
        )
        return self._made(
            _At(source, layer, declared, matcher, plugin),
            command=f"{h.server}/{h.tool}",
            timeout=timeout,
            digest=digest,
            status_message=h.status_message,
            mcp_tool=target,
        )

    def _made(
        self,
        at: _At,
        *,
        command: str,
        timeout: int,
        digest: str,
        status_message: str | None,
        run_async: bool = False,
        additional_context_limit: int | None = None,
        mcp_tool: CodexMcpTool | None = None,
    ) -> CodexHook:
        """The hook declared ``at``, numbered, keyed and given its trust (a plugin's command
        hooks run with the plugin's environment)."""
        declared, plugin = at.declared, at.plugin
        key = hook_key(
            at.source if plugin is None else plugin.key_source,
            declared.event,
            declared.group,
            declared.index,
        )
        return CodexHook(
            event=declared.event,
            source=at.source,
            layer=at.layer,
            group=declared.group,
            index=declared.index,
            matcher=at.matcher,
            command=command,
            timeout=min(timeout, MAX_RUN_TIMEOUT),
            run_async=run_async,
            status_message=status_message,
            additional_context_limit=additional_context_limit,
            display_order=self.order,
            key=key,
            trusted_hash=digest,
            trust=self._trust(at.layer, key, digest),
            plugin=None if plugin is None else plugin.plugin_id,
            env=None if plugin is None or mcp_tool is not None else plugin.env,
            mcp_tool=mcp_tool,
        )

    def _trust(self, layer: CodexLayer, key: str, digest: str) -> TrustStatus:
        if layer == "managed":
            return "managed"
        state = self.states.get(key)
        if state is not None and not state.enabled:
            return "disabled"
        if self.bypass:
            return "bypassed"
        if state is None or state.trusted_hash is None:
            return "untrusted"
        return "trusted" if state.trusted_hash == digest else "changed"
