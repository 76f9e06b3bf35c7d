"""Fuzzing dsh's trust records: whatever the record file of a project holds, both bridges load,
review and re-trust the project without raising.

Each example writes a record (a ``dsh-claude-trust/1`` object with hostile sections and
entries, hostile JSON, or raw bytes) where dsh keeps the project's record, for a project with
Claude Code hooks (one naming a script of the project), a ``CLAUDE.md``, and a trusted
Codex layer; then goes through the real loaders as ``dsh run``, ``dsh hooks check`` and
``dsh hooks trust`` do: each profile's ``load``, ``untrusted`` and ``trust`` (which
rewrites the record), and ``load`` again. Every line they give must be printable. The
short profile runs by default; ``make fuzz`` is the 100,000-example run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.hook_protocol._trust_record import TRUST_FORMAT, record_path
from dsh.hooks.claude import ClaudeCodeProfile
from dsh.hooks.codex import CodexProfile
from tests.hardening.test_catalog_fuzz import HOSTILE_TEXT, VALUES

EXAMPLES = int(os.environ.get("DSH_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SECTIONS = st.sampled_from(["hooks", "plugins", "instructions", "permissions", "codex"])
FIELD = HOSTILE_TEXT | st.sampled_from(["sha256:" + "0" * 64, "project settings", "codex x"])
ENTRY = st.fixed_dictionaries(
    {},
    optional={
        "fingerprint": FIELD | VALUES,
        "where": FIELD | VALUES,
        "file": FIELD | VALUES,
        "command": FIELD,
    },
)
RECORD = st.fixed_dictionaries(
    {"format": st.just(TRUST_FORMAT) | VALUES},
    optional={
        "project": HOSTILE_TEXT | VALUES,
        "trusted_at": HOSTILE_TEXT | VALUES,
        "hooks": st.lists(ENTRY, max_size=4) | VALUES,
        "codex": st.lists(ENTRY, max_size=4) | VALUES,
    },
).flatmap(
    lambda record: st.dictionaries(
        SECTIONS | HOSTILE_TEXT, st.lists(ENTRY, max_size=3) | VALUES
    ).map(lambda more: {**more, **record})
)


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode()


RECORD_BYTES = (
    RECORD.map(_json_bytes)
    | VALUES.map(_json_bytes)
    | st.sampled_from([b"", b"{", b"[" * 5000 + b"]" * 5000, b'{"format": NaN}'])
    | st.binary(max_size=64)
)

_CLAUDE_SETTINGS = {
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./hook.sh"}]}],
        "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}],
    },
    "permissions": {"allow": ["Bash(git *)"], "additionalDirectories": ["../elsewhere"]},
}
_CODEX_HOOKS = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./hook.sh"}]}]}}


def _project(root: Path) -> Path:
    project = root / "project"
    (project / ".claude").mkdir(parents=True)
    (project / ".codex").mkdir()
    (project / ".claude" / "settings.json").write_text(json.dumps(_CLAUDE_SETTINGS))
    (project / ".codex" / "hooks.json").write_text(json.dumps(_CODEX_HOOKS))
    (project / "hook.sh").write_text("#!/bin/sh\nexit 0\n")
    (project / "CLAUDE.md").write_text("be careful\n")
    (project / "AGENTS.md").write_text("be careful\n")
    home = root / "codex"
    home.mkdir()
    trusted = f'[projects.{json.dumps(str(project.absolute()))}]\ntrust_level = "trusted"\n'
    (home / "config.toml").write_text(trusted)
    return project


def _printable(lines: Any) -> None:
    for line in lines:
        if line is not None:
            line.encode("utf-8")


def check_trust_record(record: bytes) -> None:
    """The property: with ``record`` as the project's trust record, neither bridge raises
    loading, reviewing or trusting the project, and what they say is printable."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = _project(root)
        trust = root / "trust"
        trust.mkdir(mode=0o700)
        path = record_path(project.absolute(), trust)
        path.write_bytes(record)
        claude = ClaudeCodeProfile(
            home=root / "home",
            managed_path=root / "managed.json",
            env={},
            discover_installed_plugins=False,
            transcript_dir=root / "transcripts",
            instructions_config_dir=root / "claude-config",
            instructions_managed_dir=root / "claude-managed",
            trust_dir=trust,
        )
        codex = CodexProfile(home=root / "codex", system_dir=None, env={}, trust_dir=trust)
        review = claude.review(project)
        _printable([*review.lines(every=True), review.notice(), review.problem])
        _printable(claude.load(project).diagnostics)
        _printable(codex.load(project).diagnostics)
        _printable([*claude.untrusted(project), *codex.untrusted(project)])
        _printable([*claude.trust(project), *codex.trust(project)])  # rewrites the record
        _printable(claude.load(project).diagnostics)
        _printable(codex.load(project).diagnostics)


@FUZZ
@given(record=RECORD_BYTES)
def test_any_trust_record_is_read_and_rewritten_without_raising(record: bytes) -> None:
    check_trust_record(record)


FUZZ_TARGET = ("trust records", check_trust_record, {"record": RECORD_BYTES})
"""What ``benchmarks/fuzz_all.py`` (``make fuzz``) runs: a name, the property, its strategies."""
