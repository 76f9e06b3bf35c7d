"""The ``Bash`` tool: a shell command with a working directory and environment that persist.

Each call runs ``bash -c`` in the workspace's directory with its environment;
an EXIT trap records ``pwd`` and the exported environment into a per-call
state directory, and the tool copies them back into the ``Workspace``, so
``cd sub`` or ``export X=1`` in one call hold in the next. Output is one
stream (stderr merged into stdout, as Claude Code 2.x reports it: its
``tool_response.stderr`` is empty), written to a file, so a backgrounded
grandchild holding the stream open cannot hang the call.

An output over ``BASH_MAX_OUTPUT_LENGTH`` characters (30,000 unless set, at most
150,000) is saved whole among the session's tool results, as Claude Code 2.1.332 does
(``tests/fixtures/claude_bounds.json``): ``tool_response.stdout`` holds its first
``BASH_MAX_OUTPUT_LENGTH`` characters, ``persistedOutputPath`` and ``persistedOutputSize``
(bytes) name the file, and the model reads ``<persisted-output>`` with a 2,000-character
preview (``dsh.tools._persist``). A failure is not saved: the model reads ``Exit code N``
and the first ``BASH_MAX_OUTPUT_LENGTH`` characters, cut in the middle past 10,000 as
every tool failure is. Without a session file to put it beside, the output is cut at
the bound with a note of the lines left out.

A background command's output goes to ``<one directory per process>/<its
id>.log``, so the path the model is told is a function of the
``backgroundTaskId`` alone and ``present_bash`` can render a replaced output. Claude
Code does not persist it either: the model reads that file with Read, which bounds
itself.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from dsh.base._containment import (
    contain_process,
    contained_spawn,
    mark_environment,
    release_process,
)
from dsh.base._process_group import own_session
from dsh.base._watchdog import CONTAINMENT_ENV
from dsh.messages import Content
from dsh.tools._persist import PREVIEW_CHARS, persist_output_file, persisted_message
from dsh.tools._types import LazyModel, ToolInvocation, ToolResult, Workspace
from dsh.tools.builtin import _declarations as declared
from dsh.tools.builtin._common import ArgumentsError, parse_arguments
from dsh.tools.builtin._declarations import BASH, BASH_INPUT, implement
from dsh.tools.builtin._process import kill_group, run_in_group

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxSpawn
    from dsh.tools.builtin._models import BashInput

__all__ = [
    "BASH_TOOL",
    "DEFAULT_TIMEOUT_MS",
    "MAX_OUTPUT_CHARS",
    "MAX_TIMEOUT_MS",
    "SHELLS_STATE_KEY",
    "BackgroundShell",
    "background_shell",
    "present_bash",
]

# The tool's description states these (_declarations: declared without this module).
DEFAULT_TIMEOUT_MS = declared.DEFAULT_TIMEOUT_MS
MAX_TIMEOUT_MS = declared.MAX_TIMEOUT_MS
MAX_OUTPUT_CHARS = declared.MAX_OUTPUT_CHARS
_MAX_OUTPUT_UPPER = 150_000  # Claude Code's ceiling on BASH_MAX_OUTPUT_LENGTH
# Variables bash itself rewrites on every start; keeping them would drift.
# DSH_CONTAINMENT: each command's own containment mark, never handed to the next one.
_VOLATILE_ENV = frozenset({"_", "SHLVL", CONTAINMENT_ENV})

# The workspace's env scripts, the positional arguments: sourced first, each
# one that exists, then the arguments cleared so the command sees none.
_SOURCE_ENV_SCRIPTS = r"""for __dsh_script in "$@"; do
  if [ -f "$__dsh_script" ]; then . "$__dsh_script"; fi
done
set --
"""

# $1: the state directory, $2: the command, then the env scripts. Shell
# variables (not exported) so they stay out of the recorded environment;
# `command -p` finds `env` even if the command emptied PATH.
_WRAPPER = (
    r"""__dsh_state=$1
__dsh_command=$2
shift 2
"""
    + _SOURCE_ENV_SCRIPTS
    + r"""trap '__dsh_rc=$?
