"""Discovery: every source, additive merge, and the switches that turn hooks off."""

from __future__ import annotations

import json
from pathlib import Path

from dsh.hooks.claude import load_catalog
from dsh.hooks.claude.settings._catalog import PluginRoot
from tests.hooks_claude.conftest import Machine, command, settings


def _commands(catalog_hooks: tuple[object, ...]) -> list[str]:
    return [h.declared_command for h in catalog_hooks]  # type: ignore[attr-defined]


def test_every_settings_source_adds_up(machine: Machine) -> None:
    machine.write(machine.user_settings, settings("Stop", command("echo user")))
    machine.write(machine.project_settings, settings("Stop", command("echo project")))
    machine.write(machine.local_settings, settings("Stop", command("echo local")))
    cli = machine.write(machine.root / "extra.json", settings("Stop", command("echo cli")))
    machine.write(machine.managed, settings("Stop", command("echo managed")))
    machine.write(
        machine.managed.parent / "managed-settings.d" / "10-extra.json",
        settings("Stop", command("echo dropin")),
    )

    catalog = machine.load(
        settings_files=[cli, json.dumps(settings("Stop", command("echo inline")))]
    )

    assert catalog.ok, catalog.render_report()
    assert _commands(catalog.for_event("Stop")) == [
        "echo user",
        "echo project",
        "echo local",
        "echo cli",
        "echo inline",
        "echo managed",
        "echo dropin",
    ]
    kinds = [e.source.kind for e in catalog.sources]
    assert kinds == ["user", "project", "local", "cli", "cli", "managed", "managed"]
    assert all(e.status == "loaded" and e.admitted == 1 for e in catalog.sources)


def test_claude_config_dir_replaces_the_home_directory(machine: Machine) -> None:
    machine.write(machine.user_settings, settings("Stop", command("echo home")))
    config = machine.root / "config"
    machine.write(config / "settings.json", settings("Stop", command("echo config-dir")))

    catalog = machine.load(env={"CLAUDE_CONFIG_DIR": str(config)})

    assert _commands(catalog.for_event("Stop")) == ["echo config-dir"]
    assert catalog.sources[0].source.path == config / "settings.json"


def test_local_settings_come_from_the_git_root(machine: Machine) -> None:
    repo = machine.project
    (repo / ".git").mkdir()
    sub = repo / "pkg"
    sub.mkdir()
    machine.write(repo / ".claude" / "settings.local.json", settings("Stop", command("echo l")))
    # Project settings are read from the directory itself only, with no parent fallback.
    machine.write(repo / ".claude" / "settings.json", settings("Stop", command("echo p")))

    catalog = load_catalog(sub, home=machine.home, managed_path=machine.managed, env={})

    assert _commands(catalog.for_event("Stop")) == ["echo l"]


def test_project_fixture_loads_with_placeholders_substituted(machine: Machine) -> None:
    machine.fixture("project-settings.json", machine.project_settings)

    catalog = machine.load()

    assert catalog.ok, catalog.render_report()
    edit, bash = catalog.for_event("PreToolUse")
    project = str(machine.project)
    # The shell expands the placeholder from the hook's environment (never spliced in).
    assert edit.argv == ("sh", "-c", '"${CLAUDE_PROJECT_DIR}"/.claude/hooks/check-edit.sh')
    assert edit.timeout == 5.0
    assert edit.env["CLAUDE_PROJECT_DIR"] == project
    assert bash.argv == ("python3", f"{project}/hooks/guard.py", "--strict")
    assert bash.exec_form
    assert bash.if_rule is not None
    assert (bash.if_rule.tool, bash.if_rule.pattern) == ("Bash", "git *")
    assert bash.timeout == 600.0
    (prompt,) = catalog.for_event("UserPromptSubmit")
    assert prompt.timeout == 30.0


def test_missing_files_are_not_sources(machine: Machine) -> None:
    catalog = machine.load()
    assert catalog.sources == ()
    assert catalog.hooks == {}
    assert catalog.ok


def test_a_missing_settings_argument_is_diagnosed(machine: Machine) -> None:
    catalog = machine.load(settings_files=[machine.root / "nope.json"])
    (diag,) = catalog.diagnostics
    assert diag.code == "unreadable"
    assert diag.file == str(machine.root / "nope.json")
    assert not catalog.ok


