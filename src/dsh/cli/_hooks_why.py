"""``dsh hooks why EVENT``: for each hook declared for EVENT, would it run, and why not.

The payload is generated in each bridge's shape (``--tool NAME --input JSON``,
``--prompt``), or taken from a session: ``--session ID --call N`` is the Nth
tool call of its log (from 1). Each handler the bridges declare for the event
is explained by its bridge (``explain_hooks``, ``explain_codex_hooks``):
``runs``, or ``skipped`` with the reason's code (untrusted, changed, matcher,
if, disabled, policy, deduplicated, unsupported, timeout, invalid) and words,
and the file and place it came from (a project file by its path in the
project). Nothing runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from dsh.cli._errors import UserError
from dsh.cli._process import session_dir as data_dir_for
from dsh.cli._process import started
from dsh.cli._render import terminal_safe

__all__ = ["hooks_why_main"]


def _session_call(session_id: str, session_dir: Path | None, n: int) -> tuple[str, dict[str, Any]]:
    from dsh.cli._sessions import resolve
    from dsh.session import JsonlSessionStore, ToolCallEvent

    store = JsonlSessionStore(data_dir_for(session_dir))
    full = resolve(store, session_id)
    calls = [e for e in store.load(full) if isinstance(e, ToolCallEvent)]
    if not 1 <= n <= len(calls):
        raise UserError(f"--call {n}: session {full} has {len(calls)} tool call(s)")
    call = calls[n - 1]
    return call.tool_name, json.loads(json.dumps(call.arguments))


def _input(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"--input: not JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UserError("--input: the tool input is not a JSON object")
    return value


def _bridges(project: Path, bridge: str | None) -> tuple[str, ...]:
    if bridge == "both":
        return ("claude", "codex")
    if bridge is not None:
        return (bridge,)
    found = tuple(b for b in ("claude", "codex") if (project / f".{b}").is_dir())
    return found or ("claude",)


def _claude(event: str, project: Path, flags: dict[str, Any], **given: Any) -> tuple[Any, ...]:
    from dsh.hooks.claude import (
        CLAUDE_HOOK_EVENTS,
        ClaudeCodeProfile,
        explain_hooks,
        generated_payload,
        load_catalog,
    )

    if event not in CLAUDE_HOOK_EVENTS:
        raise UserError(f"{event!r} is not a Claude Code hook event")
    catalog = load_catalog(
        project, settings_files=flags["settings_files"], plugin_roots=flags["plugin_dirs"]
    )
    profile = ClaudeCodeProfile(
        settings_files=flags["settings_files"], plugin_roots=flags["plugin_dirs"]
    )
    payload = generated_payload(event, project, **given)
    return explain_hooks(catalog, event, payload, review=profile.review(project), cwd=project)


def _codex(event: str, project: Path, profile: str | None, **given: Any) -> tuple[Any, ...]:
    from dsh.hooks.codex import CODEX_HOOK_EVENTS, CodexProfile, codex_payload, explain_codex_hooks

    if event not in CODEX_HOOK_EVENTS:
        raise UserError(f"{event!r} is not a Codex hook event")
    catalog, _ = CodexProfile(config_profile=profile).gated(project)
    return explain_codex_hooks(catalog, event, codex_payload(event, project, **given))


def hooks_why(event: str, project: Path, **flags: Any) -> int:
    """``dsh hooks why``; returns the exit status."""
    tool, tool_input = flags["tool"], _input(flags["tool_input"])
    if flags["session_id"] is not None:
        if flags["call"] is None:
            raise click.UsageError("--session goes with --call N (the Nth tool call)")
        tool, tool_input = _session_call(flags["session_id"], flags["session_dir"], flags["call"])
    given = {"tool": tool, "tool_input": tool_input, "prompt": flags["prompt"]}
    for bridge in _bridges(project, flags["bridge"]):
        if bridge == "claude":
            selections = _claude(event, project, flags, **given)
        else:
            selections = _codex(event, project, flags["config_profile"], **given)
        about = f" for {tool} {json.dumps(tool_input or {}, ensure_ascii=False)}" if tool else ""
        click.echo(terminal_safe(f"{event} ({bridge}){about}:"))
        for selection in selections:
            # The project's own files by their path in it, as `dsh hooks trust` names them.
            click.echo(terminal_safe(selection.describe().replace(f"{project}/", "")))
        running = sum(s.runs for s in selections)
        click.echo(
            f"{len(selections)} handler(s): {running} run(s), {len(selections) - running} skipped"
        )
    return 0


def hooks_why_main(event: str, project: Path, **flags: Any) -> None:
    """``dsh hooks why``'s work: its exit status is ``hooks_why``'s."""
    started()
    sys.exit(hooks_why(event, project.resolve(), **flags))
