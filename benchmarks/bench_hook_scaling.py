"""How dsh's cost grows with the number of hooks configured and fired (issue 27, linear cost).

Run: .venv/bin/python benchmarks/bench_hook_scaling.py [--sizes 100,1000,10000]
     [--fire 100,1000] [--limit SECONDS] [--only claude|codex|fire ...]

Each figure is measured in a fresh child process (its own temporary project, homes and
trust records), cut off after ``--limit`` seconds (default 300; shown ``> LIMIT``). Each
time is given as wall / CPU seconds: on a shared machine the CPU time (this process's,
or the ``dsh`` process's) is the figure that does not move with the load, and the ratios
are taken on it.

- **Claude load**: a project whose ``.claude/settings.json`` declares N hooks (spread over
  four events, ten a group, one in ten naming a project script), loaded as ``dsh run`` loads
  it: settings, the catalog, the trust review, the hooks plugin (``ClaudeCodeProfile.load``,
  trust required); untrusted (nothing recorded yet), then trusted;
- **Claude trust**: the real ``dsh hooks trust --project P`` as a process (interpreter
  start-up included; ``dsh --version`` is printed for scale);
- **Codex load / trust**: the same for ``.codex/hooks.json`` with N hooks (``CodexProfile``
  in a trusted project; ``dsh hooks trust`` writes Codex's ``[hooks.state]`` records into
  ``config.toml`` and dsh's own record);
- **fire**: one turn of the real loop (scripted model) whose UserPromptSubmit has F matching
  near-free hooks (``true I``), minus the same turn with none: wall and dsh's CPU per
  hundred hooks, against the first F; and, with hooks that sleep 0.2 s, the most hook
  processes alive at once (the concurrency limit; polled from ``/proc``).

Targets: 10,000 hooks load and trust in <= 1 s; 1,000 hooks fire in <= 2x the time of 100,
per hundred. Each figure is compared against the first size in the same run (``x`` per
hook). To compare with an older tree: ``PYTHONPATH=OLD/src .venv/bin/python ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

EVENTS = (
    ("PreToolUse", "Bash"),
    ("PostToolUse", "Edit|Write"),
    ("UserPromptSubmit", None),
    ("Stop", None),
)
GROUP = 10


def hooks_config(n: int) -> dict[str, Any]:
    """N command hooks over four events, ten a group; one in ten names a project script."""
    hooks: dict[str, list[dict[str, Any]]] = {event: [] for event, _ in EVENTS}
    for start in range(0, n, GROUP):
        event, matcher = EVENTS[(start // GROUP) % len(EVENTS)]
        handlers = []
        for i in range(start, min(start + GROUP, n)):
            command = f"true {i}" if i % 10 else f'"$CLAUDE_PROJECT_DIR"/.claude/guard.sh {i}'
            handlers.append({"type": "command", "command": command})
        group: dict[str, Any] = {"hooks": handlers}
        if matcher is not None:
            group["matcher"] = matcher
        hooks[event].append(group)
    return {"hooks": hooks}


def codex_config(n: int) -> dict[str, Any]:
    hooks: dict[str, list[dict[str, Any]]] = {event: [] for event, _ in EVENTS}
    for start in range(0, n, GROUP):
        event, matcher = EVENTS[(start // GROUP) % len(EVENTS)]
        handlers = [
            {"type": "command", "command": f"true {i}"} for i in range(start, min(start + GROUP, n))
        ]
        group: dict[str, Any] = {"hooks": handlers}
        if matcher is not None:
            group["matcher"] = matcher
        hooks[event].append(group)
    return {"hooks": hooks}


class Place:
    """A temporary project with its own homes, trust records and Codex home."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.home = root / "home"
        self.codex_home = self.home / ".codex"
        self.trust_dir = root / "data" / "dsh" / "trust" / "claude"
        for d in (self.project, self.home, self.codex_home):
            d.mkdir(parents=True, exist_ok=True)
        self.project = self.project.resolve()

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),
            "CODEX_HOME": str(self.codex_home),
            "XDG_DATA_HOME": str(self.root / "data"),
            "XDG_CONFIG_HOME": str(self.root / "config"),
            "DSH_CONFIG_DIR": str(self.root / "config" / "dsh"),
        }

    def write_claude(self, n: int) -> None:
        claude = self.project / ".claude"
        claude.mkdir(exist_ok=True)
        (claude / "settings.json").write_text(json.dumps(hooks_config(n), indent=1))
        guard = claude / "guard.sh"
        guard.write_text("#!/bin/sh\nexit 0\n")
        guard.chmod(0o755)

    def write_codex(self, n: int) -> None:
        codex = self.project / ".codex"
        codex.mkdir(exist_ok=True)
        (codex / "hooks.json").write_text(json.dumps(codex_config(n), indent=1))
        (self.codex_home / "config.toml").write_text(
            f'[projects."{self.project}"]\ntrust_level = "trusted"\n'
        )

    def claude_profile(self, *, require_trust: bool = True) -> Any:
        from dsh.hooks.claude import ClaudeCodeProfile

        return ClaudeCodeProfile(
            home=self.home,
            managed_path=self.root / "managed-settings.json",
            env={},
            discover_installed_plugins=False,
            instructions=False,
            require_trust=require_trust,
            transcript_dir=self.root / "transcripts",
            trust_dir=self.trust_dir,
        )

    def codex_profile(self) -> Any:
        from dsh.hooks.codex import CodexProfile

        return CodexProfile(
            home=self.codex_home,
            system_dir=None,
            env={},
            instructions=False,
            trust_dir=self.trust_dir,
        )

    def cli_trust(self) -> tuple[float, float]:
        """``dsh hooks trust`` as a process: its wall time and its CPU time (user + system)."""
        argv = [sys.executable, "-m", "dsh", "hooks", "trust", "--project", str(self.project)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, env=self.env(), capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"dsh hooks trust exited {done.returncode}: {done.stderr[-2000:]}")
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        return elapsed, cpu


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """``fn()``'s wall time and this process's CPU time in it."""
    started, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - started, time.process_time() - cpu


