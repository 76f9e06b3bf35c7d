"""An MCP server's elicitation over ACP: ``elicitation/create`` to a client that takes forms,
declined with a notice for one that does not (``dsh.acp._elicitation``)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block
from acp.schema import (
    AcceptElicitationResponse,
    ClientCapabilities,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    Implementation,
    McpServerStdio,
)

from tests.acp._harness import RecordingClient, run_agent_process, write_script
from tests.acp._hooks import install_hooks, seen

# Of the standard library: no SDK to import at its start (tests/mcp/rpc_server.py).
SERVER = str(Path(__file__).parents[1] / "mcp" / "rpc_server.py")
ASK = {"type": "tool_use", "name": "mcp__rpc__ask", "input": {}}


class FormClient(RecordingClient):
    """Answers every elicitation with a name and a check, and keeps what it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.elicited: list[tuple[str, Any]] = []

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        self.elicited.append((message, mode))
        return AcceptElicitationResponse(action="accept", content={"name": "Ada", "check": True})


async def _ask(
    tmp_path: Path, client: RecordingClient, form: bool, env: dict[str, str] | None = None
) -> str:
    """One session with the sample server whose model calls ``ask-user``: what it sent."""
    script = write_script(
        tmp_path / "s.json", [{"responses": [[ASK], [{"type": "text", "text": "ok"}]]}]
    )
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    async with run_agent_process(tmp_path, script, client=client, unstable=form, env=env) as agent:
        caps = ClientCapabilities(
            elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
            if form
            else None
        )
        await agent.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_capabilities=caps,
            client_info=Implementation(name="dsh-tests", version="0"),
        )
        server = McpServerStdio(name="rpc", command=sys.executable, args=[SERVER], env=[])
        new = await agent.conn.new_session(cwd=str(project), mcp_servers=[server])
        await agent.conn.prompt(session_id=new.session_id, prompt=[text_block("ask me")])
        return json.dumps([u.model_dump(mode="json") for u in client.of(new.session_id)])


async def test_a_client_that_takes_forms_is_asked(tmp_path: Path) -> None:
    client = FormClient()
    sent = await _ask(tmp_path, client, form=True)
    accepted = {"action": "accept", "content": {"name": "Ada", "check": True}}
    assert json.dumps(json.dumps({"answer": accepted}))[2:-3] in sent, sent[-3000:]
    ((message, mode),) = client.elicited
    assert message == "Name?"
    assert sorted(mode.requested_schema.properties) == ["name"]


async def test_a_client_without_forms_is_not_asked_and_the_server_declined(
    tmp_path: Path,
) -> None:
    client = FormClient()
    sent = await _ask(tmp_path, client, form=False)
    assert client.elicited == []
    assert json.dumps(json.dumps({"answer": {"action": "decline"}}))[2:-3] in sent, sent[-3000:]
    assert "MCP server 'rpc' asked for input; declined: this ACP client takes no" in sent


class WaitingFormClient(FormClient):
    """Answers a form only once the project's Notification hook has run."""

    def __init__(self, hooks: Path) -> None:
        super().__init__()
        self.hooks = hooks

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> Any:
        while not seen(self.hooks, "Notification"):
            await asyncio.sleep(0.02)
        return await super().create_elicitation(message, mode, **kwargs)


async def test_a_form_left_waiting_fires_elicitation_dialog(tmp_path: Path) -> None:
    """As 2.1.332's dialog: ``Claude Code needs your input`` (``elicitation_dialog``) once the
    form has waited (6 s; here 0.05 s), timed as ACP's permission questions are."""
    hooks = install_hooks(tmp_path / "project", {}, events=("Notification",))
    client = WaitingFormClient(hooks)
    env = {"DSH_PERMISSION_NOTIFY_SECONDS": "0.05"}
    sent = await asyncio.wait_for(_ask(tmp_path, client, form=True, env=env), 60)
    assert '\\"action\\": \\"accept\\"' in sent, sent[-3000:]
    notified = [(n["notification_type"], n["message"]) for n in seen(hooks, "Notification")]
    assert notified[0] == ("elicitation_dialog", "Claude Code needs your input")
