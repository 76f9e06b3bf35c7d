"""A Jupyter notebook in ``Read``, as Claude Code 2.1.332 shows one: its cells, not its JSON.

Each cell is ``<cell id="ID">SOURCE</cell id="ID">`` (``cell-N`` for a cell with no id; a
``<cell_type>`` marker for cells that are not code, a ``<language>`` one for code in a language
other than Python), then each output's text on a line of its own after a blank one (a stream's
text, a result's ``text/plain``, an error's ``ename: evalue`` and traceback); a PNG or JPEG
output is an image block; neighbouring texts are joined by newlines
(``tests/fixtures/claude_tool_texts.json``, made by ``benchmarks/record_claude_tool_texts.py``).
"""

from __future__ import annotations

import json
from typing import Any

from dsh.messages import ContentBlock, ImageBlock, TextBlock

__all__ = ["notebook_cells", "present_notebook"]


def notebook_cells(raw: bytes) -> list[dict[str, Any]] | None:
    """The notebook's cells as 2.1.332 records them (``cellType``, ``source``, ``cell_id``,
    ``language`` and ``outputs`` for code), or ``None`` when ``raw`` is not a notebook."""
    try:
        notebook = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None
    info = (notebook.get("metadata") or {}).get("language_info") or {}
    language = info.get("name", "python") if isinstance(info, dict) else "python"
    return [_cell(cell, i, str(language)) for i, cell in enumerate(notebook["cells"])]


def _cell(cell: Any, index: int, language: str) -> dict[str, Any]:
    cell = cell if isinstance(cell, dict) else {}
    kind = str(cell.get("cell_type", "code"))
    record: dict[str, Any] = {"cellType": kind, "source": _joined(cell.get("source"))}
    if kind == "code" and cell.get("execution_count"):
        record["execution_count"] = cell["execution_count"]
    record["cell_id"] = str(cell.get("id") or f"cell-{index}")
    if kind == "code":
        record["language"] = language
        outputs = cell.get("outputs")
        if isinstance(outputs, list) and outputs:
            record["outputs"] = [_output(o) for o in outputs if isinstance(o, dict)]
    return record


def _joined(text: Any) -> str:
    if isinstance(text, list):
        return "".join(str(t) for t in text)
    return "" if text is None else str(text)


def _output(output: dict[str, Any]) -> dict[str, Any]:
    kind = output.get("output_type")
    record: dict[str, Any] = {"output_type": kind}
    if kind == "stream":
        record["text"] = _joined(output.get("text"))
    elif kind in ("execute_result", "display_data"):
        found = output.get("data")
        data: dict[str, Any] = found if isinstance(found, dict) else {}
        record["text"] = _joined(data.get("text/plain"))
        for media_type in ("image/png", "image/jpeg"):
            if isinstance(data.get(media_type), str):
                image = "".join(data[media_type].split())
                record["image"] = {"image_data": image, "media_type": media_type}
                break
    elif kind == "error":
        trace = output.get("traceback")
        lines = "\n".join(str(t) for t in trace) if isinstance(trace, list) else ""
        record["text"] = f"{output.get('ename')}: {output.get('evalue')}\n{lines}"
    return record


def present_notebook(cells: list[dict[str, Any]]) -> tuple[ContentBlock, ...]:
    """The blocks the model reads: the cells' texts and their outputs' images."""
    blocks: list[ContentBlock] = []
    for cell in cells:
        markers = "" if cell["cellType"] == "code" else f"<cell_type>{cell['cellType']}</cell_type>"
        if cell["cellType"] == "code" and cell.get("language", "python") != "python":
            markers += f"<language>{cell['language']}</language>"
        ident = cell["cell_id"]
        _add(blocks, TextBlock(f'<cell id="{ident}">{markers}{cell["source"]}</cell id="{ident}">'))
        for output in cell.get("outputs", ()):
            if output.get("text"):
                _add(blocks, TextBlock(f"\n{output['text']}"))
            image = output.get("image")
            if image is not None:
                blocks.append(ImageBlock(media_type=image["media_type"], data=image["image_data"]))
    return tuple(blocks)


def _add(blocks: list[ContentBlock], block: TextBlock) -> None:
    """A text after a text is joined to it with a newline, as 2.1.332 joins them."""
    if blocks and isinstance(blocks[-1], TextBlock):
        blocks[-1] = TextBlock(f"{blocks[-1].text}\n{block.text}")
    else:
        blocks.append(block)
