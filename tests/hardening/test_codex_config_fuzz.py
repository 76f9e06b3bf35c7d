"""Fuzzing Codex's hook sources: a project's ``.codex/hooks.json`` and ``.codex/config.toml``
and the user's ``config.toml`` (project trust, ``[hooks.state]`` trust records) never make the
bridge raise.

Each example writes the three files (hostile JSON or bytes; TOML lines built from the tables
Codex reads, hostile strings and broken lines) and goes through the real loaders as
``dsh run --hooks codex``, ``dsh hooks check`` and ``dsh hooks trust`` do:
``CodexProfile.load`` (catalog, project-layer review, the bridge), ``untrusted`` and
``trust`` (which rewrites the user's ``config.toml`` in place). Every line they give must be
printable. The short profile runs by default; ``make fuzz`` is the 100,000-example run.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.hooks.codex import CodexProfile
from tests.hardening.test_catalog_fuzz import HOSTILE_TEXT, VALUES

EXAMPLES = int(os.environ.get("DSH_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

EVENTS = st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "SessionStart", "Bogus"])
HANDLER = st.fixed_dictionaries(
    {"type": st.sampled_from(["command", "prompt", "agent", "mcp_tool"]) | VALUES},
    optional={
        "command": HOSTILE_TEXT | VALUES,
        "timeout": st.sampled_from([1, 0, -1, 1e308, "5"]) | VALUES,
        "async": VALUES,
        "statusMessage": HOSTILE_TEXT,
        "additionalContextLimit": st.sampled_from([0, 1, -1, 2**70]) | VALUES,
    },
)
GROUP = st.fixed_dictionaries(
    {"hooks": st.lists(HANDLER, max_size=3) | VALUES}, optional={"matcher": HOSTILE_TEXT | VALUES}
)
HOOKS_JSON = st.fixed_dictionaries(
    {"hooks": st.dictionaries(EVENTS | HOSTILE_TEXT, st.lists(GROUP, max_size=2) | VALUES)}
) | VALUES.map(lambda v: {"hooks": v})


def _json_bytes(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True).encode()


# Well-formed files too, so that hooks load (and get trusted) with hostile contents.
WELL_FORMED = st.builds(
    lambda event, matcher, command, extra: {
        "hooks": {
            event: [
                {"matcher": matcher, "hooks": [{"type": "command", "command": command, **extra}]}
            ]
        }
    },
    st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "UserPromptSubmit"]),
    st.sampled_from(["", "*", "Bash", "^(a+)+$", "(", "Bash|exec_command"]) | HOSTILE_TEXT,
    HOSTILE_TEXT,
    st.fixed_dictionaries(
        {},
        optional={
            "timeout": st.integers(min_value=-5, max_value=2**40),
            "statusMessage": HOSTILE_TEXT,
            "async": st.booleans(),
        },
    ),
)
HOOKS_FILE = (
    WELL_FORMED.map(_json_bytes)
    | HOOKS_JSON.map(_json_bytes)
    | st.sampled_from([b"", b"{", b'{"hooks": ' + b"[" * 3000 + b"]" * 3000 + b"}", b"\xff\xfe"])
    | st.binary(max_size=48)
)


def _toml_string(text: str) -> str:
    # A JSON string is a TOML basic string, lone surrogates aside (escaped: TOML refuses them).
    return json.dumps(text, ensure_ascii=True)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    return _toml_string(str(value))


KEYS = st.sampled_from(
    [
        "type",
        "command",
        "matcher",
        "timeout",
        "async",
        "trusted_hash",
        "enabled",
        "trust_level",
        "approval_policy",
        "sandbox_mode",
        "allow_managed_hooks_only",
    ]
) | HOSTILE_TEXT.map(_toml_string)
ATOM = st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=False), HOSTILE_TEXT)


def _line(project: str) -> Any:
    quoted = _toml_string(project)
    return st.one_of(
        st.sampled_from(
            [
                "[hooks]",
                "[[hooks.PreToolUse]]",
                "[[hooks.PreToolUse.hooks]]",
                "[[hooks.Stop]]",
                "[[hooks.Stop.hooks]]",
                "[hooks.state]",
                f"[projects.{quoted}]",
                'trust_level = "trusted"',
                'type = "command"',
                "[shell_environment_policy]",
                'inherit = "none"',
                "[[",
                "x = ",
                "= 1",
                '"\\ud800" = 1',
                "[hooks.state." + quoted + "]",
            ]
        ),
        st.builds(lambda k, v: f"{k} = {_toml_value(v)}", KEYS, ATOM),
        st.builds(
            lambda k, vs: f"{k} = [{', '.join(map(_toml_value, vs))}]",
            KEYS,
            st.lists(ATOM, max_size=3),
        ),
        st.builds(
            lambda key, h: f"[hooks.state.{_toml_string(key)}]\ntrusted_hash = {_toml_value(h)}",
            HOSTILE_TEXT,
            HOSTILE_TEXT,
        ),
        HOSTILE_TEXT,
    )


PROJECT = "/fuzz/project"  # replaced by the example's real project path when written
TOML_TEXT = st.lists(_line(PROJECT), max_size=12).map("\n".join)
_TRUSTED = f'[projects.{_toml_string(PROJECT)}]\ntrust_level = "trusted"\n'
USER_TOML = TOML_TEXT | TOML_TEXT.map(lambda text: _TRUSTED + text)


def check_codex_config(hooks_json: bytes, project_toml: str, user_toml: str) -> None:
    """The property: loading, reviewing and trusting the project raise nothing, and every
    line is printable."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project, home = root / "project", root / "home"
        (project / ".codex").mkdir(parents=True)
        home.mkdir()
        real = str(project.absolute())
        (project / ".codex" / "hooks.json").write_bytes(hooks_json)
        for path, text in (
            (project / ".codex" / "config.toml", project_toml),
            (home / "config.toml", user_toml),
        ):
            path.write_bytes(text.replace(PROJECT, real).encode("utf-8", "surrogatepass"))
        profile = CodexProfile(
            home=home, system_dir=None, env={}, trust_dir=root / "trust", instructions=False
        )
        mount = profile.load(project)
        # Codex's [shell_environment_policy] and approval policy, as a run reads them.
        json.dumps(dict(mount.environment), default=str)
        assert mount.catalog.permission_mode is None or isinstance(
            mount.catalog.permission_mode, str
        )
        lines = [*mount.diagnostics, *profile.untrusted(project), *profile.trust(project)]
        for line in lines:
            line.encode("utf-8")
        again = profile.load(project)  # the rewritten config.toml still loads
        for line in again.diagnostics:
            line.encode("utf-8")


@FUZZ
@given(hooks_json=HOOKS_FILE, project_toml=TOML_TEXT, user_toml=USER_TOML)
def test_any_codex_config_is_loaded_reviewed_and_trusted_without_raising(
    hooks_json: bytes, project_toml: str, user_toml: str
) -> None:
    check_codex_config(hooks_json, project_toml, user_toml)


FUZZ_TARGET = (
    "codex hooks.json and config.toml",
    check_codex_config,
    {"hooks_json": HOOKS_FILE, "project_toml": TOML_TEXT, "user_toml": USER_TOML},
)
"""What ``benchmarks/fuzz_all.py`` (``make fuzz``) runs: a name, the property, its strategies."""
