"""``dsh hooks test``: run a project's Claude Code hooks by hand and see what they decide.

``dsh hooks test EVENT`` runs every admitted hook of EVENT (``--hook N``: the
Nth only) that matches the payload, with the payload from ``--payload FILE``
(``-`` for stdin), from a recorded case (``--case DIR``: its ``EVENT.json``),
or generated (``--tool Bash --input '{...}'``, ``--prompt``, ``--source``).
For each it prints the raw run (exit code or signal, stdout, stderr,
duration), the answer as the bridge decodes it (``decode_answer``) and what
that answer does: what the model would read, what is blocked. ``--all`` runs
every declared hook against a generated payload of its event and reports
which answer, fail or time out; the exit status is 1 when one failed.

Hooks run for real, in the project, as ``dsh run`` runs them (the same
environment variables and timeouts); nothing else runs: no tool, no model.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from dsh.cli._errors import UserError
from dsh.cli._render import terminal_safe

__all__ = ["coverage_table", "generated_payload", "hooks_test"]

_DEFAULT_INPUTS: dict[str, dict[str, Any]] = {
    "Bash": {"command": "true", "description": "dsh hooks test"},
    "Read": {"file_path": "README.md"},
    "Write": {"file_path": "dsh-hooks-test.txt", "content": "test\n"},
    "Edit": {"file_path": "README.md", "old_string": "a", "new_string": "b"},
    "Glob": {"pattern": "**/*.py"},
    "Grep": {"pattern": "TODO"},
}

# Event-specific fields of a generated payload (the common ones are added to each).
_EVENT_FIELDS: dict[str, dict[str, Any]] = {
    "SessionStart": {"source": "startup"},
    "SessionEnd": {"reason": "other"},
    "Setup": {"trigger": "init"},
    "Stop": {"stop_hook_active": False},
    "SubagentStop": {"stop_hook_active": False},
    "PreCompact": {"trigger": "manual", "custom_instructions": ""},
    "PostCompact": {"trigger": "manual"},
    "Notification": {"message": "dsh hooks test", "notification_type": "idle_prompt"},
}

_TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")


def generated_payload(
    event: str,
    project: Path,
    *,
    tool: str | None = None,
    tool_input: Mapping[str, Any] | None = None,
    prompt: str | None = None,
    source: str | None = None,
) -> dict[str, Any]:
    """A Claude Code 2.1.332-shaped payload for ``event`` (fields in Claude Code's order)."""
    session = str(uuid.uuid4())
    payload: dict[str, Any] = {
        "session_id": session,
        "transcript_path": str(project / ".dsh-hooks-test" / f"{session}.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event in _TOOL_EVENTS:
        name = tool or "Bash"
        payload["tool_name"] = name
        payload["tool_input"] = dict(tool_input or _DEFAULT_INPUTS.get(name, {}))
        payload["tool_use_id"] = "toolu_" + uuid.uuid4().hex[:24]
        if event == "PostToolUse":
            payload["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
        if event == "PostToolUseFailure":
            payload["error"] = "Exit code 1"
    elif event == "UserPromptSubmit":
        payload["prompt"] = prompt if prompt is not None else "dsh hooks test"
    payload.update(_EVENT_FIELDS.get(event, {}))
    if source is not None and event in ("SessionStart", "Setup"):
        payload["source" if event == "SessionStart" else "trigger"] = source
    return payload


def _recorded_payload(case: Path, event: str, project: Path) -> dict[str, Any]:
    path = case / f"{event}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"--case {case}: no recorded {event} invocation ({path})") from exc
    text = text.replace("${PROJECT_DIR}", str(project)).replace("${HOME}", str(Path.home()))
    try:
        payload = json.loads(text)["payload"]
    except (ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a recorded invocation (no 'payload')") from exc
    if not isinstance(payload, dict):
        raise UserError(f"{path}: 'payload' is not an object")
    return payload


def _read_payload(source: str) -> dict[str, Any]:
    where = "stdin" if source == "-" else source
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"--payload {where}: cannot read it: {exc}") from exc
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"--payload {where}: not JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise UserError(f"--payload {where}: the payload is not a JSON object")
    return payload


def _tool_input(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"--input: not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UserError("--input: the tool input is not a JSON object")
    return value


def _consequence(event: str, answer: Any, decl: Any, tool: str) -> list[str]:
    """What the bridge does with ``answer``, in words: what is blocked, what the model reads."""
    from dsh.hooks.claude import shown_reason

    if answer is None:
        return ["no decision: the event goes on as if the hook were not there"]
    lines = []
    if answer.halt:
        lines.append(f"halts the session (continue: false): {answer.stop_reason or ''}".rstrip())
    if event == "PreToolUse" and answer.permission_decision is not None:
        why = answer.permission_reason or ""
        lines.append(f"permission decision: {answer.permission_decision} {why}".rstrip())
        if answer.permission_decision == "deny":
            lines.append(f"model reads (tool error): PreToolUse:{tool} hook error: {why}")
    if answer.updated_input is not None:
        lines.append(f"tool input replaced by: {json.dumps(answer.updated_input)}")
    if answer.blocks:
        reason = shown_reason(decl, answer)
        target = {
            "PreToolUse": "the tool call is blocked; model reads",
            "UserPromptSubmit": "the prompt is blocked (never reaches the model); user sees",
            "Stop": "the turn goes on; model reads",
            "SubagentStop": "the subagent goes on; it reads",
            "PostToolUse": "model reads after the tool result",
        }.get(event, "blocks; shown")
        lines.append(f"{target}: {reason}")
    if answer.additional_context:
        lines.append(f"model reads (context): {answer.additional_context}")
    if answer.plain and event in ("UserPromptSubmit", "SessionStart"):
        lines.append(f"model reads (context, plain stdout): {answer.plain}")
    if answer.system_message:
        lines.append(f"user sees: {answer.system_message}")
    return lines or ["answers, with nothing for this event to apply"]


async def _run_one(decl: Any, payload: Mapping[str, Any], project: Path) -> tuple[Any, Any, str]:
    """The raw run, the decoded answer (or ``None``) and the decoding problem (or ``""``)."""
    from dsh.hook_protocol import HookDecodeError, WrongEvent
    from dsh.hook_protocol._executor import run_hook
    from dsh.hooks.claude import decode_answer

    data = (json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    run = await run_hook(decl.to_command(cwd=project), data)
    if run.exit_code is None:
        why = "timed out" if run.timed_out else run.spawn_error or f"signal {run.signal}"
        return run, None, f"no decision: {why}"
    try:
        answer = decode_answer(run, decl.event)
    except HookDecodeError as exc:
        return run, None, f"non-blocking error: {exc}"
    if isinstance(answer, WrongEvent):
        return run, None, f"ignored: it answered for {answer.answered_for}, not {decl.event}"
    return run, answer, ""


def _show_run(decl: Any, run: Any, answer: Any, problem: str, tool: str) -> None:
    echo = click.echo
    echo(terminal_safe(f"hook {decl.describe()}: {decl.declared_command}"))
    ended = f"exit {run.exit_code}" if run.exit_code is not None else "no exit"
    if run.timed_out:
        ended = f"timed out after {decl.timeout:g}s"
    echo(f"  ran: {ended} in {run.duration:.3f}s")
    for name in ("stdout", "stderr"):
        text = getattr(run, name).rstrip("\n")
        if text:
            shown = text.replace("\n", "\n          ")
            echo(terminal_safe(f"  {name}: {shown}"))
    if problem:
        echo(terminal_safe(f"  decoded: {problem}"))
        return
    decoded = answer.to_json() if answer is not None else None
    echo(terminal_safe(f"  decoded: {json.dumps(decoded, ensure_ascii=False)}"))
    for line in _consequence(decl.event, answer, decl, tool):
        echo(terminal_safe(f"  -> {line}"))


def hooks_test(
    event: str | None,
    *,
    project: Path,
    settings_files: tuple[str, ...],
    plugin_dirs: tuple[Path, ...],
    hook: int | None,
    payload_file: str | None,
    case: Path | None,
    tool: str | None,
    tool_input: str | None,
    prompt: str | None,
    every: bool,
) -> int:
    """``dsh hooks test``; returns the exit status."""
    from dsh.hooks.claude import CLAUDE_HOOK_EVENTS, EVENT_SPECS, load_catalog

    catalog = load_catalog(project, settings_files=settings_files, plugin_roots=plugin_dirs)
    if every:
        return _test_all(catalog, project)
    if event is None:
        raise click.UsageError("give an EVENT (PreToolUse, Stop, ...) or --all")
    if event not in CLAUDE_HOOK_EVENTS:
        raise UserError(f"{event!r} is not a Claude Code hook event")
    if payload_file is not None:
        payload = _read_payload(payload_file)
    elif case is not None:
        payload = _recorded_payload(case, event, project)
    else:
        payload = generated_payload(
            event, project, tool=tool, tool_input=_tool_input(tool_input), prompt=prompt
        )
    field = EVENT_SPECS[event].matcher_field
    value = payload.get(field) if field is not None else None
    hooks = catalog.matching(event, value if isinstance(value, str) else None)
    if hook is not None:
        declared = catalog.for_event(event)
        if not 0 <= hook < len(declared):
            raise UserError(f"--hook {hook}: {event} has {len(declared)} admitted hook(s)")
        hooks = (declared[hook],)
    click.echo(terminal_safe(f"payload: {json.dumps(payload, ensure_ascii=False)}"))
    if not hooks:
        click.echo(f"no admitted {event} hook matches (`dsh hooks check` lists them)")
        return 1
    failed = False
    for decl in hooks:
        run, answer, problem = asyncio.run(_run_one(decl, payload, project))
        _show_run(decl, run, answer, problem, str(payload.get("tool_name", "")))
        failed = failed or bool(problem)
    return 1 if failed else 0


def _test_all(catalog: Any, project: Path) -> int:
    """Every admitted hook against a generated payload of its event: answered, failed, timed out."""
    hooks = catalog.all_hooks()
    if not hooks:
        click.echo("no admitted hooks (`dsh hooks check` says why)")
        return 0
    failures = 0
    for decl in hooks:
        tool = _literal_tool(decl)
        payload = generated_payload(decl.event, project, tool=tool)
        run, answer, problem = asyncio.run(_run_one(decl, payload, project))
        if run.timed_out:
            verdict = "TIMED OUT"
        elif problem:
            verdict = "FAILED"
        else:
            verdict = "answered" if answer is not None else "no decision"
        failures += verdict in ("TIMED OUT", "FAILED")
        detail = f" ({problem})" if problem else ""
        click.echo(
            terminal_safe(
                f"{verdict:<11} {decl.describe()} exit {run.exit_code} {run.duration:.2f}s{detail}"
            )
        )
    click.echo(f"{len(hooks)} hook(s), {failures} failed or timed out")
    return 1 if failures else 0


def _literal_tool(decl: Any) -> str | None:
    """A tool name the hook's matcher accepts, for its generated payload."""
    for name in ("Bash", "Write", "Edit", "Read", "Glob", "Grep"):
        if decl.matches(name):
            return name
    return None


def coverage_table(bridge: str) -> int:
    """``dsh hooks coverage [claude|codex]``: the bridge's coverage page; 1 if it has none."""
    import importlib

    module = importlib.import_module(f"dsh.hooks.{bridge}")
    render = getattr(module, "render_coverage_markdown", None)
    if render is None:
        click.echo(f"dsh: the {bridge} bridge has no coverage table in this dsh", err=True)
        return 1
    click.echo(render(), nl=False)
    return 0
