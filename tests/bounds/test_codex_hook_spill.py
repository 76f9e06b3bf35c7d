"""A Codex hook's ``additionalContext`` over its limit: start and end kept, as Codex 0.171 cuts it.

Compared with what the real ``codex exec`` sent its model for the same hook answer
(``benchmarks/record_codex_spill.py``, kept in ``tests/fixtures/codex_hook_spill.json``):
the warning and line-count header, the ``…N tokens truncated…`` marker between the first
and last bytes, and the file holding the whole text, within the hook's 10,000 bytes.
"""

from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.bounds.support import environment, of_type
from tests.cli.support import run_dsh

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "codex_hook_spill.json"
_SHAPE = re.compile(
    r"(?P<header>Warning: truncated output \(original token count: \d+\)\n"
    r"Total output lines: \d+\n\n)(?P<head>.*)…(?P<cut>\d+) tokens truncated…(?P<tail>.*)"
    r"\n\nFull hook output saved to: (?P<path>\S+)",
    re.DOTALL,
)


def _context(lines: int, tail: str | None) -> str:
    text = "".join(f"{i:05d} " + "c" * 94 + "\n" for i in range(lines))
    return text if tail is None else text.rstrip() + tail


def _size(text: str) -> int:
    return len(text.encode())


def _run(tmp_path: Path, event: str, context: str) -> str:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    (tmp_path / "context.txt").write_text(context)
    answer = (
        "import json, sys; sys.stdin.read(); print(json.dumps({'hookSpecificOutput': "
        f"{{'hookEventName': '{event}', 'additionalContext': "
        f"open({str(tmp_path / 'context.txt')!r}).read()}}}}))"
    )
    hook = {"type": "command", "command": f'{sys.executable} -c "{answer}"'}
    hooks = {"hooks": {event: [{"matcher": "Bash", "hooks": [hook]}]}}
    (project / ".codex" / "hooks.json").write_text(json.dumps(hooks))
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{project.resolve()}"]\ntrust_level = "trusted"\n'
    )
    script = tmp_path / "script.json"
    replies = [[{"type": "auto_shell", "command": "echo hi"}], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"openai": {"rules": [{"responses": replies}]}}))
    env = environment(tmp_path) | {"CODEX_HOME": str(home / ".codex")}
    args: tuple[str, ...] = ("run", "--model", f"scripted:{script}", "--hooks", "codex")
    args += ("--dangerously-bypass-hook-trust", "--permission-mode", "bypassPermissions")
    done = run_dsh(*args, "--", "go", cwd=project, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    [text] = [e["text"] for e in of_type(tmp_path, "context/message") if "ccccc" in e["text"]]
    assert isinstance(text, str)
    return text


def _parts(text: str) -> dict[str, Any]:
    match = _SHAPE.fullmatch(text)
    assert match is not None, text[:300]
    return match.groupdict()


@pytest.mark.parametrize("case", ["posttool-20k", "pretool-15k-utf8"])
def test_a_long_context_keeps_its_start_and_end_as_codex_does(tmp_path: Path, case: str) -> None:
    recorded = json.loads(_FIXTURE.read_text())[case]
    context = _context(recorded["lines"], recorded["tail"])
    text = _run(tmp_path, recorded["event"], context)
    got, want = _parts(text), _parts(recorded["developer_text"])
    assert got["header"] == want["header"]
    for parts in (got, want):
        # The kept bytes and the saved-to line fill the hook's 10,000 bytes, split evenly.
        footer = _size(f"\n\nFull hook output saved to: {parts['path']}")
        assert _size(parts["head"]) + _size(parts["tail"]) + footer == 10_000
        assert abs(_size(parts["head"]) - _size(parts["tail"])) <= 1
        assert context.startswith(parts["head"])
        assert context.endswith(parts["tail"])
        kept = _size(parts["head"]) + _size(parts["tail"])
        assert int(parts["cut"]) == math.ceil((_size(context) - kept) / 4)
    assert Path(got["path"]).read_text() == context
