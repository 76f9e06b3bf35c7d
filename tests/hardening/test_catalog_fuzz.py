"""Fuzzing ``load_catalog`` over generated settings files: it never raises.

The short profile runs in CI; ``DSH_FUZZ_EXAMPLES=100000`` is the long run. Each example is
a project settings file, a ``--settings`` file and an inline ``--settings`` string built from
the shapes a hook file has, filled with hostile strings (markup, NUL, lone surrogates,
escape sequences, huge and catastrophic regexes), hostile JSON (deep nesting, ``NaN``,
``1e999``) or raw bytes.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.hooks.claude import Catalog, ClaudeCodeProfile, load_catalog
from dsh.hooks.claude.trust._review import review_trust

EXAMPLES = int(os.environ.get("DSH_FUZZ_EXAMPLES", "200"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

HOSTILE_TEXT = st.sampled_from(
    [
        "PreToolUse",
        "Stop",
        "Bash|Edit",
        "[/bogus]",
        "[bold]x",
        "a{99999999999}",
        "(" * 3000,
        "(" * 300 + "a" + ")" * 300,
        "(a+)+$",
        "(?<n>a)\\k<n>",
        "\\",
        "echo \x00 hi",
        "\ud800",
        "x\udfff",
        "\x1b]0;t\x07\x1b[2J",
        "Bash(git *)",
        "Bash(a) && Edit(b)",
        "",
        "*",
    ]
) | st.text(max_size=20)

ATOMS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), HOSTILE_TEXT)
VALUES = st.recursive(
    ATOMS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(HOSTILE_TEXT, inner, max_size=3),
    max_leaves=12,
)
HANDLER = st.fixed_dictionaries(
    {"type": st.sampled_from(["command", "prompt", "http", "bogus"]) | VALUES},
    optional={
        "command": HOSTILE_TEXT | VALUES,
        "args": st.lists(HOSTILE_TEXT, max_size=2) | VALUES,
        "timeout": st.sampled_from([1, 0, -1, 1e308, "5"]) | VALUES,
        "if": HOSTILE_TEXT,
        "async": VALUES,
    },
)
GROUP = st.fixed_dictionaries(
    {"hooks": st.lists(HANDLER, max_size=3) | VALUES}, optional={"matcher": HOSTILE_TEXT | VALUES}
)
HOOKS = st.dictionaries(
    HOSTILE_TEXT | st.sampled_from(["PreToolUse", "PostToolUse", "Stop", "FileChanged"]),
    st.lists(GROUP, max_size=3) | VALUES,
    max_size=3,
)
RULE_TEXT = HOSTILE_TEXT | st.sampled_from(
    ["Bash(rm:*)", "Bash(:*)", "Read(//etc/**)", "Edit(~/x)", "WebFetch(domain:a.b)", "mcp__s"]
)
PERMISSIONS = st.fixed_dictionaries(
    {},
    optional={
        "allow": st.lists(RULE_TEXT, max_size=3) | VALUES,
        "deny": st.lists(RULE_TEXT, max_size=3) | VALUES,
        "ask": st.lists(RULE_TEXT, max_size=3) | VALUES,
        "defaultMode": st.sampled_from(["auto", "plan", "manual", "bypassPermissions"]) | VALUES,
        "additionalDirectories": st.lists(HOSTILE_TEXT, max_size=2) | VALUES,
        "disableBypassPermissionsMode": st.just("disable") | VALUES,
    },
)
SETTINGS_OBJECT = st.fixed_dictionaries(
    {"hooks": HOOKS | VALUES},
    optional={
        "permissions": PERMISSIONS | VALUES,
        "disableAllHooks": VALUES,
        "allowManagedHooksOnly": VALUES,
        "enabledPlugins": st.dictionaries(HOSTILE_TEXT, st.just(True) | VALUES) | VALUES,
        "strictPluginOnlyCustomization": VALUES,
    },
)


def _text(value: Any) -> str:
    # ensure_ascii keeps lone surrogates as \\u escapes, as a hostile file would hold them.
    return json.dumps(value, ensure_ascii=True)


RAW_JSON = st.sampled_from(
    [
        '{"hooks": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"hooks": {}, "n": NaN}',
        '{"hooks": {"Stop": 1e999}}',
        '{"hooks": {"Stop": [' + "1" * 5000 + "]}}",
        "[]",
        "",
        "{",
    ]
)
FILE_TEXT = SETTINGS_OBJECT.map(_text) | VALUES.map(_text) | RAW_JSON
FILE_BYTES = FILE_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")) | st.binary(max_size=64)


def check_settings(project_file: bytes, cli_file: bytes, inline: str) -> None:
    """The property: ``load_catalog`` returns a catalog whose diagnostics are printable."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        (project / ".claude").mkdir(parents=True)
        (project / ".claude" / "settings.json").write_bytes(project_file)
        (root / "cli.json").write_bytes(cli_file)
        catalog = load_catalog(
            project,
            settings_files=[root / "cli.json", "{" + inline[1:] if inline[:1] == "{" else inline],
            home=root / "home",
            managed_path=root / "managed.json",
            env={},
            discover_installed_plugins=False,
        )
        # The permission policy is built from what was read, and reported, without raising.
        mounted = ClaudeCodeProfile(catalog=catalog, home=root / "home", instructions=False)
        loaded = mounted.load(project)
        assert loaded.permissions is not None
        catalog.render_report().encode("utf-8")
        # So is the trust review of what the project controls (its hooks, the plugins it
        # enables), its lines and its notice.
        review = review_trust(catalog, root / "trust")
        for line in [*review.lines(every=True), review.notice() or ""]:
            line.encode("utf-8")
    assert isinstance(catalog, Catalog)
    for diagnostic in catalog.diagnostics:
        text = diagnostic.describe()
        assert isinstance(text, str)
        text.encode("utf-8")  # printable: no lone surrogate reaches a diagnostic


@FUZZ
@given(project_file=FILE_BYTES, cli_file=FILE_BYTES, inline=FILE_TEXT)
def test_any_settings_are_loaded_without_raising(
    project_file: bytes, cli_file: bytes, inline: str
) -> None:
    check_settings(project_file, cli_file, inline)


FUZZ_TARGET = (
    "claude settings files",
    check_settings,
    {"project_file": FILE_BYTES, "cli_file": FILE_BYTES, "inline": FILE_TEXT},
)
"""What ``benchmarks/fuzz_all.py`` (``make fuzz``) runs: a name, the property, its strategies."""
