"""``run_shell``: one command line run to its end in a workspace, output merged, bounded, timed.

What a shell tool other than ``Bash`` stands on (a bridge's tool under another
protocol's name and fields, such as Codex's ``exec_command``): no state is
carried between calls (no ``cd`` or ``export`` persists), stdout and stderr go
to one file (a backgrounded grandchild holding the stream open cannot hang the
call), the process group is killed on timeout and abort, and the child is
reaped on every path (``run_in_group``).
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, final

from dsh._frozen import frozen
from dsh.base import AbortSignal
from dsh.tools.builtin._process import run_in_group

if TYPE_CHECKING:
    from dsh.base._sandbox import SandboxSpawn

__all__ = ["ShellRun", "run_shell"]

_TRUNCATED = "\n[… output truncated: {n} more characters]"


@final
@frozen
class ShellRun:
    """How one command line ended: its output (cut at the limit), status and wall time."""

    output: str
    returncode: int
    seconds: float
    truncated: int = 0
    """How many characters of output were cut (0: none)."""
    timed_out: bool = False
    aborted: str | None = None

    @property
    def interrupted(self) -> bool:
        return self.timed_out or self.aborted is not None


def _read(path: Path, limit: int) -> tuple[str, int]:
    with path.open("rb") as f:
        data = f.read(limit * 4 + 4)
        rest = 0
        while chunk := f.read(1 << 20):
            rest += len(chunk)
    text = data.decode("utf-8", errors="replace")
    if len(text) <= limit and not rest:
        return text, 0
    cut = len(text) - limit + rest  # the bytes past the read count as characters
    return text[:limit] + _TRUNCATED.format(n=cut), cut


async def run_shell(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    signal: AbortSignal | None,
    timeout: float,
    max_chars: int,
    sandbox: SandboxSpawn | None = None,
) -> ShellRun:
    """Run ``argv`` in ``cwd`` with ``env``; its merged output, at most ``max_chars`` of it
    (``sandbox``: the sandboxed spawn of ``argv``, ``dsh.tools._sandbox.shell_sandbox``)."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dsh-shell-") as folder:
        output_path = Path(folder) / "output"
        with output_path.open("wb") as sink:
            outcome = await run_in_group(
                argv,
                cwd=cwd,
                env=env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                signal=signal,
                timeout=timeout,
                sandbox=sandbox,
            )
        output, cut = _read(output_path, max(max_chars, 0))
    return ShellRun(
        output,
        outcome.returncode,
        time.monotonic() - started,
        truncated=cut,
        timed_out=outcome.timed_out,
        aborted=outcome.aborted,
    )
