"""Reading one Codex hook source: ``hooks.json`` or a ``[hooks]`` table, as Codex 0.171 does.

The shapes are Codex's (``codex-rs/config/src/hook_config.rs``), checked with
msgspec (``dsh._schema``) at this edge: a ``hooks.json`` root holds only ``hooks`` and
``description`` (any other key, ``$schema`` included, voids the file);
handler ``type`` is ``command``, ``mcp_tool``, ``prompt`` or ``agent`` (any
other, such as Claude Code's ``http``, voids the file); a value of the wrong
type anywhere voids it too. Those whole-file rejections, and what Codex
ignores without a word (an unknown event key, an invalid matcher's group,
``prompt``/``agent`` handlers), become ``CodexDiagnostic``s naming the file,
the event, the group and handler index and the reason.
"""

# No `from __future__ import annotations`: msgspec reads a Struct's annotations as types
# (strings it would evaluate at its first decode).

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

import msgspec

from dsh._frozen import frozen
from dsh._schema import U64, SchemaError, SchemaRefusal, decode, u64
from dsh.hooks.codex.config._types import CodexDiagnostic
from dsh.hooks.codex.events._specs import CODEX_HOOK_EVENTS

__all__ = [
    "MAX_SOURCE_BYTES",
    "CommandHandler",
    "DeclaredHandler",
    "McpToolHandler",
    "ParsedSource",
    "parse_hooks_json",
    "parse_hooks_table",
]

MAX_SOURCE_BYTES: Final = 1 << 20
"""The largest hook source read (1 MiB); a larger file is a diagnostic, not a load."""


class CommandHandler(msgspec.Struct, frozen=True, kw_only=True):
    """A ``type: "command"`` handler (camelCase keys, in TOML too)."""

    type: Literal["command"]
    command: str
    command_windows: str | None = msgspec.field(default=None, name="commandWindows")
    timeout: U64 | None = None
    run_async: bool = msgspec.field(default=False, name="async")
    status_message: str | None = msgspec.field(default=None, name="statusMessage")
    additional_context_limit: U64 | None = msgspec.field(
        default=None, name="additionalContextLimit"
    )

    def __post_init__(self) -> None:
        u64(self.timeout)
        u64(self.additional_context_limit)


class McpToolHandler(msgspec.Struct, frozen=True, kw_only=True):
    """A ``type: "mcp_tool"`` handler: ``server``'s ``tool`` called with ``input``, ``${path}``
    filled from the hook input (Codex 0.171 runs them: ``tests/fixtures/mcp_hooks.json``)."""

    type: Literal["mcp_tool"]
    server: str
    tool: str
    input: dict[str, Any] | None = None
    timeout: U64 | None = None
    status_message: str | None = msgspec.field(default=None, name="statusMessage")

    def __post_init__(self) -> None:
        u64(self.timeout)


class _PromptHandler(msgspec.Struct, frozen=True):
    type: Literal["prompt"]


class _AgentHandler(msgspec.Struct, frozen=True):
    type: Literal["agent"]


_Handler = CommandHandler | McpToolHandler | _PromptHandler | _AgentHandler

_HANDLERS: Final[Mapping[str, type[_Handler]]] = {
    "command": CommandHandler,
    "mcp_tool": McpToolHandler,
    "prompt": _PromptHandler,
    "agent": _AgentHandler,
}
"""The handler schemas by ``type`` (serde's internally tagged enum)."""

# A field's other keys, as Codex's serde aliases (and its snake_case names) allow.
_ALIASES: Final[Mapping[str, tuple[str, ...]]] = {
    "commandWindows": ("command_windows",),
    "async": ("run_async",),
    "statusMessage": ("status_message",),
    "additionalContextLimit": ("additional_context_limit",),
}


class _Group(msgspec.Struct, frozen=True):
    matcher: str | None = None
    # Each handler is read by its ``type`` (``_handler``), after the group's own fields.
    hooks: list[Any] = []


class _HooksFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``hooks.json``'s root: ``deny_unknown_fields`` in Codex."""

    hooks: dict[str, Any] = {}
    description: str | None = None


def _handler(raw: Any, where: tuple[str | int, ...]) -> _Handler:
    """One handler by its ``type``; ``SchemaRefusal`` with the first reason, located."""
    if not isinstance(raw, dict):
        msg = "Input should be a valid dictionary or object to extract fields from"
        raise SchemaRefusal([SchemaError(where, "model_attributes_type", msg, raw)])
    if "type" not in raw:
        msg = "Unable to extract tag using discriminator 'type'"
        raise SchemaRefusal([SchemaError(where, "union_tag_not_found", msg, raw)])
    tag = raw["type"]
    schema = _HANDLERS.get(tag) if isinstance(tag, str) else None
    if schema is None:
        msg = (
            f"Input tag '{tag}' found using 'type' does not match any of the expected tags:"
            f" {', '.join(map(repr, _HANDLERS))}"
        )
        raise SchemaRefusal([SchemaError(where, "union_tag_invalid", msg, raw)])
    try:
        return decode(raw, schema, aliases=_ALIASES)
    except SchemaRefusal as exc:
        first = exc.errors[0]
        raise SchemaRefusal(
            [SchemaError((*where, tag, *first.loc), first.type, first.msg, first.input)]
        ) from None


