"""Read, Write and Edit through the client's ``fs/read_text_file`` / ``fs/write_text_file``
when it offers them: the editor's unsaved buffer wins, and writes go through it (issue 32)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    WriteTextFileResponse,
)

from tests.acp._harness import RecordingClient, content_text, run_agent_process, write_script


class EditorClient(RecordingClient):
    """A client with open buffers: what it reads and writes is its own, not the disk's."""

    def __init__(self, buffers: dict[str, str]) -> None:
        super().__init__()
        self.buffers = buffers
        self.reads: list[str] = []
        self.writes: list[tuple[str, str]] = []

    async def read_text_file(self, path: str, session_id: str, **kwargs: Any) -> Any:
        self.reads.append(path)
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, content: str, path: str, session_id: str, **kw: Any) -> Any:
        self.writes.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": arguments}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def test_the_editors_buffers_are_read_and_written_not_the_disk(
    tmp_path: Path, project: Path
) -> None:
    note = project / "note.txt"
    note.write_text("on disk\n")
    fresh = project / "fresh.txt"
    rules = [
        {
            "responses": [
                [_call("Read", file_path=str(note))],
                [_call("Edit", file_path=str(note), old_string="unsaved", new_string="edited")],
                [_call("Write", file_path=str(fresh), content="new file\n")],
                [{"type": "text", "text": "done"}],
            ]
        }
    ]
    script = write_script(tmp_path / "s.json", rules)
    client = EditorClient({str(note): "unsaved buffer\n"})
    async with run_agent_process(tmp_path, script, client=client) as agent:
        await agent.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ),
            client_info=Implementation(name="editor", version="0"),
        )
        session = await agent.new_session(project)
        answer = await agent.conn.prompt(session_id=session, prompt=[text_block("go")])
        assert answer.stop_reason == "end_turn"
        results = [content_text(u) for u in agent.client.tool_updates(session) if u.status]
        assert any("unsaved buffer" in r for r in results), results
    assert note.read_text() == "on disk\n"  # the editor saves when it will
    assert not fresh.exists()
    assert client.writes == [(str(note), "edited buffer\n"), (str(fresh), "new file\n")]
    events = [json.loads(x) for x in next((tmp_path / "sessions").glob("*.jsonl")).open()]
    ended = [e for e in events if e["type"] == "tool/result"]
    assert [e.get("is_error", False) for e in ended] == [False, False, False]


async def test_without_the_capability_the_disk_is_used(tmp_path: Path, project: Path) -> None:
    note = project / "note.txt"
    note.write_text("on disk\n")
    edit = _call("Edit", file_path=str(note), old_string="disk", new_string="DISK")
    rules = [{"responses": [[edit], [{"type": "text", "text": "done"}]]}]
    client = EditorClient({str(note): "unsaved buffer\n"})
    script = write_script(tmp_path / "s.json", rules)
    async with run_agent_process(tmp_path, script, client=client) as agent:
        await agent.initialize()
        session = await agent.new_session(project)
        await agent.conn.prompt(session_id=session, prompt=[text_block("go")])
    assert note.read_text() == "on DISK\n"
    assert client.reads == []
    assert client.writes == []


async def test_notebooks_and_unsaved_files_are_read_through_the_editor_images_from_disk(
    tmp_path: Path, project: Path
) -> None:
    """Any text Read reads (a notebook's JSON, a buffer not saved yet) comes from
    ``fs/read_text_file``; an image from the disk, since ACP's fs has no binary read."""
    notebook = project / "analysis.ipynb"
    notebook.write_text('{"cells": []}\n')
    draft = project / "draft.md"  # open in the editor, never saved
    picture = project / "pic.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 16)
    calls = [_call("Read", file_path=str(p)) for p in (notebook, draft, picture)]
    rules = [{"responses": [calls, [{"type": "text", "text": "done"}]]}]
    script = write_script(tmp_path / "s.json", rules)
    unsaved = '{"cells": [{"cell_type": "code", "source": "print(\'unsaved cell\')"}]}\n'
    client = EditorClient({str(notebook): unsaved, str(draft): "# a draft\n"})
    async with run_agent_process(tmp_path, script, client=client) as agent:
        await agent.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True)),
            client_info=Implementation(name="editor", version="0"),
        )
        session = await agent.new_session(project)
        answer = await agent.conn.prompt(session_id=session, prompt=[text_block("go")])
        assert answer.stop_reason == "end_turn"
    assert sorted(client.reads) == sorted([str(notebook), str(draft)])
    events = [json.loads(x) for x in next((tmp_path / "sessions").glob("*.jsonl")).open()]
    results = {e["tool_use_id"]: e for e in events if e["type"] == "tool/result"}
    ordered = [results[c["id"]] for c in _calls(events)]
    assert [r.get("is_error", False) for r in ordered] == [False, False, False]
    assert "print('unsaved cell')" in json.dumps(ordered[0]["content"])
    assert "1\\t# a draft" in json.dumps(ordered[1]["content"])
    assert ordered[2]["content"][0]["type"] == "image"


def _calls(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    [message] = [e for e in events if e["type"] == "assistant/message" and e["tool_calls"]]
    calls: list[dict[str, Any]] = message["tool_calls"]
    return calls
