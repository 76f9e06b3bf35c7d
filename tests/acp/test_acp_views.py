"""How calls, prompts and turn ends look on the ACP side, value by value (no process)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp.schema import (
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)
from hypothesis import given
from hypothesis import strategies as st

from dsh.acp._prompt import prompt_content
from dsh.acp._tools import MAX_SHOWN, bounded, tool_view
from dsh.acp._turns import stop_reason_for
from dsh.agent import TurnResult
from dsh.base import freeze_json
from dsh.messages import ImageBlock, TextBlock
from dsh.session import TurnEndReason

ROOT = Path(__file__).parents[2]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(
    name=st.sampled_from(
        ["Bash", "Read", "Write", "Edit", "MultiEdit", "Grep", "Glob", "TaskCreate", "X"]
    ),
    arguments=st.dictionaries(
        st.sampled_from(
            [
                "command",
                "file_path",
                "path",
                "pattern",
                "content",
                "old_string",
                "new_string",
                "edits",
                "offset",
                "subject",
            ]
        ),
        json_values,
        max_size=6,
    ),
)
def test_any_arguments_give_a_bounded_one_line_title(name: str, arguments: dict[str, Any]) -> None:
    view = tool_view(name, freeze_json(arguments), Path("/nonexistent-project"))
    assert "\n" not in view.title
    assert 0 < len(view.title) <= 130
    for location in view.locations:
        assert Path(location.path).is_absolute()


def test_kinds_titles_and_locations_come_from_the_tool_and_its_arguments(tmp_path: Path) -> None:
    read = tool_view("Read", freeze_json({"file_path": "src/a.py", "offset": 10}), tmp_path)
    assert (read.kind, read.title) == ("read", "Read src/a.py")
    assert [(loc.path, loc.line) for loc in read.locations] == [(str(tmp_path / "src/a.py"), 10)]
    grep = tool_view("Grep", freeze_json({"pattern": "TODO", "path": "/abs"}), tmp_path)
    assert (grep.kind, grep.title) == ("search", "Grep TODO in /abs")
    bash = tool_view("Bash", freeze_json({"command": "make", "description": "Build it"}), tmp_path)
    assert (bash.kind, bash.title, bash.locations) == ("execute", "Build it", ())
    other = tool_view("Custom", freeze_json({}), tmp_path)
    assert (other.kind, other.title) == ("other", "Custom")


def test_a_write_diffs_against_the_file_and_an_edit_that_does_not_apply_shows_itself(
    tmp_path: Path,
) -> None:
    (tmp_path / "f.txt").write_text("old\n")
    [write] = tool_view(
        "Write", freeze_json({"file_path": "f.txt", "content": "new\n"}), tmp_path
    ).diffs
    assert (write.old_text, write.new_text) == ("old\n", "new\n")
    [new_file] = tool_view(
        "Write", freeze_json({"file_path": "g.txt", "content": "x"}), tmp_path
    ).diffs
    assert new_file.old_text is None
    edits = {"file_path": "f.txt", "edits": [{"old_string": "absent", "new_string": "y"}]}
    [snippet] = tool_view("MultiEdit", freeze_json(edits), tmp_path).diffs
    assert (snippet.old_text, snippet.new_text) == ("absent", "y")


def test_long_texts_are_bounded() -> None:
    shown = bounded("x" * (MAX_SHOWN + 50))
    assert shown.startswith("x" * MAX_SHOWN)
    assert "50 more characters" in shown


def test_prompt_blocks_become_dsh_content() -> None:
    text = TextContentBlock(type="text", text="look at")
    link = ResourceContentBlock(type="resource_link", name="a.py", uri="file:///p/a.py")
    embedded = EmbeddedResourceContentBlock(
        type="resource", resource=TextResourceContents(uri="file:///p/b.py", text="print(1)")
    )
    assert prompt_content([text, link, embedded]) == (
        'look at\n\n[a.py](file:///p/a.py)\n\n<resource uri="file:///p/b.py">\nprint(1)\n</resource>'
    )
    image = ImageContentBlock(type="image", data="AAAA", mime_type="image/png")
    assert prompt_content([text, image]) == (TextBlock("look at"), ImageBlock("image/png", "AAAA"))
    with pytest.raises(RequestError) as empty:
        prompt_content([])
    assert empty.value.code == -32602


@pytest.mark.parametrize(
    ("reason", "refused", "expected"),
    [
        (TurnEndReason.completed, False, "end_turn"),
        (TurnEndReason.rejected, False, "cancelled"),
        (TurnEndReason.aborted, False, "cancelled"),
        (TurnEndReason.max_steps, False, "max_turn_requests"),
        (TurnEndReason.stopped, False, "end_turn"),
        (TurnEndReason.error, True, "refusal"),
    ],
)
def test_stop_reasons(reason: TurnEndReason, refused: bool, expected: str) -> None:
    assert stop_reason_for(TurnResult(end_reason=reason), refused=refused) == expected


def test_a_model_failure_is_an_error_answer_not_a_stop_reason() -> None:
    with pytest.raises(RequestError) as failed:
        stop_reason_for(TurnResult(end_reason=TurnEndReason.error, error="HTTP 500"), refused=False)
    assert "HTTP 500" in str(failed.value)


def test_the_docs_show_a_zed_snippet_that_starts_dsh_acp() -> None:
    doc = (ROOT / "docs" / "acp.md").read_text()
    [snippet] = re.findall(r"```json\n(.*?)```", doc, flags=re.S)
    server = json.loads(snippet)["agent_servers"]["dsh"]
    assert server["type"] == "custom"
    assert server["command"].endswith("/dsh")
    assert server["args"][0] == "acp"
    assert "[docs/acp.md](docs/acp.md)" in (ROOT / "README.md").read_text()


def test_dsh_acp_takes_every_session_option_of_dsh_run() -> None:
    from dsh.cli._main import cli
    from dsh.cli._run_flags import SESSION_FLAGS as _SHARED

    acp_names = {p.name for p in cli.commands["acp"].params}
    run_names = {p.name for p in cli.commands["run"].params}
    assert set(_SHARED) <= acp_names & run_names
    assert {"permission_mode", "verbose"} <= acp_names


def test_raw_input_is_bounded(tmp_path: Path) -> None:
    huge = "y" * (MAX_SHOWN * 3)
    view = tool_view("Write", freeze_json({"file_path": "big.txt", "content": huge}), tmp_path)
    assert len(view.raw_input["content"]) < MAX_SHOWN + 100
    assert view.raw_input["file_path"] == "big.txt"
