"""What every bridge's test rig shares: the harness and the recording hook's log, read back,
and the parameters of a corpus replay (one per recorded case, the expected differences as
strict xfails)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import Agent, TurnResult
from tests.agent.support import Harness


@dataclass
class RecordingRig:
    """A harness whose hooks are ``record_hook.py``, logging to ``log`` (one JSON line a run)."""

    harness: Harness
    log: Path

    def entries(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def order(self) -> list[str]:
        return [e["event"] for e in self.entries()]

    def payloads(self, event: str) -> list[dict[str, Any]]:
        return [e["payload"] for e in self.entries() if e["event"] == event]

    def requests(self) -> list[dict[str, Any]]:
        return self.harness.requests()

    async def run(self, prompt: str, **options: Any) -> tuple[Agent, TurnResult]:
        agent = self.harness.agent(**options)
        agent.send(prompt)
        result = await agent.run_turn()
        await agent.close("other")
        return agent, result


def corpus_params(cases_dir: Path, expected: dict[str, str]) -> list[Any]:
    """One ``pytest.param`` per case folder of ``cases_dir``; ``expected`` ones strict xfails."""
    if not cases_dir.is_dir():
        return [pytest.param(None, id="no-corpus")]
    out = []
    for path in sorted(cases_dir.iterdir()):
        if not (path / "case.json").is_file():
            continue
        marks = []
        if path.name in expected:
            marks.append(pytest.mark.xfail(reason=expected[path.name], strict=True))
        out.append(pytest.param(path, id=path.name, marks=marks))
    return out
