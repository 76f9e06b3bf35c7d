"""The built-in tools as a session registers them (``_declarations``): everything the registry
and the model are told, with each tool's module imported only at its first call."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import dsh.tools.builtin
from dsh.tools.builtin import builtin_tools

_OWN_NAMES = {
    "Bash": "BASH_TOOL",
    "Read": "READ_TOOL",
    "Write": "WRITE_TOOL",
    "Edit": "EDIT_TOOL",
    "MultiEdit": "MULTI_EDIT_TOOL",
    "Glob": "GLOB_TOOL",
    "Grep": "GREP_TOOL",
    "TaskCreate": "TASK_CREATE_TOOL",
    "TaskGet": "TASK_GET_TOOL",
    "TaskList": "TASK_LIST_TOOL",
    "TaskUpdate": "TASK_UPDATE_TOOL",
    "ToolSearch": "TOOL_SEARCH_TOOL",
}


def test_a_declared_tool_is_its_modules_definition_but_for_body_and_presenter() -> None:
    declared = {t.name: t for t in builtin_tools() if t.name in _OWN_NAMES}
    assert set(declared) == set(_OWN_NAMES)
    for name, tool in declared.items():
        own = getattr(dsh.tools.builtin, _OWN_NAMES[name])
        assert own.run is not tool.run, name
        assert own.present is not tool.present, name
        assert dataclasses.replace(own, run=tool.run, present=tool.present) == tool, name


_PROBE = """
import asyncio, json, sys
from dsh.base import freeze_json
from dsh.context import Context
from dsh.tools import ToolInvocation, ToolRegistry, Workspace
from dsh.tools.builtin import builtin_tools

def loaded():
    return sorted(m for m in sys.modules if m.startswith("dsh.tools.builtin."))

registry = ToolRegistry(Context())
tools = {t.name: t for t in builtin_tools()}
for tool in tools.values():
    registry.register(tool)
registered = loaded()
read = tools["Read"]
invocation = ToolInvocation("Read", freeze_json({"file_path": sys.argv[1]}), Workspace(cwd="."))
result = asyncio.run(read.run(invocation))
print(json.dumps({
    "registered": registered,
    "after_read": loaded(),
    "content": result.text,
    "presented": read.present_output(result.output),
}))
"""


def test_registering_the_builtin_tools_imports_no_tool_module(tmp_path: Path) -> None:
    target = tmp_path / "a.txt"
    target.write_text("hello\n")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(target)], capture_output=True, text=True, check=True
    )
    seen = json.loads(done.stdout)
    assert seen["registered"] == [
        "dsh.tools.builtin._declarations",
        "dsh.tools.builtin._deferred_schemas",
        "dsh.tools.builtin._deferred_tools",
        "dsh.tools.builtin._schemas",
        "dsh.tools.builtin._unavailable",
    ]
    # The first call imports the tool's module (and what it stands on), no other tool's.
    assert "dsh.tools.builtin._read" in seen["after_read"]
    assert not {"dsh.tools.builtin._bash", "dsh.tools.builtin._write"} & set(seen["after_read"])
    assert seen["content"] == "1\thello\n2\t" == seen["presented"]
