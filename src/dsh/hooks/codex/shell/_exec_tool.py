"""``exec_command``: Codex 0.171's shell tool, under its name and fields, run by dsh.

The input schema is Codex's (``cmd``, ``workdir``, ``shell``, ``login``,
``tty``, ``yield_time_ms``, ``max_output_tokens``, ``sandbox_permissions``,
``justification``, ``prefix_rule``), so a model trained on Codex calls it as it
would there, and the output is framed as Codex frames it (``Chunk ID``,
``Wall time``, ``Process exited with code N``, ``Original token count``,
``Output:``). An unescalated call runs in the session's sandbox when there is one
(``dsh.tools._sandbox``: Codex's ``sandbox_mode``, or dsh's); ``require_escalated`` is
the approval question (``shell._policy``) and, approved, runs outside it. What dsh does
not have, it says so here and in the coverage table: no PTY (``tty`` runs on pipes), no
interactive sessions (the call runs to its end, at most ten minutes, instead of yielding after
``yield_time_ms`` to ``write_stdin``; ``prefix_rule`` is not remembered).
"""

from __future__ import annotations

import math
import os
import secrets
import shutil
from collections.abc import Mapping
from subprocess import SubprocessError
from typing import Any, Final

from dsh.base import thaw_json
from dsh.tools import ToolDefinition, ToolInvocation, ToolResult

__all__ = ["EXEC_COMMAND", "EXEC_COMMAND_TOOL", "exec_output_text"]

EXEC_COMMAND: Final = "exec_command"
_DEFAULT_TOKENS: Final = 10_000
_MAX_TOKENS: Final = 100_000
_CHARS_PER_TOKEN: Final = 4
_TIMEOUT_S: Final = 600.0

_SCHEMA: Final[Mapping[str, Any]] = {
    "type": "object",
    "properties": {
        "cmd": {"type": "string", "description": "Shell command to execute."},
        "justification": {
            "type": "string",
            "description": "User-facing approval question for `require_escalated`; omit otherwise.",
        },
        "login": {
            "type": "boolean",
            "description": "Request login-shell startup (the default). false: a plain shell.",
        },
        "max_output_tokens": {
            "type": "number",
            "description": f"Output token budget. Defaults to {_DEFAULT_TOKENS} tokens.",
        },
        "prefix_rule": {
            "type": "array",
            "description": "Accepted for Codex compatibility; dsh does not remember it.",
            "items": {"type": "string"},
        },
        "sandbox_permissions": {
            "type": "string",
            "description": (
                "Defaults to `use_default`; use `require_escalated` for a command that needs the"
                " user's approval to run outside the sandbox (it asks, and runs only if"
                " approved)."
            ),
            "enum": ["use_default", "require_escalated"],
        },
        "shell": {
            "type": "string",
            "description": "Shell binary to launch. Defaults to the user's default shell.",
        },
        "tty": {
            "type": "boolean",
            "description": "Accepted for Codex compatibility; the command always runs on pipes.",
        },
        "workdir": {
            "type": "string",
            "description": "Working directory for the command. Defaults to the turn cwd.",
        },
        "yield_time_ms": {
            "type": "number",
            "description": (
                "Accepted for Codex compatibility; the command runs to its end (at most"
                " 10 minutes)."
            ),
        },
    },
    "required": ["cmd"],
    "additionalProperties": False,
}


def _user_shell(env: Mapping[str, str]) -> str:
    shell = env.get("SHELL", "")
    if os.path.isabs(shell) and os.access(shell, os.X_OK):
        return shell
    return shutil.which("bash", path=env.get("PATH")) or "/bin/sh"


def _token_budget(value: Any) -> int:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return max(1, min(int(value), _MAX_TOKENS))
    return _DEFAULT_TOKENS


def exec_output_text(output: str, returncode: int, seconds: float, cut: int = 0) -> str:
    """The tool output as Codex frames it (a fresh six-hex chunk id each call); ``cut``: the
    characters truncated away, counted in the original token count."""
    size = len(output.encode("utf-8", "replace")) + cut
    tokens = math.ceil(size / _CHARS_PER_TOKEN)
    return (
        f"Chunk ID: {secrets.token_hex(3)}\n"
        f"Wall time: {seconds:.4f} seconds\n"
        f"Process exited with code {returncode}\n"
        f"Original token count: {tokens}\n"
        f"Output:\n{output}"
    )


async def _run_exec(invocation: ToolInvocation) -> ToolResult:
    # The spawn and the sandbox's side, at the first call: mounting the tool needs neither.
    from dsh.tools._sandbox import active_sandbox, likely_denied, shell_sandbox
    from dsh.tools.builtin._shell import run_shell

    args = thaw_json(invocation.arguments)
    workspace = invocation.workspace
    workdir = args.get("workdir")
    cwd = workspace.resolve(workdir) if isinstance(workdir, str) and workdir else workspace.cwd
    if not cwd.is_dir():
        return ToolResult.error(f"exec_command failed: the working directory {cwd} does not exist")
    shell = args.get("shell") or _user_shell(workspace.env)
    login = args.get("login", True) is not False
    budget = _token_budget(args.get("max_output_tokens"))
    argv = [shell, "-lc" if login else "-c", args["cmd"]]
    escalated = args.get("sandbox_permissions") == "require_escalated"  # approved to get here
    sandbox = None if escalated else shell_sandbox(workspace, argv, cwd)
    if isinstance(sandbox, ToolResult):
        return sandbox
    try:
        run = await run_shell(
            argv,
            cwd=cwd,
            env=workspace.env,
            signal=invocation.signal,
            timeout=_TIMEOUT_S,
            max_chars=budget * _CHARS_PER_TOKEN,
            sandbox=sandbox,
        )
    except (OSError, ValueError, SubprocessError) as exc:  # no such shell, a NUL in the line
        return ToolResult.error(f"exec_command failed: cannot start {shell}: {exc}")
    text = exec_output_text(run.output, run.returncode, run.seconds, run.truncated)
    output = {"output": run.output, "exit_code": run.returncode, "wall_time": run.seconds}
    if run.aborted is not None:
        return ToolResult.error(f"exec_command aborted: {run.aborted}\n{text}", code="ABORTED")
    if run.timed_out:
        killed = f"exec_command timed out after {_TIMEOUT_S:.0f} s and was killed\n{text}"
        return ToolResult.error(killed, output=output)
    if run.returncode != 0:
        policy = None if sandbox is None else active_sandbox(workspace)
        denied = policy is not None and likely_denied(run.returncode, run.output)
        info = {"sandbox": policy.mode} if policy is not None and denied else None
        return ToolResult.error(text, output=output, info=info)
    return ToolResult.ok(text, output=output)


EXEC_COMMAND_TOOL: Final = ToolDefinition(
    name=EXEC_COMMAND,
    description=(
        "Runs a shell command (the user's shell, as a login shell by default) in the turn's"
        " working directory and returns its output and exit code when it ends."
    ),
    input_schema=_SCHEMA,
    run=_run_exec,
    shell_command="cmd",  # so another bridge's shell policy sees it as a shell call
    # Codex bounds the output by max_output_tokens and frames it itself, failure or not.
    max_result_chars=None,
    max_error_chars=None,
)
