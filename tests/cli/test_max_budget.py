"""``--max-budget-usd``: the spend cap on a run, priced from the replies' reported usage by
dsh's price table, through the real command and loop with a scripted model that reports
usage and names the model it stands for (``claude-sonnet-4-5``: $3 and $15 per Mtok).

Each reply reports 1,000 input and 100 output tokens: $0.0045 a reply. Under a $0.005 cap
the first Bash call runs ($0.0045 spent), the second reply reaches the cap ($0.0090): its
call is denied and the turn ends there, as 2.1.332's engine ends it (the model is not asked
again, no Stop hook fires), and the result is its budget stop (``error_max_budget_usd``,
``is_error``, "Reached maximum budget").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.support import run_dsh

USAGE = {"type": "usage", "input_tokens": 1000, "output_tokens": 100}


TOOLS_THEN_DONE: list[list[dict[str, Any]]] = [
    [{"type": "tool_use", "name": "Bash", "input": {"command": "echo one"}}, USAGE],
    [{"type": "tool_use", "name": "Bash", "input": {"command": "echo two"}}, USAGE],
    [{"type": "text", "text": "done"}, USAGE],
]


def script(
    path: Path, model: str = "claude-sonnet-4-5", replies: list[Any] = TOOLS_THEN_DONE
) -> str:
    body = {"model": model, "rules": [{"responses": replies}]}
    path.write_text(json.dumps({"anthropic": body}))
    return f"scripted:{path}"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "sessions")}


def results(
    tmp_path: Path,
    env: dict[str, str],
    *flags: str,
    model: str = "claude-sonnet-4-5",
    replies: list[Any] = TOOLS_THEN_DONE,
) -> tuple[list[dict[str, Any]], str]:
    done = run_dsh(
        "run",
        "go",
        "--model",
        script(tmp_path / "s.json", model, replies),
        "--permission-mode",
        "bypassPermissions",
        "--output-format",
        "stream-json",
        "--verbose",
        *flags,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def tool_results(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        block
        for line in lines
        if line["type"] == "user"
        for block in line["message"]["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]


def test_the_call_after_the_cap_is_denied_and_the_result_is_a_budget_stop(
    tmp_path: Path, env: dict[str, str]
) -> None:
    lines, _ = results(tmp_path, env, "--max-budget-usd", "0.005")
    first, second = tool_results(lines)
    assert "one" in json.dumps(first["content"])
    assert second["is_error"] is True
    assert "spend cap is reached: $0.0090 of $0.0050" in json.dumps(second["content"])
    [result] = [line for line in lines if line["type"] == "result"]
    assert (result["subtype"], result["is_error"]) == ("error_max_budget_usd", True)
    assert result["terminal_reason"] == "budget_exhausted"
    assert result["errors"] == ["Reached maximum budget ($0.005)"]
    assert result["total_cost_usd"] == pytest.approx(0.009)  # two calls: no third
    assert result["num_turns"] == 2
    assert [d["tool_input"] for d in result["permission_denials"]] == [{"command": "echo two"}]
    said = [b for line in lines if line["type"] == "assistant" for b in line["message"]["content"]]
    assert not any(b.get("text") == "done" for b in said)


def test_a_text_reply_at_the_cap_ends_the_turn_without_its_stop_hook(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The reply that reaches the cap has no tool call: the Stop hook, which would block and
    ask the model again, does not fire."""
    (tmp_path / ".claude").mkdir()
    stop = {"type": "command", "command": "echo stop >> stop-fired.txt; exit 2"}
    settings = {"hooks": {"Stop": [{"hooks": [stop]}]}}
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(settings))
    replies = [[{"type": "text", "text": "done"}, USAGE], [{"type": "text", "text": "again"}]]
    lines, _ = results(
        tmp_path, env, "--max-budget-usd", "0.004", "--trust-project", replies=replies
    )
    assert not (tmp_path / "stop-fired.txt").exists()
    [result] = [line for line in lines if line["type"] == "result"]
    assert (result["subtype"], result["num_turns"]) == ("error_max_budget_usd", 1)


def test_under_the_cap_nothing_changes(tmp_path: Path, env: dict[str, str]) -> None:
    lines, _ = results(tmp_path, env, "--max-budget-usd", "1")
    assert all(not r.get("is_error") for r in tool_results(lines))
    [result] = [line for line in lines if line["type"] == "result"]
    assert (result["subtype"], result["is_error"]) == ("success", False)
    assert "errors" not in result


def test_the_terminal_shows_the_cap_reached(tmp_path: Path, env: dict[str, str]) -> None:
    done = run_dsh(
        "run",
        "go",
        "--model",
        script(tmp_path / "s.json"),
        "--permission-mode",
        "bypassPermissions",
        "--max-budget-usd",
        "0.005",
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "spend cap reached: $0.0090 of $0.0050 spent" in shown
    assert "spend cap is reached" in shown  # the denied call, as the model reads it


def test_a_model_without_a_price_is_named_and_not_counted(
    tmp_path: Path, env: dict[str, str]
) -> None:
    lines, _ = results(tmp_path, env, "--max-budget-usd", "0.005", model="my-local-model")
    assert all(not r.get("is_error") for r in tool_results(lines))
    [result] = [line for line in lines if line["type"] == "result"]
    assert result["subtype"] == "success"
    done = run_dsh(
        "run",
        "go",
        "--model",
        script(tmp_path / "s.json", "my-local-model"),
        "--permission-mode",
        "bypassPermissions",
        "--max-budget-usd",
        "0.005",
        cwd=tmp_path,
        env=env,
    )
    shown = done.stdout + done.stderr
    assert "spend cap: no price for model my-local-model; its calls are not counted" in shown
    assert "spend cap reached" not in shown


@pytest.mark.parametrize("amount", ["0", "-1", "lots"])
def test_a_cap_that_is_not_a_positive_amount_is_refused(
    tmp_path: Path, env: dict[str, str], amount: str
) -> None:
    done = run_dsh(
        "run",
        "go",
        "--model",
        script(tmp_path / "s.json"),
        "--max-budget-usd",
        amount,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 2
    assert "--max-budget-usd" in done.stderr
    assert "Traceback" not in done.stderr
