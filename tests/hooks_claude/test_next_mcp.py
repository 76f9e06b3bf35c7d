"""The claude-next corpus's MCP cases, replayed strictly on dsh's real host.

Each case as ``dsh run`` runs it: the case's files, the hook settings as a ``--settings`` file
(``record_hook.py`` from this checkout), ``--mcp-config``/``--strict-mcp-config`` as
recorded, the project trusted first (dsh's trust flow: a project server is a command like a
hook), the permission mode of ``--dangerously-skip-permissions`` or the default, and the
reference server ``@modelcontextprotocol/server-everything@2026.8.31`` (``make
mcp-node-server``; skipped, saying so, where node is not installed).

Compared strictly: the order of the hook events dsh supports; every payload's keys in the
recorded order (``mcp_server`` last) and values (ids, times and paths normalised); what the
model saw of each tool call (the ``tool_result`` content as blocks, ``is_error``); and the
context lines the recording shows. A case that needs what dsh does not have yet is listed
in ``NOT_YET`` with the reason (a strict entry: it fails once the case passes).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks import HookSelection, mount_bridges
from dsh.host import HostOptions, open_host
from dsh.models import ScriptedModel
from dsh.session import JsonlSessionStore
from tests.hooks_claude.bridge_support import SCRIPT
from tests.shared_paths import CONFORMANCE

CASES = CONFORMANCE / "claude-next"
SERVER = (
    Path(__file__).parents[1] / "mcp" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
)
RECORDED_HOOK = "python3 record_hook.py"
VOLATILE = {
    "session_id",
    "prompt_id",
    "tool_use_id",
    "duration_ms",
    "transcript_path",
    "turn_id",
    "message_id",
}

NOT_YET: dict[str, str] = {}


def _cases() -> list[str]:
    if not CASES.is_dir():
        return []
    return sorted(p.name for p in CASES.iterdir() if p.name.startswith("mcp-"))


def _recorded(case_dir: Path, order: list[str]) -> list[dict[str, Any]]:
    seen: dict[str, int] = {}
    out = []
    for event in order:
        n = seen[event] = seen.get(event, 0) + 1
        out.append(
            json.loads(
                (case_dir / (f"{event}.json" if n == 1 else f"{event}-{n}.json")).read_text()
            )
        )
    return out


def _normal(value: Any, key: str = "") -> Any:
    if key in VOLATILE:
        return type(value).__name__
    if isinstance(value, dict):
        return {k: _normal(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_normal(v) for v in value]
    return value


def _model_items(request: dict[str, Any]) -> list[dict[str, Any]]:
    """What one of dsh's requests shows of tool results: the content as blocks."""
    items = []
    for m in request["messages"]:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            items.append({"tool_result": content, "is_error": m["is_error"]})
    return items


def _expected_items(view: dict[str, Any]) -> list[dict[str, Any]]:
    items = []
    for item in view["hook_relevant"]:
        if "tool_result" in item:
            content = item["tool_result"]
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            items.append({"tool_result": content, "is_error": item["is_error"]})
    return items


def _context_lines(request: dict[str, Any], back: dict[str, str]) -> list[str]:
    lines: list[str] = []
    for m in request["messages"]:
        if m["role"] == "context":
            text = m["text"]
            for ours, recorded_command in back.items():
                text = text.replace(ours, recorded_command)
            lines.extend(line for line in text.split("\n") if line)
    return lines


