"""Every user error of the ``dsh`` command: a line naming the problem and place, no traceback."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from dsh.session import JsonlSessionStore
from tests.cli.test_cli import dsh, write_script
from tests.models.chat_server import Reply, error_body, serving


def refused(done: subprocess.CompletedProcess[str], code: int, *parts: str) -> None:
    assert done.returncode == code, (done.stdout, done.stderr)
    for part in parts:
        assert part in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return tmp_path / "sessions"


def run_in(
    tmp_path: Path, sessions: Path, prompt: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    """``dsh run PROMPT`` in ``tmp_path``, a scripted model answering in text."""
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hi"}]])
    args = ["--model", f"scripted:{script}", "--project", str(tmp_path)]
    return dsh("run", prompt, *args, "--session-dir", str(sessions), *extra, cwd=tmp_path)


def make_session(tmp_path: Path, sessions: Path) -> str:
    before = set(sessions.glob("*.jsonl"))
    done = run_in(tmp_path, sessions, "hello")
    assert done.returncode == 0, done.stderr
    [new] = set(sessions.glob("*.jsonl")) - before
    return new.stem


def resume(tmp_path: Path, sessions: Path, session_id: str) -> subprocess.CompletedProcess[str]:
    return run_in(tmp_path, sessions, "more", "--resume", session_id)


def test_an_unknown_session_id_exits_two_naming_the_id_and_the_dir(
    tmp_path: Path, sessions: Path
) -> None:
    make_session(tmp_path, sessions)
    refused(resume(tmp_path, sessions, "zzz"), 2, "no session 'zzz'", str(sessions))
    shown = dsh("log", "../etc", "--session-dir", str(sessions), cwd=tmp_path)
    refused(shown, 2, "no session '../etc'", str(sessions))


def test_a_unique_prefix_names_its_session_and_an_ambiguous_one_is_refused(
    tmp_path: Path, sessions: Path
) -> None:
    first = make_session(tmp_path, sessions)
    done = resume(tmp_path, sessions, first[:8])
    assert done.returncode == 0, done.stderr
    assert f"session {first}" in done.stdout
    shown = dsh("log", first[:6], "--session-dir", str(sessions), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "> more" in shown.stdout
    # Two ids sharing a prefix (the files are what the store reads ids from).
    twin = first[:4] + ("0" if first[4] != "0" else "1") + first[5:]
    (sessions / f"{twin}.jsonl").write_bytes(
        (sessions / f"{first}.jsonl").read_bytes().replace(first.encode(), twin.encode())
    )
    refused(resume(tmp_path, sessions, first[:4]), 2, "ambiguous", first, twin)


def test_a_locked_session_names_the_process_holding_it(tmp_path: Path, sessions: Path) -> None:
    session_id = make_session(tmp_path, sessions)
    log = JsonlSessionStore(sessions).open(session_id)
    try:
        done = resume(tmp_path, sessions, session_id)
    finally:
        log.close()
    refused(done, 2, f"session {session_id!r} is in use by process {os.getpid()}")


def test_a_corrupt_session_file_is_a_message_in_log_and_resume(
    tmp_path: Path, sessions: Path
) -> None:
    session_id = make_session(tmp_path, sessions)
    path = sessions / f"{session_id}.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b'{"not": "a header"}\n' + b"".join(lines[1:]))
    shown = dsh("log", session_id, "--session-dir", str(sessions), cwd=tmp_path)
    refused(shown, 2, str(path), "corrupt")
    refused(resume(tmp_path, sessions, session_id), 2, str(path), "corrupt")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"hooks": ', "--settings (inline JSON): invalid JSON at line 1"),
        ("missing.json", "--settings missing.json: cannot read the file"),
    ],
)
def test_an_unusable_settings_argument_exits_two(tmp_path: Path, value: str, expected: str) -> None:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hi"}]])
    args = ["--model", f"scripted:{script}", "--project", str(tmp_path), "--settings", value]
    refused(dsh("run", "hi", *args, cwd=tmp_path), 2, expected)
    (tmp_path / "bad.json").write_text("[1,")
    done = dsh("run", "hi", *args[:-1], "bad.json", cwd=tmp_path)
    refused(done, 2, "--settings bad.json: invalid JSON")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--model", "m", "--base-url", "localhost:8000/v1"], "is not an http:// or https:// URL"),
        (["--model", "script:s.json"], "looks like a mistyped scripted model"),
        (["--model", "scripted s.json"], "looks like a mistyped scripted model"),
    ],
)
def test_a_bad_endpoint_or_model_is_refused_before_any_request(
    tmp_path: Path, args: list[str], expected: str
) -> None:
    with serving() as server:
        env = {"DSH_BASE_URL": server.url}
        refused(dsh("run", "hi", *args, cwd=tmp_path, env_extra=env), 2, expected)
        assert server.seen == []


def test_a_401_names_the_variable_the_key_was_read_from(tmp_path: Path) -> None:
    with serving(Reply(status=401, body=error_body("bad key"))) as server:
        env = {"DSH_API_KEY": "wrong", "OPENAI_API_KEY": ""}
        done = dsh(
            "run", "hi", "--model", "m", "--base-url", server.url, cwd=tmp_path, env_extra=env
        )
    assert done.returncode == 1, done.stderr
    assert "the server rejected the key from $DSH_API_KEY" in done.stdout
    assert "--api-key" not in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_an_internal_failure_exits_70_with_one_line_and_debug_shows_the_traceback(
    tmp_path: Path,
) -> None:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "hi"}]])
    # A plugin that breaks dsh itself (its transcript printer). A data directory that is a
    # file, the failure this test used before, is the user's now (tests/cli/test_front_doors).
    (tmp_path / "breaker.py").write_text(
        "import dsh.cli._render as render\n"
        "def fn(ctx):\n"
        "    def broken(*args, **kwargs):\n"
        "        raise RuntimeError('the printer broke')\n"
        "    render.TranscriptPrinter.print_event = broken\n"
    )
    args = ["run", "hi", "--model", f"scripted:{script}", "--project", str(tmp_path)]
    args += ["--session-dir", str(tmp_path / "sessions"), "--plugin", "breaker:fn"]
    done = dsh(*args, cwd=tmp_path)
    refused(done, 70, "dsh: internal error: ", "rerun with --debug")
    assert len(done.stderr.strip().splitlines()) == 1
    debug = dsh("--debug", *args, cwd=tmp_path)
    assert debug.returncode == 70
    assert "Traceback" in debug.stderr
    assert "rerun with --debug" not in debug.stderr


def test_version_names_the_claude_code_release_the_bridge_follows(tmp_path: Path) -> None:
    done = dsh("--version", cwd=tmp_path)
    assert done.returncode == 0
    assert "Claude Code hooks: 2.1.332" in done.stdout
