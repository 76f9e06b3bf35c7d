"""``dsh run --session-id UUID``: Claude Code's flag, checked as 2.1.332 checks it (its words
in ``Il`` and the session-in-use check of its ``main``; exit 1)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.support import run_dsh

ID = "123e4567-e89b-42d3-a456-426614174000"
HOOK = "import json, sys; print(json.load(sys.stdin)['session_id'], file=open(sys.argv[1], 'a'))"


def _run(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    script = tmp_path / "model.json"
    reply = [{"type": "text", "text": "hello"}]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": [reply]}]}}))
    done = run_dsh(
        "run", "hi", "--model", f"scripted:{script}", "--session-dir", str(tmp_path / "data"),
        "--output-format", "json", *args, cwd=tmp_path, env={"HOME": str(tmp_path)},
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def test_the_new_session_takes_the_id_its_hooks_see_it_and_it_cannot_be_taken_twice(
    tmp_path: Path,
) -> None:
    seen = tmp_path / "seen.txt"
    command = f"{sys.executable} -c {json.dumps(HOOK)} {seen}"
    settings = tmp_path / "settings.json"
    hooks = {"SessionStart": [{"hooks": [{"type": "command", "command": command}]}]}
    settings.write_text(json.dumps({"hooks": hooks}))
    code, out, err = _run(tmp_path, "--session-id", ID, "--settings", str(settings))
    assert code == 0, err
    assert json.loads(out)["session_id"] == ID
    assert (tmp_path / "data" / f"{ID}.jsonl").is_file()
    assert seen.read_text() == f"{ID}\n"
    again = _run(tmp_path, "--session-id", ID)
    assert again[:2] == (1, "")
    assert again[2] == f"dsh: Error: Session ID {ID} is already in use.\n"
    assert seen.read_text() == f"{ID}\n"  # refused before anything ran


def test_an_id_that_is_not_a_uuid_or_beside_resume_is_refused(tmp_path: Path) -> None:
    for bad in ("nope", ID[:-1], f"{ID}x", "../" + ID[3:]):
        code, out, err = _run(tmp_path, "--session-id", bad)
        assert (code, out, err) == (
            1,
            "",
            "dsh: Error: Invalid session ID. Must be a valid UUID.\n",
        )
    for resuming in (("--continue",), ("--resume", ID)):
        code, _, err = _run(tmp_path, "--session-id", ID, *resuming)
        assert code == 1
        assert err.startswith("dsh: Error: --session-id with --continue or --resume also needs")
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").glob("*.jsonl"))
