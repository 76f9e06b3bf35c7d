"""The replay of a ``claude-next`` case (``../shared/conformance/claude-next``): its handlers
of other types than ``record_hook.py`` commands, and its settings besides ``hooks``.

On top of ``_conformance_replay``'s (whose ``mount`` and ``replay`` run it): ``http`` handlers
go to this module's real server (``${MOCK_PORT}`` its port), answering as the case's
``model_script.http_hooks`` says; the keys of ``hook_settings`` besides ``hooks`` (``env``,
``disableAllHooks``, ``allowedHttpHookUrls``) are a ``--settings`` file of their own, as
recorded. The comparisons are the corpus's (``test_conformance``), plus the HTTP requests.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import load_catalog
from tests.hooks_claude import _conformance_replay as conformance
from tests.hooks_claude import test_conformance
from tests.hooks_claude._conformance_text import VOLATILE, comparable
from tests.hooks_claude.bridge_support import SCRIPT, Rig
from tests.hooks_claude.http_server import HookServer
from tests.hooks_claude.test_conformance import (
    compare_invocations,
    compare_payload,
    is_matched_in_order,
    our_items,
    recorded_items,
)
from tests.shared_paths import CONFORMANCE

NEXT_DIR = CONFORMANCE / "claude-next"

# Headers our client sends in its own words: 2.1.332's are axios's (`axios/1.15.2`; `gzip,
# compress, deflate, br`, which httpx2 cannot all decode). Every other header is compared.
OWN_HEADERS = {"User-Agent", "Accept-Encoding"}


def next_case(name: str) -> tuple[Path, dict[str, Any]]:
    case_dir = NEXT_DIR / name
    if not case_dir.is_dir():
        pytest.skip(f"the claude-next corpus is not present at {NEXT_DIR}")
    return case_dir, json.loads((case_dir / "case.json").read_text())


def _settings_hooks(server: HookServer) -> Any:
    ours = f"{shlex.quote(sys.executable)} {shlex.quote(str(SCRIPT))}"

    def settings_hooks(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
        back: dict[str, str] = {}
        hooks: dict[str, Any] = {}
        for event, groups in case["hook_settings"]["hooks"].items():
            if event not in conformance.SUPPORTED:
                continue
            hooks[event] = []
            for group in groups:
                handlers = []
                for handler in group["hooks"]:
                    if handler["type"] == "command":
                        command = handler["command"].replace(conformance.RECORDED_HOOK, ours)
                        back[command] = handler["command"]
                        handler = {**handler, "command": command}
                    elif handler["type"] == "http":
                        url = handler["url"].replace("${MOCK_PORT}", str(server.port))
                        back[url] = handler["url"]
                        handler = {**handler, "url": url}
                    handlers.append(handler)
                hooks[event].append({**group, "hooks": handlers})
        return hooks, back

    return settings_hooks


def unescaped_conditions(case: dict[str, Any]) -> dict[str, Any]:
    """The case with its script's ``contains``/``not_contains`` as text: the recording's mock
    matched them against the raw JSON body (a quote inside a string is ``\\"`` there), the
    scripted model matches the request's text (``agent-hook-stop``)."""
    case = json.loads(json.dumps(case))
    script = case["model_script"]
    for rule in script.get("anthropic", script).get("rules", []):
        for key in ("contains", "not_contains"):
            if isinstance(rule.get(key), str):
                rule[key] = rule[key].replace('\\"', '"')
    return case


def mount_next(
    case: dict[str, Any],
    places: conformance.Places,
    server: HookServer,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Rig, dict[str, str]]:
    """``_conformance_replay.mount`` with the case's HTTP answers and its other settings."""
    for key, answers in (case["model_script"].get("http_hooks") or {}).items():
        listed = answers if isinstance(answers, list) else [answers]
        server.answer(f"/hook/{key}", *listed)
    case = unescaped_conditions(case)
    others = {k: v for k, v in case["hook_settings"].items() if k != "hooks"}
    monkeypatch.setattr(conformance, "settings_hooks", _settings_hooks(server))
    monkeypatch.setattr(conformance, "CASES_DIR", NEXT_DIR)
    if others:
        cli = places.run_dir / "settings.json"
        places.run_dir.mkdir(parents=True, exist_ok=True)
        cli.write_text(json.dumps(others))

        def with_cli_settings(*args: Any, **kwargs: Any) -> Any:
            return load_catalog(*args, settings_files=[cli], **kwargs)

        monkeypatch.setattr(conformance, "load_catalog", with_cli_settings)
    rig, back = conformance.mount(case, places, monkeypatch)
    if rig.catalog.env:
        monkeypatch.setenv("CASE_HOOK_ENV_KEEP", ",".join(rig.catalog.env))
        # As `dsh.host` layers a profile's `environment` (the settings' `env` as the policy's
        # `set`) for the processes the model drives; the replay mounts the bridge alone.
        kind = type(rig.harness.assembly)
        policy = kind.environment_policy
        layered = {"set": rig.catalog.env}
        monkeypatch.setattr(kind, "environment_policy", lambda self: policy(self).layered(layered))
    return rig, back


def compare_http(
    case: dict[str, Any],
    server: HookServer,
    places: conformance.Places,
    back: dict[str, str],
    problems: list[str],
) -> None:
    """Each recorded HTTP hook request against ours: method, path, headers, body."""
    recorded = case.get("http_hook_requests") or []
    got = server.requests()
    if [(r["method"], r["path"]) for r in got] != [(r["method"], r["path"]) for r in recorded]:
        paths = f"2.1.332 {[r['path'] for r in recorded]}, dsh {[r['path'] for r in got]}"
        problems.append(f"http requests: {paths}")
        return
    for mine, theirs in zip(got, recorded, strict=True):
        want = {k: v for k, v in theirs["headers"].items() if k not in OWN_HEADERS}
        headers = {k: v for k, v in mine["headers"].items() if k not in OWN_HEADERS}
        if list(headers.items()) != list(want.items()):
            problems.append(f"{theirs['path']} headers: 2.1.332 {want}, dsh {headers}")
        body = mine["body"]
        if list(body) != list(theirs["body"]):
            keys = f"2.1.332 {list(theirs['body'])}, dsh {list(body)}"
            problems.append(f"{theirs['path']} body keys: {keys}")
        compare_payload(theirs["path"], places.placeholders(body), theirs["body"], problems)


_PAYLOAD_START = '{"session_id"'


def without_ids(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Request items with the hook input a prompt or agent hook embeds in its text (the
    README: "compare their text with ids normalised") given its volatile values' types."""
    out = []
    for item in items:
        item = dict(item)
        for key in ("text", "line"):
            if isinstance(item.get(key), str):
                item[key] = _shaped(item[key])
        if isinstance(item.get("hook_lines"), list):
            item["hook_lines"] = [
                _shaped(x) if isinstance(x, str) else x for x in item["hook_lines"]
            ]
        out.append(item)
    return out


def _shaped(text: str) -> str:
    """``text`` with an embedded hook input's volatile values as their types' names."""
    if _PAYLOAD_START not in text:
        return text
    at = text.index(_PAYLOAD_START)
    try:
        data, end = json.JSONDecoder().raw_decode(text, at)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return text
    shaped = {k: type(v).__name__ if k in VOLATILE else v for k, v in data.items()}
    return text[:at] + json.dumps(shaped) + text[end:]


def compare_requests(
    case: dict[str, Any],
    rig: Rig,
    places: conformance.Places,
    back: dict[str, str],
    problems: list[str],
) -> None:
    """``test_conformance.compare_requests``, with ids in embedded hook inputs normalised."""
    requests, views = rig.requests(), conformance.expected_views(case)
    if len(requests) != len(views):
        problems.append(f"model requests: 2.1.332 {len(views)}, dsh {len(requests)}")
    for request, view in zip(requests, views, strict=False):  # counted above
        want = without_ids(comparable(recorded_items(view)))
        got = without_ids(comparable(places.placeholders(our_items(request, back))))
        results = [g for g in got if "tool_result" in g]
        if results != [w for w in want if "tool_result" in w]:
            problems.append(f"request {view['seq']} tool results: 2.1.332 {want}, dsh {results}")
        elif not is_matched_in_order(want, got):
            problems.append(f"request {view['seq']}: 2.1.332 {want}, dsh {got}")


# Handlers of one event run in parallel (the README): an agent hook's subagent fires its tool
# hooks while the event's command handler is still starting, so their log lines may come in
# either order (2.1.332 logged the command's first, its processes start faster than a request).
PARALLEL: dict[str, set[tuple[str, str]]] = {
    "agent-hook-stop": {("Stop", "PreToolUse"), ("Stop", "PostToolUse")},
}


async def replay_next(
    name: str, tmp_path: Path, server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> tuple[Rig, list[str]]:
    """Replay the case; the differences from its recording (none expected)."""
    case_dir, case = next_case(name)
    if name in PARALLEL:
        monkeypatch.setitem(test_conformance.SWAPPABLE, name, PARALLEL[name])
    places = conformance.Places(tmp_path)
    rig, back = mount_next(case, places, server, monkeypatch)
    await conformance.replay(case, rig, places)
    problems: list[str] = []
    compare_invocations(case_dir, rig, places, back, problems)
    compare_requests(case, rig, places, back, problems)
    compare_http(case, server, places, back, problems)
    return rig, problems