def figures(**measured: tuple[float, float]) -> dict[str, float]:
    """Each measurement as two figures: ``NAME`` (wall) and ``NAME cpu``."""
    found: dict[str, float] = {}
    for name, (wall, cpu) in measured.items():
        found[name.replace("_", " ")] = wall
        found[f"{name.replace('_', ' ')} cpu"] = cpu
    return found


def measure_claude(place: Place, n: int) -> dict[str, float]:
    place.write_claude(n)
    profile = place.claude_profile()
    untrusted = timed(lambda: profile.load(place.project))
    trust = place.cli_trust()
    # The CLI's records are dsh's data directory's; the profile reads the same one.
    trusted = timed(lambda: profile.load(place.project))
    mount = profile.load(place.project)
    if n and mount.hooks is None:
        raise SystemExit("claude: no hook trusted after dsh hooks trust")
    return figures(load_untrusted=untrusted, dsh_hooks_trust=trust, load_trusted=trusted)


def measure_codex(place: Place, n: int) -> dict[str, float]:
    place.write_codex(n)
    profile = place.codex_profile()
    untrusted = timed(lambda: profile.load(place.project))
    trust = place.cli_trust()
    trusted = timed(lambda: profile.load(place.project))
    mount = profile.load(place.project)
    if n and not mount.catalog.running():
        raise SystemExit("codex: no hook trusted after dsh hooks trust")
    return figures(load_untrusted=untrusted, dsh_hooks_trust=trust, load_trusted=trusted)


class ChildPeak:
    """The most child processes this process had at once, polled from ``/proc`` by a thread."""

    def __init__(self) -> None:
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _count(self) -> int:
        total = 0
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            with contextlib.suppress(OSError):  # a thread that ended meanwhile
                total += len((task / "children").read_text().split())
        return total

    def _poll(self) -> None:
        while not self._stop.wait(0.002):
            self.peak = max(self.peak, self._count())

    def __enter__(self) -> ChildPeak:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


async def _turn(place: Place, n: int, command: str = "true") -> tuple[float, float, int]:
    """One turn with ``n`` UserPromptSubmit hooks: its wall time, this process's CPU time in
    it, and the most hook processes alive at once."""
    from dsh.agent import AgentOptions
    from dsh.host import HostOptions, open_host
    from dsh.session import JsonlSessionStore
    from dsh.testing import say, scripted_model

    place.write_claude(0)
    hooks = [{"type": "command", "command": f"{command} {i}"} for i in range(n)]
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": hooks}]}} if n else {}
    (place.project / ".claude" / "settings.json").write_text(json.dumps(settings))
    options = HostOptions(
        project=place.project,
        model=scripted_model(say("ok")),
        store=JsonlSessionStore(place.root / "sessions"),
        profiles=(place.claude_profile(require_trust=False),),
        agent=AgentOptions(max_steps=2),
    )
    async with open_host(options) as host:
        host.agent.send("hi")
        with ChildPeak() as children:
            started, cpu = time.perf_counter(), time.process_time()
            await host.agent.run_turn()
            elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    invocations = sum(e.type == "hook/invocation" for e in host.session.events)
    if invocations != n:
        raise SystemExit(f"fire: {invocations} hooks ran, not {n}")
    return elapsed, cpu, children.peak


