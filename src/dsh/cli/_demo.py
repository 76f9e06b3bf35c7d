"""``dsh demo``: a scripted session in a temporary project, with plugins and Claude Code hooks.

Needs no network and no key. The scripted model asks for real tool calls; four
native plugins (session rules, a prompt policy, a pre-tool denial, post-tool
context) and the shipped example Claude Code settings (``demo/.claude/`` beside
this module: a prompt note, a Bash guard, a post-edit check and a stop-time
verification, each a small standard-library script run with ``python3``) act on
the real loop, and the transcript shows what each decided. Only the demo
project's own settings are loaded: the user's ``~/.claude``, managed settings
and installed plugins never change what the demo does.
"""

from __future__ import annotations

import dataclasses
import sys
import tempfile
from collections.abc import Callable
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from dsh.agent import PROMPT_SUBMIT, SESSION_START, Agent, PromptDecision, PromptSource
from dsh.cli._process import run_async, started
from dsh.cli._render import TranscriptPrinter
from dsh.cli._run import ExitCode, RunOptions, run_session
from dsh.cli._terminal import run_live, stdout_is_terminal
from dsh.context import Context, Next
from dsh.hooks import HookSelection
from dsh.hooks.claude import ClaudeCodeProfile
from dsh.host import HostOptions, Profile
from dsh.models import ScriptedModel
from dsh.tools import (
    POST_EXECUTE,
    PRE_EXECUTE,
    PostToolAccept,
    PostToolBlock,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolResult,
)

__all__ = [
    "DEMO_PROMPTS",
    "DEMO_SCRIPT",
    "claude_settings_dir",
    "demo",
    "demo_plugins",
    "install_claude_settings",
    "run_demo",
]

Plugin = Callable[[Context], None]

DEMO_PROMPTS = (
    "Look around this project, then clean out the build directory.",
    "Also, my password is hunter2: put it in the config.",
)


