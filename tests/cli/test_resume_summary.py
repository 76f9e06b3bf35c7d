"""``dsh run --resume`` shows the earlier history as one summary line, not reprinted."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import dsh, write_script


def test_a_resumed_run_summarizes_the_history_and_prints_only_its_own_turn(
    tmp_path: Path,
) -> None:
    script = write_script(
        tmp_path / "script.json",
        [[{"type": "text", "text": "FIRST-ANSWER"}], [{"type": "text", "text": "SECOND-ANSWER"}]],
    )
    sessions = tmp_path / "sessions"
    base = ["--model", f"scripted:{script}", "--project", str(tmp_path)]
    base += ["--session-dir", str(sessions)]
    first = dsh("run", "FIRST-PROMPT", *base, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "FIRST-ANSWER" in first.stdout
    assert "resumed session" not in first.stdout
    [log] = sessions.glob("*.jsonl")
    again = dsh("run", "--resume", log.stem, *base, "SECOND-PROMPT", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"resumed session {log.stem[:8]} (1 turn" in again.stdout
    assert "> FIRST-PROMPT" not in again.stdout  # named in the summary line only
    assert "FIRST-ANSWER" not in again.stdout
    assert "SECOND-PROMPT" in again.stdout
    assert "SECOND-ANSWER" in again.stdout