def measure_fire(place: Place, n: int) -> dict[str, float]:
    base = [asyncio.run(_turn(place, 0)) for _ in range(3)]
    runs = [asyncio.run(_turn(place, n)) for _ in range(3)]
    sleepers = asyncio.run(_turn(place, n, "sleep 0.2 #"))
    alone = asyncio.run(_turn(place, 1, "sleep 0.2 #"))  # one hook: its process and dsh's own
    return {
        "turn": min(r[0] for r in runs) - min(b[0] for b in base),
        "cpu": min(r[1] for r in runs) - min(b[1] for b in base),
        "peak": float(sleepers[2] - (alone[2] - 1)),  # less dsh's own (its watchdog)
    }


MEASURES: dict[str, Callable[[Place, int], dict[str, float]]] = {
    "claude": measure_claude,
    "codex": measure_codex,
    "fire": measure_fire,
}


def child(kind: str, n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="dsh-scaling-") as tmp:
        place = Place(Path(tmp))
        for key, value in place.env().items():
            os.environ[key] = value
        print(json.dumps(MEASURES[kind](place, n)))


def run_child(kind: str, n: int, limit: float) -> dict[str, float] | None:
    argv = [sys.executable, __file__, "--measure", kind, str(n)]
    # Its own process group: cut off, the child and the `dsh` it runs end together.
    child = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = child.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)
        child.communicate()
        return None
    if child.returncode != 0:
        raise SystemExit(f"{kind} {n}: exited {child.returncode}\n{err[-3000:]}")
    figures: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return figures


def table(kind: str, sizes: list[int], limit: float) -> None:
    rows: dict[int, dict[str, float] | None] = {}
    for n in sizes:
        rows[n] = run_child(kind, n, limit)
    columns = next(([c for c in r if not c.endswith(" cpu")] for r in rows.values() if r), [])
    print(f"\n{kind}: hooks configured, wall / CPU seconds (CPU per hook against {sizes[0]})")
    first = rows[sizes[0]]
    for n, found in rows.items():
        cells = []
        for column in columns:
            if found is None:
                cells.append(f"{column} > {limit:.0f} s")
                continue
            wall, cpu = found[column], found[f"{column} cpu"]
            cell = f"{column} {wall:.3f} / {cpu:.3f} s"
            if first and n != sizes[0] and first[f"{column} cpu"] > 0:
                per = (cpu / n) / (first[f"{column} cpu"] / sizes[0])
                cell += f" ({per:.2f}x)"
            cells.append(cell)
        print(f"  {n:>6}: " + "; ".join(cells))


def fire_table(sizes: list[int], limit: float) -> None:
    print(
        "\nfire: a turn whose UserPromptSubmit has F matching `true I` hooks, over one with none:"
        " wall and dsh's own CPU per hundred hooks (against the first F); and the most hook"
        " processes alive at once when each sleeps 0.2 s"
    )
    first: dict[str, float] | None = None
    for f in sizes:
        found = run_child("fire", f, limit)
        if found is None:
            print(f"  {f:>6}: > {limit:.0f} s")
            continue
        wall, cpu = found["turn"] * 100 / f, found["cpu"] * 100 / f
        line = f"  {f:>6}: {found['turn']:.3f} s; per hundred {wall * 1000:.1f} ms wall"
        line += f" / {cpu * 1000:.1f} ms CPU"
        if first is None:
            first = {"wall": wall, "cpu": cpu}
        else:
            line += f" ({wall / first['wall']:.2f}x / {cpu / first['cpu']:.2f}x; target <= 2x)"
        print(line + f"; {found['peak']:.0f} at once")


def startup() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "dsh", "--version"], capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--fire", default="100,1000")
    parser.add_argument("--limit", type=float, default=300.0)
    parser.add_argument("--only", choices=[*MEASURES], action="append")
    parser.add_argument("--measure", nargs=2, metavar=("KIND", "N"))
    args = parser.parse_args()
    if args.measure:
        child(args.measure[0], int(args.measure[1]))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    only = args.only or list(MEASURES)
    print(f"`dsh --version` as a process: {startup():.3f} s (in each `dsh hooks trust`)")
    for kind in ("claude", "codex"):
        if kind in only:
            table(kind, sizes, args.limit)
    if "fire" in only:
        fire_table([int(s) for s in args.fire.split(",")], args.limit)


if __name__ == "__main__":
    main()
