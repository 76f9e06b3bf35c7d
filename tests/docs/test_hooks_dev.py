"""The worked examples of docs/hooks-dev.md run as printed and print what the page shows.

An example is a section: each ``Save as `PATH`:`` and the fenced block after it is a file
of a fresh project; each ``console`` block's ``$ dsh ...`` lines are run there in order,
and what each prints must be the lines under it, exactly (``...``: not shown, it must succeed).
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from tests.cli.support import python3_dir, run_dsh

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "hooks-dev.md"
_FILE = re.compile(r"Save as `([^`]+)`[^\n]*:\n\n```\w*\n(.*?)```", re.S)
_CONSOLE = re.compile(r"```console\n(.*?)```", re.S)


def section(heading: str) -> str:
    body = DOC.read_text().split(heading + "\n", 1)[1]
    return re.split(r"\n#{2,3} ", body, maxsplit=1)[0]


def run_example(text: str, project: Path) -> None:
    """Write the example's files into ``project``, then run its console blocks there."""
    files = _FILE.findall(text)
    assert files, "the example saves no file"
    for relative, content in files:
        path = project / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    consoles = _CONSOLE.findall(text)
    assert consoles, "the example runs nothing"
    for console in consoles:
        for command, expected in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", console, re.M):
            args = shlex.split(command)
            env = {"HOME": str(project.parent)}
            while "=" in args[0]:  # VAR=value before the command, as a shell reads it
                name, _, value = args.pop(0).partition("=")
                env[name] = value
            assert args[0] == "dsh"
            done = run_dsh(*args[1:], cwd=project, env=env)
            if expected == "...\n":  # output not shown: the command must succeed
                assert done.returncode == 0, f"$ {command}\n{done.stdout}{done.stderr}"
                continue
            assert done.stdout == expected, f"$ {command}\n{done.stdout}{done.stderr}"


@pytest.mark.parametrize(
    "heading",
    ["### A worked example", "### A scenario", "### Recording a session", "### Asking why"],
)
def test_the_worked_example_runs_as_printed(heading: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run_example(section(heading), project)


def test_the_console_export_example_runs_and_the_hook_joins_the_trace(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    run_example(section("### Exporting a session to the console"), project)
    (line,) = (project / "traceparents.txt").read_text().splitlines()
    version, trace_id, span_id, flags = line.split("-")
    assert (version, len(trace_id), len(span_id), flags) == ("00", 32, 16, "01")


@pytest.mark.parametrize(
    "heading",
    [
        "### A context prune and a reply rewrite",
        "### A hook that rewrites the prompt",
        "### A hook that redacts the reply and prunes a large result",
        "### A Stop hook that counts its blocks and reads the usage",
        "### Capping a session",
    ],
)
def test_the_python_examples_pass_as_printed(heading: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Their hooks' `python3`: this interpreter, not a version manager's shim (`python3_dir`).
    monkeypatch.setenv("PATH", f"{python3_dir()}{os.pathsep}{os.environ.get('PATH', '')}")
    body = section(heading)
    match = re.search(r"```python\n(.*?)```", body, re.S)
    assert match is not None
    namespace: dict[str, object] = {"__name__": "test_from_docs"}
    exec(compile(match.group(1), str(DOC), "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    for test in tests:
        assert callable(test)
        test()
