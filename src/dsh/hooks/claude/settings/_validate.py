"""Validating one suite's ``hooks`` map: every declaration admitted or diagnosed.

A suite is one settings file or one plugin. Problems Claude Code itself would
reject (an unknown event, a regex that does not compile, a missing command, a
bad timeout, a handler type the event does not take) are errors: the caller
skips the whole suite. Declarations Claude Code would run but this host cannot
(an event with no seam here, a ``prompt`` hook) are warnings: that declaration
is not admitted and the rest of the suite runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from dsh._frozen import frozen, slotted
from dsh.base import FrozenDict
from dsh.hook_protocol import exec_argv, shell_argv
from dsh.hook_protocol._regex import unsafe_char_problem
from dsh.hooks.claude.events._specs import CLAUDE_HOOK_TYPES, EVENT_SPECS, EventSpec
from dsh.hooks.claude.events._support import ADMITTED_EVENTS, HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude.rules._grammar import rule_root
from dsh.hooks.claude.settings._handler_kinds import OTHER_KINDS, admit_other
from dsh.hooks.claude.settings._matcher import IfRule, Matcher, MatcherError
from dsh.hooks.claude.settings._types import (
    Diagnostic,
    DiagnosticCode,
    HookDeclaration,
    HookSource,
    Severity,
)

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._models import CommandHandler, MatcherGroup

__all__ = ["SuiteContext", "SuiteResult", "validate_hooks"]

# Fields of the other handler types, and undocumented ones seen in Claude Code's schema.
_OTHER_TYPE_FIELDS: Final = frozenset(
    {"url", "headers", "allowedEnvVars", "server", "tool", "input", "prompt", "model"}
    | {"continueOnBlock"}
)
_INTERNAL_FIELDS: Final = frozenset({"rewakeMessage", "rewakeSummary", "cloud"})
_GROUP_FIELDS: Final = frozenset({"matcher", "hooks"})

_USER_CONFIG: Final = "${user_config."

_Add = Callable[[Severity, DiagnosticCode, str], None]


@frozen(kw_only=True)
class SuiteContext:
    """What placeholder substitution needs: the project, and a plugin's directories."""

    project_dir: Path
    plugin_root: Path | None = None
    plugin_data: Path | None = None
    frontmatter: bool = False
    """An agent's or a skill's frontmatter: ``once`` is honoured, and its hooks are their own
    (never deduplicated with a settings file's)."""

    def placeholders(self) -> dict[str, str]:
        values = {"CLAUDE_PROJECT_DIR": str(self.project_dir)}
        if self.plugin_root is not None:
            values["CLAUDE_PLUGIN_ROOT"] = str(self.plugin_root)
        if self.plugin_data is not None:
            values["CLAUDE_PLUGIN_DATA"] = str(self.plugin_data)
        return values


@slotted
class SuiteResult:
    declarations: list[HookDeclaration] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def malformed(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)


class _Collector:
    def __init__(self, source: HookSource, result: SuiteResult) -> None:
        self.source = source
        self.result = result

    def add(
        self,
        severity: Severity,
        code: DiagnosticCode,
        reason: str,
        event: str | None = None,
        group: int | None = None,
        hook: int | None = None,
    ) -> None:
        self.result.diagnostics.append(
            Diagnostic(
                file=self.source.label,
                plugin=self.source.plugin,
                event=event,
                group_index=group,
                hook_index=hook,
                reason=reason,
                severity=severity,
                code=code,
            )
        )


def _validated_group(
    raw: dict[str, Any], out: _Collector, event: str, g: int
) -> MatcherGroup | None:
    """A matcher group checked by its schema (``None`` when refused, with the reasons)."""
    from dsh._schema import SchemaRefusal, decode
    from dsh.hooks.claude.settings._models import MatcherGroup, describe_validation_error

    try:
        return decode(raw, MatcherGroup)
    except SchemaRefusal as exc:
        for fld, _kind, reason in describe_validation_error(exc):
            code: DiagnosticCode = "bad-matcher" if fld == "matcher" else "bad-shape"
            out.add("error", code, f"matcher group: {reason}", event, g)
    return None


