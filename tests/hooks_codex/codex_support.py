"""A rig for the Codex bridge tests: the agent harness, a Codex home, recording hooks."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from dsh.approval import APPROVAL, ApprovalBroker
from dsh.hooks.codex import CODEX_HOOK_EVENTS, CodexProfile
from dsh.hooks.codex.config._types import CodexPermissionMode
from tests.agent.support import Harness, make_harness
from tests.hook_rig import RecordingRig
from tests.shared_paths import ROOT

SCRIPT = ROOT / "tests" / "hooks_claude" / "scripts" / "record_hook.py"
MODEL_REQUEST_EVENTS = ("PreModelRequest", "PostModelRequest")
CORPUS_EVENTS = tuple(e for e in CODEX_HOOK_EVENTS if e not in MODEL_REQUEST_EVENTS)
"""The events the corpus's recordings declared hooks on (the model-request pair came later)."""


def hook_command(event: str) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(SCRIPT))} {event}"


def recording_hooks(events: list[str] | None = None, matcher: str | None = "*") -> dict[str, Any]:
    """``hooks.json``'s ``hooks``: the recording hook on ``events`` (default: the corpus's),
    Codex's order."""
    hooks: dict[str, Any] = {}
    for event in CODEX_HOOK_EVENTS if events is not None else CORPUS_EVENTS:
        if events is not None and event not in events:
            continue
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": hook_command(event)}]}
        if matcher is not None:
            group["matcher"] = matcher
        hooks[event] = [group]
    return hooks


@dataclass
class CodexRig(RecordingRig):
    home: Path
    diagnostics: tuple[str, ...]


def mount_codex(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    harness: Harness,
    hooks: dict[str, Any] | None,
    answers: dict[str, Any] | None = None,
    *,
    bypass_trust: bool = True,
    permission_mode: CodexPermissionMode | None = "bypassPermissions",
    config_toml: str | None = None,
    profile: dict[str, Any] | None = None,
) -> CodexRig:
    """Write ``hooks`` as ``$CODEX_HOME/hooks.json`` and mount the Codex profile on ``harness``."""
    home = tmp_path / "home" / ".codex"
    home.mkdir(parents=True, exist_ok=True)
    if hooks is not None:
        (home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    if config_toml is not None:
        (home / "config.toml").write_text(config_toml)
    log = tmp_path / "hooks.jsonl"
    respond = tmp_path / "answers.json"
    respond.write_text(json.dumps(answers))
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    monkeypatch.setenv("CASE_HOOK_RESPOND", str(respond))
    if harness.ctx.get(APPROVAL) is None:
        harness.ctx.provide(APPROVAL, ApprovalBroker())
    mounted = CodexProfile(
        home=home,
        system_dir=None,
        bypass_trust=bypass_trust,
        permission_mode=permission_mode,
        **{"trust_dir": tmp_path / "dsh-trust", **(profile or {})},
    )
    found = harness.assembly.mount_profile(mounted)
    return CodexRig(harness=harness, home=home, log=log, diagnostics=tuple(d.text for d in found))


def make_codex_rig(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    script: dict[str, Any],
    events: list[str] | None = None,
    answers: dict[str, Any] | None = None,
    **options: Any,
) -> CodexRig:
    harness = make_harness(tmp_path, script)
    return mount_codex(tmp_path, monkeypatch, harness, recording_hooks(events), answers, **options)
