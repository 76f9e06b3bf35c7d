"""``dsh run --output-format``: the recorded ``claude -p`` stream-json cases replayed through
the real command, and ``json``/``text`` as Claude Code gives them.

Each recording in the corpus's ``claude-stream-json/`` is the real Claude Code 2.1.332 output
of a case of ``claude/``: the case's hooks (the events dsh supports) run as real processes
(``record_hook.py``, answering as the case says), its model script plays, and dsh's lines must
come in the recording's order of line types, carry every field the recording's line has
(less the ones listed with why in ``NOT_PRODUCED``) and agree on the values a script reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT
from tests.cli.support import run_dsh
from tests.shared_paths import conformance_dir

HOOK = Path(__file__).parents[1] / "hooks_claude" / "scripts" / "record_hook.py"

# Fields of Claude Code's lines that dsh does not produce, and why.
NOT_PRODUCED: dict[str, str] = {
    "request_id": "the model seam has no request id",
    "tool_result_meta": "per-call permission bookkeeping of Claude Code's own",
    "terminal_slash_commands": "dsh has no terminal-only commands",
    "capabilities": "Claude Code's SDK capability flags",
    "analytics_disabled": "dsh has no analytics",
    "product_feedback_disabled": "dsh has no product feedback",
    "served_by_anthropic": "a Claude Code billing flag",
    "fast_mode_state": "Claude Code's fast mode",
    "fast_mode_disabled_reason": "Claude Code's fast mode",
    "subagent_stats": "not counted by dsh",
    "safety_stops": "not counted by dsh",
    "ttft_ms": "the model seam does not time the first token",
    "ttft_stream_ms": "likewise",
    "time_to_request_ms": "likewise",
    "first_content_frame_ms": "likewise",
    "queued_turn_count": "dsh queues no turns",
    "result_index": "dsh queues no turns",
    "model_usage_since_last_result": "dsh sums usage per result only",
    "api_error_type": "dsh's model errors carry the status, not the vendor's error type",
    "messaging_socket_path": "Claude Code's messaging socket",
    "per_turn_effort_active": "Claude Code's effort setting",
    "ultrathink_available": "Claude Code's thinking modes",
    "ultrathink_typed_raises": "Claude Code's thinking modes",
    "view_mode": "Claude Code's terminal view",
}

# Lines of a recording dsh does not emit, by case, and why.
NOT_EMITTED: dict[str, str] = {
    "stop-block-once": "Claude Code's terminal notification 'stop hook problem' after a Stop "
    "block (a UI notice; dsh's log has the block itself)",
}


def recordings() -> list[Any]:
    try:
        root = conformance_dir("claude-stream-json")
    except Exception as exc:  # CorpusNotFoundError on CI fails in the test, not in collection
        return [pytest.param(None, id=f"no-corpus-{type(exc).__name__}")]
    if not root.is_dir():
        return [pytest.param(None, id="no-corpus")]
    return [pytest.param(p, id=p.stem) for p in sorted(root.glob("*.jsonl"))]


def _case_settings(case: dict[str, Any]) -> dict[str, Any]:
    hooks = {
        event: groups
        for event, groups in case["hook_settings"]["hooks"].items()
        if event in HOOK_EVENT_HOST_SUPPORT
        and HOOK_EVENT_HOST_SUPPORT[event].status != "not-supported"
    }
    text = json.dumps({"hooks": hooks}).replace(
        "python3 record_hook.py", f"{sys.executable} {HOOK}"
    )
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def replay(case_dir: Path, tmp_path: Path) -> list[list[dict[str, Any]]]:
    """Each run of the case (the prompt, then each of ``then`` with ``--continue``)'s lines."""
    case = json.loads((case_dir / "case.json").read_text())
    project = tmp_path / "project"
    home = tmp_path / "home"
    project.mkdir()
    home.mkdir()
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(_case_settings(case)))
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(case.get("hook_answers")))
    env = {
        **os.environ,
        "HOME": str(home),
        "CASE_HOOK_LOG": str(tmp_path / "hooks.jsonl"),
        "CASE_HOOK_RESPOND": str(answers),
        "DSH_DATA_DIR": str(tmp_path / "sessions"),
    }
    runs = []
    for i, prompt in enumerate([case["prompt"], *(case.get("then") or [])]):
        args = [
            sys.executable,
            "-m",
            "dsh",
            "run",
            prompt,
            "--model",
            f"scripted:{case_dir / 'case.json'}",
            "--project",
            str(project),
            "--settings",
            str(settings),
            "--permission-mode",
            "bypassPermissions",
            "--output-format",
            "stream-json",
            *(["--continue"] if i else []),
        ]
        done = subprocess.run(
            args, env=env, cwd=project, capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == case_exit(case_dir.name), done.stderr
        runs.append([json.loads(line) for line in done.stdout.splitlines()])
    return runs


def case_exit(name: str) -> int:
    return 1 if name.startswith("api-error") else 0


def recorded_runs(path: Path) -> list[list[dict[str, Any]]]:
    runs: list[list[dict[str, Any]]] = [[]]
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        starts = obj.get("type") == "system" and obj.get("subtype") == "hook_started"
        if starts and any(o.get("type") == "result" for o in runs[-1]):
            runs.append([])
        runs[-1].append(obj)
    return runs


def kind(obj: dict[str, Any]) -> str:
    return f"{obj['type']}/{obj.get('subtype') or ''}"


def normalized(text: Any) -> Any:
    return text.replace("ORACLE-", "CASE-") if isinstance(text, str) else text


def compare(ours: dict[str, Any], theirs: dict[str, Any], problems: list[str]) -> None:
    where = kind(theirs)
    missing = sorted(set(theirs) - set(ours) - set(NOT_PRODUCED))
    if missing:
        problems.append(f"{where}: fields missing: {missing}")
    if "message" in theirs:
        inner = sorted(set(theirs["message"]) - set(ours.get("message", {})) - {"diagnostics"})
        extra_ok = {"container", "stop_details"}  # the synthetic error message's own
        if set(inner) - extra_ok:
            problems.append(f"{where}: message fields missing: {sorted(set(inner) - extra_ok)}")
        for mine, block in zip(
            ours["message"]["content"], theirs["message"]["content"], strict=False
        ):
            for key in ("type", "text", "name", "input", "is_error"):
                if key in block and normalized(block[key]) != mine.get(key):
                    if key == "text" and "is_api_error_message" in theirs:
                        continue  # the error's wording is each tool's own
                    # A continuation's reason as the model reads it: dsh frames it (a
                    # system-reminder with a lead), Claude Code's line has the bare text.
                    framed = key == "text" and theirs["type"] == "user"
                    if framed and normalized(block[key]) in str(mine.get(key)):
                        continue
                    problems.append(
                        f"{where}: {key}: theirs {block[key]!r}, ours {mine.get(key)!r}"
                    )
    if theirs["type"] == "result":
        for key in ("subtype", "is_error", "num_turns", "stop_reason", "terminal_reason"):
            if key in theirs and theirs[key] != ours.get(key):
                problems.append(f"result {key}: theirs {theirs[key]!r}, ours {ours.get(key)!r}")
        if len(theirs["permission_denials"]) != len(ours["permission_denials"]):
            problems.append(f"permission_denials: {ours['permission_denials']}")
        if not theirs["is_error"] and normalized(theirs["result"]) != ours["result"]:
            problems.append(f"result text: theirs {theirs['result']!r}, ours {ours['result']!r}")
        if theirs.get("api_error_status") != ours.get("api_error_status"):
            problems.append(f"api_error_status: ours {ours.get('api_error_status')!r}")


@pytest.mark.parametrize("recording", recordings())
def test_stream_json_has_claude_codes_lines_and_fields(
    recording: Path | None, tmp_path: Path
) -> None:
    if recording is None:
        conformance_dir("claude-stream-json")  # fails on CI
        pytest.skip("the stream-json recordings are not present")
    case_dir = recording.parent.parent / "claude" / recording.stem
    ours_runs = replay(case_dir, tmp_path)
    theirs_runs = recorded_runs(recording)
    assert len(ours_runs) == len(theirs_runs)
    problems: list[str] = []
    for ours, theirs in zip(ours_runs, theirs_runs, strict=True):
        if recording.stem in NOT_EMITTED:
            theirs = [t for t in theirs if kind(t) != "system/notification"]
        if [kind(o) for o in ours] != [kind(t) for t in theirs]:
            problems.append(
                f"lines: theirs {[kind(t) for t in theirs]}, ours {[kind(o) for o in ours]}"
            )
            continue
        for mine, line in zip(ours, theirs, strict=True):
            compare(mine, line, problems)
        assert len({o["session_id"] for o in ours}) == 1
    assert not problems, "\n".join(problems)
    if len(ours_runs) > 1:  # --continue: the same session again
        assert ours_runs[0][-1]["session_id"] == ours_runs[1][-1]["session_id"]


def dsh(
    *args: str, cwd: Path, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return run_dsh(*args, cwd=cwd, env=env, stdin=stdin)


def script(path: Path, *replies: list[dict[str, Any]]) -> str:
    path.write_text(json.dumps({"anthropic": {"rules": [{"responses": list(replies)}]}}))
    return f"scripted:{path}"


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "sessions")}