def _validated_handler(raw: dict[str, Any], add: _Add) -> CommandHandler | None:
    """A handler checked by its schema (``None`` when refused, with the reasons)."""
    from dsh._schema import SchemaRefusal, decode
    from dsh.hooks.claude.settings._models import CommandHandler, describe_validation_error

    try:
        return decode(raw, CommandHandler)
    except SchemaRefusal as exc:
        for fld, err_type, reason in describe_validation_error(exc, CommandHandler):
            code: DiagnosticCode = "bad-field"
            if fld == "timeout":
                code = "bad-timeout"
                reason += "; a timeout is a number of seconds > 0"
            elif fld == "command" and err_type in ("missing", "string_too_short"):
                code = "missing-command"
                reason = "a command hook needs a non-empty `command`"
            add("error", code, reason)
    return None


def _extra(raw: dict[str, Any], schema: type[MatcherGroup | CommandHandler]) -> dict[str, Any]:
    """The keys of ``raw`` its schema does not read."""
    from dsh.hooks.claude.settings._models import extra

    return extra(raw, schema)


def _texts_to_check(model: CommandHandler) -> list[tuple[str, str]]:
    """Every text of a handler that reaches a process or a rule (a NUL cannot reach either)."""
    texts = [("`command`", model.command)]
    texts += [(f"`args[{i}]`", a) for i, a in enumerate(model.args or ())]
    if model.if_ is not None:
        texts.append(("`if`", model.if_))
    return texts


def _substitute(text: str, values: Mapping[str, str]) -> str:
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    return text


def _near_event(name: str) -> str:
    lowered = {e.lower(): e for e in EVENT_SPECS}
    near = lowered.get(name.lower())
    return f" (event names are case-sensitive: did you mean `{near}`?)" if near else ""


def validate_hooks(
    hooks: Mapping[str, Any], source: HookSource, context: SuiteContext
) -> SuiteResult:
    """Validate one suite's ``{"<Event>": [group, ...]}`` map."""
    result = SuiteResult()
    out = _Collector(source, result)
    for event, groups in hooks.items():
        bad = unsafe_char_problem(event)
        if bad is not None:
            out.add("error", "unknown-event", f"an event name has {bad}", event=event)
            continue
        spec = EVENT_SPECS.get(event)
        if spec is None:
            out.add(
                "error",
                "unknown-event",
                f"`{event}` is not a Claude Code hook event{_near_event(event)}",
                event=event,
            )
            continue
        if not isinstance(groups, list):
            out.add(
                "error",
                "bad-shape",
                f"the value of `{event}` must be a list of matcher groups,"
                f" got {type(groups).__name__}",
                event=event,
            )
            continue
        for g, raw_group in enumerate(groups):
            _validate_group(event, spec, g, raw_group, out, context)
    return result


def _validate_group(
    event: str,
    spec: EventSpec,
    g: int,
    raw_group: object,
    out: _Collector,
    context: SuiteContext,
) -> None:
    if not isinstance(raw_group, dict):
        out.add(
            "error",
            "bad-shape",
            f"a matcher group must be an object with `hooks`, got {type(raw_group).__name__}",
            event,
            g,
        )
        return
    group = _validated_group(raw_group, out, event, g)
    if group is None:
        return
    for key in sorted(_extra(raw_group, type(group))):
        if key not in _GROUP_FIELDS:
            out.add(
                "warning",
                "unknown-field",
                f"unknown matcher-group field `{key}` is ignored (a group has `matcher`"
                " and `hooks`)",
                event,
                g,
            )
    matcher = _group_matcher(event, spec, g, group.matcher, out)
    for h, raw_handler in enumerate(group.hooks):
        decl = _validate_handler(event, spec, g, h, raw_handler, matcher, out, context)
        if decl is not None:
            out.result.declarations.append(decl)


