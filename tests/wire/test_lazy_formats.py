"""A wire format's modules load only when its provider is chosen: start-up does not grow.

The same probe as ``tests/cli/test_startup_laziness.py`` (the real ``main()``, the
modules loaded when the process exits).
"""

from __future__ import annotations

import json
from pathlib import Path

from _anthropic_mock import AnthropicMock
from _side_cases import Reply, SideCase

from tests.cli.test_startup_laziness import _loaded, _offending

_ANTHROPIC = ("dsh.models._anthropic", "dsh.models._anthropic_body")
_RESPONSES = ("dsh.models._responses", "dsh.models._codex_setup")
_EVERY_FORMAT = (*_ANTHROPIC, *_RESPONSES, "dsh.models._provider", "dsh.models._choice")


def test_a_scripted_run_loads_no_wire_format(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    reply = [{"type": "text", "text": "hi"}]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": [reply]}]}}))
    loaded = _loaded(tmp_path, "run", "--model", f"scripted:{script}", "say hi")
    assert "dsh.models._scripted" in loaded
    assert _offending(loaded, _EVERY_FORMAT) == []


def test_an_anthropic_run_loads_no_responses_format(tmp_path: Path) -> None:
    with AnthropicMock() as mock:
        mock.load(SideCase("t", "p", (Reply(text="hello"),), {}))
        env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": mock.url, "OPENAI_API_KEY": ""}
        loaded = _loaded(tmp_path, "run", "say hi", env=env)
        assert mock.main_requests == 1
    assert _offending(loaded, _ANTHROPIC) == list(_ANTHROPIC)
    assert _offending(loaded, _RESPONSES) == []
    assert _offending(loaded, ("httpx2", "anthropic", "openai")) == []
