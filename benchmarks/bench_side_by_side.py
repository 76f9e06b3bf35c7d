"""The same small cases through `dsh run`, the real Claude Code and the real Codex, side by side.

Run: .venv/bin/python benchmarks/bench_side_by_side.py [--rounds 7] [--cases a,b]
     [--tools dsh,claude,codex] [--markdown]
     (``--tools`` may add ``dsh-anthropic``: dsh with Claude Code's set-up against the
     Anthropic mock, and ``dsh-responses``: dsh on the Responses format against the
     Responses mock; each dsh variant gets its own ratio columns)

Cases (``_side_cases.CASES``, issue 19): no hooks; one Bash call; PreToolUse
deny; PostToolUse block; Stop block once; prompt block; three tool calls. Every
case but the first has one tiny hook on each of UserPromptSubmit, PreToolUse,
PostToolUse and Stop, the same shell command for every tool (``sh -c``: append
the event's name to a log, print the case's answer if any; no interpreter,
nothing compiled). Each tool talks to a loopback mock of its own API in this
process, answering from the case's script by the number of assistant turns in
the request: dsh an OpenAI-compatible chat-completions mock, Claude Code an
Anthropic Messages mock (``_anthropic_mock``), Codex a Responses mock
(``_codex_side``). Runs are interleaved (case by case, tool by tool, in a
rotating order, round by round) after one warm-up run each; medians per case of
the wall clock and of the CPU time (the tool and every child it waited for);
ratios dsh / Claude Code (target <= 0.5) and dsh / Codex (target <= 1).

Every run is checked, not just timed: the exit status, how often each hook ran
(its log), how many shell commands ran (theirs), how many main-loop model
requests came in, whether a deny or block reason reached the model, and for
Codex ``_codex_side.check_side_run``. A run that did not do what its case says
is reported as an error naming the case, the tool and what differed, it is left
out of the medians, and the script exits 1.

Claude Code and Codex are found through ``$DSH_CLAUDE`` / ``$DSH_CODEX``, PATH,
or ``.bench-tools/node_modules/.bin`` (``make bench-tools`` installs both there);
a tool that is absent is skipped, saying how to install it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from _anthropic_mock import AnthropicMock
from _claude_side import CLAUDE_INSTALL, claude_invocation, claude_path, write_project_settings
from _loopback import LoopbackServer
from _side_cases import CASES, EVENTS, EXPECT, HOOK_LOG, TOOL_LOG, Reply, SideCase
from _tree_cpu import become_subreaper, children_cpu, reap_orphans

DSH = str(Path(sys.executable).with_name("dsh"))
CODEX_INSTALL = "make bench-tools (npm install of @openai/codex@0.171.0 into .bench-tools/)"
SEARCHED = "$DSH_{}, PATH, .bench-tools/node_modules/.bin"
TIMEOUT = 180.0


def chat_delta(reply: Reply, turn: int) -> dict[str, Any]:
    if not reply.bash:
        return {"role": "assistant", "content": reply.text}
    calls = []
    for j, command in enumerate(reply.bash):
        arguments = json.dumps({"command": command, "description": f"step {turn}.{j}"})
        function = {"name": "Bash", "arguments": arguments}
        calls.append(
            {"index": j, "id": f"call{turn}_{j}", "type": "function", "function": function}
        )
    return {"role": "assistant", "content": reply.text or None, "tool_calls": calls}


class ChatMock:
    """Chat completions, streamed, for dsh: reply ``i`` answers ``i`` assistant messages."""

    def __init__(self) -> None:
        self.replies: tuple[Reply, ...] = ()
        self.main_requests = 0
        self.bodies: list[bytes] = []
        self.server = LoopbackServer(self.answer)
        self.url = self.server.url

    def load(self, case: SideCase) -> None:
        self.replies = case.replies
        self.main_requests = 0
        self.bodies = []

    def answer(self, raw: bytes) -> bytes:
        body = json.loads(raw)
        turn = sum(1 for m in body["messages"] if m.get("role") == "assistant")
        self.main_requests += 1
        self.bodies.append(raw)
        delta = chat_delta(self.replies[min(turn, len(self.replies) - 1)], turn)
        chunk = {"choices": [{"index": 0, "delta": delta}]}
        return f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()


@dataclass(frozen=True)
class Tool:
    """One contender: its mock, and how to start one run of a case in a work directory."""

    name: str
    mock: Any  # ChatMock, AnthropicMock or _codex_side.ResponsesMock: load(case), url
    invocation: Callable[[SideCase, Path], tuple[list[str], dict[str, str]]]
    check: Callable[[SideCase, Path], list[str]] | None = None  # the tool's own, beyond problems()


def dsh_tool(
    mock: Any,
    root: Path,
    name: str = "dsh",
    model: tuple[str, ...] | None = None,
    model_env: dict[str, str] | None = None,
) -> Tool:
    """dsh with its own data directory; a project's hooks are trusted once, as a user would.

    ``model``/``model_env``: how it is pointed at its mock (default: chat completions,
    ``--model m --base-url URL``; ``dsh-anthropic`` is Claude Code's environment,
    ``dsh-responses`` the Responses format). ``PYTHONDONTWRITEBYTECODE`` is dropped: an
    installed dsh has its bytecode, and with the variable inherited every run would
    compile dsh's sources again (0.3 s).
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # Sessions and trust records (which follow XDG_DATA_HOME) stay out of the user's own.
    data = str(root / f"{name}-data")
    env |= model_env or {"DSH_API_KEY": "k"}
    env |= {"DSH_DATA_DIR": data, "XDG_DATA_HOME": data}
    trusted: set[Path] = set()
    chosen = ("--model", "m", "--base-url", mock.url) if model is None else model

    def invocation(case: SideCase, workdir: Path) -> tuple[list[str], dict[str, str]]:
        write_project_settings(case, workdir)
        if workdir not in trusted:
            trust = [DSH, "hooks", "trust", "--project", str(workdir)]
            subprocess.run(trust, env=env, capture_output=True, check=False)  # the run check tells
            trusted.add(workdir)
        argv = [DSH, "run", *chosen, "--project", str(workdir)]
        argv += ["--session-dir", str(root / f"{name}-sessions")]
        return [*argv, "--permission-mode", "bypassPermissions", case.prompt], env

    return Tool(name, mock, invocation)


