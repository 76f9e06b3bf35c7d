"""The ``dsh`` command as a user runs it: a real process, a scripted model, a temp project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh import __version__
from dsh.cli._run import compact_command
from tests.shared_paths import ROOT


def dsh(
    *args: str,
    cwd: Path,
    env_extra: dict[str, str] | None = None,
    stdin: str | None = None,
    trust: bool = True,
) -> subprocess.CompletedProcess[str]:
    """``dsh ARGS`` in ``cwd``, its data directory under ``cwd``; ``stdin`` is its standard
    input (default: none); a ``dsh run`` trusts the project's hooks (``--trust-project``: as a
    user who accepted the trust prompt) unless ``trust`` is false."""
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    env.setdefault("XDG_DATA_HOME", str(cwd / "xdg-data"))
    env.pop("DSH_MODEL", None)
    env.update(env_extra or {})
    feed: dict[str, Any] = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}
    if trust and args[:1] == ("run",):
        args = ("run", "--trust-project", *args[1:])
    return subprocess.run(
        [sys.executable, "-m", "dsh", *args],
        cwd=cwd,
        env=env,
        **feed,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def write_script(path: Path, responses: list[Any]) -> Path:
    path.write_text(json.dumps({"anthropic": {"rules": [{"responses": responses}]}}))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_version_prints_the_package_version(tmp_path: Path) -> None:
    done = dsh("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert __version__ in done.stdout


def test_run_completes_a_turn_with_a_real_tool_and_exits_zero(
    tmp_path: Path, project: Path
) -> None:
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hello > out.txt"}}],
            [{"type": "text", "text": "wrote it"}],
        ],
    )
    done = dsh(
        "run",
        "write a file",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "sessions"),
        "--permission-mode",
        "acceptEdits",  # headless `default` mode would ask, and nobody can answer
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (project / "out.txt").read_text() == "hello\n"
    assert "wrote it" in done.stdout
    assert "turn ended: completed" in done.stdout
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    types = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert types[0] == "session/header"
    assert "tool/call" in types
    assert types.index("tool/call") < types.index("tool/result")


def test_log_lists_sessions_and_shows_one(tmp_path: Path, project: Path) -> None:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hi there"}]])
    sessions = str(tmp_path / "sessions")
    run = dsh(
        "run",
        "hello",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        sessions,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    listing = dsh("log", "--all", "--session-dir", sessions, cwd=tmp_path)
    assert listing.returncode == 0
    [session_id] = [p.stem for p in (tmp_path / "sessions").glob("*.jsonl")]
    assert session_id[:8] in listing.stdout  # the table shows short ids
    assert "hello" in listing.stdout
    shown = dsh("log", session_id, "--session-dir", sessions, cwd=tmp_path)
    assert shown.returncode == 0
    assert "> hello" in shown.stdout
    assert "hi there" in shown.stdout
    missing = dsh("log", "no-such-session", "--session-dir", sessions, cwd=tmp_path)
    assert missing.returncode == 2  # bad usage, as the README says
    assert "no-such-session" in missing.stderr


def test_a_model_failure_exits_one(tmp_path: Path, project: Path) -> None:
    script = write_script(
        tmp_path / "script.json", [[{"type": "http_error", "status": 400, "body": "bad request"}]]
    )
    done = dsh(
        "run",
        "hi",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "s"),
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "turn ended: error" in done.stdout


def test_the_step_limit_exits_three(tmp_path: Path, project: Path) -> None:
    script = write_script(
        tmp_path / "script.json",
        [[{"type": "tool_use", "name": "Bash", "input": {"command": "true"}}]],
    )
    done = dsh(
        "run",
        "loop",
        "--model",
        f"scripted:{script}",
        "--project",
        str(project),
        "--session-dir",
        str(tmp_path / "s"),
        "--max-steps",
        "2",
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "max_steps" in done.stdout


def test_a_bad_script_is_a_usage_error_naming_the_file(tmp_path: Path, project: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    done = dsh("run", "hi", "--model", f"scripted:{bad}", "--project", str(project), cwd=tmp_path)
    assert done.returncode == 2
    assert "bad.json" in done.stderr


def test_run_without_a_model_is_a_usage_error(tmp_path: Path) -> None:
    done = dsh("run", "hi", cwd=tmp_path)
    assert done.returncode == 2
    assert "no model" in done.stderr


def test_the_demo_shows_every_plugin_decision(tmp_path: Path) -> None:
    done = dsh("demo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "context from plugin:project_rules" in out
    assert "[DENIED] by plugin no_escape: rm outside the project is not allowed" in out
    assert "[DENIED] by a PreToolUse hook" in out  # and its text names guard_bash.py
    assert "guard_bash.py" in out
    assert "Files changed: say what you did." in out
    assert "prompt blocked by policy (plugin:prompt_policy)" in out
    assert "blocked (user)" not in out
    # The log is deleted with the demo's directory: nothing points at it.
    assert "session log were deleted" in out
    assert ".jsonl" not in out
    assert "turn ended: completed" in out
    assert "turn ended: rejected" in out


def test_hooks_check_admits_good_hooks_and_fails_on_a_diagnosed_one(
    tmp_path: Path, project: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
                    ]
                }
            }
        )
    )
    good = dsh("hooks", "check", "--project", str(project), cwd=tmp_path)
    assert good.returncode == 0, good.stdout
    assert str(settings) in good.stdout
    assert "PreToolUse" in good.stdout
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}))
    bad = dsh("hooks", "check", "--project", str(project), cwd=tmp_path)
    assert bad.returncode == 1
    assert "PreToolUse" in bad.stdout
    assert str(settings) in bad.stdout


HOOK_PATH = '"$CLAUDE_PROJECT_DIR/.claude/hooks/no_rm.py"'


def test_run_applies_the_projects_claude_code_hooks(tmp_path: Path, project: Path) -> None:
    hook = project / ".claude" / "hooks" / "no_rm.py"
    hook.parent.mkdir(parents=True)
    hook.write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        "if 'rm ' in payload['tool_input'].get('command', ''):\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "        'permissionDecision': 'deny', 'permissionDecisionReason': 'no rm here'}}))\n"
    )
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": f"{sys.executable} {HOOK_PATH}",
                                }
                            ],
                        }
                    ]
                }
            }
        )
    )
    (project / "keep.txt").write_text("important\n")
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "rm keep.txt"}}],
            [{"type": "text", "text": "could not delete"}],
        ],
    )
    home = tmp_path / "home"
    home.mkdir()
    args = ("run", "delete keep.txt", "--model", f"scripted:{script}", "--project", str(project))
    done = dsh(
        *args, "--session-dir", str(tmp_path / "s"), cwd=tmp_path, env_extra={"HOME": str(home)}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (project / "keep.txt").exists()
    assert "no rm here" in done.stdout
    [log] = (tmp_path / "s").glob("*.jsonl")
    assert '"type":"hook/result"' in log.read_text().replace(" ", "")
    ignored = dsh(
        *args,
        "--no-claude-hooks",
        "--session-dir",
        str(tmp_path / "s2"),
        cwd=tmp_path,
        env_extra={"HOME": str(home)},
    )
    assert ignored.returncode == 0
    assert not (project / "keep.txt").exists()


@pytest.mark.parametrize(
    ("mode", "runs", "fired"),
    [
        ("default", True, 2),
        (None, True, 2),
        ("bypassPermissions", True, 1),
        ("dontAsk", False, 1),
    ],
)
def test_run_fires_permission_request_hooks_when_the_mode_asks(
    tmp_path: Path, project: Path, mode: str | None, runs: bool, fired: int
) -> None:
    # `touch` asks in default mode (2.1.332's `perm-request-allow-touch`): headless nobody
    # can answer, so only a PermissionRequest hook's allow lets it run. Bypass mode asks
    # nothing (no PermissionRequest); dontAsk refuses without one.
    allow = {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    hooks_dir = project / "hooks"
    hooks_dir.mkdir()
    for name, answer in (("record", {}), ("allow", allow)):
        (hooks_dir / f"{name}.py").write_text(
            "import json, sys\n"
            "payload = json.load(sys.stdin)\n"
            "open(sys.argv[1], 'a').write(payload['permission_mode'] + '\\n')\n"
            f"print(json.dumps({answer!r}))\n"
        )
    seen = tmp_path / "modes.txt"

    def handler(name: str) -> dict[str, Any]:
        command = f"{sys.executable} {hooks_dir / (name + '.py')} {seen}"
        return {"hooks": [{"type": "command", "command": command}]}

    settings = {
        "hooks": {"PreToolUse": [handler("record")], "PermissionRequest": [handler("allow")]}
    }
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "touch ran.txt"}}],
            [{"type": "text", "text": "done"}],
        ],
    )
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions")]
    if mode is not None:
        args += ["--permission-mode", mode]
    done = dsh(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (project / "ran.txt").exists() == runs
    expected = mode or "default"
    assert seen.read_text().split() == [expected] * fired


def test_run_in_auto_mode_denies_what_the_mode_would_ask_about(
    tmp_path: Path, project: Path
) -> None:
    # 2.1.332 without its safety check (corpus `perm-denied-auto`): a call the mode would ask
    # about is denied with its text, PermissionDenied fires with `Classifier unavailable`,
    # and a read-only call runs without the check.
    hooks_dir = project / "hooks"
    hooks_dir.mkdir()
    (hooks_dir / "record.py").write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        "line = [payload['hook_event_name'], payload['permission_mode'], payload.get('reason')]\n"
        "open(sys.argv[1], 'a').write(json.dumps(line) + '\\n')\n"
    )
    seen = tmp_path / "events.jsonl"
    handler = {
        "hooks": [
            {"type": "command", "command": f"{sys.executable} {hooks_dir / 'record.py'} {seen}"}
        ]
    }
    settings = {"hooks": {"PreToolUse": [handler], "PermissionDenied": [handler]}}
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(settings))
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "echo fine"}}],
            [{"type": "tool_use", "name": "Bash", "input": {"command": "touch ran.txt"}}],
            [{"type": "text", "text": "done"}],
        ],
    )
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--output-format", "stream-json"]
    done = dsh(*args, "--permission-mode", "auto", "--verbose", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert not (project / "ran.txt").exists()
    lines = [json.loads(line) for line in seen.read_text().splitlines()]
    assert lines == [
        ["PreToolUse", "auto", None],
        ["PreToolUse", "auto", None],
        ["PermissionDenied", "auto", "Classifier unavailable"],
    ]
    assert "fine" in done.stdout
    assert (
        "Auto mode is unavailable: its safety check does not run for this session, so Bash"
        in done.stdout
    )
    assert "Traceback" not in done.stderr


def record_order(tmp_path: Path, project: Path, events: list[str], then: str = "") -> Path:
    """The project's settings: a hook on ``events`` appending ``<event> <source or trigger>``
    to the file returned, then running ``then`` (more of its Python source)."""
    record = tmp_path / "order.txt"
    hook = tmp_path / "record.py"
    hook.write_text(
        "import json, sys\n"
        "p = json.load(sys.stdin)\n"
        "extra = p.get('source') or p.get('trigger') or ''\n"
        "open(sys.argv[1], 'a').write(f\"{p['hook_event_name']} {extra}\\n\")\n" + then
    )
    group = [{"hooks": [{"type": "command", "command": f"{sys.executable} {hook} {record}"}]}]
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": dict.fromkeys(events, group)})
    )
    return record


def test_slash_compact_compacts_a_resumed_session_with_claude_codes_hook_order(
    tmp_path: Path, project: Path
) -> None:
    record = record_order(
        tmp_path, project, ["SessionStart", "PreCompact", "PostCompact", "SessionEnd"]
    )
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hello there"}]])
    sessions = tmp_path / "sessions"
    base = ["--model", f"scripted:{script}", "--project", str(project)]
    base += ["--session-dir", str(sessions)]
    first = dsh("run", "say hello", *base, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    [log] = sessions.glob("*.jsonl")
    record.write_text("")
    done = dsh("run", "--resume", log.stem, *base, "--", "/compact keep the greeting", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert record.read_text().splitlines() == [
        "SessionStart resume",
        "PreCompact manual",
        "SessionStart compact",
        "PostCompact manual",
        "SessionEnd ",
    ]
    types = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert "compaction/end" in types
    assert "compacted:" in done.stdout
    # Not a turn: the prompt never reached the model as a message (the checkout's own path,
    # which a hook's command names, may hold "/compact" itself).
    assert "/compact" not in log.read_text().replace(str(ROOT), "")


@pytest.mark.parametrize(
    ("prompt", "instructions"),
    [
        ("/compact", ""),
        ("  /compact  ", ""),
        ("/compact keep the API notes", "keep the API notes"),
        ("/compact\tfocus", "focus"),
        ("/compaction please", None),
        ("please /compact", None),
        ("compact", None),
    ],
)
def test_only_the_compact_slash_command_is_recognized(
    prompt: str, instructions: str | None
) -> None:
    assert compact_command(prompt) == instructions


def _setup_project(tmp_path: Path, project: Path) -> tuple[list[str], Path]:
    """A project whose Setup (init and maintenance) and session hooks record their order."""
    record = record_order(
        tmp_path,
        project,
        ["Setup", "SessionStart", "UserPromptSubmit", "SessionEnd"],
        then="if p['hook_event_name'] == 'Setup':\n"
        "    print(json.dumps({'hookSpecificOutput': {'hookEventName': 'Setup',"
        " 'additionalContext': 'CASE-SETUP-' + p['trigger']}}))\n",
    )
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hello there"}]])
    base = ["--model", f"scripted:{script}", "--project", str(project)]
    return [*base, "--session-dir", str(tmp_path / "sessions")], record


def test_init_only_fires_setup_then_starts_and_ends_the_session(
    tmp_path: Path, project: Path
) -> None:
    base, record = _setup_project(tmp_path, project)
    done = dsh("run", "--init-only", *base, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert record.read_text().splitlines() == ["Setup init", "SessionStart startup", "SessionEnd "]
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    types = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert "turn/start" not in types  # no prompt, no model call
    assert "Setup hook additional context: CASE-SETUP-init" in log.read_text()


@pytest.mark.parametrize(
    ("flag", "trigger"), [("--init", "init"), ("--maintenance", "maintenance")]
)
def test_init_and_maintenance_fire_setup_before_the_prompt_runs(
    tmp_path: Path, project: Path, flag: str, trigger: str
) -> None:
    base, record = _setup_project(tmp_path, project)
    done = dsh("run", flag, *base, "--", "say hello", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert record.read_text().splitlines() == [
        f"Setup {trigger}",
        "SessionStart startup",
        "UserPromptSubmit ",
        "SessionEnd ",
    ]
    assert "hello there" in done.stdout
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    context = [
        json.loads(line)
        for line in log.read_text().splitlines()
        if json.loads(line)["type"] == "context/message"
    ]
    assert [c["text"] for c in context] == [f"Setup hook additional context: CASE-SETUP-{trigger}"]


def test_a_plain_run_never_fires_setup(tmp_path: Path, project: Path) -> None:
    base, record = _setup_project(tmp_path, project)
    done = dsh("run", *base, "--", "say hello", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Setup" not in record.read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--init-only", "say hello"], "--init-only runs no prompt"),
        (["--init", "--maintenance", "say hello"], "exclude each other"),
        (["--init", "--init-only"], "exclude each other"),
        ([], "Missing argument 'PROMPT...'"),
    ],
)
def test_setup_flags_refuse_what_does_not_fit(
    tmp_path: Path, project: Path, args: list[str], message: str
) -> None:
    base, record = _setup_project(tmp_path, project)
    done = dsh("run", *base, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert not record.exists()


def test_init_only_needs_no_model(tmp_path: Path, project: Path) -> None:
    base, record = _setup_project(tmp_path, project)
    without_model = base[2:]  # drop --model scripted:...
    assert "--model" not in without_model
    done = dsh("run", "--init-only", *without_model, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert record.read_text().splitlines() == ["Setup init", "SessionStart startup", "SessionEnd "]


@pytest.mark.parametrize("flag", [None, "--no-claude-md"])
def test_run_loads_the_projects_claude_md_unless_told_not_to(
    tmp_path: Path, project: Path, flag: str | None
) -> None:
    (project / "CLAUDE.md").write_text("Always answer in haiku.\n")
    record = record_order(tmp_path, project, ["InstructionsLoaded", "UserPromptSubmit"])
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    sessions = tmp_path / "sessions"
    args = ["run", "say hello", "--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(sessions), *([flag] if flag else [])]
    done = dsh(*args, cwd=tmp_path, env_extra={"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")})
    assert done.returncode == 0, done.stderr
    [log] = sessions.glob("*.jsonl")
    contexts = [
        json.loads(line)["text"]
        for line in log.read_text().splitlines()
        if json.loads(line)["type"] == "context/message"
    ]
    block = (
        f"Contents of {project.resolve() / 'CLAUDE.md'} (project instructions, checked into"
        " the codebase):\n\nAlways answer in haiku."
    )
    if flag is None:
        assert len(contexts) == 1
        assert contexts[0].endswith(block)
        assert record.read_text().splitlines() == ["InstructionsLoaded ", "UserPromptSubmit "]
    else:
        assert contexts == []
        assert record.read_text().splitlines() == ["UserPromptSubmit "]


def write_plugin(root: Path, name: str) -> Path:
    """A plugin whose PreToolUse hook logs its argv and plugin variables to ``log.jsonl``
    beside the project, and writes a marker into its data folder."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    (root / "hooks").mkdir()
    (root / "hooks" / "log.py").write_text(
        "import json, os, pathlib, sys\n"
        "pathlib.Path(sys.argv[2], 'marker').write_text('x')\n"
        "env = {k: v for k, v in os.environ.items() if k.startswith('CLAUDE_PLUGIN')}\n"
        "with open('log.jsonl', 'a') as f:\n"
        "    f.write(json.dumps({'argv': sys.argv[1:], 'env': env}) + '\\n')\n"
    )
    command = f"{sys.executable} ${{CLAUDE_PLUGIN_ROOT}}/hooks/log.py ${{CLAUDE_PLUGIN_ROOT}}"
    command += " ${CLAUDE_PLUGIN_DATA}"
    group = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [group]}}))
    return root


