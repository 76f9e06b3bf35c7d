"""The handler types beside ``command`` this host runs: shapes checked, declarations built.

``http`` (the payload POSTed to ``url``, ``dsh.hook_protocol.HttpTarget``),
``prompt`` and ``agent`` (``prompt`` judged by a model), ``mcp_tool`` (a tool of one of
the session's MCP servers, ``McpToolTarget``). ``_validate`` admits a handler of one of
these types through here; what is common to every type (the event takes it, ``if``,
nulls) stays there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeAlias
from urllib.parse import urlsplit

from dsh.base import FrozenDict, NotJSONError, freeze_json
from dsh.hook_protocol._regex import unsafe_char_problem
from dsh.hooks.claude.events._specs import EventSpec
from dsh.hooks.claude.events._support import ADMITTED_EVENTS, HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude.settings._matcher import IfRule, Matcher, MatcherError
from dsh.hooks.claude.settings._types import (
    DiagnosticCode,
    HandlerKind,
    HookDeclaration,
    HookSource,
    McpToolTarget,
    Severity,
)

if TYPE_CHECKING:
    from dsh.hook_protocol import HttpTarget
    from dsh.hooks.claude.settings._models import (
        AgentHandler,
        HttpHandler,
        McpToolHandler,
        PromptHandler,
    )

__all__ = [
    "AGENT_DEFAULT_TIMEOUT",
    "OTHER_KINDS",
    "PROMPT_DEFAULT_TIMEOUT",
    "OtherHandler",
    "admit_other",
]

OTHER_KINDS: Final[frozenset[str]] = frozenset({"http", "prompt", "agent", "mcp_tool"})
"""The handler types besides ``command`` that this host runs."""

PROMPT_DEFAULT_TIMEOUT: Final = 30.0
AGENT_DEFAULT_TIMEOUT: Final = 60.0

OtherHandler: TypeAlias = "HttpHandler | PromptHandler | AgentHandler | McpToolHandler"

_Add = Callable[[Severity, DiagnosticCode, str], None]


def admit_other(
    kind: str,
    raw: dict[str, Any],
    add: _Add,
    *,
    event: str,
    spec: EventSpec,
    source: HookSource,
    g: int,
    h: int,
    matcher: Matcher | None,
    if_root: Path,
    placeholders: Mapping[str, str],
) -> HookDeclaration | None:
    """An ``http``, ``prompt``, ``agent`` or ``mcp_tool`` handler admitted (its declaration)
    or diagnosed through ``add`` (``None``); the event already takes the type."""
    nulls = sorted(k for k, v in raw.items() if v is None)
    for key in nulls:
        # Claude Code's schema has optional fields, not nullable ones.
        code: DiagnosticCode = "bad-timeout" if key == "timeout" else "bad-field"
        add("error", code, f"`{key}` is null; leave the field out instead")
    model = None if nulls else _decode(kind, raw, add)
    if model is None:
        return None
    for what, text in _texts(model):
        bad = unsafe_char_problem(text)
        if bad is not None:
            add("error", "bad-field", f"{what} has {bad}")
            return None
    if_rule: IfRule | None = None
    if model.if_ is not None:
        try:
            if_rule = IfRule.parse(model.if_, root=if_root)
        except MatcherError as exc:
            add("error", "bad-if", str(exc))
            return None
    if kind == "agent" and event == "PermissionRequest":
        # 2.1.332 accepts it in settings and fails it at every firing, with these words.
        add(
            "warning",
            "type-not-allowed",
            "agent-type hooks are not supported for PermissionRequest events (an agent hook"
            " answers ok or not ok, and cannot return the allow / deny decision a permission"
            " request needs); Claude Code fails it each time, so it is not run",
        )
        return None
    if event not in ADMITTED_EVENTS:
        limit = HOOK_EVENT_HOST_SUPPORT[event].limits[0]
        add("warning", "unsupported-event", f"`{event}` is not supported by this host: {limit}")
        return None
    if if_rule is not None and not spec.tool_event:
        add(
            "warning",
            "if-never-runs",
            f"a hook with `if` never runs on `{event}`: Claude Code evaluates `if` on tool"
            " events only",
        )
        return None
    if matcher is None:
        return None
    return _declaration(
        model,
        event=event,
        spec=spec,
        source=source,
        g=g,
        h=h,
        matcher=matcher,
        if_rule=if_rule,
        placeholders=placeholders,
    )


def _decode(kind: str, raw: dict[str, Any], add: _Add) -> OtherHandler | None:
    """``raw`` checked by its type's schema (``None`` when refused, with the reasons), and
    its fields no schema reads noted."""
    from dsh._schema import SchemaRefusal, decode
    from dsh.hooks.claude.settings._models import (
        AgentHandler,
        HttpHandler,
        McpToolHandler,
        PromptHandler,
        describe_validation_error,
        extra,
    )

    schemas: Mapping[str, type[HttpHandler | PromptHandler | AgentHandler | McpToolHandler]] = {
        "http": HttpHandler,
        "prompt": PromptHandler,
        "agent": AgentHandler,
        "mcp_tool": McpToolHandler,
    }
    schema = schemas[kind]
    try:
        model = decode(raw, schema)
    except SchemaRefusal as exc:
        for fld, err_type, reason in describe_validation_error(exc, schema):
            code: DiagnosticCode = "bad-field"
            if fld == "timeout":
                code = "bad-timeout"
                reason += "; a timeout is a number of seconds > 0"
            elif fld in ("url", "prompt", "server", "tool") and err_type in (
                "missing",
                "string_too_short",
            ):
                code = "missing-command"
                reason = f"a{'n' if kind in ('http', 'mcp_tool') else ''} {kind} hook needs"
                reason += f" a non-empty `{fld}`"
            add("error", code, reason)
        return None
    if isinstance(model, HttpHandler):
        parts = urlsplit(model.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            add(
                "error", "bad-field", f"`url` must be an http:// or https:// URL, got {model.url!r}"
            )
            return None
    if isinstance(model, McpToolHandler):
        try:
            freeze_json(model.input or {}, "input")
        except (NotJSONError, RecursionError) as exc:
            add("error", "bad-field", f"`input` is not plain JSON: {exc or 'nested too deep'}")
            return None
    for key in sorted(extra(raw, schema)):
        add("warning", "unknown-field", f"`{key}` is not a field of `{kind}` hooks; it is ignored")
    if model.once is not None:
        add(
            "info",
            "ignored-field",
            "`once` is honoured only in skill frontmatter; it is ignored here, as in Claude Code",
        )
    return model


def _texts(model: OtherHandler) -> list[tuple[str, str]]:
    """Every text of the handler that reaches a request, a model or a rule."""
    from dsh.hooks.claude.settings._models import HttpHandler, McpToolHandler

    if isinstance(model, HttpHandler):
        texts = [("`url`", model.url)]
        texts += [(f"`headers.{k}`", f"{k}{v}") for k, v in (model.headers or {}).items()]
    elif isinstance(model, McpToolHandler):
        texts = [("`server`", model.server), ("`tool`", model.tool)]
    else:
        texts = [("`prompt`", model.prompt)]
    if model.if_ is not None:
        texts.append(("`if`", model.if_))
    return texts


def _declaration(
    model: OtherHandler,
    *,
    event: str,
    spec: EventSpec,
    source: HookSource,
    g: int,
    h: int,
    matcher: Matcher,
    if_rule: IfRule | None,
    placeholders: Mapping[str, str],
) -> HookDeclaration:
    """The declaration of an admitted ``http``, ``prompt``, ``agent`` or ``mcp_tool``
    handler."""
    from dsh.hooks.claude.settings._models import (
        AgentHandler,
        HttpHandler,
        McpToolHandler,
        PromptHandler,
    )

    scope: tuple[str, ...] = (
        ("settings",) if source.is_settings_file else ("plugin", str(source.plugin))
    )
    kind: HandlerKind
    http: HttpTarget | None = None
    mcp_tool: McpToolTarget | None = None
    on_failure = "continue"
    if isinstance(model, McpToolHandler):
        kind, text, default = "mcp_tool", f"{model.server}/{model.tool}", spec.default_timeout
        frozen_input = freeze_json(model.input or {}, "input")
        mcp_tool = McpToolTarget(server=model.server, tool=model.tool, input=frozen_input)
        key: tuple[object, ...] = ("mcp_tool", model.server, model.tool, frozen_input)
        # 2.1.332 also ignores it for an mcp_tool handler on SessionStart and Setup.
        ignored = spec.on_failure_ignored or event in ("SessionStart", "Setup")
        if model.onFailure not in (None, "continue") and not ignored:
            on_failure = "block"
    elif isinstance(model, HttpHandler):
        kind, text, default = "http", model.url, spec.default_timeout
        from dsh.hook_protocol import HttpTarget  # only an http hook loads its runner

        http = HttpTarget(
            url=model.url,
            headers=tuple((model.headers or {}).items()),
            allowed_env=frozenset(model.allowedEnvVars or ()),
        )
        if model.onFailure == "block" and not spec.on_failure_ignored:
            on_failure = "block"
        key = ("http", model.url)
    else:
        is_prompt = isinstance(model, PromptHandler)
        kind = "prompt" if is_prompt else "agent"
        text = model.prompt
        default = PROMPT_DEFAULT_TIMEOUT if is_prompt else AGENT_DEFAULT_TIMEOUT
        key = (kind, model.prompt, model.model)
    return HookDeclaration(
        event=event,
        source=source,
        group_index=g,
        hook_index=h,
        matcher=matcher,
        if_rule=if_rule,
        declared_command=text,
        command=text,
        args=None,
        argv=(text,),
        timeout=float(model.timeout) if model.timeout is not None else default,
        timeout_declared=model.timeout is not None,
        run_async=False,
        on_failure="block" if on_failure == "block" else "continue",
        status_message=model.statusMessage,
        env=FrozenDict(placeholders),
        dedup_key=("claude", *scope, key),
        kind=kind,
        http=http,
        prompt=text if kind in ("prompt", "agent") else None,
        model=model.model if isinstance(model, PromptHandler | AgentHandler) else None,
        continue_on_block=isinstance(model, PromptHandler) and model.continueOnBlock,
        mcp_tool=mcp_tool,
    )
