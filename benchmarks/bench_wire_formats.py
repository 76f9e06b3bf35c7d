"""The three wire formats side by side: start-up with one turn, and one turn in-process.

Run: .venv/bin/python benchmarks/bench_wire_formats.py [--runs N] [--turns N]

Each format against its loopback mock, in the same run: chat completions
(``_loopback.LoopbackServer``, the one ``bench_startup.py`` uses), Anthropic Messages
(``_anthropic_mock.AnthropicMock``, Claude Code's set-up: ``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``, ``--model sonnet``) and OpenAI Responses
(``_responses_mock.ResponsesMock``, Codex's set-up: ``$CODEX_HOME/config.toml`` with a
``[model_providers.NAME]``, ``--model responses:mock-model``). Measured:

- ``dsh run`` of a one-reply turn with no hooks, a process each (``--runs``, interleaved:
  the formats in turn each round): the median wall and CPU time (user + system);
- one turn in-process (``--turns``): ``StreamingModel.complete`` of a one-message
  request on a kept connection, the median CPU time per turn;
- the import of each format's modules over ``dsh.models`` (a process each).

Printed with each figure's ratio to chat completions'.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from _anthropic_mock import AnthropicMock
from _loopback import LoopbackServer
from _responses_mock import ResponsesMock
from _side_cases import Reply, SideCase
from _tree_cpu import children_cpu

from dsh.messages import UserMessage
from dsh.models import Model, ModelRequest, load_model
from dsh.models._provider import StreamingModel

ENTRY = "import sys; from dsh.cli import main; sys.argv[0] = 'dsh'; sys.exit(main())"
FORMATS = ("chat completions", "Anthropic Messages", "OpenAI Responses")
MODULES = {
    "chat completions": "dsh.models._openai, dsh.models._http",
    "Anthropic Messages": "dsh.models._anthropic, dsh.models._http",
    "OpenAI Responses": "dsh.models._codex_setup, dsh.models._responses, dsh.models._http",
}
REQUEST = ModelRequest((UserMessage("say hi"),), system="Be brief.")


def chat_answer(_raw: bytes) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}}]}
    done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    return f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()


@contextmanager
def set_ups(root: Path) -> Iterator[dict[str, tuple[list[str], dict[str, str]]]]:
    """Each format's ``dsh run`` arguments and environment, its mock serving."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "ANTHROPIC_"))}
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME"):
        base.pop(name, None)
    base["DSH_DATA_DIR"] = str(root / "data")
    (root / "project").mkdir(exist_ok=True)
    common = ["run", "--project", str(root / "project"), "--session-dir", str(root / "s")]
    with ExitStack() as stack:
        chat = LoopbackServer(chat_answer)
        stack.callback(chat.httpd.server_close)
        stack.callback(chat.httpd.shutdown)
        anthropic = stack.enter_context(AnthropicMock())
        responses = stack.enter_context(ResponsesMock())
        case = SideCase("bench", "say hi", (Reply(text="hi"),), {})
        anthropic.load(case)
        responses.load_script({"rules": [], "default": {"type": "text", "text": "hi"}})
        home = root / "codex-home"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(
            f'model_provider = "loop"\n[model_providers.loop]\nbase_url = "{responses.url}"\n'
            'env_key = "LOOP_KEY"\n'
        )
        yield {
            "chat completions": (
                [*common, "--model", "m", "--base-url", chat.url, "say hi"],
                base,
            ),
            "Anthropic Messages": (
                [*common, "--model", "sonnet", "say hi"],
                {**base, "ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": anthropic.url},
            ),
            "OpenAI Responses": (
                [*common, "--model", "responses:mock-model", "say hi"],
                {**base, "CODEX_HOME": str(home), "LOOP_KEY": "sk-bench"},
            ),
        }


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    cpu = children_cpu()
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0 or b"hi" not in done.stdout:
        sys.exit(f"{argv} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return wall, children_cpu() - cpu


def runs(set_up: dict[str, tuple[list[str], dict[str, str]]], n: int) -> dict[str, list[float]]:
    cpu: dict[str, list[float]] = {f: [] for f in FORMATS}
    wall: dict[str, list[float]] = {f"{f} wall": [] for f in FORMATS}
    for round_ in range(n + 1):
        for fmt in FORMATS:
            argv, env = set_up[fmt]
            w, c = once([sys.executable, "-c", ENTRY, *argv], env)
            if round_:  # the first round warms the disk cache
                wall[f"{fmt} wall"].append(w)
                cpu[fmt].append(c)
    return {**cpu, **wall}


def turn_cpu(set_up: dict[str, tuple[list[str], dict[str, str]]], turns: int) -> dict[str, float]:
    """The median CPU of one in-process turn per format, on a kept connection."""
    out: dict[str, float] = {}
    for fmt in FORMATS:
        argv, env = set_up[fmt]
        spec, base_url = argv[argv.index("--model") + 1], None
        if "--base-url" in argv:
            base_url = argv[argv.index("--base-url") + 1]
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(env)
        try:
            out[fmt] = asyncio.run(_turns(load_model(spec, base_url=base_url), turns))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return out


async def _turns(model: Model, turns: int) -> float:
    times: list[float] = []
    try:
        for _ in range(turns + 5):
            start = time.process_time()
            await model.complete(REQUEST)
            times.append(time.process_time() - start)
    finally:
        if isinstance(model, StreamingModel):
            await model.aclose()
    return statistics.median(times[5:])


def import_cpu(n: int) -> dict[str, float]:
    out: dict[str, float] = {}
    base = [sys.executable, "-c", "import dsh.models"]
    for fmt, modules in MODULES.items():
        argv = [sys.executable, "-c", f"import dsh.models, {modules}"]
        plain = statistics.median(once_cpu(base) for _ in range(n))
        out[fmt] = statistics.median(once_cpu(argv) for _ in range(n)) - plain
    return out


def once_cpu(argv: list[str]) -> float:
    cpu = children_cpu()
    subprocess.run(argv, check=True, capture_output=True)
    return children_cpu() - cpu


def show(title: str, figures: dict[str, float], unit: str, scale: float) -> None:
    base = figures[FORMATS[0]]
    print(title)
    for fmt in FORMATS:
        value = figures[fmt]
        ratio = f"{value / base:5.2f}x" if base > 0 else "  n/a"
        print(f"  {fmt:<20} {value * scale:9.2f} {unit}   {ratio} chat completions'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, set_ups(Path(tmp)) as set_up:
        measured = runs(set_up, args.runs)
        per_turn = turn_cpu(set_up, args.turns)
    imports = import_cpu(args.runs)
    cpu = {f: statistics.median(measured[f]) for f in FORMATS}
    wall = {f: statistics.median(measured[f"{f} wall"]) for f in FORMATS}
    print(f"python {sys.version.split()[0]}, {args.runs} runs, {args.turns} turns, medians")
    show("dsh run, one reply, no hooks: CPU", cpu, "ms", 1000)
    show("dsh run, one reply, no hooks: wall", wall, "ms", 1000)
    show("one turn in-process (kept connection): CPU", per_turn, "ms", 1000)
    show("the format's modules imported over dsh.models: CPU", imports, "ms", 1000)


if __name__ == "__main__":
    main()
