"""The definitions of the tools 2.1.332 defers that dsh runs (``NotebookEdit``, ``TaskStop``,
``WebFetch``), with their recorded names, descriptions and schemas (``_deferred_schemas``).

Every session registers them, few call them: their bodies and presenters are imported at the
first call (``_notebook``, ``_task_stop``, ``_web_fetch``), so a plain ``dsh run`` imports
none of them. ``PAGE_READER`` is the seam through which WebFetch reads a page with a model.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any

from dsh.context import ServiceKey
from dsh.messages import Content
from dsh.tools._types import OutputPresenter, ToolBody, ToolDefinition, ToolInvocation, ToolResult
from dsh.tools.builtin._deferred_schemas import DESCRIPTIONS, SCHEMAS

__all__ = [
    "NOTEBOOK_EDIT_TOOL",
    "PAGE_READER",
    "TASK_STOP_TOOL",
    "WEB_FETCH_TOOL",
    "PageReader",
]

PageReader = Callable[[str], Awaitable[str]]
"""Answers one user text (a page and the call's prompt) with the model's text."""

PAGE_READER: ServiceKey[PageReader] = ServiceKey("dsh.web_fetch.page_reader")
"""The model WebFetch reads pages with (the host provides the session's)."""

_PACKAGE = "dsh.tools.builtin"


def _body(module: str) -> ToolBody:
    async def run(invocation: ToolInvocation) -> ToolResult:
        body: ToolBody = importlib.import_module(f"{_PACKAGE}.{module}").run
        return await body(invocation)

    return run


def _present(module: str) -> OutputPresenter:
    def present(output: Any) -> Content:
        presenter: OutputPresenter = importlib.import_module(f"{_PACKAGE}.{module}").present
        return presenter(output)

    return present


def _tool(name: str, module: str, *, read_only: bool = False, safe: bool = False) -> ToolDefinition:
    return ToolDefinition(
        name=name,
        description=DESCRIPTIONS[name],
        input_schema=SCHEMAS[name],
        run=_body(module),
        present=_present(module),
        deferred=True,
        read_only=read_only,
        concurrency_safe=safe,
    )


NOTEBOOK_EDIT_TOOL = _tool("NotebookEdit", "_notebook")
TASK_STOP_TOOL = _tool("TaskStop", "_task_stop", safe=True)
WEB_FETCH_TOOL = _tool("WebFetch", "_web_fetch", read_only=True, safe=True)