def test_plugin_hooks_get_their_root(machine: Machine) -> None:
    root = machine.fixture("plugin-formatter", machine.root / "plugins" / "formatter")

    catalog = machine.load(plugin_roots=[root])

    (post,) = catalog.for_event("PostToolUse")
    assert post.plugin == "formatter"
    assert post.argv == ("sh", "-c", "${CLAUDE_PLUGIN_ROOT}/scripts/format.sh")
    assert post.declared_command == "${CLAUDE_PLUGIN_ROOT}/scripts/format.sh"
    assert post.env["CLAUDE_PLUGIN_ROOT"] == str(root)
    # A plugin loaded from its directory has Claude Code's `--plugin-dir` id, `<name>@inline`.
    assert post.env["CLAUDE_PLUGIN_DATA"].endswith("/plugins/data/formatter-inline")
    assert not Path(post.env["CLAUDE_PLUGIN_DATA"]).exists()  # created when a hook runs
    # Its Notification hook is admitted too (issue 31), with the same root.
    (notify,) = catalog.for_event("Notification")
    assert notify.plugin == "formatter"
    assert notify.env["CLAUDE_PLUGIN_ROOT"] == str(root)
    assert catalog.warnings == ()
    assert catalog.sources[0].status == "loaded"


def test_manifest_hooks_paths_and_inline_hooks(machine: Machine) -> None:
    root = machine.root / "p"
    machine.write(
        root / ".claude-plugin" / "plugin.json",
        {"name": "p", "hooks": ["./hooks/hooks.json", "./extra/more.json"]},
    )
    machine.write(root / "hooks" / "hooks.json", settings("Stop", command("echo std")))
    machine.write(root / "extra" / "more.json", settings("Stop", command("echo more")))
    inline_root = machine.root / "q"
    machine.write(
        inline_root / ".claude-plugin" / "plugin.json",
        {"name": "q", "hooks": {"Stop": [{"hooks": [command("echo inline")]}]}},
    )

    catalog = machine.load(plugin_roots=[root, inline_root])

    assert catalog.ok, catalog.render_report()
    # The standard file named again in the manifest is read once.
    assert _commands(catalog.for_event("Stop")) == ["echo std", "echo more", "echo inline"]


def test_enabled_installed_plugins_are_discovered(machine: Machine) -> None:
    on = machine.fixture("plugin-formatter", machine.root / "cache" / "formatter")
    off = machine.root / "cache" / "other"
    machine.write(off / "hooks" / "hooks.json", settings("Stop", command("echo off")))
    machine.write(
        machine.home / ".claude" / "plugins" / "installed_plugins.json",
        {
            "version": 2,
            "plugins": {
                "formatter@market": [{"scope": "user", "installPath": str(on)}],
                "other@market": [{"scope": "user", "installPath": str(off)}],
            },
        },
    )
    machine.write(
        machine.user_settings,
        {"enabledPlugins": {"formatter@market": True, "other@market": False}},
    )

    catalog = machine.load()

    (post,) = catalog.for_event("PostToolUse")
    assert post.plugin == "formatter@market"
    assert catalog.for_event("Stop") == ()


def test_disable_all_hooks_outside_managed_spares_managed_hooks(machine: Machine) -> None:
    machine.write(machine.user_settings, settings("Stop", command("echo user")))
    machine.write(
        machine.project_settings, {**settings("Stop", command("echo p")), "disableAllHooks": True}
    )
    machine.write(machine.managed, settings("Stop", command("echo managed")))
    plugin = machine.fixture("plugin-formatter", machine.root / "plugin")

    catalog = machine.load(plugin_roots=[plugin])

    assert _commands(catalog.for_event("Stop")) == ["echo managed"]
    assert catalog.for_event("PostToolUse") == ()
    status = {e.source.kind: e.status for e in catalog.sources}
    assert status == {
        "user": "disabled",
        "project": "disabled",
        "managed": "loaded",
        "plugin": "disabled",
    }
    assert catalog.ok  # switched off on purpose: info notes only


