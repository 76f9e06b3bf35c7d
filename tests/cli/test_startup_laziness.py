"""What the ``dsh`` command imports on its way: only what the command it runs needs.

Each command runs in a real process through the console script's ``main()``; just
before the process exits, the probe writes the names in ``sys.modules`` to a file.
Pins the start-up laziness (not its speed: that is benchmarks/bench_startup.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import write_script
from tests.models.chat_server import Reply, chunk, serving

# The real main() with its exit (os._exit, no interpreter teardown) wrapped to record
# sys.modules first: what a user's process had loaded when it was done.
_PROBE = """
import json, os, sys
import dsh.cli._main as entry
def _exit(status):
    with open(os.environ["DSH_TEST_MODULES_OUT"], "w") as out:
        json.dump(sorted(sys.modules), out)
    os._exit(status)
entry._exit = _exit
sys.argv = ["dsh", *sys.argv[1:]]
entry.main()
"""

# Never on any path below: the openai SDK (the default backend is dsh's own), the
# interactive terminal, the ACP server and its SDK, the MCP SDK (no server is configured).
# Nor OpenTelemetry, unless CLAUDE_CODE_ENABLE_TELEMETRY asks for export.
_NEVER: tuple[str, ...] = (
    *("openai", "prompt_toolkit", "acp", "dsh.acp", "dsh.cli._interactive"),
    *("mcp", "mcp_types", "dsh.mcp._session", "dsh.mcp._connection"),
)
_NEVER += ("opentelemetry", "dsh.telemetry")
# Not for printing the version or a help text: the harness, asyncio, pydantic, rich, HTTP.
_NOT_FOR_HELP = (
    *("asyncio", "pydantic", "rich", "httpx2", "msgspec"),
    *("dsh.agent", "dsh.models", "dsh.hooks"),
)


def _loaded(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> set[str]:
    return _probed(tmp_path, *args, env=env)[1]


def _probed(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The probed run (it exited 0) and the modules it had loaded at its exit."""
    out = tmp_path / "modules.json"
    environ = {k: v for k, v in os.environ.items() if not k.startswith("DSH_")}
    environ |= {"NO_COLOR": "1", "DSH_TEST_MODULES_OUT": str(out), **(env or {})}
    # A home of its own: no user settings, config file or Claude Code settings to read.
    environ |= {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "data")}
    environ.pop("XDG_CONFIG_HOME", None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=tmp_path,
        env=environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names: list[str] = json.loads(out.read_text())
    return done, set(names)


def _offending(loaded: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in loaded if any(m == p or m.startswith(p + ".") for p in packages))


@pytest.mark.parametrize("args", [("--version",), ("--help",), ("run", "--help")])
def test_version_and_help_load_no_harness(tmp_path: Path, args: tuple[str, ...]) -> None:
    loaded = _loaded(tmp_path, *args)
    assert "click" in loaded  # the probe saw the command's own process
    assert _offending(loaded, _NEVER + _NOT_FOR_HELP) == []


def test_a_headless_run_on_an_endpoint_loads_no_sdk_terminal_or_acp(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    reply = Reply(chunks=[chunk({"role": "assistant", "content": "hello there"}, "stop")])
    with serving(reply) as server:
        url = server.url
        loaded = _loaded(
            tmp_path,
            *("run", "--model", "m", "--base-url", url, "--project", str(project), "say hi"),
            env={"DSH_API_KEY": "k"},
        )
        assert len(server.seen) == 1  # the turn reached the model
    assert "dsh.models._http" in loaded
    assert _offending(loaded, ("httpx2", "httpcore2", "anyio", "h11")) == []  # dsh's own client
    # No config file, no .codex/: neither TOML nor the Codex bridge; the XDG dirs written out.
    unneeded = ("pydantic_settings", "tomllib", "dsh.hooks.codex", "platformdirs")
    assert _offending(loaded, (*_NEVER, *unneeded)) == []
    # A reply that is text: no tool ran, no hook printed JSON, stdout is a pipe. The tools
    # name their models lazily, the session codec reads nothing, the printer is plain.
    assert _offending(loaded, _NOT_FOR_A_PLAIN_RUN) == []


# Not for a headless run whose tools, hooks and settings are all of the plain kind.
_NOT_FOR_A_PLAIN_RUN = (
    "pydantic",
    "pydantic_core",
    "rich",
    "jsonschema",
    "dsh.tools.builtin._models",
    "dsh.tools.builtin._task_io",
    "dsh.agent._subagent_input",
    "dsh.hooks.claude.runtime._skill_input",
    "dsh.agent._model_policy",
    "ctypes",  # dsh run's subreaper is set through ctypes' C module (~1.5 ms less)
)


# Not for a run whose catalog has no hook and no command: the Claude bridge's runtime (and what
# only it uses: hook answers, transcripts, the coverage table's report) and the hook files' schemas.
_NOT_WITHOUT_HOOKS = (
    "dsh.hooks.claude.runtime._machinery",
    "dsh.hooks.claude.runtime._bridge",
    "dsh.hooks.claude.runtime._lifecycle",
    "dsh.hooks.claude.runtime._turn_end",
    "dsh.hooks.claude.runtime._tool_events",
    "dsh.hooks.claude.answers",
    "dsh.hooks.claude.transcript",
    "dsh.hooks.claude._report",
    "dsh.hooks.claude.settings._report",
    "dsh.hooks.claude.settings._models",
)


def test_a_scripted_run_without_hooks_loads_no_bridge_runtime(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = write_script(tmp_path / "script.json", [[{"type": "text", "text": "ok"}]])
    loaded = _loaded(
        tmp_path, "run", "--model", f"scripted:{script}", "--project", str(project), "hi"
    )
    assert "dsh.hooks.claude._profile" in loaded  # the bridge looked for hooks and found none
    # The model flag is a config layer, checked by its schema (msgspec); nothing else is.
    assert _offending(loaded, (*_NEVER, *_NOT_FOR_A_PLAIN_RUN, *_NOT_WITHOUT_HOOKS)) == []


def _hooked_run(tmp_path: Path, hook: str, reply: Reply) -> tuple[set[str], Path]:
    """A headless run with a Claude Code user settings file: ``hook`` on UserPromptSubmit,
    PreToolUse and Stop (the user's settings need no project trust)."""
    project = tmp_path / "project"
    project.mkdir()
    claude = tmp_path / "home" / ".claude"
    claude.mkdir(parents=True)
    handler = {"type": "command", "command": hook, "timeout": 10}
    groups = [{"hooks": [handler]}]
    hooks = {"UserPromptSubmit": groups, "PreToolUse": [{"matcher": "Bash", **groups[0]}]}
    settings = {"hooks": {**hooks, "Stop": groups}, "permissions": {"allow": ["Bash"]}}
    (claude / "settings.json").write_text(json.dumps(settings))
    done = Reply(chunks=[chunk({"role": "assistant", "content": "done"}, "stop")])
    with serving(reply, done) as server:
        loaded = _loaded(
            tmp_path,
            *("run", "--model", "m", "--base-url", server.url, "--project", str(project), "go"),
            env={"DSH_API_KEY": "k"},
        )
        assert server.seen  # the turn reached the model
    logs = sorted((tmp_path / "data").glob("*.jsonl"))
    assert len(logs) == 1
    return loaded, logs[0]


def _hook_results(log: Path) -> list[dict[str, object]]:
    lines = (json.loads(line) for line in log.read_text().splitlines()[1:])
    return [e for e in lines if e["type"] == "hook/result"]


def test_a_run_with_a_silent_claude_code_hook_loads_no_pydantic(tmp_path: Path) -> None:
    text = Reply(chunks=[chunk({"role": "assistant", "content": "hello"}, "stop")])
    loaded, log = _hooked_run(tmp_path, "exit 0", text)
    assert len(_hook_results(log)) == 2  # UserPromptSubmit and Stop ran (and said nothing)
    # The settings file was read, by its schema.
    assert "dsh.hooks.claude.settings._models" in loaded
    assert _offending(loaded, _NOT_FOR_A_PLAIN_RUN) == []


# Not for a new session's plain prompts: the other subcommands' declarations, the slash
# commands, trust-taking, resuming, a failed call's attribution, HTTP hooks, AGENTS.md.
_NOT_FOR_A_NEW_SESSION = (
    *("dsh.cli._commands", "dsh.cli._acp", "dsh.cli._sessions_flags"),
    *("dsh.cli._add_dir", "dsh.cli._model_command", "dsh.cli._trust"),
    *("dsh.cli._sessions", "dsh.cli._resume_picker", "dsh.cli._attribution"),
    *("dsh.hook_protocol._http", "dsh.instructions._agents_md"),
)


def test_a_new_session_loads_no_door_it_does_not_walk_through(tmp_path: Path) -> None:
    text = Reply(chunks=[chunk({"role": "assistant", "content": "hello"}, "stop")])
    loaded, log = _hooked_run(tmp_path, "exit 0", text)
    assert len(_hook_results(log)) == 2
    assert {"dsh.cli._run", "dsh.hook_protocol._executor"} <= loaded
    assert _offending(loaded, _NOT_FOR_A_NEW_SESSION) == []


def test_the_subcommands_declared_later_are_those_the_group_names() -> None:
    """``dsh log`` is a command before its declaration is made: the group knows the names."""
    from dsh.cli._commands import NAMES
    from dsh.cli._main import cli

    assert cli.later_names == NAMES
    assert set(cli.commands) == {"run", *NAMES}  # asking for them declares them


def test_a_subcommand_first_leaves_the_groups_own_options_unread() -> None:
    """``dsh run ...``: the group's ~40 options (bare ``dsh``'s) are not processed; before
    the subcommand they still are."""
    from dsh.cli._main import cli

    with cli.make_context("dsh", ["run", "--model", "m", "hi"]) as ctx:
        assert ctx.params == {}
        assert ctx.args == ["--model", "m", "hi"]  # run's
    with cli.make_context("dsh", ["--model", "m", "run", "hi"]) as ctx:
        assert ctx.params["model_spec"] == "m"
        assert ctx.args == ["hi"]


def _bash_call() -> Reply:
    call = {"id": "c1", "type": "function", "function": {"name": "Bash", "arguments": ""}}
    args = json.dumps({"command": "echo hi", "timeout": 5000})
    return Reply(
        chunks=[
            chunk({"role": "assistant", "tool_calls": [{**call, "index": 0}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args}}]}, "tool_calls"),
        ]
    )


def test_plain_json_answers_and_a_bash_call_load_no_pydantic(tmp_path: Path) -> None:
    answer = json.dumps({"systemMessage": "seen", "hookSpecificOutput": {"hookEventName": "x"}})
    loaded, log = _hooked_run(tmp_path, f"echo '{answer}'", _bash_call())
    assert len(_hook_results(log)) == 3  # UserPromptSubmit, PreToolUse, Stop
    assert {"dsh.hooks.claude.answers._models", "dsh.tools.builtin._bash"} <= loaded
    assert _offending(loaded, _NOT_FOR_A_PLAIN_RUN) == []


def test_an_answer_of_another_shape_loads_the_output_models(tmp_path: Path) -> None:
    # `1` for a bool: the models' lax reading accepts it, so they decide.
    answer = json.dumps({"suppressOutput": 1})
    loaded, log = _hooked_run(tmp_path, f"echo '{answer}'", _bash_call())
    assert len(_hook_results(log)) == 3
    assert {"dsh.hooks.claude.answers._models", "msgspec"} <= loaded
    # The Bash call's arguments were still plain, and stdout a pipe.
    assert _offending(loaded, ("rich", "dsh.tools.builtin._models")) == []


def test_a_run_with_a_stdio_mcp_server_loads_no_mcp_sdk(tmp_path: Path) -> None:
    """A stdio server is dsh's own client's (``dsh.mcp._rpc``); the SDK is for HTTP alone."""
    project = tmp_path / "project"
    project.mkdir()
    tiny = Path(__file__).parents[2] / "benchmarks" / "_mcp_tiny_server.py"
    config = {"mcpServers": {"tiny": {"command": sys.executable, "args": ["-S", str(tiny)]}}}
    reply = Reply(chunks=[chunk({"role": "assistant", "content": "hello there"}, "stop")])
    with serving(reply) as server:
        loaded = _loaded(
            tmp_path,
            *("run", "--model", "m", "--base-url", server.url, "--project", str(project)),
            *("--mcp-config", json.dumps(config), "say hi"),
            env={"DSH_API_KEY": "k"},
        )
        assert len(server.seen) == 1
        assert "mcp__tiny__ping" in json.dumps(server.seen[0].body)  # its tool is named
    assert "dsh.mcp._rpc" in loaded
    sdk = ("mcp", "mcp_types", "anyio", "pydantic", "dsh.mcp._sdk")
    assert _offending(loaded, (*sdk, "jsonschema")) == []  # its tools register without it
