"""Record what the real Claude Code says of bad tool inputs, notebooks in Read and read-before-edit.

usage: python benchmarks/record_claude_tool_texts.py CLAUDE OUT.json

Runs ``CLAUDE -p`` (2.1.332) headless, permissions skipped, against the loopback mock of
``_claude_recording`` (the step mock of ``record_claude_deferred_tools``), with PreToolUse,
PostToolUse and PostToolUseFailure hooks that keep their payloads. The model calls: Bash and
Read with a missing required field, a wrong type and an unknown key; Read of a notebook (code,
markdown and raw cells, stream, result, image and error outputs); Edit and Write of files not
read first; Edit of a file changed on disk after it was read (whole, and in part); a Write of a
new file, and a Read then Edit. Kept: every tool result the model was sent (with the call that
made it), the hook payloads and the files after. Never run by ``make test``; its output is
the fixture ``tests/fixtures/claude_tool_texts.json``.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _claude_recording import DONE, Place, claude_version
from record_claude_deferred_tools import Step, StepMock, _call, _run

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5Er"
    "kJggg=="
)
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "c1",
            "metadata": {},
            "outputs": [
                {"name": "stdout", "output_type": "stream", "text": ["1\n", "2\n"]},
                {
                    "data": {"text/plain": ["3"]},
                    "execution_count": 1,
                    "metadata": {},
                    "output_type": "execute_result",
                },
            ],
            "source": ["print(1)\n", "print(2)\n", "3"],
        },
        {"cell_type": "markdown", "id": "c2", "metadata": {}, "source": ["# Notes\n", "text"]},
        {
            "cell_type": "code",
            "execution_count": 2,
            "id": "c3",
            "metadata": {},
            "outputs": [
                {
                    "data": {"image/png": PNG, "text/plain": ["<Figure>"]},
                    "metadata": {},
                    "output_type": "display_data",
                }
            ],
            "source": ["plot()"],
        },
        {
            "cell_type": "code",
            "execution_count": 3,
            "id": "c4",
            "metadata": {},
            "outputs": [
                {
                    "ename": "ZeroDivisionError",
                    "evalue": "division by zero",
                    "output_type": "error",
                    "traceback": ["Traceback (most recent call last)", "ZeroDivisionError: x"],
                }
            ],
            "source": ["1/0"],
        },
        {"cell_type": "raw", "id": "c5", "metadata": {}, "source": ["raw text"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": []},
    ],
    "metadata": {"language_info": {"name": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}
FILES = {
    "a.txt": "one\ntwo\n",
    "b.txt": "bee\n",
    "d.txt": "dee\n",
    "e.txt": "eee\n",
    "nb.ipynb": json.dumps(NOTEBOOK, indent=1),
}


def steps(project: Path) -> list[Step]:
    a, b, c, d, e = (str(project / f"{n}.txt") for n in "abcde")
    return [
        _call("toolu_b1", "Bash"),
        _call("toolu_b2", "Bash", command=5),
        _call("toolu_b3", "Bash", command="echo hi", bogus=1),
        _call("toolu_b4", "Bash", command=["echo"], timeout="x"),
        _call("toolu_r1", "Read", file_path=5),
        _call("toolu_r2", "Read"),
        _call("toolu_e1", "Edit", file_path=a, old_string="one", new_string="uno"),
        _call("toolu_w1", "Write", file_path=b, content="new bee\n"),
        _call("toolu_w2", "Write", file_path=c, content="sea\n"),
        _call("toolu_e2", "Edit", file_path=c, old_string="sea", new_string="see"),
        _call("toolu_r3", "Read", file_path=d),
        _call("toolu_sh", "Bash", command=f"sleep 0.05; echo changed > {d}; echo changed > {e}"),
        _call("toolu_e3", "Edit", file_path=d, old_string="changed", new_string="x"),
        _call("toolu_w3", "Write", file_path=d, content="w\n"),
        _call("toolu_r4", "Read", file_path=a),
        _call("toolu_e4", "Edit", file_path=a, old_string="one", new_string="uno"),
        _call("toolu_e5", "Edit", file_path=a, new_string="x"),
        _call("toolu_e6", "Edit", file_path=a, old_string="two", new_string="deux", bogus=True),
        _call("toolu_r5", "Read", file_path=str(project / "nb.ipynb")),
        _call("toolu_r6", "Read", file_path=e, offset=1, limit=1),
        _call("toolu_sh2", "Bash", command=f"sleep 0.05; echo again > {e}"),
        _call("toolu_e7", "Edit", file_path=e, old_string="again", new_string="y"),
        lambda _results: DONE,
    ]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claude, out = sys.argv[1], Path(sys.argv[2])
    recorded: dict[str, Any] = {"cli_version": claude_version(claude), "notebook": NOTEBOOK}
    with StepMock() as mock:
        place = Place.make("tool-texts", files=FILES)
        kept = place.root / "hooks.jsonl"
        hook = {"type": "command", "command": f"cat >> {kept}; echo >> {kept}"}
        events = ("PreToolUse", "PostToolUse", "PostToolUseFailure")
        hooks = {e: [{"matcher": "*", "hooks": [hook]}] for e in events}
        (place.config / "settings.json").write_text(json.dumps({"hooks": hooks}))
        run = _run(claude, mock, place, steps(place.project))
        run.pop("tools", None), run.pop("announcement", None), run.pop("side_requests", None)
        run["hook_events"] = (
            [json.loads(line) for line in kept.read_text().splitlines() if line.strip()]
            if kept.exists()
            else []
        )
        run["files_after"] = {
            n: (place.project / n).read_text() for n in [*FILES, "c.txt"] if n != "nb.ipynb"
        }
        recorded["run"] = json.loads(place.placeholders(json.dumps(run)))
    out.write_text(json.dumps(recorded, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    threading.stack_size(0)
    sys.exit(main())
