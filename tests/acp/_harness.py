"""``dsh acp`` as a real subprocess, driven by the Python SDK's client side.

``run_agent_process`` starts ``python -m dsh acp`` with a scripted model and a
temp session dir, connects ``RecordingClient`` to its pipes, and checks every
agent→client message against the ACP JSON schema (v1, the one the TypeScript
SDK ships, vendored in ``schema/``) by method. Leaving it closes stdin and
waits for the process to exit on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, cast

import jsonschema
import psutil
from acp import PROTOCOL_VERSION, Client, RequestError, connect_to_agent
from acp.client.connection import ClientSideConnection
from acp.connection import StreamEvent
from acp.schema import (
    AgentMessageChunk,
    AllowedOutcome,
    ContentToolCallContent,
    DeniedOutcome,
    Implementation,
    PermissionOption,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)
from referencing import Registry, Resource

from tests.nspids import outer_pid

SCHEMA = Path(__file__).parent / "schema" / "acp-v1-schema.json"

_BY_METHOD = {
    "session/update": "SessionNotification",
    "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
}
_UNSTABLE = frozenset({"elicitation/create"})
"""Methods of ACP's unstable protocol (not in the v1 schema), sent only to a client that
advertised them; the SDK's models check them on both sides."""
_RESULT_BY_METHOD = {
    "initialize": "InitializeResponse",
    "session/new": "NewSessionResponse",
    "session/load": "LoadSessionResponse",
    "session/prompt": "PromptResponse",
    "session/set_mode": "SetSessionModeResponse",
    "session/set_config_option": "SetSessionConfigOptionResponse",
}


@cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    registry: Registry[Any] = Registry().with_resource("urn:acp", Resource.from_contents(schema))
    return jsonschema.Draft202012Validator({"$ref": f"urn:acp#/$defs/{name}"}, registry=registry)


@dataclass
class WireCheck:
    """Every agent→client message, and what the schema said about each."""

    pending: dict[Any, str] = field(default_factory=dict)
    messages: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    checked: int = 0

    def observe(self, event: StreamEvent) -> None:
        message = event.message
        if event.direction.value == "outgoing":
            if "method" in message and "id" in message:
                self.pending[message["id"]] = message["method"]
            return
        self.messages.append(message)
        if "method" in message:
            name = _BY_METHOD.get(message["method"])
            payload = message.get("params")
            if message["method"] in _UNSTABLE:
                return
            if name is None:
                self.errors.append(f"unexpected agent→client method {message['method']!r}")
                return
        elif "error" in message:
            self.pending.pop(message.get("id"), None)
            name, payload = "Error", message["error"]
        else:
            method = self.pending.pop(message.get("id"), None)
            name = _RESULT_BY_METHOD.get(method or "")
            payload = message.get("result")
            if name is None:
                return
        self.checked += 1
        for error in _validator(name).iter_errors(payload):
            self.errors.append(f"{name}: {error.message} at {list(error.absolute_path)}")


Answer = str | None
"""The option kind the client selects (``allow_once`` ...), or ``None`` for ``cancelled``."""


class RecordingClient:
    """An ACP client that records updates and answers permission requests from ``answers``."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.answers: list[Answer] = []
        self.permissions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self.asked = asyncio.Event()
        self.hold: asyncio.Event | None = None
        self.on_update: Callable[[Any], None] | None = None

    async def request_permission(
        self,
        session_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.asked.set()
        if self.hold is not None:
            await self.hold.wait()
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        chosen = next(o for o in options if o.kind == answer)
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=chosen.option_id)
        )

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        if self.on_update is not None:
            self.on_update(update)

    # -- reading what arrived ------------------------------------------------------------

    def of(self, session_id: str) -> list[Any]:
        return [u for s, u in self.updates if s == session_id]

    def kinds(self, session_id: str) -> list[str]:
        return [u.session_update for u in self.of(session_id)]

    def text(self, session_id: str, *, notices: bool | None = False) -> str:
        """The agent's text; ``notices=True`` only the notices, ``None`` both."""
        out = []
        for u in self.of(session_id):
            if not isinstance(u, AgentMessageChunk):
                continue
            is_notice = bool(u.field_meta and "dsh" in u.field_meta)
            if notices is None or notices == is_notice:
                out.append(getattr(u.content, "text", ""))
        return "".join(out)

    def tool_updates(self, session_id: str) -> list[ToolCallStart | ToolCallProgress]:
        return [u for u in self.of(session_id) if isinstance(u, ToolCallStart | ToolCallProgress)]

    def statuses(self, session_id: str, tool_call_id: str) -> list[str | None]:
        return [u.status for u in self.tool_updates(session_id) if u.tool_call_id == tool_call_id]


