"""The live view's output for each kind of event, on a terminal console, and the plain CLI paths.

The view is fed real session events (as the agent's ``on_event`` would) and
prints to a rich console that believes it is a terminal; what reaches it from
hooks, tools and the model must arrive terminal-safe.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from dsh.base import freeze_json
from dsh.cli._live import LiveView
from dsh.cli._render import TranscriptPrinter
from dsh.hook_protocol import HookInvocationEvent, HookResultEvent
from dsh.models import ModelError, RetryNotice
from dsh.session import AssistantMessageEvent, ContextMessageEvent, ToolCallEvent, ToolResultEvent
from tests.cli.test_cli import dsh, write_script

_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _plain(out: io.StringIO) -> str:
    """What was written, without the styling and cursor sequences rich itself sends."""
    return _CSI.sub("", out.getvalue())


def _view(project: Path) -> tuple[LiveView, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=True, no_color=True, highlight=False)
    return LiveView(TranscriptPrinter(console), project=project), out


def _invocation(command: tuple[str, ...]) -> HookInvocationEvent:
    return HookInvocationEvent(
        hook_event="PreToolUse",
        source="project",
        group=0,
        index=0,
        command=command,
        timeout=5.0,
        payload_sha256="0" * 64,
        payload_bytes=2,
    )


def _result(invocation: HookInvocationEvent, **fields: object) -> HookResultEvent:
    return HookResultEvent(
        invocation_id=invocation.id,
        hook_event="PreToolUse",
        source="project",
        group=0,
        index=0,
        duration=0.25,
        **fields,  # type: ignore[arg-type]
    )


def test_hostile_text_from_a_hook_and_the_model_reaches_the_terminal_escaped(
    tmp_path: Path,
) -> None:
    view, out = _view(tmp_path)
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    call = _invocation(("sh", "-c", f"guard{hostile}.sh"))
    view.on_event(call)
    view.on_event(
        _result(call, exit_code=1, no_decision="nonzero_exit", stderr=f"bad{hostile}\nmore")
    )
    view.on_text(f"streamed {hostile} text\n\nrest")
    view.on_event(AssistantMessageEvent(text=f"streamed {hostile} text\n\nrest"))
    view.close()
    raw = out.getvalue()
    assert "\x1b]0;pwned" not in raw
    assert "\x07" not in raw
    assert "\x1b[2J" not in raw
    shown = _plain(out)
    assert "\\x1b]0;pwned\\x07" in shown
    # Claude Code's form of a non-blocking failure: the first stderr line only.
    assert "PreToolUse hook error" in shown
    assert "Failed with non-blocking status code: bad" in shown
    assert "more" not in shown


def test_each_hook_run_shows_its_event_command_decision_and_duration(tmp_path: Path) -> None:
    view, out = _view(tmp_path)
    call = _invocation(("sh", "-c", "python3 check.py"))
    view.on_event(call)
    decision = {"exit_code": 0, "output": {"hookSpecificOutput": {"permissionDecision": "deny"}}}
    view.on_event(_result(call, exit_code=0, decision=freeze_json(decision)))
    slow = _invocation(("sh", "-c", "sleep 99"))
    view.on_event(slow)
    view.on_event(_result(slow, timed_out=True, no_decision="timed_out"))
    view.close()
    shown = _plain(out)
    assert "PreToolUse hook python3 check.py → deny · 250ms" in shown
    assert "PreToolUse hook error: [sleep 99] timed out" in shown


def test_a_write_is_shown_as_a_diff_of_the_file(tmp_path: Path) -> None:
    view, out = _view(tmp_path)
    target = tmp_path / "notes.txt"
    target.write_text("keep\nold line\n")
    args = freeze_json({"file_path": "notes.txt", "content": "keep\nnew line\n"})
    view.on_event(ToolCallEvent(token="t1", tool_name="Write", arguments=args))
    target.write_text("keep\nnew line\n")  # what the tool did
    view.on_event(ToolResultEvent(token="t1", content="File written"))
    view.close()
    shown = _plain(out)
    assert "Write(notes.txt)" in shown
    assert "-old line" in shown
    assert "+new line" in shown
    assert "File written" not in shown


def test_long_context_is_folded_and_retries_show_cause_and_delay(tmp_path: Path) -> None:
    view, out = _view(tmp_path)
    view.session_hint = "dsh log S1"
    body = "\n".join(f"rule {i}" for i in range(30))
    view.on_event(ContextMessageEvent(source="instructions:CLAUDE.md", text=body))
    view.on_retry(RetryNotice(attempt=2, delay=4.0, error=ModelError("HTTP 503: overloaded")))
    view.close()
    shown = _plain(out)
    assert "rule 3" in shown
    assert "rule 4\n" not in shown
    assert "26 more lines; the whole text: dsh log S1" in shown
    assert "model request failed (attempt 2): HTTP 503: overloaded; retrying in 4.0s" in shown


def test_markdown_is_printed_a_paragraph_at_a_time_as_it_streams(tmp_path: Path) -> None:
    view, out = _view(tmp_path)
    view.on_text("# Title\n\nfirst para")
    assert "Title" in _plain(out)  # the finished paragraph, before the reply is whole
    view.on_text("graph\n\n```\ncode\n\nmore code\n```\n\nend")
    view.on_event(AssistantMessageEvent(text="whole text (already shown)"))
    view.close()
    shown = _plain(out)
    assert "# Title" not in shown  # rendered, not echoed raw
    assert "first paragraph" in shown
    assert "more code" in shown
    assert "already shown" not in shown


def test_a_prompt_on_stdin_runs_as_one_turn(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "GOT-IT"}]])
    args = ["run", "--model", f"scripted:{script}", "--project", str(project)]
    done = dsh(*args, "--session-dir", str(tmp_path / "s"), cwd=tmp_path, stdin="from stdin\n")
    assert done.returncode == 0, done.stderr
    assert "> from stdin" in done.stdout
    assert "GOT-IT" in done.stdout


def test_a_headless_ask_says_nobody_could_approve_and_how_to_allow_it(tmp_path: Path) -> None:
    # `touch` changes files: in `default` mode the permission policy asks, and headless
    # nobody can answer (a PreToolUse hook's own `ask` is refused before that, with its
    # reason, as 2.1.332 does: tests/hooks_claude, case perm-ask-default).
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(
        tmp_path / "script.json",
        [
            [{"type": "tool_use", "name": "Bash", "input": {"command": "touch made"}}],
            [{"type": "text", "text": "ok"}],
        ],
    )
    args = ["run", "go", "--model", f"scripted:{script}", "--project", str(project)]
    done = dsh(*args, "--session-dir", str(tmp_path / "s"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[DENIED] by approval" in done.stdout
    assert "nobody could approve this call" in done.stdout
    assert "PermissionRequest hook" in done.stdout
    assert not (project / "made").exists()


def test_demo_keep_keeps_the_project_and_its_session_log(tmp_path: Path) -> None:
    kept = dsh("demo", "--keep", cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    root = Path(
        kept.stdout.rsplit("kept the demo project and its session log in ", 1)[1].split()[0]
    )
    try:
        [log] = (root / "sessions").glob("*.jsonl")
        assert log.name in kept.stdout.replace("\n", "")
    finally:
        import shutil

        shutil.rmtree(root, ignore_errors=True)


@given(st.lists(st.sampled_from(["para", "", "```", "code", "  ", "~~~"]), max_size=12))
def test_streamed_text_is_cut_only_after_a_blank_line_outside_a_fence(lines: list[str]) -> None:
    from dsh.cli._live import _split_paragraphs

    text = "\n".join(lines) + "\n"
    done, rest = _split_paragraphs(text)
    assert done + rest == text
    if done:
        assert done.endswith("\n")
        assert done.splitlines()[-1].strip() == ""
        fences = sum(1 for line in done.splitlines() if line.lstrip().startswith(("```", "~~~")))
        assert fences % 2 == 0  # never inside an open code block


def test_bare_dsh_reads_a_piped_prompt_and_says_what_to_do_without_one(tmp_path: Path) -> None:
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "PIPED-OK"}]])
    env = {"DSH_MODEL": f"scripted:{script}", "DSH_DATA_DIR": str(tmp_path / "d")}
    done = dsh(cwd=tmp_path, env_extra=env, stdin="hello from a pipe")
    assert done.returncode == 0, done.stderr
    assert "PIPED-OK" in done.stdout
    empty = dsh(cwd=tmp_path, env_extra=env, stdin="")
    assert empty.returncode == 2
    assert "pipe one in on standard input, or run dsh at a terminal" in empty.stderr


def _post_tool_hook() -> tuple[HookInvocationEvent, HookResultEvent]:
    call = HookInvocationEvent(
        hook_event="PostToolUse",
        source="project",
        group=0,
        index=0,
        command=("post-hook.sh",),
        timeout=5.0,
        payload_sha256="0" * 64,
        payload_bytes=2,
    )
    done = HookResultEvent(
        invocation_id=call.id,
        hook_event="PostToolUse",
        source="project",
        group=0,
        index=0,
        duration=0.25,
        exit_code=0,
    )
    return call, done


def test_a_post_tool_use_hooks_line_prints_below_its_tools_line(tmp_path: Path) -> None:
    view, out = _view(tmp_path)
    view.on_event(
        ToolCallEvent(token="t1", tool_name="Bash", arguments=freeze_json({"command": "ls"}))
    )
    call, done = _post_tool_hook()
    view.on_event(call)
    view.on_event(done)  # the hook ends before the tool's result is logged
    view.on_event(ToolResultEvent(token="t1", content="file.txt"))
    view.close()
    lines = _plain(out).splitlines()  # the live region's spinner lines are among them
    tool_at = next(i for i, line in enumerate(lines) if "⏺ Bash(ls) ·" in line)
    hook_at = next(i for i, line in enumerate(lines) if "PostToolUse hook" in line and "→" in line)
    assert tool_at < hook_at


def test_time_waiting_for_an_approval_is_not_the_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [100.0]
    monkeypatch.setattr("dsh.cli._live.time.monotonic", lambda: clock[0])
    view, out = _view(tmp_path)
    view.on_event(
        ToolCallEvent(token="t1", tool_name="Bash", arguments=freeze_json({"command": "ls"}))
    )
    clock[0] += 1.0  # a PreToolUse hook
    with view.paused():  # the approval prompt
        clock[0] += 30.0
    clock[0] += 2.0  # the tool itself
    view.on_event(ToolResultEvent(token="t1", content="file.txt"))
    view.close()
    assert "⏺ Bash(ls) · 3.0s" in _plain(out)


def test_a_compaction_summary_is_not_left_in_the_live_region(tmp_path: Path) -> None:
    from dsh.session import CompactionEnd

    view, out = _view(tmp_path)
    view.on_text("SUMMARY-TEXT")  # the summary streams as the model writes it
    view.on_event(CompactionEnd(summary="SUMMARY-TEXT"))
    view.close()  # the next prompt
    after = _plain(out).split("── compacted: SUMMARY-TEXT ──", 1)[1]
    assert "SUMMARY-TEXT" not in after