def test_json_is_the_result_object_alone(tmp_path: Path, home: dict[str, str]) -> None:
    model = script(tmp_path / "s.json", [{"type": "text", "text": "the answer"}])
    done = dsh("run", "q", "--model", model, "--output-format", "json", cwd=tmp_path, **home)
    assert done.returncode == 0, done.stderr
    [line] = done.stdout.splitlines()
    result = json.loads(line)
    assert result["type"] == "result"
    assert (result["subtype"], result["is_error"], result["num_turns"]) == ("success", False, 1)
    assert result["result"] == "the answer"
    assert set(result["usage"]) >= {"input_tokens", "output_tokens"}


def test_a_claude_p_command_line_with_verbose_runs_unchanged(
    tmp_path: Path, home: dict[str, str]
) -> None:
    model = script(tmp_path / "s.json", [{"type": "text", "text": "streamed"}])
    args = ["q"]
    done = dsh(
        "run", *args, "--model", model, "--output-format", "stream-json", "--verbose",
        cwd=tmp_path, **home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[-1]["type"] == "result"
    assert lines[-1]["result"] == "streamed"


def test_text_is_the_final_answer_alone(tmp_path: Path, home: dict[str, str]) -> None:
    model = script(tmp_path / "s.json", [{"type": "text", "text": "just this"}])
    done = dsh("run", "q", "--model", model, "--output-format", "text", cwd=tmp_path, **home)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "just this\n"


def test_the_step_limit_is_error_max_turns_and_exit_three(
    tmp_path: Path, home: dict[str, str]
) -> None:
    call = [{"type": "tool_use", "name": "Bash", "input": {"command": "true"}}]
    model = script(tmp_path / "s.json", call, call, call)
    done = dsh(
        "run",
        "loop",
        "--model",
        model,
        "--max-steps",
        "2",
        "--output-format",
        "json",
        cwd=tmp_path,
        **home,
    )
    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert (result["subtype"], result["is_error"]) == ("error_max_turns", True)


def test_stream_json_input_runs_each_user_message_as_a_turn(
    tmp_path: Path, home: dict[str, str]
) -> None:
    model = script(
        tmp_path / "s.json",
        [{"type": "text", "text": "one"}],
        [{"type": "text", "text": "two"}],
    )
    lines = [
        json.dumps({"type": "user", "message": {"role": "user", "content": "first"}}),
        "",
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "text", "text": "2nd"}]},
            }
        ),
    ]
    done = dsh(
        "run",
        "--model",
        model,
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        cwd=tmp_path,
        stdin="\n".join(lines) + "\n",
        **home,
    )
    assert done.returncode == 0, done.stderr
    results = [json.loads(x) for x in done.stdout.splitlines() if '"type":"result"' in x]
    assert [r["result"] for r in results] == ["one", "two"]
    assert len({r["session_id"] for r in results}) == 1


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json\n", "stdin line 1: not JSON"),
        ("[1]\n", "stdin line 1: a JSON object is expected"),
        ('{"type": "control_request"}\n', "a control_request needs a request with a subtype"),
        (
            '{"type": "user", "message": {"role": "assistant", "content": "x"}}\n',
            "a user line needs a message with role user",
        ),
        ("\n", "held no user message or control request"),
    ],
)
def test_bad_stream_json_input_is_a_usage_error_naming_the_line(
    tmp_path: Path, home: dict[str, str], stdin: str, message: str
) -> None:
    model = script(tmp_path / "s.json", [{"type": "text", "text": "x"}])
    done = dsh(
        "run",
        "--model",
        model,
        "--input-format",
        "stream-json",
        cwd=tmp_path,
        stdin=stdin,
        **home,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_usage_is_each_replys_on_its_lines_and_the_turns_sum_in_the_result(
    tmp_path: Path, home: dict[str, str]
) -> None:
    first: list[dict[str, Any]] = [
        {"type": "tool_use", "name": "NoSuchTool", "input": {}},
        {"type": "usage", "input_tokens": 100, "output_tokens": 7, "cache_read_input_tokens": 30},
    ]
    second: list[dict[str, Any]] = [
        {"type": "text", "text": "done"},
        {"type": "usage", "input_tokens": 140, "output_tokens": 3},
        {"type": "usage", "cache_creation_input_tokens": 5},
    ]
    model = script(tmp_path / "s.json", first, second)
    done = dsh("run", "q", "--model", model, "--output-format", "stream-json", cwd=tmp_path, **home)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assistant = [line["message"]["usage"] for line in lines if line["type"] == "assistant"]
    assert assistant == [
        {
            "input_tokens": 100,
            "output_tokens": 7,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 30,
        },
        {
            "input_tokens": 140,
            "output_tokens": 3,
            "cache_creation_input_tokens": 5,
            "cache_read_input_tokens": 0,
        },
    ]
    [result] = [line for line in lines if line["type"] == "result"]
    assert result["usage"] == {
        "input_tokens": 240,
        "output_tokens": 10,
        "cache_creation_input_tokens": 5,
        "cache_read_input_tokens": 30,
    }


def test_scripted_usage_reaches_json_and_hostile_counts_are_ignored(
    tmp_path: Path, home: dict[str, str]
) -> None:
    reply: list[dict[str, Any]] = [
        {"type": "text", "text": "hi"},
        {
            "type": "usage",
            "input_tokens": 12,
            "output_tokens": -4,
            "cache_read_input_tokens": 10**40,
            "cache_creation_input_tokens": "9",
        },
    ]
    model = script(tmp_path / "s.json", reply)
    done = dsh("run", "q", "--model", model, "--output-format", "json", cwd=tmp_path, **home)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["usage"] == {
        "input_tokens": 12,
        "output_tokens": 0,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def test_a_model_that_reports_no_usage_counts_zeros(tmp_path: Path, home: dict[str, str]) -> None:
    model = script(tmp_path / "s.json", [{"type": "text", "text": "hi"}])
    done = dsh("run", "q", "--model", model, "--output-format", "json", cwd=tmp_path, **home)
    assert done.returncode == 0, done.stderr
    assert set(json.loads(done.stdout)["usage"].values()) == {0}
