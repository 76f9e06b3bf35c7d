"""``NotebookEdit``: replaces, inserts or deletes one cell of a Jupyter notebook, as 2.1.332.

Its checks, in 2.1.332's order and words (``<tool_use_error>`` as 2.1.332 wraps an input it
refuses, ``tests/fixtures/claude_deferred_tools.json``): a ``.ipynb`` path, a ``cell_type``
to insert, a notebook the session has read (``_read_state``) and not changed since, one that
exists, is JSON and has a ``cells`` list, and a cell found by its ``id`` (or ``cell-N``, the
Nth). A replaced code cell loses its outputs and execution count; an inserted cell gets an
8-character id when the notebook's format has ids (4.5 and later). The notebook is written
back as 2.1.332 writes it (JSON indented by one space, non-ASCII kept, the file's final
newline kept). ``tool_response`` has 2.1.332's keys (``new_source``, ``old_source``,
``cell_type``, ``language``, ``edit_mode``, ``cell_id``, ``error``, ``notebook_path``,
``original_file``, ``updated_file``); the result is ``Updated cell X with S``, ``Inserted
cell X with S`` or ``Deleted cell X``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dsh.base import UnreadableFileError, read_bounded, thaw_json
from dsh.messages import Content
from dsh.tools._types import ToolInvocation, ToolResult
from dsh.tools.builtin._common import refused
from dsh.tools.builtin._read_state import note_read, read_time

__all__ = ["present", "present_notebook_edit", "run"]

MAX_NOTEBOOK_BYTES = 10 * 1024 * 1024
_NOT_NOTEBOOK = (
    'Notebook file is not a valid Jupyter notebook (top-level "cells" must be an array of cell'
    ' objects, each with a string or string-array "source").'
)


class _Refused(Exception):
    """A call 2.1.332 refuses; ``str`` is its words."""


def present_notebook_edit(output: Any) -> Content:
    """The model's text for a NotebookEdit ``tool_response`` (2.1.332's)."""
    cell, mode, source = output.get("cell_id"), output.get("edit_mode"), output.get("new_source")
    if output.get("error"):
        return str(output["error"])
    if mode == "replace":
        return f"Updated cell {cell} with {source}"
    if mode == "insert":
        return f"Inserted {f'cell {cell}' if cell else 'a new cell'} with {source}"
    if mode == "delete":
        return f"Deleted cell {cell}"
    return "Unknown edit mode"


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _new_id() -> str:
    import uuid  # only when a cell is inserted

    return uuid.uuid4().hex[:8]


def _is_notebook(notebook: object) -> bool:
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return False
    return all(
        isinstance(c, dict)
        and (
            isinstance(c.get("source"), str)
            or (isinstance(c.get("source"), list) and all(isinstance(s, str) for s in c["source"]))
        )
        for c in notebook["cells"]
    )


def _index(cells: list[Any], cell_id: str | None, mode: str) -> int:
    """Where the edit applies (2.1.332's lookup: the ``id``, else ``cell-N``)."""
    inserting = mode == "insert"
    if not cell_id:
        if inserting:
            return 0
        raise _Refused("Cell ID must be specified when not inserting a new cell.")
    found = next((i for i, c in enumerate(cells) if c.get("id") == cell_id), None)
    if found is None:
        number = cell_id.removeprefix("cell-")
        if not cell_id.startswith("cell-") or not number.isdigit():
            raise _Refused(f'Cell with ID "{cell_id}" not found in notebook.')
        found = int(number)
        if found >= len(cells):
            raise _Refused(f"Cell with index {found} does not exist in notebook.")
    return found + 1 if inserting else found


def _load(path: Path, invocation: ToolInvocation, mode: str, cell_type: str | None) -> str:
    """The notebook's text, once the checks 2.1.332 makes before a call have passed."""
    if path.suffix != ".ipynb":
        raise _Refused(
            "File must be a Jupyter notebook (.ipynb file). For editing other file types, use"
            " the FileEdit tool."
        )
    if mode == "insert" and not cell_type:
        raise _Refused("Cell type is required when using edit_mode=insert.")
    seen = read_time(invocation.workspace, path)
    if seen is None:
        raise _Refused("File has not been read yet. Read it first before writing to it.")
    try:
        changed = path.stat().st_mtime_ns > seen
        text = read_bounded(path, MAX_NOTEBOOK_BYTES, "notebook").decode("utf-8", "replace")
    except FileNotFoundError:
        raise _Refused("Notebook file does not exist.") from None
    except (OSError, UnreadableFileError) as exc:
        raise _Refused(f"Cannot read {path}: {exc}") from None
    if changed:
        raise _Refused(
            "File has been modified since read, either by the user or by a linter. Read it"
            " again before attempting to write it."
        )
    return text


def _edit(notebook: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Apply the edit to ``notebook``; the ``tool_response`` fields it decides."""
    mode = args.get("edit_mode") or "replace"
    cell_type, source = args.get("cell_type"), args["new_source"]
    cells: list[dict[str, Any]] = notebook["cells"]
    at = _index(cells, args.get("cell_id"), mode)
    cell_id = args.get("cell_id")
    old: str | None = None
    if mode == "delete":
        old = _source(cells.pop(at))
    elif mode == "insert":
        minor = notebook.get("nbformat_minor", 0)
        major = notebook.get("nbformat", 0)
        with_ids = isinstance(major, int) and isinstance(minor, int)
        with_ids = with_ids and (major > 4 or (major == 4 and minor >= 5))
        cell_id = _new_id() if with_ids else None
        new: dict[str, Any] = {"cell_type": cell_type or "code", "id": cell_id}
        new |= {"source": source, "metadata": {}}
        if cell_type != "markdown":
            new |= {"execution_count": None, "outputs": []}
        if cell_id is None:
            del new["id"]
        cells.insert(at, new)
    else:
        cell = cells[at]
        old = _source(cell)
        cell["source"] = source
        if cell_type:
            cell["cell_type"] = cell_type
        if cell.get("cell_type") == "code":
            cell["execution_count"], cell["outputs"] = None, []
        elif cell.get("cell_type") in ("markdown", "raw"):
            cell.pop("execution_count", None)
            cell.pop("outputs", None)
    language = notebook.get("metadata", {}).get("language_info", {}).get("name", "python")
    done: dict[str, Any] = {"new_source": source}
    if old is not None:
        done["old_source"] = old
    done |= {"cell_type": cell_type or "code", "language": language, "edit_mode": mode}
    if cell_id:
        done["cell_id"] = cell_id
    return done


async def run(invocation: ToolInvocation) -> ToolResult:
    args = thaw_json(invocation.arguments)
    path = invocation.workspace.resolve(str(args["notebook_path"]))
    mode = args.get("edit_mode") or "replace"
    try:
        text = _load(path, invocation, mode, args.get("cell_type"))
        try:
            notebook = json.loads(text.removeprefix("\ufeff"))
        except ValueError:
            raise _Refused("Notebook is not valid JSON.") from None
        if not _is_notebook(notebook):
            raise _Refused(_NOT_NOTEBOOK)
        done = _edit(notebook, args)
    except _Refused as exc:
        return refused(str(exc))
    updated = json.dumps(notebook, indent=1, ensure_ascii=False)
    updated = ("\ufeff" if text.startswith("\ufeff") else "") + updated
    updated += "\n" if text.endswith("\n") else ""
    try:
        path.write_text(updated, encoding="utf-8")
    except OSError as exc:
        return ToolResult.error(f"Cannot write {path}: {exc.strerror or exc}")
    note_read(invocation.workspace, path)
    output = done | {
        "error": "",
        "notebook_path": str(path),
        "original_file": text,
        "updated_file": updated,
    }
    return ToolResult.ok(present_notebook_edit(output), output=output)


present = present_notebook_edit