pwd > "$__dsh_state/cwd" 2>/dev/null
command -p env -0 > "$__dsh_state/env" 2>/dev/null
exit $__dsh_rc' EXIT
eval "$__dsh_command"
"""
)

_SILENT_COMMANDS = frozenset(
    {
        "mv", "cp", "rm", "mkdir", "rmdir", "chmod", "chown", "chgrp", "touch", "ln", "cd",
        "export", "unset", "true", "false", "wait", "kill", "pushd", "popd", "source", ".",
    }
)  # fmt: skip
_IMAGE_DATA = re.compile(r"^data:image/[a-z0-9.+-]+;base64,", re.IGNORECASE)
_NO_OUTPUT = "(Bash completed with no output)"
_ABORTED = "<error>Command was aborted before completion</error>"
_BASH_INPUT: LazyModel[BashInput] = BASH_INPUT


def present_bash(output: Any) -> Content:
    """What the model sees of a successful Bash call.

    The output text, else ``(Bash completed with no output)``; a background
    call's id and output file. ``stderr`` and ``interrupted`` (never set by
    the tool on success, but a replacement may set them) follow the output
    as Claude Code shows them. An output saved to a file
    (``persistedOutputPath``): the ``<persisted-output>`` preview of it.
    """
    persisted = output.get("persistedOutputPath")
    if persisted:
        size = output.get("persistedOutputSize") or len(output["stdout"])
        return persisted_message(Path(persisted), size, output["stdout"])
    parts = [output["stdout"], output["stderr"].strip()]
    if output["interrupted"]:
        parts.append(_ABORTED)
    shell_id = output.get("backgroundTaskId")
    if shell_id:
        parts.append(
            f"Command running in background with ID: {shell_id}. "
            f"Output is being written to: {_background_output_path(shell_id)}"
        )
    return "\n".join(p for p in parts if p) or _NO_OUTPUT


def _sandboxed(
    workspace: Workspace,
    argv: list[str],
    extra: tuple[Path, ...] = (),
    *,
    command: str,
    unsandboxed: bool,
) -> SandboxSpawn | ToolResult | None:
    """The sandboxed spawn of ``argv`` (``dsh.tools._sandbox``, imported only when the
    workspace has a sandbox), a refusal, or ``None``: it runs as it is."""
    if workspace.sandbox is None:
        return None
    from dsh.tools._sandbox import shell_sandbox

    return shell_sandbox(
        workspace, argv, workspace.cwd, extra, command=command, unsandboxed=unsandboxed
    )


def _denial(workspace: Workspace, returncode: int, output: str) -> dict[str, str] | None:
    """``{"sandbox": MODE}`` when the sandbox likely stopped the command (an on-failure
    rerun is offered then), else ``None``."""
    from dsh.tools._sandbox import likely_denied

    mode = getattr(workspace.sandbox, "mode", "")
    return {"sandbox": mode} if likely_denied(returncode, output) else None


def _bash_executable(env: dict[str, str]) -> str:
    return shutil.which("bash", path=env.get("PATH")) or shutil.which("bash") or "/bin/bash"


def _max_output(env: dict[str, str]) -> int:
    """``BASH_MAX_OUTPUT_LENGTH``: a positive number, at most 150,000; else 30,000."""
    try:
        value = int(env.get("BASH_MAX_OUTPUT_LENGTH", ""))
    except ValueError:
        return MAX_OUTPUT_CHARS
    return min(value, _MAX_OUTPUT_UPPER) if value > 0 else MAX_OUTPUT_CHARS


def _head(path: Path, limit: int) -> tuple[str, bool]:
    """The output's first characters (``limit`` of them, or the preview's if more), and
    whether the whole output is longer than ``limit`` characters; read with a bound."""
    chars = max(limit, PREVIEW_CHARS)
    with path.open("rb") as f:
        data = f.read(chars * 4 + 4)
        more = bool(f.read(1))
    text = data.decode("utf-8", errors="replace")
    return text, more or len(text) > limit


def _read_output(path: Path, limit: int) -> str:
    """The file's text, tidied as Claude Code shows it, cut at ``limit`` chars with a marker."""
    with path.open("rb") as f:
        text = f.read(limit * 4 + 4).decode("utf-8", errors="replace")
        rest = ""
        if len(text) > limit:
            text, rest = text[:limit], text[limit:]
        newlines, last = rest.count("\n"), rest[-1:]
        while chunk := f.read(1 << 20):
            newlines += chunk.count(b"\n")
            last = chunk[-1:].decode("latin-1")
    text = _tidy(text)
    if last:
        # The lines wholly or partly cut off: a last line without its newline counts too.
        cut = newlines + (last != "\n")
        text += f"\n\n... [{cut} {'line' if cut == 1 else 'lines'} truncated] ..."
    return text


