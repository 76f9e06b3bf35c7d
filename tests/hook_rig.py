"""What every bridge's test rig shares: the harness and the recording hook's log, read back."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