def _group_matcher(
    event: str, spec: EventSpec, g: int, declared: str | None, out: _Collector
) -> Matcher | None:
    if spec.matcher_field is None:
        if declared not in (None, "", "*"):
            out.add(
                "info",
                "ignored-matcher",
                f"`{event}` has no matcher support, so matcher {declared!r} is ignored"
                " (as in Claude Code): the group runs on every event",
                event,
                g,
            )
        return Matcher.everything(declared)
    try:
        return Matcher.parse(declared, narrow=spec.narrow_matcher)
    except MatcherError as exc:
        out.add("error", "bad-matcher", str(exc), event, g)
        return None


def _validate_handler(
    event: str,
    spec: EventSpec,
    g: int,
    h: int,
    raw: object,
    matcher: Matcher | None,
    out: _Collector,
    context: SuiteContext,
) -> HookDeclaration | None:
    """Diagnose one handler; return it when it is admitted."""

    def add(severity: Severity, code: DiagnosticCode, reason: str) -> None:
        out.add(severity, code, reason, event, g, h)

    if not isinstance(raw, dict):
        add("error", "bad-shape", f"a hook handler must be an object, got {type(raw).__name__}")
        return None
    kind = raw.get("type")
    if kind is None:
        add("error", "missing-type", f"`type` is required (one of {_types_text()})")
        return None
    if kind not in CLAUDE_HOOK_TYPES:
        add("error", "unknown-type", f"unknown hook type {kind!r} (one of {_types_text()})")
        return None
    if kind not in spec.handler_types:
        allowed = ", ".join(f"`{t}`" for t in CLAUDE_HOOK_TYPES if t in spec.handler_types)
        add(
            "error",
            "type-not-allowed",
            f"`{event}` does not take `{kind}` hooks in Claude Code (only {allowed})",
        )
        return None
    support = HOOK_EVENT_HOST_SUPPORT[event]
    admitted = event in ADMITTED_EVENTS
    if kind in OTHER_KINDS:
        return admit_other(
            kind,
            raw,
            add,
            event=event,
            spec=spec,
            source=out.source,
            g=g,
            h=h,
            matcher=matcher,
            if_root=_if_root(out.source, context),
            placeholders=context.placeholders(),
        )
    nulls = sorted(k for k, v in raw.items() if v is None)
    for key in nulls:
        # Claude Code's schema has optional fields, not nullable ones.
        code_: DiagnosticCode = "bad-timeout" if key == "timeout" else "bad-field"
        add("error", code_, f"`{key}` is null; leave the field out instead")
    if nulls:
        return None
    model = _validated_handler(raw, add)
    if model is None:
        return None
    if not model.command.strip():
        add("error", "missing-command", "a command hook needs a non-empty `command`")
        return None
    for what, text in _texts_to_check(model):
        bad = unsafe_char_problem(text)
        if bad is not None:
            add("error", "bad-field", f"{what} has {bad}")
            return None

    if_rule: IfRule | None = None
    if model.if_ is not None:
        try:
            if_rule = IfRule.parse(model.if_, root=_if_root(out.source, context))
        except MatcherError as exc:
            add("error", "bad-if", str(exc))
            return None

    is_plugin = context.plugin_root is not None
    texts = [model.command, *(model.args or ())]
    if is_plugin and model.args is None and _USER_CONFIG in model.command:
        add(
            "error",
            "bad-field",
            "`${user_config.…}` is substituted only in the exec form (`args`) of a plugin"
            " hook; Claude Code rejects it in a shell-form command",
        )
        return None

    # From here on the declaration is well formed; what follows decides admission.
    runnable = True
    if not admitted:
        add(
            "warning",
            "unsupported-event",
            f"`{event}` is not supported by this host: {support.limits[0]}",
        )
        runnable = False
    if if_rule is not None and not spec.tool_event:
        add(
            "warning",
            "if-never-runs",
            f"a hook with `if` never runs on `{event}`: Claude Code evaluates `if` on tool"
            " events only",
        )
        runnable = False
    if model.shell == "powershell" and model.args is None:
        add(
            "warning",
            "unsupported-field",
            '`shell: "powershell"` is not supported by this host (it runs `sh` and `bash`)',
        )
        runnable = False
    if any(_USER_CONFIG in t for t in texts):
        add(
            "warning",
            "unsupported-field",
            "`${user_config.…}` placeholders are not supported by this host (no plugin user"
            " configuration)",
        )
        runnable = False
    _note_fields(model, _extra(raw, type(model)), spec, event, add, context.frontmatter)
    if not runnable or matcher is None:
        return None

    values = context.placeholders()
    # A shell command keeps its `${CLAUDE_PROJECT_DIR}`-style placeholders: the variables are
    # in the hook's environment and the shell expands them, so a directory named
    # `p"$(touch x)"q` is a value, never command text. The exec form has no shell to inject
    # into: each placeholder is substituted in its own argv element.
    command = model.command if model.args is None else _substitute(model.command, values)
    args = None if model.args is None else tuple(_substitute(a, values) for a in model.args)
    if args is not None:
        if re.search(r"\s", command):
            add(
                "warning",
                "bad-field",
                f"with `args`, `command` is one program name, but {command!r} contains"
                " whitespace: the spawn will fail",
            )
        argv = exec_argv(command, args)
    else:
        argv = shell_argv(command, "bash" if model.shell == "bash" else "sh")
    on_failure = model.onFailure
    if on_failure == "block" and (model.async_ or spec.on_failure_ignored):
        on_failure = "continue"
    scope: tuple[str, ...] = (
        ("settings",) if out.source.is_settings_file else ("plugin", str(out.source.plugin))
    )
    if context.frontmatter:
        scope = ("frontmatter", out.source.label)
    return HookDeclaration(
        event=event,
        source=out.source,
        group_index=g,
        hook_index=h,
        matcher=matcher,
        if_rule=if_rule,
        declared_command=model.command,
        command=command,
        args=args,
        argv=argv,
        timeout=float(model.timeout) if model.timeout is not None else spec.default_timeout,
        timeout_declared=model.timeout is not None,
        # `asyncRewake`: headless (`-p`, dsh's only mode), 2.1.332 waits for it like a
        # synchronous hook and applies its exit 2 as recorded.
        run_async=model.async_ and not model.asyncRewake,
        on_failure=on_failure,
        status_message=model.statusMessage,
        env=FrozenDict(values),
        dedup_key=("claude", *scope, argv),
        once=bool(model.once) and context.frontmatter,
    )


