"""The plugin shown in docs/plugins.md and README.md runs, as printed, through the real loop."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.context import Context
from dsh.session import ToolCallEvent, ToolResultEvent, project
from tests.agent.support import bash, make_harness, replies, text

ROOT = Path(__file__).resolve().parents[2]


def first_python_block(doc: Path, heading: str) -> str:
    body = doc.read_text().split(heading, 1)[1]
    match = re.search(r"```python\n(.*?)```", body, re.S)
    assert match is not None, f"no python block after {heading!r} in {doc}"
    return match.group(1)


@pytest.mark.parametrize(
    ("doc", "heading"),
    [("docs/plugins.md", "## A plugin in ten lines"), ("README.md", "### A plugin in ten lines")],
)
async def test_the_ten_line_plugin_denies_a_force_push(
    tmp_path: Path, doc: str, heading: str
) -> None:
    source = first_python_block(ROOT / doc, heading)
    assert len(source.strip().splitlines()) <= 12
    namespace: dict[str, Any] = {}
    exec(compile(source, doc, "exec"), namespace)
    plugin = namespace["no_force_push"]

    h = make_harness(
        tmp_path,
        replies(
            [bash("git push --force origin main")],
            [bash("echo safe")],
            [text("done")],
        ),
    )
    h.ctx.plugin(plugin)
    agent = h.agent()
    agent.send("ship it")
    await agent.run_turn()
    results = [e for e in agent.events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [True, False]
    assert results[0].code == "DENIED"
    assert results[0].content == "force-push is not allowed here"
    calls = [e for e in agent.events if isinstance(e, ToolCallEvent)]
    assert calls[0].arguments["command"] == "git push --force origin main"
    tool_results = [m for m in project(agent.events) if m.role == "tool"]
    assert tool_results[0].content == "force-push is not allowed here"
    await agent.close("other")


def test_the_ten_line_plugin_is_a_context_plugin() -> None:
    namespace: dict[str, Any] = {}
    exec(first_python_block(ROOT / "docs/plugins.md", "## A plugin in ten lines"), namespace)
    scope = Context().plugin(namespace["no_force_push"])
    assert scope.name == "no_force_push"


async def test_the_output_replacement_example_redacts_what_the_model_sees(tmp_path: Path) -> None:
    source = first_python_block(ROOT / "docs/plugins.md", "## Output replacement")
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/plugins.md", "exec"), namespace)
    h = make_harness(tmp_path, replies([bash("echo sk-abc123")], [text("done")]))
    h.ctx.plugin(namespace["redact_keys"])
    agent = h.agent()
    agent.send("show the key")
    await agent.run_turn()
    (result,) = [e for e in agent.events if isinstance(e, ToolResultEvent)]
    assert result.content == "[key]-abc123"
    assert result.output["stdout"] == "[key]-abc123"
    tool_results = [m for m in project(agent.events) if m.role == "tool"]
    assert tool_results[0].content == "[key]-abc123"
    await agent.close("other")


async def test_the_call_state_example_times_each_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    source = first_python_block(ROOT / "docs/plugins.md", "## A call's own state")
    namespace: dict[str, Any] = {}
    exec(compile(source, "docs/plugins.md", "exec"), namespace)
    h = make_harness(tmp_path, replies([bash("echo one")], [bash("echo two")], [text("done")]))
    h.ctx.plugin(namespace["timings"])
    agent = h.agent()
    agent.send("run both")
    with caplog.at_level(logging.INFO, logger="timings"):
        await agent.run_turn()
    await agent.close("other")
    lines = [r.getMessage() for r in caplog.records if r.name == "timings"]
    assert len(lines) == 2
    assert all(re.fullmatch(r"Bash took \d+\.\d{3} s", line) for line in lines)


async def test_the_python_hook_example_refuses_rm_rf_through_the_bridge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.hooks_claude.bridge_support import mount_hooks

    source = first_python_block(ROOT / "docs/plugins.md", "## Writing a hook in Python")
    hook = tmp_path / "no_rm_rf.py"
    hook.write_text(source)
    h = make_harness(tmp_path, replies([bash("rm -rf build")], [bash("echo ok")], [text("done")]))
    handler = {"type": "command", "command": f"{sys.executable} {hook}"}
    hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}
    rig = mount_hooks(tmp_path, monkeypatch, h, hooks, None)
    agent, _ = await rig.run("clean up")
    results = [e for e in agent.events if isinstance(e, ToolResultEvent)]
    assert [r.is_error for r in results] == [True, False]
    assert results[0].content == "PreToolUse:Bash hook error: rm -rf is not allowed here"


def fenced_block(doc: Path, heading: str, language: str) -> str:
    body = doc.read_text().split(heading, 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", body, re.S)
    assert match is not None, f"no {language} block after {heading!r} in {doc}"
    return match.group(1)


def test_the_embedding_example_runs_as_printed_and_prints_what_the_doc_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = ROOT / "docs/embedding.md"
    source = first_python_block(doc, "## A host in ten lines")
    main = source.split("async def main", 1)[1]
    host_part = main.split("result = await host.agent.run_turn()", 1)[0]
    assert len(host_part.strip().splitlines()) <= 10  # open a host, mount, run a turn
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))  # its temporary project
    exec(compile(source, "docs/embedding.md", "exec"), {"__name__": "__main__"})
    assert capsys.readouterr().out == fenced_block(doc, "It prints:", "text")
    assert list(tmp_path.iterdir()) == []  # the example cleaned up after itself


def test_plugins_md_says_where_ctx_comes_from() -> None:
    text = (ROOT / "docs/plugins.md").read_text()
    assert "(embedding.md)" in text
    assert "[docs/embedding.md](docs/embedding.md)" in (ROOT / "README.md").read_text()


@pytest.mark.parametrize(("heading", "count"), [("## A plugin test", 1), ("## A hook test", 3)])
def test_the_testing_examples_pass_as_printed(heading: str, count: int) -> None:
    source = first_python_block(ROOT / "docs/testing.md", heading)
    namespace: dict[str, Any] = {"__name__": "test_from_docs"}
    exec(compile(source, "docs/testing.md", "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert len(tests) == count
    for test in tests:
        test()  # each asserts, as pytest would run it


def test_the_readme_links_the_testing_docs() -> None:
    assert "[docs/testing.md](docs/testing.md)" in (ROOT / "README.md").read_text()