def test_disable_all_hooks_follows_precedence(machine: Machine) -> None:
    machine.write(
        machine.user_settings, {**settings("Stop", command("echo u")), "disableAllHooks": True}
    )
    machine.write(machine.project_settings, {"disableAllHooks": False})

    assert _commands(machine.load().for_event("Stop")) == ["echo u"]

    catalog = machine.load(settings_files=['{"disableAllHooks": true}'])
    assert catalog.for_event("Stop") == ()


def test_disable_all_hooks_in_managed_settings_disables_everything(machine: Machine) -> None:
    machine.write(
        machine.managed,
        {
            **settings("Stop", command("echo m")),
            "disableAllHooks": True,
            "enabledPlugins": {"formatter@market": True},
        },
    )
    plugin = machine.fixture("plugin-formatter", machine.root / "plugin")

    catalog = machine.load(plugin_roots=[PluginRoot(root=plugin, id="formatter@market")])

    assert catalog.hooks == {}


def test_allow_managed_hooks_only(machine: Machine) -> None:
    machine.write(machine.user_settings, settings("Stop", command("echo user")))
    machine.write(machine.project_settings, settings("Stop", command("echo project")))
    machine.write(
        machine.managed,
        {
            **settings("Stop", command("echo managed")),
            "allowManagedHooksOnly": True,
            "enabledPlugins": {"formatter@market": True},
        },
    )
    forced = machine.fixture("plugin-formatter", machine.root / "forced")
    other = machine.root / "other"
    machine.write(other / "hooks" / "hooks.json", settings("Stop", command("echo other")))

    catalog = machine.load(plugin_roots=[PluginRoot(root=forced, id="formatter@market"), other])

    assert _commands(catalog.for_event("Stop")) == ["echo managed"]
    assert [h.plugin for h in catalog.for_event("PostToolUse")] == ["formatter@market"]
    disabled = [e for e in catalog.sources if e.status == "disabled"]
    assert {e.source.kind for e in disabled} == {"user", "project", "plugin"}
    assert all("allowManagedHooksOnly" in (e.note or "") for e in disabled)


def test_allow_managed_hooks_only_outside_managed_is_ignored(machine: Machine) -> None:
    machine.write(
        machine.user_settings,
        {**settings("Stop", command("echo user")), "allowManagedHooksOnly": True},
    )
    catalog = machine.load()
    assert _commands(catalog.for_event("Stop")) == ["echo user"]
    (diag,) = catalog.diagnostics
    assert (diag.code, diag.severity) == ("policy", "warning")


def test_strict_plugin_only_customization(machine: Machine) -> None:
    machine.write(machine.user_settings, settings("Stop", command("echo user")))
    machine.write(machine.managed, {"strictPluginOnlyCustomization": ["hooks"]})
    plugin = machine.root / "pl"
    machine.write(plugin / "hooks" / "hooks.json", settings("Stop", command("echo plugin")))

    catalog = machine.load(plugin_roots=[plugin])

    assert _commands(catalog.for_event("Stop")) == ["echo plugin"]


def test_plugin_root_missing_is_diagnosed(machine: Machine) -> None:
    catalog = machine.load(plugin_roots=[machine.root / "absent"])
    (diag,) = catalog.diagnostics
    assert diag.code == "unreadable"
    assert "plugin directory not found" in diag.reason


def test_session_end_budget(machine: Machine) -> None:
    machine.fixture("project-settings.json", machine.project_settings)
    big = machine.root / "big"
    machine.write(
        big / "hooks" / "hooks.json", settings("SessionEnd", command("echo p", timeout=300))
    )

    catalog = machine.load(plugin_roots=[big])

    # Raised to the highest settings-file timeout (20 s); a plugin's 300 s does not count.
    assert catalog.session_end_budget == 20.0
    assert sorted(h.timeout for h in catalog.for_event("SessionEnd")) == [20.0, 20.0]

    capped = machine.write(
        machine.root / "c.json", settings("SessionEnd", command("echo c", timeout=900))
    )
    assert machine.load(settings_files=[capped]).session_end_budget == 60.0
    assert machine.load().session_end_budget == 20.0
    env = {"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS": "2500"}
    assert machine.load(env=env).session_end_budget == 2.5


def test_session_end_budget_default(tmp_path: Path) -> None:
    catalog = load_catalog(tmp_path, home=tmp_path, managed_path=tmp_path / "m.json", env={})
    assert catalog.session_end_budget == 1.5