def _groups(raw: Any) -> list[tuple[_Group, list[_Handler]]]:
    """An event's matcher groups and their handlers, in order; ``SchemaRefusal`` with the
    first reason (a group's own fields before its handlers, as pydantic checked them)."""
    if not isinstance(raw, list):
        raise SchemaRefusal([SchemaError((), "list_type", "Input should be a valid list", raw)])
    groups: list[tuple[_Group, list[_Handler]]] = []
    for g, item in enumerate(raw):
        try:
            group = decode(item, _Group)
        except SchemaRefusal as exc:
            first = exc.errors[0]
            raise SchemaRefusal(
                [SchemaError((g, *first.loc), first.type, first.msg, first.input)]
            ) from None
        handlers = [_handler(h, (g, "hooks", i)) for i, h in enumerate(group.hooks)]
        groups.append((group, handlers))
    return groups


@frozen(kw_only=True)
class DeclaredHandler:
    """A command or ``mcp_tool`` handler as declared: its event, group, index and group's
    matcher."""

    event: str
    group: int
    index: int
    matcher: str | None
    handler: CommandHandler | McpToolHandler


@frozen(kw_only=True)
class ParsedSource:
    """What one source declares: its command handlers in Codex's order, and diagnostics.

    ``rejected`` is true when Codex would load nothing from the file.
    """

    handlers: tuple[DeclaredHandler, ...] = ()
    diagnostics: tuple[CodexDiagnostic, ...] = ()
    rejected: bool = False


def _rejected(source: Path, reason: str, **where: Any) -> ParsedSource:
    text = f"{reason}; Codex rejects the whole file, so none of its hooks run"
    diag = CodexDiagnostic(source=str(source), reason=text, severity="error", **where)
    return ParsedSource(diagnostics=(diag,), rejected=True)


def _reason(error: SchemaError) -> str:
    """A schema error in serde's words, as Codex's warning would say it."""
    kind = error.type
    loc = [p for p in error.loc if isinstance(p, str)]
    name = loc[-1] if loc else "value"
    if kind == "union_tag_invalid":
        tag = error.input["type"]
        return f"unknown variant `{tag}`, expected one of `command`, `mcp_tool`, `prompt`, `agent`"
    if kind == "union_tag_not_found":
        return "missing field `type`"
    if kind == "missing":
        return f"missing field `{name}`"
    if kind == "extra_forbidden":
        return f"unknown field `{name}`"
    return f"invalid `{name}`: {error.msg}"


def _locate(loc: tuple[Any, ...]) -> dict[str, int]:
    """``(group, "hooks", index, ...)`` of a group list's error as ``group``/``index``."""
    where: dict[str, int] = {}
    if loc and isinstance(loc[0], int):
        where["group"] = loc[0]
        if len(loc) > 2 and loc[1] == "hooks" and isinstance(loc[2], int):
            where["index"] = loc[2]
    return where


def parse_hooks_table(source: Path, table: Mapping[str, Any], *, toml: bool) -> ParsedSource:
    """The hooks of an events table (``hooks.json``'s ``hooks``, or ``[hooks]`` in TOML)."""
    diagnostics: list[CodexDiagnostic] = []
    for key in table:
        if key not in CODEX_HOOK_EVENTS and not (toml and key == "state"):
            diagnostics.append(
                CodexDiagnostic(
                    source=str(source),
                    reason=f"`{_printable(key)}` is not a Codex hook event: ignored, as Codex"
                    " ignores it (its other hooks still load)",
                )
            )
    handlers: list[DeclaredHandler] = []
    for event in CODEX_HOOK_EVENTS:
        if event not in table:
            continue
        try:
            groups = _groups(table[event])
        except SchemaRefusal as exc:
            first = exc.errors[0]
            return _rejected(source, _reason(first), event=event, **_locate(first.loc))
        except (RecursionError, ValueError, TypeError) as exc:
            return _rejected(source, f"unreadable: {exc}", event=event)
        for g, (group, declared) in enumerate(groups):
            for i, handler in enumerate(declared):
                if isinstance(handler, CommandHandler | McpToolHandler):
                    handlers.append(
                        DeclaredHandler(
                            event=event, group=g, index=i, matcher=group.matcher, handler=handler
                        )
                    )
                    continue
                reason = f"`{handler.type}` hooks are not supported yet (Codex skips them too)"
                diagnostics.append(
                    CodexDiagnostic(
                        source=str(source), reason=reason, event=event, group=g, index=i
                    )
                )
    return ParsedSource(handlers=tuple(handlers), diagnostics=tuple(diagnostics))


def parse_hooks_json(source: Path, data: bytes) -> ParsedSource:
    """A ``hooks.json``'s hooks; never raises for bad content (that is a diagnostic)."""
    try:
        text = data.decode("utf-8")
        raw = json.loads(text)
    except UnicodeDecodeError as exc:
        return _rejected(source, f"not UTF-8 ({exc.reason} at byte {exc.start})")
    except json.JSONDecodeError as exc:
        return _rejected(source, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
    except RecursionError:
        return _rejected(source, "not readable: JSON nested too deep")
    try:
        root = decode(raw, _HooksFile)
    except SchemaRefusal as exc:
        return _rejected(source, _reason(exc.errors[0]))
    return parse_hooks_table(source, root.hooks, toml=False)


def _printable(text: str, limit: int = 60) -> str:
    cut = text if len(text) <= limit else text[:limit] + "…"
    return ascii(cut)[1:-1]
