"""A rig for the bridge tests: the agent harness plus a settings file of recording hooks."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh.approval import APPROVAL, ApprovalBroker
from dsh.hooks.claude import Catalog, ClaudeCodeProfile, PermissionMode, load_catalog
from tests.agent.support import Harness, make_harness
from tests.hook_rig import RecordingRig

SCRIPT = Path(__file__).parent / "scripts" / "record_hook.py"


def hook_command(event: str) -> str:
    return f"{sys.executable} {SCRIPT} {event}"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@dataclass
class Rig(RecordingRig):
    catalog: Catalog
    transcripts: Path


def make_rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: dict[str, Any],
    events: dict[str, str | None] | list[str],
    answers: dict[str, Any] | None = None,
    *,
    timeout: float | None = None,
    substitutions: dict[str, str] | None = None,
    permission_mode: PermissionMode = "bypassPermissions",
    profile: dict[str, Any] | None = None,
) -> Rig:
    """``events``: the events to register the recording hook on (event → matcher, or a list);
    ``profile``: more ``ClaudeCodeProfile`` settings (``effort``, ``attended``, ...)."""
    harness = make_harness(tmp_path, script)
    if substitutions:
        from dsh.models import ScriptedModel

        harness.model = ScriptedModel(script, record_to=harness.record, substitutions=substitutions)
    matchers = events if isinstance(events, dict) else dict.fromkeys(events)
    hooks: dict[str, Any] = {}
    for event, matcher in matchers.items():
        handler: dict[str, Any] = {"type": "command", "command": hook_command(event)}
        if timeout is not None:
            handler["timeout"] = timeout
        group: dict[str, Any] = {"hooks": [handler]}
        if matcher is not None:
            group["matcher"] = matcher
        hooks[event] = [group]
    return mount_hooks(
        tmp_path,
        monkeypatch,
        harness,
        hooks,
        answers,
        permission_mode=permission_mode,
        profile=profile,
    )


def mount_hooks(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    harness: Harness,
    hooks: dict[str, Any],
    answers: dict[str, Any] | None,
    *,
    permission_mode: PermissionMode | None = "bypassPermissions",
    profile: dict[str, Any] | None = None,
    settings: dict[str, Any] | None = None,
    managed: dict[str, Any] | None = None,
) -> Rig:
    """Write ``hooks`` (and the keys of ``settings``) as the project's settings, ``managed``
    as managed settings, and mount the Claude Code profile on ``harness``.

    As in ``dsh run``: the harness gets an approval service nobody answers (unless it
    has one), so a PermissionRequest hook is asked before the ask is denied.
    """
    path = harness.project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**(settings or {}), "hooks": hooks}))
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    managed_path = tmp_path / "no-managed.json"
    if managed is not None:
        managed_path.write_text(json.dumps(managed))
    catalog = load_catalog(
        harness.project,
        home=home,
        managed_path=managed_path,
        env={},
        discover_installed_plugins=False,
    )
    assert catalog.ok, catalog.diagnostics
    log = tmp_path / "hooks.jsonl"
    respond = tmp_path / "answers.json"
    respond.write_text(json.dumps(answers))
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    monkeypatch.setenv("CASE_HOOK_RESPOND", str(respond))
    transcripts = tmp_path / "transcripts"
    if harness.ctx.get(APPROVAL) is None:
        harness.ctx.provide(APPROVAL, ApprovalBroker())
    mounted = ClaudeCodeProfile(
        catalog=catalog,
        permission_mode=permission_mode,
        transcript_dir=transcripts,
        instructions=False,
        **{"home": home, **(profile or {})},  # commands and skills from this home only
    )
    found = harness.assembly.mount_profile(mounted)
    assert all(d.text.startswith("info: ") for d in found), found  # notes only
    return Rig(harness=harness, catalog=catalog, log=log, transcripts=transcripts)