@pytest.mark.parametrize("claude_hooks", [True, False])
def test_plugin_dir_runs_each_plugins_hooks_with_its_root_and_data(
    tmp_path: Path, project: Path, claude_hooks: bool
) -> None:
    one = write_plugin(tmp_path / "one", "first")
    two = write_plugin(tmp_path / "two", "second")
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}}],
            [{"type": "text", "text": "done"}],
        ],
    )
    config = tmp_path / "config"
    args = ["--model", f"scripted:{script}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--permission-mode", "bypassPermissions"]
    args += ["--plugin-dir", str(one), "--plugin-dir", str(two)]
    if not claude_hooks:
        args.append("--no-claude-hooks")
    env = {"CLAUDE_CONFIG_DIR": str(config), "XDG_DATA_HOME": str(tmp_path / "data")}
    done = dsh("run", "say hi", *args, cwd=tmp_path, env_extra=env)
    assert done.returncode == 0, done.stderr
    lines = (project / "log.jsonl").read_text().splitlines()
    # The two plugins' hooks run in parallel: their lines come in either order.
    entries = sorted((json.loads(line) for line in lines), key=lambda e: str(e["argv"]))
    data = {name: config / "plugins" / "data" / f"{name}-inline" for name in ("first", "second")}
    assert entries == [
        {
            "argv": [str(root), str(data[name])],
            "env": {"CLAUDE_PLUGIN_ROOT": str(root), "CLAUDE_PLUGIN_DATA": str(data[name])},
        }
        for root, name in ((one, "first"), (two, "second"))
    ]
    assert all((folder / "marker").is_file() for folder in data.values())
