"""2.1.332's words for a hook that fails under ``onFailure: "block"`` and for a PreCompact
block, replayed from tests/fixtures/claude_fail_wordings.json (recorded with the real binary:
benchmarks/record_claude_fail_wordings.py) through the real loop and real hook processes,
with the recording's own commands. (Several PermissionRequest denials, the same recording's
``permission-two-denies``, are in test_permission_request.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.session import TurnEndReason
from tests.agent.support import bash, make_harness, replies, text
from tests.cli.support import run_dsh
from tests.hooks_claude.bridge_support import mount_hooks

FIXTURE = Path(__file__).parent.parent / "fixtures" / "claude_fail_wordings.json"
CASES: dict[str, dict[str, Any]] = {c["case"]: c for c in json.loads(FIXTURE.read_text())["cases"]}
HANDLERS: dict[str, tuple[str, dict[str, Any]]] = {
    # The recording's handlers: its event and its declaration.
    "pretool-onfailure-exit1": ("PreToolUse", {"command": "echo OOPS >&2; exit 1"}),
    "pretool-onfailure-silent": ("PreToolUse", {"command": "exit 1"}),
    "pretool-onfailure-timeout": ("PreToolUse", {"command": "sleep 5", "timeout": 1}),
    "prompt-onfailure-exit1": ("UserPromptSubmit", {"command": "echo OOPS >&2; exit 1"}),
    "prompt-exit2": ("UserPromptSubmit", {"command": "echo OOPS >&2; exit 2"}),
}


def _mount(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> Any:
    event, declared = HANDLERS[case]
    failure = {} if case == "prompt-exit2" else {"onFailure": "block"}  # as recorded
    handler = {"type": "command", **failure, **declared}
    harness = make_harness(tmp_path, replies([bash("touch made.txt")], [text("done")]))
    return mount_hooks(tmp_path, monkeypatch, harness, {event: [{"hooks": [handler]}]}, {})


@pytest.mark.parametrize(
    "case", ["pretool-onfailure-exit1", "pretool-onfailure-silent", "pretool-onfailure-timeout"]
)
async def test_a_failed_blocking_pretool_hook_refuses_the_call_in_2_1_332s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    rig = _mount(tmp_path, monkeypatch, case)
    await rig.run("make a file")
    ((recorded,),) = [CASES[case]["tool_results"]]
    seen = [
        (m["content"], m["is_error"]) for m in rig.requests()[1]["messages"] if m["role"] == "tool"
    ]
    assert seen == [(recorded["content"], recorded["is_error"])]
    assert not (rig.harness.project / "made.txt").exists()


async def test_a_failed_blocking_prompt_hook_blocks_the_prompt_without_quoting_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _mount(tmp_path, monkeypatch, "prompt-onfailure-exit1")
    _, result = await rig.run("make a file")
    assert result.end_reason == TurnEndReason.REJECTED
    assert rig.requests() == []
    recorded = CASES["prompt-onfailure-exit1"]["result"]["result"]
    assert [n.text for n in result.notices if n.text.startswith("UserPromptSubmit")] == [recorded]


async def test_an_exit_2_prompt_block_quotes_the_stderr_with_its_newline_and_the_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = _mount(tmp_path, monkeypatch, "prompt-exit2")
    _, result = await rig.run("make a file")
    assert result.end_reason == TurnEndReason.REJECTED
    assert rig.requests() == []
    recorded = CASES["prompt-exit2"]["result"]["result"]
    assert recorded.endswith("OOPS\n\n\nOriginal prompt: make a file")
    assert [n.text for n in result.notices if n.text.startswith("UserPromptSubmit")] == [recorded]


def test_a_precompact_block_is_the_compact_runs_answer_in_every_output_format(
    tmp_path: Path,
) -> None:
    """``/compact`` under a PreCompact hook that exits 2: text prints 2.1.332's line on stdout,
    json and stream-json give it as the ``result`` (not an error), the exit code is 0."""
    (tmp_path / "project").mkdir()
    (tmp_path / "home").mkdir()
    script = tmp_path / "script.json"
    answer = [{"type": "text", "text": "hello there"}]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": [answer]}]}}))
    args = ["--model", f"scripted:{script}", "--project", str(tmp_path / "project")]
    args += ["--session-dir", str(tmp_path / "sessions")]
    env = {"HOME": str(tmp_path / "home")}
    first = run_dsh("run", "hi", *args, cwd=tmp_path, env=env)
    assert first.returncode == 0, first.stderr
    (log,) = (tmp_path / "sessions").glob("*.jsonl")
    command = CASES["precompact-exit2-text"]["command"]
    hooks = {"PreCompact": [{"hooks": [{"type": "command", "command": command}]}]}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    for output in ("text", "json", "stream-json"):
        recorded = CASES[f"precompact-exit2-{output}"]
        done = run_dsh(
            "run", "--resume", log.stem, *args, "--settings", str(settings), "--trust-project",
            "--output-format", output, "--", "/compact", cwd=tmp_path, env=env,
        )  # fmt: skip
        assert [done.returncode] == recorded["exit_codes"][1:], done.stderr
        if output == "text":
            assert done.stdout == recorded["stdout"]
            continue
        results = [json.loads(line) for line in done.stdout.splitlines() if '"result"' in line]
        (result,) = [r for r in results if r.get("type") == "result"]
        assert {k: result[k] for k in ("subtype", "is_error", "result")} == recorded["result"]
