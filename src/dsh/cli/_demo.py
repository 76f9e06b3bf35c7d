"""``dsh demo``: a scripted session in a temporary project, with a few native plugins.

Needs no network and no key. The scripted model asks for real tool calls; the
plugins show a prompt policy, a pre-tool denial and post-tool context on the
real loop, and the transcript shows what each decided.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from dsh.agent import PROMPT_SUBMIT, SESSION_START, Agent, PromptDecision, PromptSource
from dsh.cli._render import TranscriptPrinter
from dsh.cli._run import ExitCode, RunOptions, run_session
from dsh.context import Context, Next
from dsh.models import ScriptedModel
from dsh.tools import (
    POST_EXECUTE,
    PRE_EXECUTE,
    PostToolDecision,
    PreToolDecision,
    ToolCall,
    ToolResult,
)

__all__ = ["DEMO_PROMPTS", "DEMO_SCRIPT", "demo_plugins", "run_demo"]

DEMO_PROMPTS = (
    "Look around this project, then clean out the build directory.",
    "Also, my password is hunter2: put it in the config.",
)


def _tool_use(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


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
                    [_text("Done: build/ is gone and CLEANED.md records it.")],
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
            return PromptDecision.block("prompts must not contain passwords; use a secret store")
        return await next()


def no_escape(ctx: Context) -> None:
    """Pre-tool policy: a deletion that leaves the project is denied with a reason."""

    @ctx.on(PRE_EXECUTE)
    async def deny_rm_outside(call: ToolCall, next: Next[PreToolDecision]) -> PreToolDecision:
        command = str(call.arguments.get("command", ""))
        if call.name == "Bash" and "rm -rf .." in command:
            return PreToolDecision.deny("rm outside the project is not allowed")
        return await next()


def remind_after_write(ctx: Context) -> None:
    """Post-tool transform: after a write, tell the model what to do next."""

    @ctx.on(POST_EXECUTE)
    async def remind(
        call: ToolCall, result: ToolResult, next: Next[PostToolDecision]
    ) -> PostToolDecision:
        if call.name == "Write" and not result.is_error:
            return PostToolDecision.accept(additional_context="Files changed: say what you did.")
        return await next()


def demo_plugins() -> tuple[Any, ...]:
    return (project_rules, prompt_policy, no_escape, remind_after_write)


def _make_project(root: Path) -> None:
    (root / "build").mkdir()
    (root / "build" / "app.o").write_text("object code\n")
    (root / "src").mkdir()
    (root / "src" / "app.c").write_text("int main(void) { return 0; }\n")
    (root / "README").write_text("A tiny project for the dsh demo.\n")


async def run_demo(printer: TranscriptPrinter) -> ExitCode:
    with tempfile.TemporaryDirectory(prefix="dsh-demo-") as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        _make_project(project)
        printer.console.print(f"[bold]dsh demo[/bold]: a scripted session in {project}")
        options = RunOptions(
            prompts=DEMO_PROMPTS,
            model=ScriptedModel(DEMO_SCRIPT),
            project=project,
            session_dir=root / "sessions",
            plugins=demo_plugins(),
            claude_hooks=False,
        )
        return await run_session(options, printer)