def dsh_anthropic_tool(mock: AnthropicMock, root: Path) -> Tool:
    """dsh with Claude Code's set-up alone: an Anthropic key and base URL, no model named."""
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": mock.url, "DSH_API_KEY": ""}
    return dsh_tool(mock, root, "dsh-anthropic", (), env | {"OPENAI_API_KEY": ""})


def dsh_responses_tool(mock: Any, root: Path) -> Tool:
    """dsh on the Responses format (``--model responses:NAME``) against the Responses mock."""
    model = ("--model", "responses:mock-model", "--base-url", mock.url)
    return dsh_tool(mock, root, "dsh-responses", model, {"OPENAI_API_KEY": "k"})


def bash_script(case: SideCase) -> dict[str, Any]:
    """A case as a Responses-mock script calling dsh's own ``Bash`` tool (not Codex's shell)."""
    responses = []
    for turn, reply in enumerate(case.replies):
        blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        for j, command in enumerate(reply.bash):
            arguments = {"command": command, "description": f"step {turn}.{j}"}
            blocks.append({"type": "function_call", "name": "Bash", "arguments": arguments})
        responses.append(blocks or [{"type": "text", "text": ""}])
    return {"rules": [{"responses": responses}]}


def claude_tool(mock: AnthropicMock, root: Path, program: str) -> Tool:
    def invocation(case: SideCase, workdir: Path) -> tuple[list[str], dict[str, str]]:
        return claude_invocation(case, workdir, root / "claude-config", mock.url, program)

    return Tool("claude", mock, invocation)


def codex_module() -> ModuleType | None:
    try:
        return importlib.import_module("_codex_side")
    except ModuleNotFoundError as error:
        if error.name != "_codex_side":
            raise
        return None


def codex_tool(module: ModuleType, mock: Any, root: Path) -> Tool:
    def invocation(case: SideCase, workdir: Path) -> tuple[list[str], dict[str, str]]:
        argv, env = module.codex_invocation(case, workdir, root / "codex-home", mock.url)
        return list(argv), dict(env)

    own = getattr(module, "check_side_run", None)  # codexreal's: e.g. the wording Codex sent

    def check(case: SideCase, workdir: Path) -> list[str]:
        return [f"Codex check: {p}" for p in own(case, workdir, mock)] if callable(own) else []

    return Tool("codex", mock, invocation, check)


def main_requests(mock: Any) -> int | None:
    """The mock's count of agent-loop requests: an int, or a method listing them (Codex's)."""
    count = getattr(mock, "main_requests", None)
    if callable(count):
        count = len(count())
    return count if isinstance(count, int) else None


def model_saw(mock: Any) -> str | None:
    """Every agent-loop request the mock got, as one text (None: the mock keeps none)."""
    bodies = getattr(mock, "bodies", None)
    if isinstance(bodies, list):
        return b"\n".join(bodies).decode(errors="replace")
    requests = getattr(mock, "requests", None)  # Codex's ResponsesMock: the parsed bodies
    return json.dumps(requests, ensure_ascii=False) if isinstance(requests, list) else None


