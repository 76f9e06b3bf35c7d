"""The tools 2.1.332 defers behind ToolSearch, against its recording
(``tests/fixtures/claude_deferred_tools.json``, ``benchmarks/record_claude_deferred_tools.py``).

dsh offers the same 15 deferred tools with 2.1.332's names, descriptions and input schemas,
named in the announcement in 2.1.332's order; NotebookEdit and TaskStop run through the real
loop with real files and processes and answer in 2.1.332's words; the others answer that they
are not available in dsh.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsh.models import ScriptedModel
from dsh.session import ToolResultEvent
from dsh.tools._deferred import deferred_announcement
from dsh.tools.builtin import builtin_tools
from dsh.tools.builtin._unavailable import UNAVAILABLE_TOOLS, not_available
from tests.agent.support import make_harness, of_type, replies, text, tool

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "claude_deferred_tools.json"
RECORDED: dict[str, Any] = json.loads(FIXTURE.read_text())
PLAIN = RECORDED["plain"]
RESULTS = {r["tool_use_id"]: r for r in PLAIN["results"]}
NOTEBOOK: dict[str, Any] = RECORDED["inputs"]["notebook"]  # the recording's own


def test_the_deferred_tools_are_2_1_332s_word_for_word() -> None:
    recorded = {t["name"]: t for t in PLAIN["tools"] if t["defer_loading"]}
    del recorded["DeferredToolPlaceholder"]  # 2.1.332's own placeholder, never a tool
    ours = {t.name: t for t in builtin_tools() if t.deferred}
    ours["SendMessage"] = next(t for t in _with_agent_tools() if t.name == "SendMessage")
    assert set(ours) == set(recorded)
    # The ones dsh added (the task tools' and SendMessage's schemas have tests of their own).
    for name in (t.name for t in builtin_tools()[12:]):
        assert ours[name].description == recorded[name]["description"], name
        assert dict(ours[name].input_schema) == recorded[name]["input_schema"], name
    # The announcement names them in 2.1.332's order, in its words.
    announced = PLAIN["announcement"][-1].split(":\n", 1)[1].split("\n")
    ours_announced = deferred_announcement(_with_agent_tools())
    assert ours_announced is not None
    assert ours_announced.split(":\n", 1)[1].split("\n") == announced
    assert ours_announced == PLAIN["announcement"][-1] == RECORDED["git"]["announcement"][-1]


def _with_agent_tools() -> list[Any]:
    from dsh.agent._send_message_tool import SEND_MESSAGE_TOOL

    return [*builtin_tools(), SEND_MESSAGE_TOOL]


def _call(ident: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {**tool(name, **arguments), "id": ident}


async def test_notebook_edit_answers_as_2_1_332(tmp_path: Path) -> None:
    project = tmp_path / "project"
    nb, other = str(project / "nb.ipynb"), str(project / "other.ipynb")
    calls = [
        _call("toolu_rd", "Read", file_path=nb),
        _call("toolu_nb1", "NotebookEdit", notebook_path=nb, cell_id="c1", new_source="print(2)"),
        _call(
            "toolu_nb2",
            "NotebookEdit",
            notebook_path=nb,
            cell_id="c1",
            new_source="## Inserted",
            cell_type="markdown",
            edit_mode="insert",
        ),
        _call(
            "toolu_nb3", "NotebookEdit", notebook_path=nb, cell_id="c2", new_source="",
            edit_mode="delete",
        ),
        _call("toolu_nb4", "NotebookEdit", notebook_path=nb, cell_id="nope", new_source="x"),
        _call("toolu_nb5", "NotebookEdit", notebook_path=other, cell_id="c1", new_source="x"),
        _call("toolu_nb6", "NotebookEdit", notebook_path=nb, new_source="x", edit_mode="insert"),
        _call(
            "toolu_nb7", "NotebookEdit", notebook_path=nb, new_source="first", cell_type="code",
            edit_mode="insert",
        ),
        _call("toolu_nb8", "NotebookEdit", notebook_path=nb, cell_id="cell-1", new_source="y"),
    ]  # fmt: skip
    h = make_harness(tmp_path, replies(*([c] for c in calls), [text("done")]))
    (project / "nb.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    (project / "other.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    agent = h.agent()
    agent.send("edit the notebook")
    assert (await agent.run_turn()).final_text == "done"
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    ids: dict[str, str] = {}
    for call in calls[1:]:
        ours, theirs = results[call["id"]], RESULTS[call["id"]]
        assert ours.is_error == bool(theirs.get("is_error")), call["id"]
        recorded_text = theirs["content"]
        found = re.match(r"Inserted cell (\w{8}) ", recorded_text)
        if found:  # a new cell's id is random: the same shape, then the same text
            new = re.match(r"Inserted cell (\w{8}) ", str(ours.content))
            assert new is not None, ours.content
            ids[found.group(1)] = new.group(1)
            recorded_text = recorded_text.replace(found.group(1), new.group(1))
        assert ours.content == recorded_text, call["id"]
    after = PLAIN["notebook_after"]
    written = json.loads((project / "nb.ipynb").read_text())
    for cell in after["cells"]:
        cell["id"] = ids.get(cell["id"], cell["id"])
    # The recording's first insert's id is the final notebook's first cell, whichever it was.
    assert [c["id"] for c in written["cells"]][1:] == [c["id"] for c in after["cells"]][1:]
    for ours_cell, theirs_cell in zip(written["cells"], after["cells"], strict=True):
        assert {k: v for k, v in ours_cell.items() if k != "id"} == {
            k: v for k, v in theirs_cell.items() if k != "id"
        }
        assert list(ours_cell) == list(theirs_cell)  # 2.1.332's key order
    assert (project / "other.ipynb").read_text() == json.dumps(NOTEBOOK, indent=1)
    # The notebook as 2.1.332 writes it: one-space indent, no final newline added.
    assert (project / "nb.ipynb").read_text() == json.dumps(written, indent=1)
    output = results["toolu_nb1"].output
    assert output is not None
    assert list(output) == [
        "new_source", "old_source", "cell_type", "language", "edit_mode", "cell_id", "error",
        "notebook_path", "original_file", "updated_file",
    ]  # fmt: skip
    assert output["old_source"] == "print(1)"
    assert output["notebook_path"] == nb


async def test_notebook_edit_refuses_a_notebook_changed_since_read(tmp_path: Path) -> None:
    project = tmp_path / "project"
    nb = project / "nb.ipynb"
    h = make_harness(
        tmp_path,
        replies(
            [_call("r", "Read", file_path=str(nb))],
            [_call("t", "Bash", command=f"sleep 0.01; touch {nb}")],
            [_call("e", "NotebookEdit", notebook_path=str(nb), cell_id="c1", new_source="x")],
            [_call("n", "NotebookEdit", notebook_path=str(project / "a.txt"), new_source="x")],
            [text("done")],
        ),
    )
    nb.write_text(json.dumps(NOTEBOOK))
    agent = h.agent()
    agent.send("edit")
    await agent.run_turn()
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    assert results["e"].is_error
    assert results["e"].content == (
        "<tool_use_error>File has been modified since read, either by the user or by a linter."
        " Read it again before attempting to write it.</tool_use_error>"
    )
    assert results["n"].content == (
        "<tool_use_error>File must be a Jupyter notebook (.ipynb file). For editing other file"
        " types, use the FileEdit tool.</tool_use_error>"
    )
    assert json.loads(nb.read_text()) == NOTEBOOK


async def test_task_stop_stops_a_background_shell(tmp_path: Path) -> None:
    marker = tmp_path / "still-running"
    first = replies(
        [_call("bg", "Bash", command=f"sleep 30; touch {marker}", run_in_background=True)],
        [text("started")],
    )
    h = make_harness(tmp_path, first)
    agent = h.agent()
    agent.send("start it")
    await agent.run_turn()
    started = of_type(agent.session.events, ToolResultEvent)[-1]
    assert started.output is not None
    shell_id = started.output["backgroundTaskId"]
    stop = replies(
        [text("unused")],  # the two replies of the first turn
        [text("unused")],
        [_call("ts", "TaskStop", task_id=shell_id)],
        [_call("ts2", "TaskStop", task_id=shell_id)],
        [_call("ts3", "TaskStop", task_id="nonexistent")],
        [_call("ts4", "TaskStop")],
        [text("stopped")],
    )
    await agent.switch_model(ScriptedModel(stop), requested="scripted")
    agent.send("stop it")
    await agent.run_turn()
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    assert results["ts"].content == json.dumps(
        {
            "message": f"Successfully stopped task: {shell_id} (sleep 30; touch {marker})",
            "task_id": shell_id,
            "task_type": "local_bash",
            "command": f"sleep 30; touch {marker}",
        },
        separators=(",", ":"),
    )
    assert not results["ts"].is_error
    # Once stopped it is not running (2.1.332: killed); the recorded refusals word for word.
    assert results["ts2"].content == (
        f"<tool_use_error>Task {shell_id} is not running (status: killed)</tool_use_error>"
    )
    assert results["ts3"].content == RESULTS["toolu_ts2"]["content"]
    assert results["ts4"].content == RESULTS["toolu_ts3"]["content"]
    assert all(results[k].is_error for k in ("ts2", "ts3", "ts4"))
    assert not marker.exists()


@pytest.mark.parametrize("name", [t.name for t in UNAVAILABLE_TOOLS])
def test_the_others_say_they_are_not_available(name: str, tmp_path: Path) -> None:
    assert not_available(name).startswith(f"{name} is not available in dsh")


async def test_an_unavailable_tool_answers_through_the_loop(tmp_path: Path) -> None:
    h = make_harness(
        tmp_path,
        replies(
            [_call("s", "ToolSearch", query="select:WebSearch")],
            [_call("w", "WebSearch", query="dsh harness")],
            [text("done")],
        ),
    )
    agent = h.agent()
    agent.send("search")
    await agent.run_turn()
    results = {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}
    await agent.close()
    assert results["w"].is_error
    assert results["w"].content == not_available("WebSearch")
    offered = {t["name"] for t in h.requests()[1]["tools"]}
    assert "WebSearch" in offered
