"""``/add-dir``: a working directory at the terminal (DirectoryAdded ``slash_command``), and
Claude Code's ``-p`` answer in a ``dsh run`` prompt; ``--add-dir`` fires nothing.

The interactive case runs ``dsh`` in a pseudo-terminal (``test_interactive``'s helpers) with
a real DirectoryAdded hook process that records its payload.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli import test_interactive as pty
from tests.cli.test_cli import dsh, write_script
from tests.cli.test_interactive import Session, bash, start, text

project = pty.project  # the pseudo-terminal tests' fixtures
spawned = pty.spawned

UNAVAILABLE = "/add-dir isn't available in this environment."
NOTE = (
    "import json, sys\n"
    "p = json.load(sys.stdin)\n"
    "open(sys.argv[1], 'a').write(json.dumps(p) + '\\n')\n"
    "print(json.dumps({'systemMessage': 'EXTRA-HAS-DOCS'}))\n"
)


def directory_hook(tmp_path: Path, project: Path) -> Path:
    """Project settings with a DirectoryAdded hook appending its payload to a file."""
    record = tmp_path / "added.jsonl"
    hook = tmp_path / "note.py"
    hook.write_text(NOTE)
    command = f"{sys.executable} {hook} {record}"
    hooks = {"DirectoryAdded": [{"hooks": [{"type": "command", "command": command}]}]}
    (project / ".claude").mkdir(exist_ok=True)
    # `additionalDirectories` are working directories from the start: no DirectoryAdded.
    permissions = {"additionalDirectories": [str(tmp_path / "listed")]}
    (tmp_path / "listed").mkdir()
    settings = {"hooks": hooks, "permissions": permissions}
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    return record


def payloads(record: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


def test_add_dir_at_the_terminal_adds_a_working_directory_and_fires_directory_added(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    record = directory_hook(tmp_path, project)
    early, extra = tmp_path / "early", tmp_path / "extra"
    early.mkdir()
    extra.mkdir()
    responses = [[bash(f"touch {extra}/a.txt")], [text("TOUCHED")]]
    s = start(
        spawned,
        tmp_path,
        project,
        responses,
        "--add-dir",
        str(early),
        "--permission-mode",
        "acceptEdits",
    )
    s.say(f"/add-dir {early}")
    s.expect(f"{early} is already added as a working directory.")
    s.say(f"/add-dir {tmp_path / 'listed'}/sub/..")
    s.expect("is already added as a working directory.")
    s.say("/add-dir nowhere")
    s.expect(f"Path {project / 'nowhere'} was not found.")
    s.say(f"/add-dir {extra}")
    s.expect(f"Added {extra} as a working directory for this session")
    s.say(f"/add-dir {extra}/")
    s.expect(f"{extra}/ is already added as a working directory.")
    s.say("/hooks")  # the session's permissions now, each with where it came from
    s.expect("Permissions (this session):")
    s.expect("mode: acceptEdits (--permission-mode or dsh's configuration)")
    s.expect(f"{project} (project)")
    s.expect(f"{early} (--add-dir)")
    s.expect(f"{extra} (added: slash_command)")
    s.say("touch a file there")
    s.expect("TOUCHED")  # acceptEdits runs it unasked: extra is a working directory now
    s.say("/exit")
    assert s.leave() == 0
    assert (extra / "a.txt").exists()
    (payload,) = payloads(record)  # not for --add-dir, nor for a directory already added
    assert payload["hook_event_name"] == "DirectoryAdded"
    assert payload["directory"] == str(extra)
    assert payload["source"] == "slash_command"
    contexts = [e["text"] for e in s.events() if e["type"] == "context/message"]
    assert "DirectoryAdded hook: EXTRA-HAS-DOCS" in contexts  # for Claude, next request


def test_add_dir_in_a_run_prompt_is_claude_code_s_p_answer(tmp_path: Path, project: Path) -> None:
    record = directory_hook(tmp_path, project)
    extra = tmp_path / "extra"
    extra.mkdir()
    script = write_script(tmp_path / "script.json", [[text("MODEL-WAS-CALLED")]])
    common = ["--model", f"scripted:{script}", "--add-dir", str(extra)]
    done = dsh("run", *common, f"/add-dir {extra}", cwd=project)
    assert done.returncode == 0, done.stderr
    assert UNAVAILABLE in done.stdout.splitlines()  # the line, exactly
    assert "MODEL-WAS-CALLED" not in done.stdout
    machine = dsh("run", *common, "--output-format", "json", "/add-dir", cwd=project)
    assert machine.returncode == 0, machine.stderr
    result = json.loads(machine.stdout)
    assert result["result"] == UNAVAILABLE
    assert result["num_turns"] == 0
    assert payloads(record) == []  # --add-dir at start-up fires nothing, as 2.1.332