def _tool_use(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


# Reply i answers the request with i assistant messages in its history. Who acts on
# each step: step 1 the native no_escape plugin; step 3 the native remind_after_write
# plugin and the check_edit.py hook; step 4 the guard_bash.py hook; step 5 the
# verify_before_stop.py hook (once: step 6 stops for good).
DEMO_SCRIPT: dict[str, Any] = {
    "anthropic": {
        "rules": [
            {
                "has_tool": "Bash",
                "responses": [
                    [_text("Let me look first."), _tool_use("Bash", command="ls -R")],
                    [
                        _text("I'll remove everything to be thorough."),
                        _tool_use("Bash", command="rm -rf ..", description="Clean up"),
                    ],
                    [
                        _text("That was refused; only build/ then."),
                        _tool_use("Bash", command="rm -rf build && ls"),
                    ],
                    [
                        _tool_use(
                            "Write", file_path="CLEANED.md", content="build/ removed by dsh demo\n"
                        )
                    ],
                    [
                        _text("Let me publish the cleanup."),
                        _tool_use("Bash", command="git push --force origin main"),
                    ],
                    [_text("Done: build/ is gone and CLEANED.md records it; push it yourself.")],
                    [_text("Summary: removed build/ (generated) and recorded it in CLEANED.md.")],
                ],
            }
        ],
        "default": _text("(no script rule matched)"),
    }
}


def project_rules(ctx: Context) -> None:
    """Session start: seed the model with the project's rules."""

    @ctx.on(SESSION_START)
    async def seed(agent: Agent, source: str) -> None:
        agent.inject("Project rule: never delete anything outside build/.", "plugin:project_rules")


def prompt_policy(ctx: Context) -> None:
    """Per-prompt policy: no secrets in prompts; otherwise allow with a reminder."""

    @ctx.on(PROMPT_SUBMIT)
    async def no_secrets(
        agent: Agent, content: Any, source: PromptSource, next: Next[PromptDecision]
    ) -> PromptDecision:
        if "password" in str(content).lower():
            return PromptDecision.block(
                "prompts must not contain passwords; use a secret store",
                source="plugin:prompt_policy",
            )
        return await next()


def no_escape(ctx: Context) -> None:
    """Pre-tool policy: a deletion that leaves the project is denied with a reason."""

    @ctx.on(PRE_EXECUTE)
    async def deny_rm_outside(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        command = str(call.arguments.get("command", ""))
        if call.name == "Bash" and "rm -rf .." in command:
            return PreToolDecision.deny(
                "rm outside the project is not allowed", {"plugin": "no_escape"}
            )
        return await next()


def remind_after_write(ctx: Context) -> None:
    """Post-tool transform: after a write, tell the model what to do next."""

    @ctx.on(POST_EXECUTE)
    async def remind(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        decision = await next()  # later listeners (the Claude Code hooks) see the call too
        if call.name != "Write" or result.is_error:
            return decision
        if not isinstance(decision, (PostToolAccept, PostToolBlock)):
            return decision
        note = "remind_after_write plugin: Files changed: say what you did."
        context = (note, *decision.additional_context)
        return dataclasses.replace(decision, additional_context=context)


def demo_plugins() -> tuple[Plugin, ...]:
    """The demo's native plugins, in mounting order."""
    return (project_rules, prompt_policy, no_escape, remind_after_write)


def claude_settings_dir() -> Traversable:
    """The shipped example ``.claude`` directory: ``settings.json`` and ``hooks/*.py``."""
    return files("dsh.cli").joinpath("demo", ".claude")


def _copy_tree(source: Traversable, target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for item in source.iterdir():
        if item.name == "__pycache__":
            continue
        if item.is_dir():
            _copy_tree(item, target / item.name)
        else:
            (target / item.name).write_bytes(item.read_bytes())


def install_claude_settings(project: Path) -> Path:
    """Copy the shipped example ``.claude`` directory into ``project``; returns the copy."""
    target = project / ".claude"
    _copy_tree(claude_settings_dir(), target)
    return target


def _claude_profile(state: Path) -> Profile:
    """Claude Code over the demo project's settings only (no user, managed or plugins)."""
    return ClaudeCodeProfile(
        home=state / "home",
        managed_path=state / "managed-settings.json",
        env={},
        discover_installed_plugins=False,
        permission_mode="bypassPermissions",
        transcript_dir=state / "transcripts",
        # The demo's own (empty) configuration: your ~/.claude/CLAUDE.md stays out of it.
        instructions_config_dir=state / "home" / ".claude",
        instructions_managed_dir=state / "managed",
        # The demo trusts its own copy of the shipped settings (as `--trust-project`),
        # recorded in its temporary directory, never in your data directory.
        trust_dir=state / "trust",
    )


def _make_project(root: Path) -> None:
    (root / "build").mkdir()
    (root / "build" / "app.o").write_text("object code\n")
    (root / "src").mkdir()
    (root / "src" / "app.c").write_text("int main(void) { return 0; }\n")
    (root / "README").write_text("A tiny project for the dsh demo.\n")


def demo(keep: bool) -> None:
    """``dsh demo``'s work (``--keep``: keep the project and its session log)."""
    started()
    sys.exit(int(run_async(run_demo(TranscriptPrinter(), keep=keep), ExitCode.INTERNAL)))


async def run_demo(printer: TranscriptPrinter, *, keep: bool = False) -> ExitCode:
    """Run the demo in a new temporary directory; ``keep`` leaves it (and its session log)."""
    if keep:
        root = Path(tempfile.mkdtemp(prefix="dsh-demo-"))
        code = await _run_in(root, printer, keep=True)
        printer.console.print(f"[dim]kept the demo project and its session log in {root}[/dim]")
        return code
    with tempfile.TemporaryDirectory(prefix="dsh-demo-") as tmp:
        code = await _run_in(Path(tmp), printer, keep=False)
    printer.console.print(
        "[dim]the demo's project and session log were deleted with its temporary directory "
        "(dsh demo --keep keeps them)[/dim]"
    )
    return code


async def _run_in(root: Path, printer: TranscriptPrinter, *, keep: bool) -> ExitCode:
    project = root / "project"
    project.mkdir()
    _make_project(project)
    install_claude_settings(project)
    printer.console.print(f"[bold]dsh demo[/bold]: a scripted session in {project}")
    printer.console.print(
        f"[dim]Claude Code hooks: {project / '.claude' / 'settings.json'} "
        f"(a copy of {claude_settings_dir()})[/dim]"
    )
    host = HostOptions(
        project=project,
        model=ScriptedModel(DEMO_SCRIPT, source="dsh-demo"),
        session_dir=root / "sessions",
        plugins=demo_plugins(),
        profiles=(_claude_profile(root),),
    )
    options = RunOptions(
        host=host,
        # The demo's profile loads CLAUDE.md: no bridge of dsh run's own.
        hooks=HookSelection(claude_hooks=False, claude_md=False),
        prompts=DEMO_PROMPTS,
        trust_project=True,  # the demo's own copy of the settings
        show_session=keep,  # the log outlives the run only with --keep
    )
    if stdout_is_terminal():
        return await run_live(options, printer)
    return await run_session(options, printer)
