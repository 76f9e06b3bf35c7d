"""Dedup keys and the conversion of an admitted declaration to a ``HookCommand``."""

from __future__ import annotations

from pathlib import Path

from dsh.hook_protocol import HookCommand
from dsh.hook_protocol._executor import unique_hooks
from tests.hooks_claude.conftest import Machine, command, settings


def test_the_same_handler_in_several_settings_files_runs_once(machine: Machine) -> None:
    same = settings("Stop", command("echo same", timeout=5))
    machine.write(machine.user_settings, same)
    machine.write(machine.project_settings, settings("Stop", command("echo same", timeout=9)))
    machine.write(machine.managed, same)

    hooks = machine.load().for_event("Stop")

    assert len(hooks) == 3
    assert len({h.dedup_key for h in hooks}) == 1
    commands = [h.to_command() for h in hooks]
    kept = unique_hooks(commands)
    assert kept == (0,)  # the first copy (user settings) is the one that runs
    assert commands[0].origin.source == str(machine.user_settings)


def test_different_handlers_keep_different_keys(machine: Machine) -> None:
    data = {
        "hooks": {
            "Stop": [
                {
                    "hooks": [
                        command("echo a"),
                        command("echo a", shell="bash"),
                        command("echo", args=["a"]),
                        command("echo b"),
                    ]
                }
            ]
        }
    }
    machine.write(machine.project_settings, data)
    hooks = machine.load().for_event("Stop")
    assert len({h.dedup_key for h in hooks}) == 4


def test_plugin_copies_stay_separate(machine: Machine) -> None:
    template = settings("Stop", command("${CLAUDE_PLUGIN_ROOT}/run.sh"))
    one, two = machine.root / "one", machine.root / "two"
    machine.write(one / "hooks" / "hooks.json", template)
    machine.write(two / "hooks" / "hooks.json", template)
    # A plugin and a settings file declaring the literal same command stay apart too.
    machine.write(machine.user_settings, settings("Stop", command("${CLAUDE_PLUGIN_ROOT}/run.sh")))

    hooks = machine.load(plugin_roots=[one, two]).for_event("Stop")

    assert [h.plugin for h in hooks] == [None, "one", "two"]
    assert hooks[0].argv == hooks[1].argv
    assert len({h.dedup_key for h in hooks}) == 3
    assert len(unique_hooks([h.to_command() for h in hooks])) == 3


def test_to_command_carries_origin_env_timeout_and_on_failure(machine: Machine) -> None:
    plugin = machine.root / "guard"
    machine.write(
        plugin / "hooks" / "hooks.json",
        {
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [command("true"), command("x", onFailure="block")]}
                ]
            }
        },
    )
    first, second = machine.load(plugin_roots=[plugin]).for_event("PreToolUse")

    cmd = second.to_command(
        cwd=machine.project / "sub", env={"CLAUDE_CODE_SESSION_ID": "s1"}, timeout=3
    )

    assert isinstance(cmd, HookCommand)
    assert cmd.argv == ("sh", "-c", "x")
    assert cmd.timeout == 3.0
    assert cmd.cwd == machine.project / "sub"
    assert cmd.on_failure == "block"
    assert cmd.env is not None
    assert cmd.env["CLAUDE_PLUGIN_ROOT"] == str(plugin)
    assert cmd.env["CLAUDE_PROJECT_DIR"] == str(machine.project)
    assert cmd.env["CLAUDE_CODE_SESSION_ID"] == "s1"
    assert cmd.origin.describe() == f"PreToolUse[0][1] in {plugin / 'hooks' / 'hooks.json'}" + (
        " (plugin guard)"
    )
    assert cmd.key == second.dedup_key
    default = first.to_command()
    assert (default.timeout, default.on_failure, default.cwd) == (600.0, "ignore", None)


def test_declarations_are_frozen(machine: Machine) -> None:
    machine.write(machine.project_settings, settings("Stop", command("echo x")))
    (hook,) = machine.load().for_event("Stop")
    try:
        hook.timeout = 1.0  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("a declaration must be immutable")
    assert isinstance(hook.source.path, Path)
