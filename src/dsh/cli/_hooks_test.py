"""``dsh hooks test``: run a project's Claude Code hooks by hand and see what they decide.

``dsh hooks test --fixtures DIR`` checks a folder of fixtures instead
(``_hooks_fixtures``). ``dsh hooks test EVENT`` runs every admitted hook of EVENT (``--hook N``: the
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
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import click

from dsh.base import read_bounded
from dsh.cli._errors import UserError
from dsh.cli._process import started
from dsh.cli._render import terminal_safe
from dsh.hooks.claude import (
    CLAUDE_HOOK_EVENTS,
    consequences,
    generated_payload,
    hooks_for,
    load_catalog,
    try_hook,
)

__all__ = ["coverage_main", "coverage_table", "hooks_test", "hooks_test_main"]

_MAX_PAYLOAD_BYTES = 16 << 20
"""A hook payload file is read whole: a bound, so a FIFO or device named for it is refused."""


def _recorded_payload(case: Path, event: str, project: Path) -> dict[str, Any]:
    path = case / f"{event}.json"
    try:
        text = read_bounded(path, _MAX_PAYLOAD_BYTES, "recorded invocation").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
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
        text = (
            sys.stdin.read(_MAX_PAYLOAD_BYTES)
            if source == "-"
            else read_bounded(Path(source), _MAX_PAYLOAD_BYTES, "payload file").decode("utf-8")
        )
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


def _show_run(trial: Any, tool: str) -> None:

    decl, run, answer, problem = trial.hook, trial.run, trial.answer, trial.problem
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
    for line in consequences(decl.event, answer, decl, tool):
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
    fixtures: Path | None = None,
    junit: Path | None = None,
    update: bool = False,
) -> int:
    """``dsh hooks test``; returns the exit status."""
    if fixtures is not None:
        from dsh.cli._hooks_fixtures import run_fixtures

        return run_fixtures(fixtures, project=project, junit=junit, update=update)
    if junit is not None or update:
        raise click.UsageError("--junit and --update go with --fixtures DIR")
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
    hooks = hooks_for(catalog, event, payload)
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
        trial = asyncio.run(try_hook(decl, payload, project))
        _show_run(trial, str(payload.get("tool_name", "")))
        failed = failed or bool(trial.problem)
    return 1 if failed else 0


def hooks_test_main(event: str | None, project: Path, **flags: Any) -> None:
    """``dsh hooks test``'s work: its exit status is ``hooks_test``'s."""
    started()
    sys.exit(hooks_test(event, project=project.resolve(), **flags))


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
        trial = asyncio.run(try_hook(decl, payload, project))
        run, answer, problem = trial.run, trial.answer, trial.problem
        if run.timed_out:
            status = "TIMED OUT"
        elif problem:
            status = "FAILED"
        else:
            status = "answered" if answer is not None else "no decision"
        failures += status in ("TIMED OUT", "FAILED")
        detail = f" ({problem})" if problem else ""
        click.echo(
            terminal_safe(
                f"{status:<11} {decl.describe()} exit {run.exit_code} {run.duration:.2f}s{detail}"
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
    module = importlib.import_module(f"dsh.hooks.{bridge}")
    # Each bridge names its renderer for itself (one name per object across packages).
    name = {"claude": "render_coverage_markdown", "codex": "render_codex_coverage"}.get(bridge, "")
    render = getattr(module, name, None)
    if render is None:
        click.echo(f"dsh: the {bridge} bridge has no coverage table in this dsh", err=True)
        return 1
    click.echo(render(), nl=False)
    return 0


def coverage_main(bridge: str) -> None:
    """``dsh hooks coverage``'s work: its exit status is ``coverage_table``'s."""
    started()
    sys.exit(coverage_table(bridge))