def _note_fields(
    model: CommandHandler,
    extra: Mapping[str, Any],
    spec: EventSpec,
    event: str,
    add: _Add,
    frontmatter: bool = False,
) -> None:
    for key in sorted(extra):
        if key in _INTERNAL_FIELDS:
            add("info", "ignored-field", f"internal Claude Code field `{key}` is ignored")
        elif key in _OTHER_TYPE_FIELDS:
            add(
                "warning",
                "unknown-field",
                f"`{key}` is not a field of `command` hooks; it is ignored",
            )
        else:
            add("warning", "unknown-field", f"unknown field `{key}` is ignored (misspelled?)")
    if model.once is not None and not frontmatter:
        add(
            "info",
            "ignored-field",
            "`once` is honoured only in skill frontmatter; it is ignored here, as in Claude Code",
        )
    if model.args is not None and model.shell is not None:
        add(
            "info", "ignored-field", "`shell` is ignored with `args` (exec form), as in Claude Code"
        )
    if model.onFailure == "block" and (model.async_ or spec.on_failure_ignored):
        why = "an `async` hook" if model.async_ else f"`{event}`"
        add(
            "info",
            "ignored-field",
            f'`onFailure: "block"` is ignored for {why}, as in Claude Code',
        )


def _types_text() -> str:
    return ", ".join(f"`{t}`" for t in CLAUDE_HOOK_TYPES)


def _if_root(source: HookSource, context: SuiteContext) -> Path:
    """What an ``if`` rule's ``/path`` is relative to: a settings file's root (the project for
    project settings, wherever the session's directory is), the project for plugin hooks."""
    path = source.path if source.is_settings_file else None
    return rule_root(path, context.project_dir)
