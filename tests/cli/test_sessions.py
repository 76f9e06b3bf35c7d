"""Sessions from the command line, as a user runs them: ``-c``, ``--resume [ID]``, ``dsh log``.

Real ``dsh`` processes with a scripted model in temp projects; the session header records the
project, a resumed session runs there and prints one summary line, ``dsh log`` is a table of
the current project's sessions and ``dsh log ID`` a timeline.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import run_dsh


def dsh(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env=env)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {
        "HOME": str(tmp_path / "home"),
        "DSH_DATA_DIR": str(tmp_path / "sessions"),
        "DSH_CONFIG_DIR": str(tmp_path / "config"),
    }


def model(tmp_path: Path, *texts: str) -> str:
    path = tmp_path / "script.json"
    replies: list[Any] = [[{"type": "text", "text": t}] for t in texts]
    path.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    return f"scripted:{path}"


def projects(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "alpha", tmp_path / "beta"
    a.mkdir()
    b.mkdir()
    return a, b


def session_ids(tmp_path: Path) -> list[str]:
    return sorted(p.stem for p in (tmp_path / "sessions").glob("*.jsonl"))


def test_the_header_records_the_project(tmp_path: Path, env: dict[str, str]) -> None:
    alpha, _ = projects(tmp_path)
    done = dsh("run", "hi", "--model", model(tmp_path, "ok"), cwd=alpha, env=env)
    assert done.returncode == 0, done.stderr
    [log] = (tmp_path / "sessions").glob("*.jsonl")
    header = json.loads(log.read_text().splitlines()[0])
    assert header["project"] == str(alpha.resolve())


def test_continue_resumes_the_latest_session_of_this_project_only(
    tmp_path: Path, env: dict[str, str]
) -> None:
    alpha, beta = projects(tmp_path)
    m = model(tmp_path, "one", "two", "three")
    assert dsh("run", "first in alpha", "--model", m, cwd=alpha, env=env).returncode == 0
    [alpha_id] = session_ids(tmp_path)
    assert dsh("run", "first in beta", "--model", m, cwd=beta, env=env).returncode == 0
    again = dsh("run", "more", "-c", "--model", m, "--output-format", "json", cwd=alpha, env=env)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["session_id"] == alpha_id
    assert len(session_ids(tmp_path)) == 2  # no new session


def test_continue_with_no_session_of_this_project_is_a_usage_error(
    tmp_path: Path, env: dict[str, str]
) -> None:
    alpha, beta = projects(tmp_path)
    m = model(tmp_path, "one")
    assert dsh("run", "in beta", "--model", m, cwd=beta, env=env).returncode == 0
    done = dsh("run", "more", "--continue", "--model", m, cwd=alpha, env=env)
    assert done.returncode == 2
    assert "no session of project" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_resumed_session_runs_where_it_was_created_and_prints_a_summary_line(
    tmp_path: Path, env: dict[str, str]
) -> None:
    alpha, beta = projects(tmp_path)
    script = tmp_path / "script.json"
    tool = {"type": "tool_use", "name": "Bash", "input": {"command": "pwd > where.txt"}}
    replies = [[{"type": "text", "text": "first answer"}], [tool], [{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    m = f"scripted:{script}"
    assert dsh("run", "remember this", "--model", m, cwd=alpha, env=env).returncode == 0
    [sid] = session_ids(tmp_path)
    done = dsh(
        "run", "write where", "--resume", sid[:6], "--model", m,
        "--permission-mode", "bypassPermissions", cwd=beta, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (alpha / "where.txt").read_text().strip() == str(alpha.resolve())
    assert not (beta / "where.txt").exists()
    assert f"resumed session {sid[:8]} (1 turn" in done.stdout
    assert "remember this" in done.stdout  # in the summary line only
    assert "first answer" not in done.stdout  # the history is not reprinted


def test_resume_without_an_id_takes_the_latest_of_this_project(
    tmp_path: Path, env: dict[str, str]
) -> None:
    alpha, _ = projects(tmp_path)
    m = model(tmp_path, "one", "two")
    assert dsh("run", "hi", "--model", m, cwd=alpha, env=env).returncode == 0
    done = dsh(
        "run", "again", "--model", m, "--output-format", "json", "--resume", cwd=alpha, env=env
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["session_id"] == session_ids(tmp_path)[0]


def test_unknown_and_ambiguous_ids_are_clear_errors(tmp_path: Path, env: dict[str, str]) -> None:
    alpha, _ = projects(tmp_path)
    sessions = tmp_path / "sessions"
    m = model(tmp_path, "one", "two")
    for _ in range(2):
        assert dsh("run", "hi", "--model", m, cwd=alpha, env=env).returncode == 0
    ids = session_ids(tmp_path)
    # Two ids sharing a prefix: rename one file's id in place so both begin "abc".
    for n, old in enumerate(ids):
        new = f"abc{n}" + old[4:]
        text = (sessions / f"{old}.jsonl").read_text().replace(old, new)
        (sessions / f"{new}.jsonl").write_text(text)
        (sessions / f"{old}.jsonl").unlink()
        (sessions / f"{new}.jsonl").chmod(0o600)
    unknown = dsh("run", "x", "--resume", "zzz", "--model", m, cwd=alpha, env=env)
    assert unknown.returncode == 2
    assert "no session 'zzz'" in unknown.stderr
    ambiguous = dsh("log", "abc", cwd=alpha, env=env)
    assert ambiguous.returncode == 2
    assert "ambiguous" in ambiguous.stderr
    both = dsh("run", "x", "-c", "--resume", "abc0", "--model", m, cwd=alpha, env=env)
    assert both.returncode == 2
    assert "exclude each other" in both.stderr


def test_log_is_a_table_of_this_projects_sessions(tmp_path: Path, env: dict[str, str]) -> None:
    alpha, beta = projects(tmp_path)
    m = model(tmp_path, "one", "two")
    assert dsh("run", "alpha's question", "--model", m, cwd=alpha, env=env).returncode == 0
    assert dsh("run", "beta's question", "--model", m, cwd=beta, env=env).returncode == 0
    table = dsh("log", cwd=alpha, env=env)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["ID", "DATE", "TURNS", "END", "PROJECT", "FIRST", "PROMPT"]
    [row] = lines[1:]
    assert "alpha's question" in row
    assert "completed" in row
    assert row.split()[3] == "1"  # turns
    every = dsh("log", "--all", "--json", cwd=alpha, env=env)
    rows = [json.loads(line) for line in every.stdout.splitlines()]
    assert sorted(r["first_prompt"] for r in rows) == ["alpha's question", "beta's question"]
    assert {r["project"] for r in rows} == {str(alpha.resolve()), str(beta.resolve())}
    empty = dsh("log", cwd=tmp_path, env=env)
    assert "no sessions for" in empty.stdout


def test_log_id_is_a_timeline_with_filters(tmp_path: Path, env: dict[str, str]) -> None:
    alpha, _ = projects(tmp_path)
    (alpha / ".claude").mkdir()
    (alpha / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exit 0"}]}]}})
    )
    m = model(tmp_path, "one", "two")
    first = dsh("run", "first", "--model", m, "--trust-project", cwd=alpha, env=env)
    assert first.returncode == 0, first.stderr
    [sid] = session_ids(tmp_path)
    assert dsh("run", "second", "-c", "--model", m, cwd=alpha, env=env).returncode == 0
    timeline = dsh("log", sid[:5], cwd=alpha, env=env)
    assert timeline.returncode == 0, timeline.stderr
    assert "user/message        > first" in timeline.stdout
    assert "turn 2" in timeline.stdout
    hooks = dsh("log", sid[:5], "--hooks", cwd=alpha, env=env).stdout.splitlines()
    assert hooks
    assert all(" hook/" in line for line in hooks)
    turn2 = dsh("log", sid[:5], "--turn", "2", cwd=alpha, env=env).stdout
    assert "> second" in turn2
    assert "> first" not in turn2
    events = [
        json.loads(x) for x in dsh("log", sid, "--json", cwd=alpha, env=env).stdout.splitlines()
    ]
    assert [e["type"] for e in events].count("turn/start") == 2
    too_far = dsh("log", sid, "--turn", "3", cwd=alpha, env=env)
    assert too_far.returncode == 2
    assert "the session has 2 turn(s)" in too_far.stderr
