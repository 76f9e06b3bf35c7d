"""The schemas of the hook files' shapes (settings, plugin files, matcher groups, handlers).

One validator each (``dsh._schema``: msgspec, strict: a value of exactly the
type asked for), imported when a file is there to check: a run with no
settings file and no plugin never loads them. ``decode`` gives the value or
raises ``SchemaRefusal``, which ``describe_validation_error`` words for the
diagnostics; ``extra`` gives the keys a schema does not read.
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types
# (strings it would evaluate at its first decode, ~1.5 ms of a run's start-up).

import functools
import math
from typing import Annotated, Any, Literal

import msgspec

from dsh._schema import SchemaError, SchemaRefusal, decode

__all__ = [
    "AgentHandler",
    "CommandHandler",
    "HttpHandler",
    "MatcherGroup",
    "McpToolHandler",
    "PluginHooksFileModel",
    "PluginManifestModel",
    "PromptHandler",
    "SchemaRefusal",
    "Settings",
    "decode",
    "describe_validation_error",
    "extra",
]


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """The keys of a settings file this bridge reads; every other key is not ours."""

    hooks: dict[str, Any] | None = None
    disableAllHooks: bool | None = None
    allowManagedHooksOnly: bool | None = None
    enabledPlugins: dict[str, Any] | None = None
    strictPluginOnlyCustomization: bool | list[str] | None = None
    # Read leniently (``settings/_http_policy``, ``_env``): a bad value narrows what runs
    # instead of skipping the file's hooks.
    allowedHttpHookUrls: Any = None
    httpHookAllowedEnvVars: Any = None
    env: Any = None
    bashEditDiffEnabled: Any = None  # only a boolean counts (2.1.332's `=== false`)
    worktree: Any = None  # read leniently (``_worktree``): a bad value is left out


class PluginHooksFileModel(msgspec.Struct, frozen=True, kw_only=True):
    """A plugin's ``hooks/hooks.json``: ``{"description"?: str, "hooks": {...}}``."""

    description: str | None = None
    hooks: dict[str, Any]


class PluginManifestModel(msgspec.Struct, frozen=True, kw_only=True):
    """The parts of ``.claude-plugin/plugin.json`` that matter for hooks."""

    name: str | None = None
    hooks: str | list[str] | dict[str, Any] | None = None


class MatcherGroup(msgspec.Struct, frozen=True, kw_only=True):
    """A matcher group: an optional ``matcher`` and its handlers (each checked on its own)."""

    matcher: str | None = None
    hooks: list[Any]


class _Handler(msgspec.Struct, frozen=True, kw_only=True):
    """What every handler type shares (reference §1.3): ``timeout`` (finite seconds above
    0), ``statusMessage``, ``once`` and ``if``.

    msgspec puts these fields before a subtype's own; the diagnostics name a handler's
    problems in the order they always have (``_diagnostic_order``).
    """

    timeout: Annotated[float, msgspec.Meta(gt=0)] | None = None
    statusMessage: str | None = None
    once: bool | None = None
    if_: str | None = msgspec.field(default=None, name="if")

    def __post_init__(self) -> None:
        if self.timeout is not None and not math.isfinite(self.timeout):
            raise ValueError("Input should be a finite number")


class CommandHandler(_Handler, frozen=True, kw_only=True):
    """A ``type: "command"`` handler (reference §1.3)."""

    type: Literal["command"]
    command: Annotated[str, msgspec.Meta(min_length=1)]
    args: list[str] | None = None
    async_: bool = msgspec.field(default=False, name="async")
    asyncRewake: bool = False
    shell: Literal["bash", "powershell"] | None = None
    onFailure: Literal["continue", "block"] = "continue"


class HttpHandler(_Handler, frozen=True, kw_only=True):
    """A ``type: "http"`` handler (reference §1.3): the payload POSTed to ``url``."""

    type: Literal["http"]
    url: Annotated[str, msgspec.Meta(min_length=1)]
    headers: dict[str, str] | None = None
    allowedEnvVars: list[str] | None = None
    onFailure: Literal["continue", "block"] = "continue"


