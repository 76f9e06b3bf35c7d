"""What the model is told of bad tool inputs, notebooks in Read and files edited without a
Read, against 2.1.332's recording (``tests/fixtures/claude_tool_texts.json``, made by
``benchmarks/record_claude_tool_texts.py``), through the real loop with a scripted model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.base import thaw_json
from dsh.messages import ImageBlock, TextBlock
from dsh.session import ToolResultEvent
from tests.agent.support import make_harness, of_type, replies, text, tool

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "claude_tool_texts.json"
RECORDED: dict[str, Any] = json.loads(FIXTURE.read_text())
RUN = RECORDED["run"]
RESULTS = {r["tool_use_id"]: r for r in RUN["results"]}
RESPONSES = {
    e["tool_use_id"]: e["tool_response"]
    for e in RUN["hook_events"]
    if e["hook_event_name"] == "PostToolUse"
}
FILES = {
    "a.txt": "one\ntwo\n",
    "b.txt": "bee\n",
    "d.txt": "dee\n",
    "e.txt": "eee\n",
    "nb.ipynb": json.dumps(RECORDED["notebook"], indent=1),
}


EXTRA_CALLS: dict[str, dict[str, Any]] = {
    "toolu_nb": {
        "name": "NotebookEdit",
        "input": {
            "notebook_path": "${PROJECT_DIR}/nb.ipynb",
            "cell_id": "c2",
            "new_source": "# Edited",
        },
    },
}


def _recorded_call(ident: str, project: Path) -> dict[str, Any]:
    call = RESULTS[ident]["call"] if ident in RESULTS else EXTRA_CALLS[ident]
    arguments = json.loads(json.dumps(call["input"]).replace("${PROJECT_DIR}", str(project)))
    return {**tool(call["name"], **arguments), "id": ident}


async def _run(tmp_path: Path, idents: list[str]) -> dict[str, ToolResultEvent]:
    project = tmp_path / "project"
    calls = [_recorded_call(i, project) for i in idents]
    h = make_harness(tmp_path, replies(*([c] for c in calls), [text("done")]))
    for name, content in FILES.items():
        (project / name).write_text(content)
    agent = h.agent()
    agent.send("use the tools")
    assert (await agent.run_turn()).final_text == "done"
    await agent.close()
    return {e.tool_use_id: e for e in of_type(agent.session.events, ToolResultEvent)}


def _recorded_text(ident: str, project: Path) -> Any:
    return json.loads(json.dumps(RESULTS[ident]["content"]).replace("${PROJECT_DIR}", str(project)))


async def test_bad_inputs_are_answered_with_2_1_332s_input_validation_error(
    tmp_path: Path,
) -> None:
    # A missing required field, a wrong type, an unknown key, several at once; Bash, Read, Edit.
    idents = ["toolu_b1", "toolu_b2", "toolu_b3", "toolu_b4", "toolu_r1", "toolu_r2"]
    idents += ["toolu_e5", "toolu_e6"]
    results = await _run(tmp_path, idents)
    for ident in idents:
        ours = results[ident]
        assert ours.is_error, ident
        assert RESULTS[ident]["is_error"], ident
        assert ours.content == _recorded_text(ident, tmp_path / "project"), ident
        assert str(ours.content).startswith("<tool_use_error>InputValidationError: ")
    # The files stay as they were: nothing ran.
    assert (tmp_path / "project" / "a.txt").read_text() == FILES["a.txt"]


def _wire(block: Any) -> dict[str, Any]:
    if isinstance(block, ImageBlock):
        return {
            "type": "image",
            "source": {"data": block.data, "media_type": block.media_type, "type": "base64"},
        }
    assert isinstance(block, TextBlock)
    return {"text": block.text, "type": "text"}


async def test_a_notebook_is_read_as_2_1_332s_cells(tmp_path: Path) -> None:
    # Code, markdown and raw cells, one with no id; stream, result, image and error outputs.
    results = await _run(tmp_path, ["toolu_r5", "toolu_nb"])
    ours = results["toolu_r5"]
    assert not ours.is_error
    assert not isinstance(ours.content, str)
    assert [_wire(b) for b in ours.content] == RESULTS["toolu_r5"]["content"]
    # Its tool_response as 2.1.332's PostToolUse has it.
    assert thaw_json(ours.output) == _recorded_response("toolu_r5", tmp_path / "project")
    # A notebook read is a read: NotebookEdit may edit it.
    assert not results["toolu_nb"].is_error, results["toolu_nb"].content
    written = json.loads((tmp_path / "project" / "nb.ipynb").read_text())
    assert written["cells"][1]["source"] == "# Edited"  # as 2.1.332 writes a new source


async def test_edit_and_write_end_as_2_1_332s_by_what_the_session_has_read(
    tmp_path: Path,
) -> None:
    # 2.1.332 refuses neither an Edit nor a Write of a file not read first; its Edit says
    # whether the file was in the session's view: nothing when never read, the note when it
    # changed on disk since it was read (whole or in part), the usual ending when current.
    # All but the notebook (above).
    skipped = ("toolu_r5",)
    idents = [r["tool_use_id"] for r in RUN["results"] if r["tool_use_id"] not in skipped]
    results = await _run(tmp_path, idents)
    project = tmp_path / "project"
    for ident in idents:
        assert results[ident].is_error == bool(RESULTS[ident].get("is_error")), ident
        assert results[ident].content == _recorded_text(ident, project), ident
    for name, content in RUN["files_after"].items():
        assert (project / name).read_text() == content, name
    # The outputs (PostToolUse's tool_response) carry the same, as 2.1.332's do.
    for ident in ("toolu_e1", "toolu_e2", "toolu_e3", "toolu_e7", "toolu_w1", "toolu_w2"):
        assert thaw_json(results[ident].output) == _recorded_response(ident, project), ident
    assert results["toolu_e1"].output["contentNotInModelContext"] is True
    assert results["toolu_e3"].output["staleRecovered"] is True
    # No hook saw a call its schema refused, nor an Edit whose string was not found.
    refused = {"toolu_b1", "toolu_b2", "toolu_b3", "toolu_b4", "toolu_r1", "toolu_r2"}
    refused |= {"toolu_e4", "toolu_e5", "toolu_e6"}
    assert not refused & {e["tool_use_id"] for e in RUN["hook_events"]}


def _recorded_response(ident: str, project: Path) -> Any:
    return json.loads(json.dumps(RESPONSES[ident]).replace("${PROJECT_DIR}", str(project)))