def _settle_output(
    path: Path, invocation: ToolInvocation, *, failed: bool
) -> tuple[str, dict[str, Any]]:
    """``stdout`` as the response holds it, and the fields naming a saved output, if any.

    Over the bound, a success's output is saved whole (``persistedOutputPath``); a failure's
    is not, and its first ``limit`` characters stand (cut again as every failure is)."""
    workspace = invocation.workspace
    limit = _max_output(workspace.env)
    head, over = _head(path, limit)
    stdout = _tidy(head[:limit])
    if not over or failed:
        return stdout, {}
    saved = persist_output_file(path, workspace.tool_results_dir, invocation.token)
    if saved is None:  # nowhere to save it: cut here, with a note
        return _read_output(path, limit), {}
    return stdout, {"persistedOutputPath": str(saved), "persistedOutputSize": saved.stat().st_size}


def _tidy(text: str) -> str:
    """Without leading blank lines and trailing whitespace (Claude Code: ``echo hi`` is ``hi``)."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).rstrip()


def _no_output_expected(command: str) -> bool:
    """Whether every simple command in ``command`` is one that normally prints nothing."""
    parts = [p.strip() for p in re.split(r"&&|\|\||;|\||\n", command)]
    words = [p.split()[0] for p in parts if p.split()]
    return bool(words) and all(w in _SILENT_COMMANDS for w in words)


def _absorb_state(workspace: Workspace, state: Path) -> None:
    """Copy the recorded directory and environment back into the workspace."""
    cwd_file, env_file = state / "cwd", state / "env"
    if cwd_file.is_file():
        recorded = cwd_file.read_text(errors="surrogateescape").strip("\n")
        if recorded and Path(recorded).is_dir():
            workspace.cwd = Path(recorded)
    if env_file.is_file():
        env: dict[str, str] = {}
        for item in env_file.read_bytes().split(b"\0"):
            if not item:
                continue
            key, sep, value = item.partition(b"=")
            if sep and key:
                name = os.fsdecode(key)
                if name not in _VOLATILE_ENV:
                    env[name] = os.fsdecode(value)
        for name in _VOLATILE_ENV:
            if name in workspace.env:
                env[name] = workspace.env[name]
        workspace.env.clear()
        workspace.env.update(env)


def _response(
    stdout: str, command: str, *, interrupted: bool, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "stdout": stdout,
        "stderr": "",
        "interrupted": interrupted,
        "isImage": bool(_IMAGE_DATA.match(stdout)),
        "noOutputExpected": _no_output_expected(command),
    }
    if extra:
        out.update(extra)
    return out


async def _run_bash(invocation: ToolInvocation) -> ToolResult:
    try:
        args = parse_arguments(_BASH_INPUT, invocation)
    except ArgumentsError as exc:
        return exc.result
    workspace = invocation.workspace
    if not workspace.cwd.is_dir():
        return ToolResult.error(
            f"Working directory {workspace.cwd} does not exist; cannot run the command"
        )
    if args.run_in_background:
        return _start_background(args.command, workspace, args.dangerouslyDisableSandbox is True)
    timeout_ms = args.timeout or DEFAULT_TIMEOUT_MS
    bash = _bash_executable(workspace.env)
    scripts = [str(p) for p in workspace.env_scripts]
    with tempfile.TemporaryDirectory(prefix="dsh-bash-") as state_dir:
        state = Path(state_dir)
        output_path = state / "output"
        argv = [bash, "-c", _WRAPPER, "dsh-bash", state_dir, args.command, *scripts]
        # The EXIT trap writes the state directory, even in a read-only sandbox.
        leave = args.dangerouslyDisableSandbox is True
        sandbox = _sandboxed(workspace, argv, (state,), command=args.command, unsandboxed=leave)
        if isinstance(sandbox, ToolResult):
            return sandbox
        with output_path.open("wb") as sink:
            try:
                outcome = await run_in_group(
                    argv,
                    cwd=workspace.cwd,
                    env=workspace.env,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    signal=invocation.signal,
                    timeout=timeout_ms / 1000,
                    sandbox=sandbox,
                )
            except subprocess.SubprocessError as exc:  # the child could not restrict itself
                from dsh.tools._sandbox import sandbox_refusal

                return sandbox_refusal(f"the sandbox could not be applied: {exc}")
        failed = outcome.interrupted or outcome.returncode != 0
        stdout, extra = _settle_output(output_path, invocation, failed=failed)
        if not outcome.interrupted:
            _absorb_state(workspace, state)
    response = _response(stdout, args.command, interrupted=outcome.interrupted, extra=extra)
    suffix = f"\n{stdout}" if stdout else ""
    if outcome.aborted is not None:
        return ToolResult.error(
            f"Command aborted: {outcome.aborted}{suffix}", code="ABORTED", output=response
        )
    if outcome.timed_out:
        return ToolResult.error(
            f"Command timed out after {timeout_ms} ms and was killed{suffix}", output=response
        )
    if outcome.returncode != 0:
        info = None if sandbox is None else _denial(workspace, outcome.returncode, stdout)
        text = f"Exit code {outcome.returncode}{suffix}"
        return ToolResult.error(text, output=response, info=info)
    return ToolResult.ok(present_bash(response), output=response)


# Background shells ---------------------------------------------------------------

_ids = itertools.count(1)
_BACKGROUND: dict[str, BackgroundShell] = {}


@final
@dataclass(slots=True, eq=False)
class BackgroundShell:
    """A command started with ``run_in_background``: detached, in its own process group.

    A daemon thread reaps it when it exits, whatever event loop (if any) is
    still running then. Its whole group is killed when the workspace that
    started it closes (the session's end), if it is still running.
    """

    id: str
    command: str
    output_path: Path
    process: subprocess.Popen[bytes]
    _reaper: threading.Thread = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._reaper = threading.Thread(
            target=self._reap, name=f"dsh-{self.id}-reaper", daemon=True
        )
        self._reaper.start()

    def _reap(self) -> None:
        self.process.wait()
        release_process(self.process.pid)  # what it left running ends with the session

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status once it has ended, else ``None``."""
        return self.process.returncode

    async def wait(self) -> int:
        await asyncio.to_thread(self._reaper.join)
        assert self.process.returncode is not None
        return self.process.returncode

    def kill(self) -> None:
        """Kill its whole process group."""
        if self.process.returncode is None:
            kill_group(self.process.pid)

    def output(self) -> str:
        try:
            return self.output_path.read_text(errors="replace")
        except OSError:
            return ""


@cache
def _background_dir() -> Path:
    """This process's directory for background output (private, made at first use)."""
    return Path(tempfile.mkdtemp(prefix="dsh-bash-bg-"))


def _background_output_path(shell_id: str) -> Path:
    return _background_dir() / f"{shell_id}.log"


SHELLS_STATE_KEY = "dsh.background_shells"
"""Where a session keeps the ids of the background shells it started (``session_state``)."""


def background_shell(shell_id: str) -> BackgroundShell | None:
    """The background shell with this id (from a ``run_in_background`` result), if any."""
    return _BACKGROUND.get(shell_id)


def _start_background(command: str, workspace: Workspace, unsandboxed: bool) -> ToolResult:
    shell_id = f"bash_{next(_ids)}"
    output_path = _background_output_path(shell_id)
    mark, env = mark_environment(workspace.env)
    script = [_bash_executable(workspace.env), "-c", _SOURCE_ENV_SCRIPTS + command, "dsh-bash"]
    spawned = [*script, *map(str, workspace.env_scripts)]
    sandbox = _sandboxed(workspace, spawned, command=command, unsandboxed=unsandboxed)
    if isinstance(sandbox, ToolResult):
        return sandbox
    # Its children in dsh's namespace, where there is one (a sandboxed spawn joins it itself).
    if sandbox is None:
        argv, preexec = contained_spawn(spawned, env, workspace.cwd)
    else:
        argv, preexec = sandbox.argv, sandbox.preexec
        if sandbox.env:
            env = {**(os.environ if env is None else env), **sandbox.env}
    proxy = None
    try:
        with output_path.open("wb") as sink:
            process = subprocess.Popen(  # a child that cannot restrict itself: SubprocessError
                argv,
                cwd=workspace.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=own_session(),
                process_group=None if own_session() else 0,
                preexec_fn=preexec,
            )
    finally:
        if sandbox is not None:
            sandbox.close()
            from dsh.tools._sandbox import network_asker

            proxy = sandbox.serve(network_asker())  # the domain filter, until the session ends
    contain_process(process.pid, mark)
    shell = BackgroundShell(shell_id, command, output_path, process)
    _BACKGROUND[shell_id] = shell
    workspace.session_state.setdefault(SHELLS_STATE_KEY, set()).add(shell_id)

    def end_with_session() -> None:
        shell.kill()
        _BACKGROUND.pop(shell_id, None)
        if proxy is not None:
            proxy.close()

    workspace.on_close(end_with_session)
    response = _response("", command, interrupted=False, extra={"backgroundTaskId": shell_id})
    return ToolResult.ok(present_bash(response), output=response)


BASH_TOOL = implement(BASH, _run_bash, present_bash)
