"""Helpers for the hook_protocol tests: scripts, commands, process-group checks, a toy decoder."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import psutil

from dsh.hook_protocol import (
    HookCommand,
    HookDecodeError,
    HookOrigin,
    HookRun,
    WrongEvent,
    exec_argv,
)
from tests.nspids import outer_pid

SCRIPTS = Path(__file__).parent / "scripts"


def script(name: str, *args: str | Path) -> tuple[str, ...]:
    """The argv running a test script through its interpreter (no reliance on exec bits)."""
    path = SCRIPTS / name
    interpreter = "python3" if name.endswith(".py") else "sh"
    return exec_argv(interpreter, [str(path), *(str(a) for a in args)])


def origin(event: str = "PreToolUse", index: int = 0, *, plugin: str | None = None) -> HookOrigin:
    return HookOrigin(source="tests/settings.json", plugin=plugin, event=event, index=index)


def command(
    argv: Sequence[str],
    *,
    timeout: float = 20.0,
    event: str = "PreToolUse",
    index: int = 0,
    on_failure: Literal["ignore", "block"] = "ignore",
    **kwargs: object,
) -> HookCommand:
    return HookCommand(
        argv=tuple(argv),
        timeout=timeout,
        origin=origin(event, index),
        on_failure=on_failure,
        **kwargs,  # type: ignore[arg-type]
    )


def alive(pid: int | str) -> bool:
    """Whether ``pid`` (a number here, or ``PID@INODE`` said inside dsh's namespace:
    tests/nspids.py) is a running (not zombie) process."""
    return outer_pid(pid) is not None


def group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is ``pgid``."""
    members = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                members.append(proc.pid)
        except (ProcessLookupError, psutil.Error):
            continue
    return members


# How long a helper waits for what a script or a signal is to do: a bound far above an idle
# machine's milliseconds, so a loaded one (CI, other tests on every core) is waited for too.
WAIT_BOUND = 30.0


async def wait_gone(pgid: int, *pids: int | str) -> list[int | str]:
    """Survivors of group ``pgid`` (and of ``pids``), after giving SIGKILL time to land."""
    deadline = time.monotonic() + WAIT_BOUND
    while True:
        survivors: list[int | str] = [*group_members(pgid), *(p for p in pids if alive(p))]
        if not survivors or time.monotonic() > deadline:
            return survivors
        await asyncio.sleep(0.02)


def _read_if_there(path: Path) -> str:
    return path.read_text() if path.exists() else ""


async def wait_for_file(path: Path) -> str:
    """The content of ``path`` once a script has written it."""
    deadline = time.monotonic() + WAIT_BOUND
    while time.monotonic() < deadline:
        text = await asyncio.to_thread(_read_if_there, path)
        if text.strip():
            return text
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


@dataclass(frozen=True)
class ToyDecision:
    """A toy bridge's decision: allow or block, with a reason."""

    behavior: Literal["allow", "block"]
    reason: str = ""


def toy_decoder(event: str) -> Callable[[HookRun], ToyDecision | WrongEvent | None]:
    """A small Claude-Code-like decoder: exit 2 blocks, exit 0 reads JSON, other exits fail."""

    def decode(run: HookRun) -> ToyDecision | WrongEvent | None:
        if run.exit_code == 2:
            return ToyDecision("block", run.stderr.strip())
        if run.exit_code != 0:
            raise HookDecodeError(f"exit code {run.exit_code}", kind="nonzero_exit")
        text = run.stdout.strip()
        if not text:
            return None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise HookDecodeError(f"invalid JSON on stdout: {exc}") from None
        if not isinstance(data, dict):
            raise HookDecodeError("stdout JSON is not an object")
        specific = data.get("hookSpecificOutput")
        if isinstance(specific, dict) and specific.get("hookEventName") != event:
            return WrongEvent(str(specific.get("hookEventName")))
        if data.get("decision") == "block":
            return ToyDecision("block", str(data.get("reason", "")))
        return ToyDecision("allow")

    return decode


def said_group(text: str) -> tuple[int, list[int]]:
    """The pids a running hook said (``PID@INODE`` each: tests/nspids.py), as ``/proc``
    here numbers them, and the process group of the first (the hook's own)."""
    pids = [outer_pid(token) for token in text.split()]
    assert None not in pids, text
    found = [pid for pid in pids if pid is not None]
    return os.getpgid(found[0]), found
