"""The sandbox's cost: a sandboxed Bash call beside an unsandboxed one, and Codex's own.

Run: .venv/bin/python benchmarks/bench_sandbox.py [--runs N] [--codex PATH]

Each round runs the Bash tool's body (``dsh.tools.builtin.BASH_TOOL``) on ``true`` in a
temporary project four ways, interleaved: with no sandbox, under ``workspace-write``
(Landlock, the seccomp filter, every mount read-only but the writable roots, a read-only
bind of the project's ``.git`` and the placeholders of the protected names it lacks), under
``read-only``, and under ``workspace-write`` with allowed domains (its own network namespace
and the filtering proxy), and as Claude Code's ``sandbox.enabled`` gives it (the proxy
always, an unlisted host asked about, Unix sockets blocked). Printed: the median wall time
of each and the sandbox's overhead (target <= 5 ms). With ``--codex`` (default: the
Codex 0.171 the project records with, if installed),
``codex sandbox -c sandbox_mode="workspace-write" -- true`` beside ``true`` run directly
(with ``HOME`` in a temporary folder): Codex's whole command, its own start-up included,
as a user of ``codex sandbox`` pays it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from dsh.base import freeze_json
from dsh.base._sandbox import SandboxPolicy, sandbox_mechanism
from dsh.tools import ToolInvocation, Workspace
from dsh.tools.builtin import BASH_TOOL

_CODEX = Path("/tmp/rest27cx/node_modules/.bin/codex")


async def _call(workspace: Workspace) -> float:
    started = time.perf_counter()
    result = await BASH_TOOL.run(
        ToolInvocation("Bash", freeze_json({"command": "true"}), workspace)
    )
    assert not result.is_error, result.text
    return (time.perf_counter() - started) * 1000


async def _bash(project: Path, runs: int) -> dict[str, list[float]]:
    spaces = {
        "none": Workspace(cwd=project),
        "workspace-write": Workspace(cwd=project, sandbox=SandboxPolicy(mode="workspace-write")),
        "read-only": Workspace(cwd=project, sandbox=SandboxPolicy(mode="read-only")),
        "domain proxy": Workspace(
            cwd=project,
            sandbox=SandboxPolicy(mode="workspace-write", allowed_domains=("example.com",)),
        ),
        "claude settings": Workspace(  # sandbox.enabled: the proxy, asking, Unix sockets off
            cwd=project,
            sandbox=SandboxPolicy(
                mode="workspace-write", ask_domains=True, unix_sockets=False, proxy_env="claude"
            ),
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in spaces}
    for space in spaces.values():  # warm: the namespace, the first imports
        await _call(space)
    for _ in range(runs):
        for name, space in spaces.items():
            times[name].append(await _call(space))
    return times


def _codex(codex: Path, project: Path, runs: int) -> dict[str, list[float]]:
    home = tempfile.mkdtemp(prefix="dsh-bench-codex-")
    env = {**os.environ, "HOME": home, "CODEX_HOME": f"{home}/.codex"}
    os.makedirs(env["CODEX_HOME"], exist_ok=True)
    sandboxed = [str(codex), "sandbox", "-c", 'sandbox_mode="workspace-write"', "--", "true"]
    times: dict[str, list[float]] = {"true": [], "codex sandbox": []}
    for _ in range(runs):
        for name, argv in (("true", ["true"]), ("codex sandbox", sandboxed)):
            started = time.perf_counter()
            subprocess.run(argv, cwd=project, env=env, capture_output=True, check=False)
            times[name].append((time.perf_counter() - started) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--codex", type=Path, default=_CODEX)
    args = parser.parse_args()
    mechanism, how = sandbox_mechanism()
    print(f"mechanism: {mechanism} ({how})")
    if mechanism is None:
        return
    with tempfile.TemporaryDirectory(prefix="dsh-bench-sandbox-") as folder:
        project = Path(folder)
        (project / ".git").mkdir()
        times = asyncio.run(_bash(project, args.runs))
        base = statistics.median(times["none"])
        for name, values in times.items():
            median = statistics.median(values)
            print(
                f"Bash `true`, sandbox {name:<16} median {median:6.2f} ms"
                f"  overhead {median - base:+6.2f} ms"
            )
        if args.codex.exists():
            codex = _codex(args.codex, project, max(args.runs // 4, 5))
            plain = statistics.median(codex["true"])
            boxed = statistics.median(codex["codex sandbox"])
            print(
                f"codex sandbox workspace-write `true`: median {boxed:6.2f} ms"
                f" ({boxed - plain:+.2f} ms over `true` alone)"
            )


if __name__ == "__main__":
    main()