def _expected_context(view: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for item in view["hook_relevant"]:
        if item.get("role") == "system":
            lines.extend(
                line for line in item.get("hook_lines") or item["text"].split("\n") if line
            )
    return lines


async def _replay(case: dict[str, Any], run: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    project, home = run / "project", run / "home"
    project.mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    places = {"${PROJECT_DIR}": str(project), "${RUN_DIR}": str(run), "${HOME}": str(home)}
    for name, text in ((case.get("files") or {}).get("files") or {}).items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("${MCP_SERVER_EVERYTHING}", str(SERVER)))
    ours = f"{shlex.quote(sys.executable)} {shlex.quote(str(SCRIPT))}"
    back = {}
    settings = json.loads(json.dumps(case["hook_settings"]))
    for groups in settings.get("hooks", {}).values():
        for group in groups:
            for handler in group["hooks"]:
                if handler.get("type") == "command":
                    handler["command"] = handler["command"].replace(RECORDED_HOOK, ours)
                    back[handler["command"]] = handler["command"].replace(ours, RECORDED_HOOK)
    (run / "settings.json").write_text(json.dumps(settings))
    log, respond = run / "hooks.jsonl", run / "answers.json"
    respond.write_text(json.dumps(case.get("hook_answers")))
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    monkeypatch.setenv("CASE_HOOK_RESPOND", str(respond))
    args = case["cli_args"]
    mcp_config = [
        args[i + 1].replace("${PROJECT_DIR}", str(project))
        for i, a in enumerate(args[:-1])
        if a == "--mcp-config"
    ]
    selection = HookSelection(
        settings_files=(str(run / "settings.json"),),
        permission_mode="bypassPermissions" if "--dangerously-skip-permissions" in args else None,
        mcp_config=tuple(mcp_config),
        strict_mcp_config="--strict-mcp-config" in args,
        claude_md=False,
    )
    mounts = mount_bridges(project, selection)
    for profile in mounts.profiles:
        profile.trust(project)  # as --trust-project: dsh's own question, answered yes
    record = run / "requests.jsonl"
    options = HostOptions(
        project=project,
        model=ScriptedModel(case["model_script"], record_to=record, substitutions=places),
        store=JsonlSessionStore(run / "sessions"),
        profiles=mounts.profiles,
        plugins=mounts.plugins,
        subagents=False,
        system=None,
    )
    async with open_host(options) as host:
        host.agent.send(case["prompt"])
        await host.agent.run_turn()
        await host.agent.close("other")
    return _compare(case, log, record, places, back)


def _compare(
    case: dict[str, Any], log: Path, record: Path, places: dict[str, str], back: dict[str, str]
) -> list[str]:
    problems: list[str] = []
    entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    supported = {e["event"] for e in entries} | {"SessionStart", "SessionEnd"}
    theirs = [
        e
        for e in _recorded(CASES / case["case"], case["hook_order"])
        if e["event"] in supported
        or e["event"]
        in {
            "PreToolUse",
            "PostToolUse",
            "PostToolUseFailure",
            "PermissionRequest",
            "PostToolBatch",
            "Elicitation",
        }
    ]
    order = [e["event"] for e in entries]
    if order != [e["event"] for e in theirs]:
        problems.append(f"order: 2.1.332 {[e['event'] for e in theirs]}, dsh {order}")
        return problems
    for mine, entry in zip(entries, theirs, strict=True):
        text = json.dumps(mine["payload"])
        for path, placeholder in sorted(
            ((v, k) for k, v in places.items()), key=lambda p: -len(p[0])
        ):
            text = text.replace(path, placeholder)
        for ours, recorded_command in back.items():
            text = text.replace(json.dumps(ours)[1:-1], recorded_command)
        got, want = json.loads(text), entry["payload"]
        if list(got) != list(want):
            problems.append(f"{mine['event']} keys: 2.1.332 {list(want)}, dsh {list(got)}")
        for key, value in want.items():
            if key in ("transcript_path", "effort") or key not in got:
                continue
            if _normal(got[key], key) != _normal(value, key):
                problems.append(f"{mine['event']}.{key}: 2.1.332 {value!r}, dsh {got[key]!r}")
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    views = case["model_view"]
    if len(requests) != len(views):
        problems.append(f"model requests: 2.1.332 {len(views)}, dsh {len(requests)}")
    for request, view in zip(requests, views, strict=False):
        got_items, want_items = _model_items(request), _expected_items(view)
        if got_items != want_items:
            problems.append(f"request {view['seq']}: 2.1.332 {want_items}, dsh {got_items}")
        want_lines, got_lines = _expected_context(view), _context_lines(request, back)
        if want_lines and got_lines[-len(want_lines) :] != want_lines:
            problems.append(f"request {view['seq']} context: 2.1.332 {want_lines}, dsh {got_lines}")
    return problems


@pytest.mark.parametrize("name", _cases())
async def test_mcp_case(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not SERVER.exists():
        pytest.skip("server-everything is not installed (make mcp-node-server; it needs npm)")
    case = json.loads((CASES / name / "case.json").read_text())
    problems = await _replay(case, tmp_path, monkeypatch)
    if name in NOT_YET:
        assert problems, f"{name} now replays: drop it from NOT_YET ({NOT_YET[name]})"
        return
    assert not problems, "\n".join(problems)
