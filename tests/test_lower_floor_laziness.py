"""What a ``dsh run`` imports of the lower floors (agent, tools, models): only what it used.

A turn that calls no tool imports no tool's implementation, no subagent machinery, no
scripted model on an endpoint and no Messages API module for a chat-completions model; the
first call of a tool imports that tool's module. Real processes through the console
script's ``main()`` (``tests/cli/test_startup_laziness``' probe); speed is
``benchmarks/bench_startup.py``'s.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import write_script
from tests.cli.test_startup_laziness import _loaded, _offending
from tests.models.chat_server import Reply, chunk, serving

# The tools' own modules: each imported at its tool's first call.
_TOOL_MODULES = tuple(
    f"dsh.tools.builtin.{m}"
    for m in ("_bash", "_read", "_write", "_glob", "_grep", "_tasks", "_tool_search", "_common")
)
# Subagents: the Agent and SendMessage bodies and all they stand on.
_SUBAGENT_MODULES = tuple(
    f"dsh.agent.{m}"
    for m in (
        "_subagent",
        "_subagent_child",
        "_subagent_launch",
        "_send_message_tool",
        "_handback",
        "_task_output",
    )
)
# Only a tool call runs the phases, is dispatched and has its result bounded; only a sandbox
# asks, only a long history compacts, only a refused input is worded, only a front end asks
# (its own channel), only a task tool makes tasks; the scripted model, Anthropic's format.
_OTHERS = (
    *("dsh.tools._persist", "dsh.tools._sandbox_approval", "dsh.agent._compaction"),
    *("dsh.agent._tool_step", "dsh.tools._input_issues", "dsh.approval._channels"),
    *("dsh.tools._tasks", "dsh.tools._phases", "dsh.tools._dispatch"),
    *("dsh.models._scripted", "dsh.models._script", "dsh.models._anthropic"),
)


def _endpoint_run(tmp_path: Path, *replies: Reply) -> set[str]:
    project = tmp_path / "project"
    project.mkdir()
    with serving(*replies) as server:
        loaded = _loaded(
            tmp_path,
            *("run", "--model", "m", "--base-url", server.url, "--project", str(project), "go"),
            env={"DSH_API_KEY": "k"},
        )
        assert server.seen  # the turn reached the model
    return loaded


def test_a_turn_that_calls_no_tool_imports_no_tool_subagent_or_other_format(
    tmp_path: Path,
) -> None:
    text = Reply(chunks=[chunk({"role": "assistant", "content": "hello"}, "stop")])
    loaded = _endpoint_run(tmp_path, text)
    assert {"dsh.tools.builtin._declarations", "dsh.agent._subagent_tools"} <= loaded
    assert _offending(loaded, (*_TOOL_MODULES, *_SUBAGENT_MODULES, *_OTHERS)) == []


def test_a_tools_first_call_imports_its_module_alone(tmp_path: Path) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "Glob", "arguments": ""}}
    args = json.dumps({"pattern": "*.txt"})
    glob = Reply(
        chunks=[
            chunk({"role": "assistant", "tool_calls": [{**call, "index": 0}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args}}]}, "tool_calls"),
        ]
    )
    done = Reply(chunks=[chunk({"role": "assistant", "content": "done"}, "stop")])
    loaded = _endpoint_run(tmp_path, glob, done)
    assert {"dsh.tools.builtin._glob", "dsh.tools._persist"} <= loaded
    glob_and_common = ("dsh.tools.builtin._glob", "dsh.tools.builtin._common")
    others = tuple(m for m in _TOOL_MODULES if m not in glob_and_common)
    assert _offending(loaded, others) == []
    assert _offending(loaded, _SUBAGENT_MODULES) == []


def test_a_scripted_run_imports_the_scripted_model_and_no_endpoint_format(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    loaded = _loaded(
        tmp_path, "run", "--model", f"scripted:{script}", "--project", str(project), "hi"
    )
    assert "dsh.models._scripted" in loaded
    formats = ("dsh.models._provider", "dsh.models._anthropic", "dsh.models._responses")
    assert _offending(loaded, (*formats, *_TOOL_MODULES, *_SUBAGENT_MODULES)) == []