def problems(
    case: SideCase, workdir: Path, done: subprocess.CompletedProcess[bytes], mock: Any
) -> list[str]:
    """How this run differs from what the case says (empty: it did what it should)."""
    expect = EXPECT[case.name]
    found = []
    if done.returncode != 0:
        found.append(f"exit status {done.returncode}")
    log = workdir / HOOK_LOG
    ran = log.read_text().split() if log.exists() else []
    for event in EVENTS:
        if (n := ran.count(event)) != expect.hooks.get(event, 0):
            found.append(f"{event} hook ran {n} times, expected {expect.hooks.get(event, 0)}")
    tools = workdir / TOOL_LOG
    steps = len(tools.read_text().split()) if tools.exists() else 0
    if steps != expect.tools:
        found.append(f"{steps} shell commands ran, expected {expect.tools}")
    requests = main_requests(mock)
    if requests is not None and requests != expect.requests:
        found.append(f"{requests} model requests, expected {expect.requests}")
    if expect.seen and (saw := model_saw(mock)) is not None and expect.seen not in saw:
        found.append(f"the model never saw the hook's answer {expect.seen!r}")
    if errors := getattr(mock, "errors", None):
        found.append(f"the mock could not answer: {errors}")
    if found:
        tail = (done.stdout[-300:] + b" | " + done.stderr[-600:]).decode(errors="replace")
        found.append(f"output tail: {tail!r}")
    return found


def run_once(tool: Tool, case: SideCase, workdir: Path) -> tuple[float, float, float, list[str]]:
    """Wall-clock seconds, CPU seconds (the tool and every child it waited for), CPU seconds
    of its whole tree (with what it left to end after it: ``_tree_cpu``), problems."""
    for leftover in (HOOK_LOG, TOOL_LOG, "stopped"):
        (workdir / leftover).unlink(missing_ok=True)
    argv, env = tool.invocation(case, workdir)
    tool.mock.load(case)
    cpu, start = children_cpu(), time.perf_counter()
    try:
        done = subprocess.run(
            argv, env=env, cwd=workdir, capture_output=True, timeout=TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, 0.0, 0.0, [f"no exit within {TIMEOUT:.0f} s"]
    elapsed, waited = time.perf_counter() - start, children_cpu() - cpu
    reap_orphans()
    tree = children_cpu() - cpu
    found = problems(case, workdir, done, tool.mock)
    return elapsed, waited, tree, (tool.check(case, workdir) if tool.check else []) + found


def bare_python() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - start


def rotations(items: list[Any], r: int) -> list[Any]:
    k = r % len(items)
    return items[k:] + items[:k]


def schedule(
    cases: list[SideCase], tools: list[Tool], rounds: int
) -> Iterator[tuple[int, SideCase, Tool]]:
    """Warm-up (round -1), then every round: cases forward or backward, tools rotating."""
    for r in range(-1, rounds):
        for case in cases if r % 2 == 0 else list(reversed(cases)):
            for tool in rotations(tools, r + cases.index(case)):
                yield r, case, tool


def contenders(stack: ExitStack, root: Path, wanted: set[str]) -> tuple[list[Tool], list[str]]:
    """The tools to run, each with its mock started, and a line per tool skipped (with why)."""
    tools = [dsh_tool(ChatMock(), root)] if "dsh" in wanted else []
    if "dsh-anthropic" in wanted:
        tools.append(dsh_anthropic_tool(stack.enter_context(AnthropicMock()), root))
    if "dsh-responses" in wanted:
        from _responses_mock import ResponsesMock

        class BashResponses(ResponsesMock):
            def load(self, case: SideCase) -> None:
                self.load_script(bash_script(case))

        tools.append(dsh_responses_tool(stack.enter_context(BashResponses()), root))
    skipped = []
    if "claude" in wanted:
        if program := claude_path():
            tools.append(claude_tool(stack.enter_context(AnthropicMock()), root, program))
        else:
            skipped.append(
                f"skipped Claude Code: not found ({SEARCHED.format('CLAUDE')}); {CLAUDE_INSTALL}"
            )
    if "codex" in wanted:
        module = codex_module()
        if module is None:
            skipped.append(
                "skipped Codex: benchmarks/_codex_side.py (its mock and invocation) is not here"
            )
        elif module.codex_path() is None:
            skipped.append(
                f"skipped Codex: not found ({SEARCHED.format('CODEX')}); {CODEX_INSTALL}"
            )
        else:
            tools.append(codex_tool(module, stack.enter_context(module.ResponsesMock()), root))
    return tools, skipped


def ratio(a: float | None, b: float | None, target: float) -> str:
    if a is None or b is None:
        return "-"
    return f"{a / b:.2f} {'met' if a / b <= target else 'not met'}"


Times = dict[tuple[str, str], list[float]]  # (case, tool) -> seconds per run


def report(
    cases: list[SideCase], tools: list[Tool], times: Times, failed: set[tuple[str, str]], md: bool
) -> None:
    """The medians and ratios; a case that failed for a tool shows ``fail``, no figure."""

    def median(case: SideCase, tool: str) -> float | None:
        got = times.get((case.name, tool))
        return statistics.median(got) if got and (case.name, tool) not in failed else None

    def cell(case: SideCase, tool: str, m: float | None) -> str:
        return "fail" if (case.name, tool) in failed else "-" if m is None else f"{m:.3f}"

    names = [t.name for t in tools]
    ours = [n for n in names if n.startswith("dsh")]
    pairs = [(d, n) for d in ours for n in names if not n.startswith("dsh")]
    header = ["case", *(f"{n} s" for n in names)]
    header += [f"{d}/{n} (target {'0.5' if n == 'claude' else '1'})" for d, n in pairs]
    rows = []
    for case in cases:
        medians = {n: median(case, n) for n in names}
        row = [case.name, *(cell(case, n, medians[n]) for n in names)]
        row += [ratio(medians[d], medians[n], 0.5 if n == "claude" else 1.0) for d, n in pairs]
        rows.append(row)
    if md:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )


def both_reports(
    cases: list[SideCase],
    tools: list[Tool],
    figures: tuple[Times, Times, Times],
    failed: set[tuple[str, str]],
    md: bool,
) -> None:
    """The wall-clock table, then the CPU tables (``figures``: wall, CPU, whole-tree CPU)."""
    print("\nwall clock, start to exit (what the targets are about):")
    report(cases, tools, figures[0], failed, md)
    print("\nCPU time of the tool and the children it waited for (less hurt by a loaded machine):")
    report(cases, tools, figures[1], failed, md)
    print("\nCPU time of the whole process tree (with what the tool left to end after it):")
    report(cases, tools, figures[2], failed, md)


def summary(rounds: int, load: tuple[float, float], bare: list[float]) -> str:
    return (
        f"medians of {rounds} interleaved rounds, seconds per run; "
        f"{os.cpu_count()} CPUs, load average {load[0]:.1f} before, {load[1]:.1f} after; "
        f"python -c pass: {statistics.median(bare) * 1e3:.0f} ms"
    )


@dataclass(frozen=True)
class Failure:
    """A run that did not do what its case says: not counted."""

    case: str
    tool: str
    line: str


def measure(
    cases: list[SideCase], tools: list[Tool], rounds: int, root: Path
) -> tuple[Times, Times, Times, list[Failure], list[float]]:
    """Every run of ``schedule`` (each in ``root/TOOL/CASE``): the wall, CPU and whole-tree
    CPU seconds of each case and tool (warm-up runs left out), the failed runs (each an
    ERROR line on stderr as it happens) and ``python -c pass`` once a round."""
    times: Times = {}
    cpu: Times = {}
    tree: Times = {}
    failures: list[Failure] = []
    bare: list[float] = []
    for r, case, tool in schedule(cases, tools, rounds):
        if r >= len(bare):  # once a round, between two runs
            bare.append(bare_python())
        workdir = root / tool.name / case.name
        workdir.mkdir(parents=True, exist_ok=True)
        elapsed, used, whole, found = run_once(tool, case, workdir)
        if found:
            line = f"ERROR {case.name} / {tool.name}: " + "; ".join(found)
            failures.append(Failure(case.name, tool.name, line))
            print(line, file=sys.stderr, flush=True)
        elif r >= 0:
            times.setdefault((case.name, tool.name), []).append(elapsed)
            cpu.setdefault((case.name, tool.name), []).append(used)
            tree.setdefault((case.name, tool.name), []).append(whole)
    return times, cpu, tree, failures, bare


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    parser.add_argument("--tools", default="dsh,claude,codex")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = parser.parse_args()
    cases = [c for c in CASES if c.name in args.cases.split(",")]
    load_before = os.getloadavg()[0]
    become_subreaper()
    with tempfile.TemporaryDirectory(prefix="bench-sbs-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        tools, skipped = contenders(stack, root, set(args.tools.split(",")))
        for line in skipped:
            print(line, flush=True)
        times, cpu, tree, failures, bare = measure(cases, tools, args.rounds, root)
    failed = {(f.case, f.tool) for f in failures}
    print(summary(args.rounds, (load_before, os.getloadavg()[0]), bare or [0.0]))
    both_reports(cases, tools, (times, cpu, tree), failed, args.markdown)
    if failures:
        print(f"{len(failures)} runs did not do what their case says (ERROR lines): not counted")
        sys.exit(1)


if __name__ == "__main__":
    main()