class PromptHandler(_Handler, frozen=True, kw_only=True):
    """A ``type: "prompt"`` handler (reference §1.3, §5): ``prompt`` judged by a model."""

    type: Literal["prompt"]
    prompt: Annotated[str, msgspec.Meta(min_length=1)]
    model: str | None = None
    continueOnBlock: bool = False


class AgentHandler(_Handler, frozen=True, kw_only=True):
    """A ``type: "agent"`` handler (reference §1.3, §5): ``prompt`` checked by a subagent."""

    field_order = ("type", "prompt", "model", "timeout", "statusMessage", "once", "if")

    type: Literal["agent"]
    prompt: Annotated[str, msgspec.Meta(min_length=1)]
    model: str | None = None


class McpToolHandler(_Handler, frozen=True, kw_only=True):
    """A ``type: "mcp_tool"`` handler (reference §1.3): ``server``'s ``tool`` called with
    ``input``, its ``${path}`` filled from the hook input."""

    field_order = ("type", "server", "tool", "input", "timeout", "statusMessage", "once", "if")

    type: Literal["mcp_tool"]
    server: Annotated[str, msgspec.Meta(min_length=1)]
    tool: Annotated[str, msgspec.Meta(min_length=1)]
    input: dict[str, Any] | None = None
    # 2.1.332 reads any value but "continue" as "block" for an mcp_tool handler.
    onFailure: Any = None


@functools.cache
def _field_names(schema: type[msgspec.Struct]) -> frozenset[str]:
    # Once per schema: ``fields`` evaluates the class's annotations on every call
    # (0.1 ms, paid per hook of a settings file otherwise).
    return frozenset(field.encode_name for field in msgspec.structs.fields(schema))


def extra(data: dict[str, Any], schema: type[msgspec.Struct]) -> dict[str, Any]:
    """The keys of ``data`` that ``schema`` does not read, with their values."""
    known = _field_names(schema)
    return {key: value for key, value in data.items() if key not in known}


def describe_validation_error(
    exc: SchemaRefusal, schema: type[msgspec.Struct] | None = None
) -> list[tuple[str, str, str]]:
    """Each error as ``(field, error kind, readable reason)``, a handler ``schema``'s in the
    order its fields were always named."""
    out: list[tuple[str, str, str]] = []
    for err in _in_field_order(exc.errors, schema):
        loc = ".".join(str(p) for p in err.loc)
        if err.type == "missing":
            reason = f"`{loc}` is required"
        else:
            reason = f"`{loc}`: {err.msg} (got {err.input!r})"
        out.append((str(err.loc[0]) if err.loc else "", err.type, reason))
    return out


_RUN_OPTIONS = ("async", "asyncRewake", "shell", "onFailure")


@functools.cache
def _diagnostic_order(schema: type[msgspec.Struct]) -> dict[str, int]:
    """A handler's fields in the order its problems are named: its own content fields,
    ``timeout``, its run options (``_RUN_OPTIONS``), then the rest of ``_Handler``'s."""
    names = [f.encode_name for f in msgspec.structs.fields(schema)]
    shared = [f.encode_name for f in msgspec.structs.fields(_Handler)]
    own = [n for n in names if n not in shared]
    content = [n for n in own if n not in _RUN_OPTIONS]
    options = [n for n in own if n in _RUN_OPTIONS]
    order = [*content, "timeout", *options, *(n for n in shared if n != "timeout")]
    return {name: i for i, name in enumerate(order)}


def _in_field_order(
    errors: list[SchemaError], schema: type[msgspec.Struct] | None
) -> list[SchemaError]:
    """``errors`` sorted (stably) by their field's place in a handler's diagnostic order."""
    if schema is None or not issubclass(schema, _Handler):
        return errors
    rank = _diagnostic_order(schema)
    return sorted(errors, key=lambda e: rank.get(str(e.loc[0]), len(rank)) if e.loc else -1)
