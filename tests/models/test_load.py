"""``load_model``: from a ``--model`` spec to a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.messages import UserMessage
from dsh.models import (
    ModelRequest,
    OpenAICompatibleModel,
    ScriptedModel,
    ScriptError,
    load_model,
)


async def test_scripted_spec_loads_the_file_and_records(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"default": {"type": "text", "text": "from the script"}}))
    record = tmp_path / "seen.jsonl"
    model = load_model(f"scripted:{script}", record_to=record)
    assert isinstance(model, ScriptedModel)
    assert model.name == f"scripted:{script}"
    reply = await model.complete(ModelRequest((UserMessage("hi"),)))
    assert reply.text == "from the script"
    assert json.loads(record.read_text())["messages"] == [{"role": "user", "content": "hi"}]


def test_scripted_spec_with_a_bad_file_raises_a_script_error(tmp_path: Path) -> None:
    with pytest.raises(ScriptError, match=r"missing\.json: cannot read"):
        load_model(f"scripted:{tmp_path / 'missing.json'}")


def test_any_other_spec_is_an_endpoint_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DSH_BASE_URL", raising=False)
    model = load_model("llama3.1:8b", base_url="http://127.0.0.1:11434/v1/", api_key="k")
    assert isinstance(model, OpenAICompatibleModel)
    assert model.name == "llama3.1:8b"
    assert model.base_url == "http://127.0.0.1:11434/v1"


@pytest.mark.parametrize(
    ("spec", "problem"), [("", "empty model spec"), ("scripted:", "needs a file")]
)
def test_empty_specs_are_refused(spec: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        load_model(spec)