def content_text(update: ToolCallStart | ToolCallProgress) -> str:
    """The text of a tool update's content blocks (its diffs left out)."""
    parts = []
    for item in update.content or ():
        if isinstance(item, ContentToolCallContent) and isinstance(item.content, TextContentBlock):
            parts.append(item.content.text)
    return "\n".join(parts)


def _text_of(path: Path) -> str:
    return path.read_text().strip() if path.exists() else ""


async def written_pid(path: Path) -> int:
    """The pid a tool wrote to ``path`` (``PID@INODE``: tests/nspids.py), once it is there,
    as ``/proc`` here numbers it (the tool still runs)."""
    while True:
        text = _text_of(path)
        if text:
            pid = outer_pid(text)
            assert pid is not None, text
            return pid
        await asyncio.sleep(0.05)


def gone(pid: int) -> bool:
    """Whether the process ``pid`` has ended (reaped, or a zombie waiting to be)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@dataclass
class AgentProcess:
    conn: ClientSideConnection
    client: RecordingClient
    wire: WireCheck
    proc: asyncio.subprocess.Process
    stderr_path: Path

    async def initialize(self) -> Any:
        return await self.conn.initialize(
            protocol_version=PROTOCOL_VERSION,
            client_info=Implementation(name="dsh-tests", version="0"),
        )

    async def new_session(self, cwd: Path) -> str:
        return (await self.conn.new_session(cwd=str(cwd), mcp_servers=[])).session_id

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


def write_script(path: Path, rules: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps({"rules": rules}))
    return path


def dsh_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``dsh acp`` that reads no user configuration of this machine."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "CLAUDE_"))}
    env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"), NO_COLOR="1")
    return env


_RUNS = itertools.count()


def _log_file(path: Path) -> BinaryIO:
    return path.open("wb")


@contextlib.asynccontextmanager
async def run_agent_process(
    tmp_path: Path,
    script: Path,
    *extra: str,
    client: RecordingClient | None = None,
    trust: bool = True,
    unstable: bool = False,
    env: dict[str, str] | None = None,
) -> AsyncIterator[AgentProcess]:
    """``dsh acp`` on ``script``; on exit its stdin is closed and it must exit 0 by itself."""
    stderr_path = tmp_path / f"acp-stderr-{next(_RUNS)}.log"
    args = ["--model", f"scripted:{script}", "--session-dir", str(tmp_path / "sessions"), *extra]
    # As a user who trusted the test project and lets its tools run: the tests' asks come
    # from PreToolUse hooks, which ask in every mode.
    if trust:
        args.append("--trust-project")
    if "--permission-mode" not in extra:
        args += ["--permission-mode", "bypassPermissions"]
    with _log_file(stderr_path) as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "dsh",
            "acp",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env={**dsh_env(tmp_path), **(env or {})},
            cwd=tmp_path,
        )
    assert proc.stdin is not None
    assert proc.stdout is not None
    recording = client or RecordingClient()
    wire = WireCheck()
    # Duck-typed (not an ``acp.Client`` subclass), as a strict client only has what it uses.
    client_side = cast(Client, recording)
    conn = connect_to_agent(
        client_side,
        proc.stdin,
        proc.stdout,
        observers=[wire.observe],
        use_unstable_protocol=unstable,  # a client of ACP's unstable methods (elicitation)
    )
    agent = AgentProcess(conn, recording, wire, proc, stderr_path)
    try:
        yield agent
    finally:
        proc.stdin.close()
        code = await proc.wait()
        with contextlib.suppress(ConnectionError):  # a late answer to a closed process
            await conn.close()
    assert code == 0, agent.stderr
    assert "Traceback" not in agent.stderr, agent.stderr
    assert not wire.errors, wire.errors


__all__ = [
    "SCHEMA",
    "AgentProcess",
    "RecordingClient",
    "RequestError",
    "WireCheck",
    "content_text",
    "dsh_env",
    "gone",
    "run_agent_process",
    "write_script",
    "written_pid",
]
