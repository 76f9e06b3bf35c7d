"""Reading one Codex hook source: ``hooks.json`` or a ``[hooks]`` table, as Codex 0.171 does.

The shapes are Codex's (``codex-rs/config/src/hook_config.rs``), checked with
pydantic at this edge: a ``hooks.json`` root holds only ``hooks`` and
``description`` (any other key, ``$schema`` included, voids the file);
handler ``type`` is ``command``, ``mcp_tool``, ``prompt`` or ``agent`` (any
other, such as Claude Code's ``http``, voids the file); a value of the wrong
type anywhere voids it too. Those whole-file rejections, and what Codex
ignores without a word (an unknown event key, an invalid matcher's group,
``prompt``/``agent`` handlers), become ``CodexDiagnostic``s naming the file,
the event, the group and handler index and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from dsh._frozen import frozen
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

_U64_MAX: Final = (1 << 64) - 1


class _Shape(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True, populate_by_name=True)


class CommandHandler(_Shape):
    """A ``type: "command"`` handler (camelCase keys, in TOML too)."""

    type: Literal["command"]
    command: str
    command_windows: str | None = Field(
        None, validation_alias=AliasChoices("commandWindows", "command_windows")
    )
    timeout: int | None = Field(None, ge=0, le=_U64_MAX)
    run_async: bool = Field(False, alias="async")
    status_message: str | None = Field(None, alias="statusMessage")
    additional_context_limit: int | None = Field(
        None, alias="additionalContextLimit", ge=0, le=_U64_MAX
    )


class McpToolHandler(_Shape):
    """A ``type: "mcp_tool"`` handler: ``server``'s ``tool`` called with ``input``, ``${path}``
    filled from the hook input (Codex 0.171 runs them: ``tests/fixtures/mcp_hooks.json``)."""

    type: Literal["mcp_tool"]
    server: str
    tool: str
    input: dict[str, Any] | None = None
    timeout: int | None = Field(None, ge=0, le=_U64_MAX)
    status_message: str | None = Field(None, alias="statusMessage")


class _PromptHandler(_Shape):
    type: Literal["prompt"]


class _AgentHandler(_Shape):
    type: Literal["agent"]


_Handler = Annotated[
    CommandHandler | McpToolHandler | _PromptHandler | _AgentHandler,
    Field(discriminator="type"),
]


class _Group(_Shape):
    matcher: str | None = None
    hooks: list[_Handler] = []


class _HooksFile(BaseModel):
    """``hooks.json``'s root: ``deny_unknown_fields`` in Codex."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    hooks: dict[str, Any] = {}
    description: str | None = None


_GROUPS: Final = TypeAdapter(list[_Group])


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


def _reason(error: Mapping[str, Any]) -> str:
    """A pydantic error in serde's words, as Codex's warning would say it."""
    kind = error["type"]
    loc = [p for p in error["loc"] if isinstance(p, str)]
    name = loc[-1] if loc else "value"
    if kind == "union_tag_invalid":
        tag = error.get("ctx", {}).get("tag", "?")
        return f"unknown variant `{tag}`, expected one of `command`, `mcp_tool`, `prompt`, `agent`"
    if kind == "union_tag_not_found":
        return "missing field `type`"
    if kind == "missing":
        return f"missing field `{name}`"
    if kind == "extra_forbidden":
        return f"unknown field `{name}`"
    return f"invalid `{name}`: {error['msg']}"


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
            groups = _GROUPS.validate_python(table[event])
        except ValidationError as exc:
            first = exc.errors()[0]
            return _rejected(source, _reason(first), event=event, **_locate(first["loc"]))
        except (RecursionError, ValueError, TypeError) as exc:
            return _rejected(source, f"unreadable: {exc}", event=event)
        for g, group in enumerate(groups):
            for i, handler in enumerate(group.hooks):
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
        root = _HooksFile.model_validate(raw)
    except ValidationError as exc:
        return _rejected(source, _reason(exc.errors()[0]))
    return parse_hooks_table(source, root.hooks, toml=False)


def _printable(text: str, limit: int = 60) -> str:
    cut = text if len(text) <= limit else text[:limit] + "…"
    return ascii(cut)[1:-1]
