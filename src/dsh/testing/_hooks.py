"""One hook payload through a bridge, without a session: what the hooks answer and decide.

``await run_hook("PreToolUse", tool="Bash", tool_input={"command": "rm -rf /"},
claude_settings=SETTINGS, files={".claude/hooks/guard.py": GUARD})`` writes the
hook configuration into a sandboxed project, picks the hooks the payload
selects, runs each as a real process with the bridge's stdin, environment and
timeout, and decodes its answer with the bridge's own rules (Claude Code's, or
Codex's for ``codex_hooks``): ``dsh hooks test``'s machinery. For PreToolUse it
also says what the answers come to: the ``PreToolDecision``, whose reason is
the text the model reads. (For the exact model-visible wording of the other
events, run the prompt through the loop with ``run_session``.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeAlias, final

from dsh._frozen import frozen
from dsh.hook_protocol import HookRun
from dsh.hooks.claude import (
    CLAUDE_HOOK_EVENTS,
    HookAnswer,
    consequences,
    generated_payload,
    hooks_for,
    pre_tool_decision,
    try_hook,
)
from dsh.hooks.codex import (
    CODEX_HOOK_EVENTS,
    CodexAnswer,
    codex_hooks_for,
    codex_payload,
    codex_pre_tool_decision,
    try_codex_hook,
)
from dsh.testing._effect import HookEffect, claude_effect, codex_effect
from dsh.testing._sandbox import Sandbox, sandbox, write_project
from dsh.tools import PreToolDecision, PreToolDeny

__all__ = ["Bridge", "HookRunRecord", "HookTestResult", "run_hook"]

Bridge: TypeAlias = Literal["claude", "codex"]


@final
@frozen(kw_only=True)
class HookRunRecord:
    """One hook process and what its bridge made of it.

    ``answer`` is the decoded answer as the session log records it (``None``:
    no decision); ``problem`` why there was none, in words (``""``: none);
    ``consequences`` what the Claude Code bridge does with the answer, as
    ``dsh hooks test`` prints it (empty for Codex).
    """

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    answer: Mapping[str, Any] | None
    problem: str = ""
    consequences: tuple[str, ...] = ()


@final
@frozen(kw_only=True)
class HookTestResult:
    """What ``run_hook`` found: the ``payload`` sent, each hook's run (``runs``, in order),
    the catalog's ``diagnostics``, for PreToolUse the ``decision`` the answers come to, and
    for any event their ``effect`` (decision kind, model-visible text, exit codes, notices)."""

    bridge: Bridge
    event: str
    payload: Mapping[str, Any]
    runs: tuple[HookRunRecord, ...]
    decision: PreToolDecision | None = None
    diagnostics: tuple[str, ...] = ()
    effect: HookEffect = HookEffect(decision="none")

    @property
    def model_text(self) -> str | None:
        """What the model reads of a denial (the tool's error result), else ``None``."""
        return self.decision.reason if isinstance(self.decision, PreToolDeny) else None


async def run_hook(
    event: str,
    payload: Mapping[str, Any] | None = None,
    *,
    tool: str | None = None,
    tool_input: Mapping[str, Any] | None = None,
    prompt: str | None = None,
    claude_settings: Mapping[str, Any] | None = None,
    codex_hooks: Mapping[str, Any] | None = None,
    files: Mapping[str, str] | None = None,
    project: Path | None = None,
    bridge: Bridge | None = None,
) -> HookTestResult:
    """Run the hooks of ``event`` that ``payload`` selects (default: one generated in the
    bridge's shape from ``tool``, ``tool_input`` and ``prompt``) and decode their answers.

    The hooks are Claude Code's (``claude_settings``, the project's ``.claude/settings.json``)
    or, with ``codex_hooks``, Codex's (``.codex/hooks.json``); ``files`` go beside them.
    ``project`` is a directory of your own to run in (default: a temporary one); with neither
    settings given, its own hooks run, Codex's with ``bridge="codex"``.
    """
    if claude_settings is not None and codex_hooks is not None:
        raise ValueError("run_hook: give claude_settings or codex_hooks, not both")
    if bridge is None:
        bridge = "codex" if codex_hooks is not None else "claude"
    known = CODEX_HOOK_EVENTS if bridge == "codex" else CLAUDE_HOOK_EVENTS
    if event not in known:
        raise ValueError(f"run_hook: {event!r} is not a {bridge} hook event")
    with sandbox(project) as box:
        write_project(
            box.project, claude_settings=claude_settings, codex_hooks=codex_hooks, files=files
        )
        if bridge == "codex":
            return await _codex(box, event, payload, tool, tool_input, prompt)
        return await _claude(box, event, payload, tool, tool_input, prompt)


def _record(
    run: HookRun,
    command: str,
    answer: HookAnswer | CodexAnswer | None,
    problem: str,
    said: Sequence[str] = (),
) -> HookRunRecord:
    return HookRunRecord(
        command=command,
        exit_code=run.exit_code,
        stdout=run.stdout,
        stderr=run.stderr,
        timed_out=run.timed_out,
        answer=answer.to_json() if answer is not None else None,
        problem=problem,
        consequences=tuple(said),
    )


async def _claude(
    box: Sandbox,
    event: str,
    given: Mapping[str, Any] | None,
    tool: str | None,
    tool_input: Mapping[str, Any] | None,
    prompt: str | None,
) -> HookTestResult:
    catalog = box.claude_catalog()
    payload = (
        dict(given)
        if given is not None
        else generated_payload(event, box.project, tool=tool, tool_input=tool_input, prompt=prompt)
    )
    name = str(payload.get("tool_name", ""))
    trials = [await try_hook(d, payload, box.project) for d in hooks_for(catalog, event, payload)]
    runs = tuple(
        _record(
            t.run,
            t.hook.declared_command,
            t.answer,
            t.problem,
            () if t.problem else consequences(event, t.answer, t.hook, name),
        )
        for t in trials
    )
    decision = pre_tool_decision(name, trials) if event == "PreToolUse" else None
    diagnostics = tuple(d.describe() for d in catalog.diagnostics)
    return HookTestResult(
        bridge="claude",
        event=event,
        payload=payload,
        runs=runs,
        decision=decision,
        diagnostics=diagnostics,
        effect=claude_effect(event, name, trials),
    )


async def _codex(
    box: Sandbox,
    event: str,
    given: Mapping[str, Any] | None,
    tool: str | None,
    tool_input: Mapping[str, Any] | None,
    prompt: str | None,
) -> HookTestResult:
    catalog = box.codex_catalog()
    payload = (
        dict(given)
        if given is not None
        else codex_payload(event, box.project, tool=tool, tool_input=tool_input, prompt=prompt)
    )
    hooks = codex_hooks_for(catalog, event, payload)
    home = catalog.codex_home
    trials = [await try_codex_hook(h, payload, box.project, codex_home=home) for h in hooks]
    runs = tuple(_record(t.run, t.hook.command, t.answer, t.problem) for t in trials)
    decision = None
    name = tool or str(payload.get("tool_name", "Bash"))
    arguments = tool_input if tool_input is not None else _mapping(payload.get("tool_input"))
    if event == "PreToolUse":
        decision = codex_pre_tool_decision(name, arguments, trials)
    diagnostics = tuple(d.describe() for d in catalog.diagnostics)
    return HookTestResult(
        bridge="codex",
        event=event,
        payload=payload,
        runs=runs,
        decision=decision,
        diagnostics=diagnostics,
        effect=codex_effect(event, name, arguments, trials),
    )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}
