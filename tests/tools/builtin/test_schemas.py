"""The schemas generated ahead of time (``_schemas.py``) are the input models' own."""

from __future__ import annotations

import pprint
import subprocess
import sys

import pytest

from dsh.tools import ToolDefinition
from dsh.tools.builtin import builtin_tools
from dsh.tools.builtin._grep import grep_tool


def _tools() -> list[ToolDefinition]:
    """The tools with a pydantic input model (the others' schemas are 2.1.332's own, recorded:
    ``test_deferred_tools.py``)."""
    tools = [*builtin_tools(), grep_tool(use_ripgrep=False)]
    return [t for t in tools if t.input_model is not None]


@pytest.mark.parametrize("tool", _tools(), ids=lambda t: t.name)
def test_schema_is_the_models_own(tool: ToolDefinition) -> None:
    model = tool.load_input_model()
    assert model is not None
    generated = model.model_json_schema()
    assert tool.input_schema == generated, (
        f"src/dsh/tools/builtin/_schemas.py is stale for {tool.name}; its entry is now:\n"
        + pprint.pformat(generated, sort_dicts=False, width=100000)
    )


def test_start_up_builds_no_input_model() -> None:
    # Importing the tools neither generates a schema nor builds a validator; the first
    # validation of a model builds that model alone.
    code = (
        "from dsh.tools.builtin import BASH_TOOL, builtin_tools\n"
        "from pydantic import BaseModel\n"
        "models = [t.load_input_model() for t in builtin_tools() if t.input_model]\n"
        "assert not any(m.__pydantic_complete__ for m in models), models\n"
        "BASH_TOOL.load_input_model().model_validate({'command': 'true'})\n"
        "print(sorted(m.__name__ for m in models if m.__pydantic_complete__))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert out.strip() == "['BashInput']"
