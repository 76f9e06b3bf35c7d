"""The Bash tool's output over its bound, and a long failure, as Claude Code 2.1.332 gives them.

Each case runs the command the recording ran (``benchmarks/record_claude_bounds.py``, kept in
``tests/fixtures/claude_bounds.json``) through the real ``dsh run`` with a PostToolUse and a
PostToolUseFailure hook that keep their payloads, and compares what the model read and what
the hooks got with what the real CLI sent and gave, paths aside.
"""

from __future__ import annotations

import json
import re
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

from tests.bounds.support import of_type, run, script, text, tool_use

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "claude_bounds.json"
_LINES = (
    "import sys; sys.{stream}.write("
    "''.join(f'line {{i:06d}} ' + 'x' * 88 + '\\n' for i in range({n}))); sys.exit({code})"
)
_PATH = re.compile(r"Full output saved to: (\S+)\n")


def _recorded(case: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads(_FIXTURE.read_text())[case]
    return recorded


def _command(stream: str, lines: int, code: int = 0) -> str:
    return "python3 -c " + shlex.quote(_LINES.format(stream=stream, n=lines, code=code))


def _recorded_results(case: str) -> list[dict[str, Any]]:
    return [
        item["tool_result"]
        for request in _recorded(case)["model_view"]
        for item in request["seen"]
        if "tool_result" in item
    ]


def _recorded_payloads(case: str, event: str) -> list[dict[str, Any]]:
    return [h["payload"] for h in _recorded(case)["hooks"] if h["event"] == event]


def _without_path(content: str) -> str:
    return _PATH.sub("Full output saved to: <path>\n", content)


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A project, and a ``--settings`` file whose tool hooks append their stdin to a log."""
    project = tmp_path / "project"
    project.mkdir()
    log = tmp_path / "payloads.jsonl"
    keep = f"{shlex.quote(sys.executable)} -c {shlex.quote(_KEEP)} {shlex.quote(str(log))}"
    hook = [{"matcher": "*", "hooks": [{"type": "command", "command": keep}]}]
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": {"PostToolUse": hook, "PostToolUseFailure": hook}}))
    return project, settings


_KEEP = "import sys; open(sys.argv[1], 'a').write(sys.stdin.read().strip() + '\\n')"


def _payloads(tmp_path: Path, event: str) -> list[dict[str, Any]]:
    lines = (tmp_path / "payloads.jsonl").read_text().splitlines()
    payloads = [json.loads(line) for line in lines]
    return [p for p in payloads if p["hook_event_name"] == event]


def _bash(tmp_path: Path, *commands: str, env: dict[str, str] | None = None) -> list[Any]:
    """Run the commands as the model's Bash calls (one reply each); the tool results logged."""
    project, settings = _project(tmp_path)
    replies = [tool_use("Bash", f"toolu_{n}", command=c) for n, c in enumerate(commands)]
    model = script(tmp_path, *replies, text("done"))
    flags = ("--settings", str(settings), "--permission-mode", "bypassPermissions")
    done = run(tmp_path, project, model, *flags, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return of_type(tmp_path, "tool/result")


def test_an_output_over_30000_characters_is_saved_and_previewed_as_claude_code_does(
    tmp_path: Path,
) -> None:
    [result] = _bash(tmp_path, _command("stdout", 1000))
    [recorded] = _recorded_results("bash-stdout-100k")
    content = result["content"]
    assert _without_path(content) == _without_path(recorded["content"])
    assert result.get("is_error", False) is False
    saved = Path(_PATH.findall(content)[0])
    assert saved.parent.name == "tool-results"
    assert saved.parent.parent.parent == tmp_path / "sessions"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert saved.read_bytes() == b"".join(
        f"line {i:06d} {'x' * 88}\n".encode() for i in range(1000)
    )
    # The PostToolUse hook sees the first 30,000 characters and where the rest is.
    [payload] = _payloads(tmp_path, "PostToolUse")
    [expected] = _recorded_payloads("bash-stdout-100k", "PostToolUse")
    response, wanted = payload["tool_response"], expected["tool_response"]
    assert list(response) == list(wanted)
    assert len(response["stdout"]) == wanted["stdout"]["length"] == 30_000
    assert response["stdout"].startswith(wanted["stdout"]["head"])
    assert response["stdout"].endswith(wanted["stdout"]["tail"])
    assert response["persistedOutputPath"] == str(saved)
    assert response["persistedOutputSize"] == wanted["persistedOutputSize"] == 101_000


def test_stderr_is_merged_and_saved_the_same_way(tmp_path: Path) -> None:
    [result] = _bash(tmp_path, _command("stderr", 1000))
    [recorded] = _recorded_results("bash-stderr-100k")
    assert _without_path(result["content"]) == _without_path(recorded["content"])


def test_ten_megabytes_of_output_reach_the_model_as_a_preview(tmp_path: Path) -> None:
    [result] = _bash(tmp_path, _command("stdout", 100_000))
    [recorded] = _recorded_results("bash-10mb")
    assert _without_path(result["content"]) == _without_path(recorded["content"])
    assert len(result["content"]) < 2_300
    assert Path(_PATH.findall(result["content"])[0]).stat().st_size == 10_100_000


def test_a_long_failure_is_cut_in_the_middle_and_not_saved(tmp_path: Path) -> None:
    [result] = _bash(tmp_path, _command("stdout", 1000, code=1))
    [recorded] = _recorded_results("bash-fail-stdout-100k")
    assert result["is_error"] is True
    assert result["content"] == recorded["content"]
    assert len(result["content"]) == 10_040
    assert "\n\n... [20012 characters truncated] ...\n\n" in result["content"]
    [payload] = _payloads(tmp_path, "PostToolUseFailure")
    [expected] = _recorded_payloads("bash-fail-stdout-100k", "PostToolUseFailure")
    assert payload["error"] == expected["error"] == recorded["content"]
    assert not list((tmp_path / "sessions").rglob("tool-results/*"))


def test_a_failure_on_stderr_is_cut_the_same_way(tmp_path: Path) -> None:
    [result] = _bash(tmp_path, _command("stderr", 1000, code=3))
    [recorded] = _recorded_results("bash-fail-stderr-100k")
    assert result["content"] == recorded["content"]


def test_bash_max_output_length_raises_the_bound_and_the_result_limit_still_holds(
    tmp_path: Path,
) -> None:
    env = {"BASH_MAX_OUTPUT_LENGTH": "50000"}
    results = _bash(tmp_path, _command("stdout", 400), _command("stdout", 1000), env=env)
    recorded = _recorded_results("bash-limit-env")
    assert [_without_path(r["content"]) for r in results] == [
        _without_path(r["content"]) for r in recorded
    ]
    under, over = _payloads(tmp_path, "PostToolUse")
    was_under, was_over = _recorded_payloads("bash-limit-env", "PostToolUse")
    # Under BASH_MAX_OUTPUT_LENGTH: the whole output for the hook; the model's result is
    # persisted past Bash's 30,000-character result limit, which the hook does not see.
    assert list(under["tool_response"]) == list(was_under["tool_response"])
    assert len(under["tool_response"]["stdout"]) == was_under["tool_response"]["stdout"]["length"]
    assert "persistedOutputPath" not in under["tool_response"]
    # Over it: the first 50,000 characters (less the cut line's trailing space).
    assert len(over["tool_response"]["stdout"]) == was_over["tool_response"]["stdout"]["length"]
    assert over["tool_response"]["persistedOutputSize"] == 101_000


def test_bash_max_output_length_is_capped_at_150000(tmp_path: Path) -> None:
    env = {"BASH_MAX_OUTPUT_LENGTH": "500000"}
    [result] = _bash(tmp_path, _command("stdout", 2000), env=env)
    [recorded] = _recorded_results("bash-limit-env-clamp")
    assert _without_path(result["content"]) == _without_path(recorded["content"])
    [payload] = _payloads(tmp_path, "PostToolUse")
    assert len(payload["tool_response"]["stdout"]) == 150_000
    assert payload["tool_response"]["persistedOutputSize"] == 202_000


def test_an_output_just_over_the_bound_is_saved(tmp_path: Path) -> None:
    results = _bash(tmp_path, _command("stdout", 300), _command("stdout", 301))
    recorded = _recorded_results("bash-just-over")
    assert [_without_path(r["content"]) for r in results] == [
        _without_path(r["content"]) for r in recorded
    ]


def test_an_edit_failure_is_shown_whole_as_claude_code_shows_it(tmp_path: Path) -> None:
    """Claude Code 2.1.332 gives an Edit's failure whole, its 100,000-character old_string
    quoted (``edit-error``); only a command's failure is cut in the middle."""
    project, settings = _project(tmp_path)
    (project / "f.txt").write_text("hello\n")
    old = "Q" * 100_000
    path = str(project / "f.txt")
    replies = [
        tool_use("Read", "toolu_r", file_path=path),
        tool_use("Edit", "toolu_a", file_path=path, old_string=old, new_string="x"),
    ]
    model = script(tmp_path, *replies, text("done"))
    flags = ("--settings", str(settings), "--permission-mode", "bypassPermissions")
    done = run(tmp_path, project, model, *flags)
    assert done.returncode == 0, done.stdout + done.stderr
    [_read, result] = of_type(tmp_path, "tool/result")
    [recorded] = [r for r in _recorded_results("edit-error") if r.get("is_error")]
    assert result["is_error"] is True
    assert recorded["content"]["length"] == 100_078
    assert f"String: {old}" in result["content"]
    assert "characters truncated" not in result["content"]
    [payload] = _payloads(tmp_path, "PostToolUseFailure")
    assert old in payload["error"]
