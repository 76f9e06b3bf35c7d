"""Every kind of diagnostic, and a malformed suite skipped whole."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from dsh.hooks.claude import Catalog, Diagnostic
from tests.hooks_claude.conftest import Machine, command, settings


def _only(catalog: Catalog, code: str) -> Diagnostic:
    found = [d for d in catalog.diagnostics if d.code == code]
    assert len(found) == 1, catalog.render_report()
    return found[0]


def _project(machine: Machine, data: Any) -> Catalog:
    machine.write(machine.project_settings, data)
    return machine.load()


def test_bad_json_names_file_line_and_column(machine: Machine) -> None:
    machine.fixture("bad-syntax.json", machine.project_settings)
    machine.write(machine.user_settings, settings("Stop", command("echo still-loads")))

    catalog = machine.load()

    diag = _only(catalog, "json-syntax")
    assert diag.file == str(machine.project_settings)
    # The trailing comma: 3.13's json points at it, earlier ones at the brace after it.
    column = 77 if sys.version_info >= (3, 13) else 78
    assert (diag.line, diag.column) == (4, column)
    assert f"line 4, column {column}" in diag.reason
    assert diag.severity == "error"
    # The other file's hooks still load.
    assert [h.declared_command for h in catalog.for_event("Stop")] == ["echo still-loads"]
    assert not catalog.ok


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("[1, 2]", "bad-shape"),
        ('{"hooks": {"Stop": []}, "x": NaN}', "json-syntax"),
        ('{"hooks": []}', "bad-shape"),
        ('{"disableAllHooks": "yes"}', "bad-shape"),
    ],
)
def test_bad_file_shapes(machine: Machine, text: str, code: str) -> None:
    catalog = _project(machine, text)
    assert any(d.code == code and d.severity == "error" for d in catalog.diagnostics)
    assert catalog.sources[0].status == "skipped"


def test_unknown_event_is_an_error_with_a_hint(machine: Machine) -> None:
    catalog = _project(machine, settings("postToolUse", command("echo x")))
    diag = _only(catalog, "unknown-event")
    assert diag.event == "postToolUse"
    assert "`PostToolUse`" in diag.reason
    assert catalog.hooks == {}


def test_bad_regex_matcher(machine: Machine) -> None:
    catalog = _project(machine, settings("PreToolUse", command("echo x"), matcher="mcp__(x"))
    diag = _only(catalog, "bad-matcher")
    assert (diag.event, diag.group_index, diag.hook_index) == ("PreToolUse", 0, None)
    assert "does not compile" in diag.reason


def test_matcher_that_is_not_a_string(machine: Machine) -> None:
    catalog = _project(
        machine, {"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": [command("x")]}]}}
    )
    assert _only(catalog, "bad-matcher").severity == "error"


def test_mcp_tool_hooks_are_admitted_with_their_target(machine: Machine) -> None:
    handler = {"type": "mcp_tool", "server": "s", "tool": "t", "input": {"m": "${prompt}"}}
    data = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    catalog = _project(machine, data)
    (hook,) = catalog.for_event("PreToolUse")
    assert hook.kind == "mcp_tool"
    assert hook.declared_command == "s/t"
    assert hook.mcp_tool is not None
    assert (hook.mcp_tool.server, hook.mcp_tool.tool) == ("s", "t")
    assert dict(hook.mcp_tool.input) == {"m": "${prompt}"}
    assert catalog.ok


@pytest.mark.parametrize("missing", ["server", "tool"])
def test_an_mcp_tool_hook_without_server_or_tool_is_refused(machine: Machine, missing: str) -> None:
    handler = {"type": "mcp_tool", "server": "s", "tool": "t"}
    del handler[missing]
    data = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    catalog = _project(machine, data)
    diag = _only(catalog, "missing-command")
    assert f"`{missing}`" in diag.reason
    assert not catalog.for_event("PreToolUse")


def test_unknown_type_and_type_not_allowed_for_the_event(machine: Machine) -> None:
    catalog = _project(machine, settings("Stop", {"type": "cmd", "command": "x"}))
    assert _only(catalog, "unknown-type").severity == "error"
    catalog = _project(machine, settings("SessionStart", {"type": "prompt", "prompt": "x"}))
    diag = _only(catalog, "type-not-allowed")
    assert "`command`, `mcp_tool`" in diag.reason
    catalog = _project(machine, settings("Stop", {"command": "x"}))
    assert _only(catalog, "missing-type").severity == "error"


@pytest.mark.parametrize("timeout", [0, -3, "10", True, None, [5]])
def test_bad_timeout(machine: Machine, timeout: object) -> None:
    catalog = _project(machine, settings("Stop", command("echo x", timeout=timeout)))
    diag = _only(catalog, "bad-timeout")
    assert diag.severity == "error"
    assert "timeout" in diag.reason
    assert catalog.hooks == {}


def test_fractional_timeout_is_fine(machine: Machine) -> None:
    catalog = _project(machine, settings("Stop", command("echo x", timeout=0.5)))
    assert catalog.for_event("Stop")[0].timeout == 0.5


@pytest.mark.parametrize("handler", [{"type": "command"}, command(""), command("   ")])
def test_missing_command(machine: Machine, handler: dict[str, Any]) -> None:
    catalog = _project(machine, settings("Stop", handler))
    diag = _only(catalog, "missing-command")
    assert (diag.event, diag.group_index, diag.hook_index) == ("Stop", 0, 0)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("async", "yes"),
        ("args", "not-a-list"),
        ("args", ["ok", 2]),
        ("shell", "zsh"),
        ("onFailure", "explode"),
        ("statusMessage", 3),
    ],
)
def test_bad_field_values(machine: Machine, field: str, value: object) -> None:
    catalog = _project(machine, settings("Stop", command("echo x", **{field: value})))
    diag = _only(catalog, "bad-field")
    assert f"`{field}" in diag.reason
    assert diag.severity == "error"


def test_unknown_fields_are_warnings_and_the_hook_still_runs(machine: Machine) -> None:
    catalog = _project(
        machine,
        {"hooks": {"Stop": [{"matcher": "", "hooks": [command("echo x", timout=5)], "extra": 1}]}},
    )
    codes = sorted((d.code, d.severity) for d in catalog.diagnostics)
    assert codes == [("unknown-field", "warning"), ("unknown-field", "warning")]
    assert any("`timout`" in d.reason for d in catalog.diagnostics)
    assert len(catalog.for_event("Stop")) == 1
    assert not catalog.ok


def test_notes_for_fields_ignored_as_claude_code_ignores_them(machine: Machine) -> None:
    data = {
        "hooks": {
            "Stop": [
                {
                    "matcher": "whatever",
                    "hooks": [command("echo x", once=True, onFailure="block", rewakeMessage="m")],
                }
            ]
        }
    }
    catalog = _project(machine, data)
    assert catalog.ok, catalog.render_report()
    codes = sorted(d.code for d in catalog.diagnostics)
    assert codes == ["ignored-field", "ignored-field", "ignored-field", "ignored-matcher"]
    (stop,) = catalog.for_event("Stop")
    assert stop.on_failure == "continue"  # ignored on Stop: it would loop
    assert stop.matches("anything")


def test_if_rules(machine: Machine) -> None:
    catalog = _project(
        machine, settings("PreToolUse", command("x", **{"if": "Bash(a) && Edit(b)"}))
    )
    assert _only(catalog, "bad-if").severity == "error"
    catalog = _project(machine, settings("Stop", command("x", **{"if": "Bash(git *)"})))
    diag = _only(catalog, "if-never-runs")
    assert diag.severity == "warning"
    assert catalog.hooks == {}


def test_unsupported_runtime_features(machine: Machine) -> None:
    data = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        command("a", asyncRewake=True),
                        command("b", shell="powershell"),
                        command("c", **{"async": True}),
                        command("d", shell="bash"),
                    ]
                }
            ]
        }
    }
    catalog = _project(machine, data)
    warned = sorted(d.hook_index or 0 for d in catalog.warnings)
    assert warned == [1]
    a, c, d = catalog.for_event("Stop")
    # `asyncRewake` is admitted, without a word, and waited for as 2.1.332 does headless.
    assert not a.run_async
    assert all(x.hook_index != 0 for x in catalog.diagnostics)
    assert c.run_async
    assert d.argv == ("bash", "-c", "d")


def test_unsupported_event_does_not_skip_the_suite(machine: Machine) -> None:
    data = {
        "hooks": {
            "WorktreeRemove": [{"hooks": [command("worktree")]}],
            "TeammateIdle": [{"hooks": [command("idle")]}],
            "Stop": [{"hooks": [command("stop")]}],
        }
    }
    catalog = _project(machine, data)
    unsupported = [d for d in catalog.diagnostics if d.code == "unsupported-event"]
    assert [(d.event, d.severity) for d in unsupported] == [("TeammateIdle", "warning")]
    assert "agent teams" in unsupported[0].reason
    assert [h.declared_command for h in catalog.for_event("Stop")] == ["stop"]
    # WorktreeRemove fires from an interactive --worktree session's exit question.
    assert [h.declared_command for h in catalog.for_event("WorktreeRemove")] == ["worktree"]


def test_malformed_suite_is_skipped_whole(machine: Machine) -> None:
    broken = machine.fixture("plugin-broken", machine.root / "broken")
    good = machine.fixture("plugin-formatter", machine.root / "good")
    machine.write(machine.user_settings, settings("PreToolUse", command("echo user")))

    catalog = machine.load(plugin_roots=[broken, good])

    # The broken plugin's well-formed Bash hook is not mounted either.
    assert [h.declared_command for h in catalog.for_event("PreToolUse")] == ["echo user"]
    assert [h.plugin for h in catalog.for_event("PostToolUse")] == ["formatter"]
    bad = _only(catalog, "bad-matcher")
    assert (bad.plugin, bad.group_index) == ("broken", 1)
    skipped = _only(catalog, "suite-skipped")
    assert skipped.plugin == "broken"
    assert "whole plugin was skipped" in skipped.reason
    assert "1 well-formed hook(s)" in skipped.reason
    assert "mcp__(memory" in skipped.reason
    status = {e.source.plugin: e.status for e in catalog.sources}
    assert status == {None: "loaded", "broken": "skipped", "formatter": "loaded"}


def test_one_bad_handler_skips_its_settings_file(machine: Machine) -> None:
    data = {"hooks": {"Stop": [{"hooks": [command("ok"), command("bad", timeout=-1)]}]}}
    machine.write(machine.local_settings, data)
    machine.write(machine.project_settings, settings("Stop", command("project")))
    catalog = machine.load()
    assert [h.declared_command for h in catalog.for_event("Stop")] == ["project"]
    assert _only(catalog, "suite-skipped").file == str(machine.local_settings)


def test_plugin_shell_form_user_config_is_an_error(machine: Machine) -> None:
    root = machine.root / "uc"
    machine.write(
        root / "hooks" / "hooks.json", settings("Stop", command("run ${user_config.token}"))
    )
    catalog = machine.load(plugin_roots=[root])
    assert any(d.code == "bad-field" and "user_config" in d.reason for d in catalog.errors)


def test_diagnostics_never_raise_for_garbage(machine: Machine) -> None:
    # Every level of the structure given the wrong type.
    for data in [
        {"hooks": {"Stop": {"hooks": []}}},
        {"hooks": {"Stop": ["x"]}},
        {"hooks": {"Stop": [{"hooks": "x"}]}},
        {"hooks": {"Stop": [{"hooks": ["x"]}]}},
        {"hooks": {"Stop": [{}]}},
    ]:
        catalog = _project(machine, data)
        assert catalog.errors, data
        assert catalog.hooks == {}


def test_report_lists_sources_declarations_and_tags(machine: Machine) -> None:
    machine.fixture("project-settings.json", machine.project_settings)
    broken = machine.fixture("plugin-broken", machine.root / "broken")
    machine.write(machine.user_settings, settings("TeammateIdle", command("n")))

    catalog = machine.load(plugin_roots=[broken])
    report = catalog.render_report()

    assert str(machine.project_settings) in report
    assert "loaded, 4 hook(s) admitted" in report
    assert "skipped: the whole plugin was skipped" in report
    assert "PreToolUse (partial on tools/rewrite-input):" in report
    assert "TeammateIdle: not-supported" in report
    assert "error: " in report
    assert "PreToolUse[1]: matcher 'mcp__(memory'" in report
    assert report.rstrip().endswith("not ok: 2 error(s), 1 warning(s)")
