"""One validator per outside format (issue 26): import cost and decode-and-validate time.

Run: .venv/bin/python benchmarks/bench_validators.py [--before SRC] [--runs N]

``SRC`` is another tree's ``src`` (main's: ``mkdir /tmp/before && git archive main src |
tar -x -C /tmp/before``, then ``--before /tmp/before/src``). Printed, in one run:

* import: the CPU ms of ``import msgspec`` (and one Struct converted) against ``import
  pydantic`` (and one model validated), each in a fresh process after the import steps of
  ``dsh run`` (``bench_startup.STEPS``), medians of ``--runs`` processes, alternating;
* decode: µs per call of each tree's entry point for one outside value, a process per tree
  and round (trees alternating), medians: a small hook answer and a large one
  (``_outputs.decode_answer``), the same through the pydantic models alone (the before
  tree's ``_output_models.answer_from_json``: what one pydantic schema would cost), a
  refused answer, a settings file with many hooks (``_catalog._read_settings``) and a
  config layer of a file (``_config._validated``), with this/before ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench_startup import STEPS

ROOT = Path(__file__).resolve().parent.parent

_IMPORT_PROBE = """
import resource, sys
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
for _name, code in eval(sys.argv[1]):
    exec(code)
start = cpu()
if sys.argv[2] == "msgspec":
    import msgspec
    class S(msgspec.Struct):
        x: int
    msgspec.convert({"x": 1}, S)
else:
    import pydantic
    class M(pydantic.BaseModel):
        x: int
    M(x=1)
print((cpu() - start) * 1000)
"""

_DECODE_PROBE = r"""
import json, sys, time
from pathlib import Path
from dsh.hook_protocol import HookCommand, HookDecodeError, HookOrigin, HookRun
from dsh.host._config import _validated
try:  # the bridge in rooms (issue 26)
    from dsh.hooks.claude.answers import _decode as _outputs
    from dsh.hooks.claude.settings._catalog import _read_settings
    from dsh.hooks.claude.settings._sources import Diagnostics
    from dsh.hooks.claude import HookSource
    _MODELS = "dsh.hooks.claude.answers._models"
except ImportError:  # a tree from before the rooms
    from dsh.hooks.claude import _outputs
    from dsh.hooks.claude.settings._catalog import _read_settings
    from dsh.hooks.claude.settings._sources import Diagnostics
    from dsh.hooks.claude import HookSource
    _MODELS = "dsh.hooks.claude._output_models"

def run(answer):
    cmd = HookCommand(argv=("true",), timeout=1, origin=HookOrigin(source="s", event="Stop"))
    return HookRun(command=cmd, pid=1, exit_code=0, signal=None, stdout=json.dumps(answer),
                   stderr="", duration=0.0)

small = run({"decision": "block", "reason": "blocked by the case"})
specific = {"hookEventName": "PreToolUse", "permissionDecision": "allow",
            "permissionDecisionReason": "ok", "additionalContext": "c" * 2000,
            "updatedInput": {f"k{i}": {"v": list(range(20)), "s": "x" * 50} for i in range(200)},
            "watchPaths": [f"/src/file{i}.py" for i in range(300)]}
large = run({"continue": True, "systemMessage": "m" * 500, "hookSpecificOutput": specific})
bad = run({"continue": "maybe", "hookSpecificOutput": {"hookEventName": "PreToolUse"}})
handler = {"type": "command", "command": "python3 check.py", "timeout": 30}
hooks = {event: [{"matcher": f"Tool{g}", "hooks": [handler] * 3} for g in range(20)]
         for event in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart")}
settings_text = json.dumps({"hooks": hooks, "disableAllHooks": False,
                            "enabledPlugins": {"a@b": True}, "permissions": {"allow": ["Bash"]}})
source = HookSource(kind="user", path=Path("/tmp/settings.json"))
layer = {"model": "m", "base_url": "http://127.0.0.1:1/v1", "permission_mode": "plan",
         "plugins": ["a:b", "c:d"], "output_format": "json", "hook_helpers": "session"}

def answer_models(r):
    import importlib
    answer_from_json = importlib.import_module(_MODELS).answer_from_json
    return answer_from_json(0, json.loads(r.stdout), "PreToolUse")

def refused(r):
    try:
        _outputs.decode_answer(r, "PreToolUse")
    except HookDecodeError:
        return
    raise AssertionError("accepted")

cases = {
    "small hook answer": lambda: _outputs.decode_answer(small, "UserPromptSubmit"),
    "large hook answer": lambda: _outputs.decode_answer(large, "PreToolUse"),
    "large answer, schema only": lambda: answer_models(large),
    "refused hook answer": lambda: refused(bad),
    "settings, 300 handlers": lambda: _read_settings(source, Diagnostics(), settings_text),
    "config layer (a file's)": lambda: _validated(layer, "project file", lambda k: k),
}
out = {}
for name, fn in cases.items():
    fn()  # first call: imports, validators built
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 0.2:
        fn(); n += 1
    out[name] = (time.perf_counter() - start) / n * 1e6
print(json.dumps(out))
"""


def _env(src: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPATH": str(src)}


def _imports(runs: int) -> dict[str, float]:
    env = _env(ROOT / "src")
    got: dict[str, list[float]] = {"msgspec": [], "pydantic": []}
    for i in range(runs):
        for lib in ("msgspec", "pydantic") if i % 2 == 0 else ("pydantic", "msgspec"):
            argv = [sys.executable, "-c", _IMPORT_PROBE, repr(STEPS), lib]
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
            got[lib].append(float(done.stdout))
    return {lib: statistics.median(v) for lib, v in got.items()}


def _decodes(trees: dict[str, Path], runs: int) -> dict[str, dict[str, float]]:
    got: dict[str, dict[str, list[float]]] = {t: {} for t in trees}
    for i in range(runs):
        order = list(trees) if i % 2 == 0 else list(reversed(trees))
        for tree in order:
            argv = [sys.executable, "-c", _DECODE_PROBE]
            done = subprocess.run(
                argv, env=_env(trees[tree]), capture_output=True, text=True, check=False
            )
            if done.returncode != 0:
                sys.exit(f"{tree}: {done.stderr[-2000:]}")
            for case, us in json.loads(done.stdout).items():
                got[tree].setdefault(case, []).append(us)
    return {t: {c: statistics.median(v) for c, v in cases.items()} for t, cases in got.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, help="another tree's src directory")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True)
    trees = {"this": ROOT / "src"}
    if args.before is not None:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.before)], check=True)
        trees["before"] = args.before
    print(f"load average {os.getloadavg()[0]:.1f}")
    imports = _imports(args.runs)
    print(f"import after `dsh run`'s own imports, CPU ms, median of {args.runs} processes:")
    for lib, ms in imports.items():
        print(f"  {lib:<9} {ms:7.1f}")
    print(f"  pydantic/msgspec {imports['pydantic'] / imports['msgspec']:.1f}x")
    decodes = _decodes(trees, args.runs)
    print(f"decode and validate, µs per call, median of {args.runs} processes per tree:")
    print(
        f"  {'case':<28}"
        + "".join(f"{t:>10}" for t in trees)
        + ("  this/before" * (len(trees) > 1))
    )
    for case, us in decodes["this"].items():
        row = f"  {case:<28}" + "".join(f"{decodes[t][case]:10.1f}" for t in trees)
        if "before" in decodes:
            row += f"  {us / decodes['before'][case]:11.2f}"
        print(row)


if __name__ == "__main__":
    main()
