"""``dsh run`` with MCP servers: ``--mcp-config``, a project's ``.mcp.json`` under dsh's trust
flow, a server that fails, and a bad configuration, each in a real ``dsh`` process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.support import run_dsh
from tests.cli.test_cli import write_script

SERVER = str(Path(__file__).with_name("sample_server.py"))
FIXTURES = Path(__file__).parent.parent / "fixtures"
ECHO = [{"type": "tool_use", "name": "mcp__sample__echo", "input": {"message": "HI"}}]
DONE = [{"type": "text", "text": "done"}]
CTX = {"type": "text", "text": "context seen"}


def _setup(tmp_path: Path, servers: dict[str, object]) -> tuple[Path, Path, list[str]]:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "home").mkdir()
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    model = write_script(tmp_path / "script.json", [ECHO, DONE])
    args = ["--model", f"scripted:{model}", "--project", str(project)]
    args += ["--session-dir", str(tmp_path / "sessions")]
    return project, config, args


def _sample(*extra: str) -> dict[str, object]:
    return {"command": sys.executable, "args": [SERVER, *extra]}


def test_mcp_config_servers_run_a_call(tmp_path: Path) -> None:
    _, config, args = _setup(tmp_path, {"sample": _sample()})
    done = run_dsh(
        "run", "go", *args, "--mcp-config", str(config), "--strict-mcp-config",
        "--permission-mode", "bypassPermissions", "--output-format", "stream-json",
        cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    init = lines[0]
    assert init["mcp_servers"][0]["name"] == "sample"
    assert init["mcp_servers"][0]["source"] == "dynamic"
    assert "mcp__sample__echo" in init["tools"]
    results = [line for line in lines if line.get("type") == "user"]
    assert results[0]["tool_use_result"] == [{"type": "text", "text": "Echo: HI"}]
    assert lines[-1]["result"] == "done"


def test_a_bad_mcp_config_is_a_clear_error(tmp_path: Path) -> None:
    _, _, args = _setup(tmp_path, {})
    done = run_dsh("run", "go", *args, "--mcp-config", "nope.json", cwd=tmp_path)
    assert done.returncode == 2
    assert f"dsh: --mcp-config nope.json: file not found: {tmp_path}/nope.json" in done.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"mcpServers": {"x": {"command": 3}}}))
    done = run_dsh("run", "go", *args, "--mcp-config", str(bad), cwd=tmp_path)
    assert done.returncode == 2
    assert f"--mcp-config {bad}: mcpServers.x.command: Input should be a valid string" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr


def test_a_failing_server_is_a_notice_and_the_turn_goes_on(tmp_path: Path) -> None:
    _, config, args = _setup(tmp_path, {"sample": _sample("crash")})
    done = run_dsh(
        "run", "go", *args, "--mcp-config", str(config),
        "--permission-mode", "bypassPermissions",
        cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "MCP server 'sample'" in done.stdout + done.stderr
    assert "crashing on purpose" in done.stdout + done.stderr
    assert "done" in done.stdout


def test_project_servers_follow_the_trust_flow(tmp_path: Path) -> None:
    project, _, args = _setup(tmp_path, {})
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"sample": _sample()}}))
    env = {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "data")}
    mode = ["--permission-mode", "bypassPermissions"]
    refused = run_dsh("run", "go", *args, *mode, cwd=tmp_path, env=env)
    assert refused.returncode == 2
    assert "1 MCP server(s) not trusted" in refused.stderr
    assert f"not trusted yet: MCP server sample in .mcp.json: {sys.executable} {SERVER}" in (
        refused.stderr
    )
    skipped = run_dsh("run", "go", *args, *mode, "--skip-untrusted-hooks", cwd=tmp_path, env=env)
    assert skipped.returncode == 0, skipped.stderr
    assert "1 MCP server(s) of .mcp.json not started: sample (not trusted yet)" in (
        skipped.stderr + skipped.stdout
    )
    trusted = run_dsh("run", "go", *args, *mode, "--trust-project", cwd=tmp_path, env=env)
    assert trusted.returncode == 0, trusted.stderr
    assert "Echo: HI" in trusted.stdout
    again = run_dsh("run", "go", *args, *mode, cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"sample": _sample("x")}}))
    changed = run_dsh("run", "go", *args, *mode, cwd=tmp_path, env=env)
    assert changed.returncode == 2
    assert "changed since trusted: MCP server sample" in changed.stderr


def test_codex_config_toml_servers(tmp_path: Path) -> None:
    _, _, args = _setup(tmp_path, {})
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        "mcp_optional_startup_grace_ms = 0\n"  # wait for the server, however slow its start
        "[mcp_servers.sample]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(SERVER)}]\n"
        'enabled_tools = ["echo"]\n'
        "[mcp_servers.broken]\ncommand = 3\n"
    )
    from tests.hooks_codex.codex_support import recording_hooks

    hooks = recording_hooks(["PreToolUse", "PostToolUse"], matcher="mcp__.*")
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    log = tmp_path / "hooks.jsonl"
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(codex_home)}
    env |= {"CASE_HOOK_LOG": str(log), "CASE_HOOK_RESPOND": str(tmp_path / "none.json")}
    (tmp_path / "none.json").write_text("null")
    done = run_dsh(
        "run", "go", *args, "--hooks", "codex", "--output-format", "stream-json",
        "--dangerously-bypass-hook-trust", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["mcp_servers"][0] == {
        "name": "sample",
        "status": "connected",
        "source": "codex",
    }
    tools = [t for t in lines[0]["tools"] if t.startswith("mcp__")]
    assert tools == ["mcp__sample__echo"]  # enabled_tools
    results = [line for line in lines if line.get("type") == "user"]
    assert results[0]["tool_use_result"] == [{"type": "text", "text": "Echo: HI"}]
    assert "[mcp_servers.broken] command: Input should be a valid string" in done.stderr
    # Codex's hooks see the call as Codex names it, the result as a CallToolResult.
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in entries] == ["PreToolUse", "PostToolUse"]
    post = entries[1]["payload"]
    assert (post["tool_name"], post["tool_input"]) == ("mcp__sample__echo", {"message": "HI"})
    assert post["tool_response"] == {
        "content": [{"type": "text", "text": "Echo: HI"}],
        "isError": False,
    }
    # The keys, in their order, of what Codex 0.171 sent (tests/fixtures/mcp_hooks.json).
    recorded = json.loads((FIXTURES / "mcp_hooks.json").read_text())
    (case,) = [c for c in recorded["cases"] if c["case"] == "codex-mcp"]
    sent = {h["event"]: list(h["payload"]) for h in case["hooks"]}
    assert {e["event"]: list(e["payload"]) for e in entries} == sent


def test_a_required_codex_server_that_does_not_start_stops_the_session(tmp_path: Path) -> None:
    # Codex 0.171 (tests/fixtures/codex_required_mcp.json): no thread, no model request, exit
    # 1, `required MCP servers failed to initialize: NAME: REASON; ...` by name; the reasons
    # are dsh's own words. Without `required` the turn goes on.
    recorded = json.loads((FIXTURES / "codex_required_mcp.json").read_text())
    (both,) = [c for c in recorded["cases"] if c["case"] == "exits+missing-required"]
    assert (both["exit_code"], both["requests"]) == (1, 0)
    assert "required MCP servers failed to initialize: exits: " in both["stderr_tail"]
    assert "; missing: No such file or directory" in both["stderr_tail"]
    _, _, args = _setup(tmp_path, {})
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    missing = f"[mcp_servers.missing]\ncommand = {json.dumps(str(tmp_path / 'nope'))}\n"
    exits = f"[mcp_servers.exits]\ncommand = {json.dumps(sys.executable)}\nargs = ['-c', 'pass']\n"
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(codex_home)}
    for required, expected in ((False, 0), (True, 1)):
        mark = "required = true\n" if required else ""
        (codex_home / "config.toml").write_text(missing + mark + exits + mark)
        done = run_dsh("run", "go", *args, "--hooks", "codex", cwd=tmp_path, env=env)
        assert done.returncode == expected, done.stderr
        assert "Traceback" not in done.stderr
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("dsh: required MCP servers failed to initialize: exits: "), line
    assert "; missing: " in line
    sessions = tmp_path / "sessions"
    assert len(list(sessions.glob("*.jsonl"))) == 1  # the optional run's, none for this one


def test_codex_mcp_tool_handlers_run_as_codex_runs_them(tmp_path: Path) -> None:
    """A Codex ``mcp_tool`` PreToolUse handler: its tool's text is the hook's answer (a deny,
    as Codex 0.171 honours it: tests/fixtures/mcp_hooks.json), its trust hash is Codex's."""
    _, _, args = _setup(tmp_path, {})
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "CASE-CODEX-MCP-DENY",
        }
    }
    (codex_home / "config.toml").write_text(
        "mcp_optional_startup_grace_ms = 0\n"  # wait for the server, however slow its start
        "[mcp_servers.sample]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(SERVER)}]\n"
        f"env = {{ mcp__sample__echo = {json.dumps(json.dumps(deny))} }}\n"
    )
    handler: dict[str, object] = {"type": "mcp_tool", "server": "sample", "tool": "env"}
    handler["input"] = {"name": "${tool_name}"}
    hooks = {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]}
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(codex_home)}
    done = run_dsh(
        "run", "go", *args, "--hooks", "codex", "--output-format", "stream-json",
        "--dangerously-bypass-hook-trust", cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    (result,) = [line["message"]["content"][0] for line in lines if line.get("type") == "user"]
    assert result["is_error"]
    assert "CASE-CODEX-MCP-DENY" in str(result["content"])
    assert "Echo: HI" not in done.stdout
    from dsh.hooks.codex.config._trust import mcp_hook_hash

    # The hash Codex 0.171's hooks/list gave for this handler shape (recorded by hand).
    recorded = "sha256:16e4ee969147ab3b0b26a696595c808b2cadf6024aa72a5d88e24ef4841ab4c9"
    made = mcp_hook_hash(
        "PreToolUse", "*", server="s", tool="t", input={}, timeout=7, status_message="m"
    )
    assert made == recorded


def test_mcp_list(tmp_path: Path) -> None:
    project, config, _ = _setup(tmp_path, {"sample": _sample(), "broken": _sample("crash")})
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"proj": _sample()}}))
    env = {"HOME": str(tmp_path / "home"), "DSH_DATA_DIR": str(tmp_path / "data")}
    done = run_dsh(
        "mcp", "list", "--project", str(project), "--mcp-config", str(config), cwd=tmp_path, env=env
    )
    assert done.returncode == 1, done.stderr  # one server failed
    out = done.stdout
    assert f"sample (dynamic, --mcp-config {config}: mcpServers.sample)" in out
    assert "  state: connected\n  tools (10): mcp__sample__echo, mcp__sample__add," in out
    assert "  prompts: /mcp__sample__review" in out
    assert "broken (dynamic" in out
    assert "crashing on purpose" in out
    assert "proj (project, .mcp.json: mcpServers.proj)" in out
    assert "  state: not trusted yet, not started (dsh hooks trust trusts it)" in out


def test_mcp_prompts_are_slash_commands(tmp_path: Path) -> None:
    _, config, args = _setup(tmp_path, {"sample": _sample()})
    rules = [
        {"contains": "Review this code (long plain): x=1", "responses": [DONE]},
        {"responses": [[{"type": "text", "text": "not expanded"}]]},
    ]
    script = tmp_path / "prompts.json"
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    args[1] = f"scripted:{script}"
    base = [*args, "--mcp-config", str(config), "--output-format", "json"]
    env = {"HOME": str(tmp_path / "home")}
    # The words fill the arguments in order, the last taking the rest.
    done = run_dsh("run", "/mcp__sample__review x=1 long plain", *base, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "done"
    done = run_dsh("run", "/mcp__sample__review", *base, cwd=tmp_path, env=env)
    assert "/mcp__sample__review: missing argument(s): code" in done.stdout + done.stderr
    # UserPromptExpansion fires for it, as 2.1.332 fires it (expansion_type mcp_prompt).
    rules.insert(0, {"contains": "CASE-EXPANSION-CONTEXT", "responses": [[CTX]]})
    script.write_text(json.dumps({"anthropic": {"rules": rules}}))
    hook, log, said = tmp_path / "hook.py", tmp_path / "log.jsonl", tmp_path / "answer.json"
    hook.write_text(HOOK)
    context = {
        "hookSpecificOutput": {
            "hookEventName": "UserPromptExpansion",
            "additionalContext": "CASE-EXPANSION-CONTEXT",
        }
    }
    said.write_text(json.dumps(context))
    settings = tmp_path / "settings.json"
    for code, expected in ((0, "context seen"), (2, None)):
        handler = {"type": "command", "command": f"{sys.executable} {hook} {log} {said} {code}"}
        hooks = {"UserPromptExpansion": [{"matcher": "mcp__sample__.*", "hooks": [handler]}]}
        settings.write_text(json.dumps({"hooks": hooks}))
        done = run_dsh(
            "run", "/mcp__sample__review x=1 long plain", *base, "--settings", str(settings),
            cwd=tmp_path, env=env,
        )  # fmt: skip
        if expected is not None:
            assert json.loads(done.stdout)["result"] == expected, done.stdout
        else:
            assert "UserPromptExpansion operation blocked by hook" in done.stdout + done.stderr
    payloads = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(payloads) == 2
    keys = list(payloads[0])
    assert keys[keys.index("hook_event_name") :] == [
        "hook_event_name",
        "expansion_type",
        "command_name",
        "command_args",
        "command_source",
        "prompt",
    ]
    assert {k: payloads[0][k] for k in keys[keys.index("expansion_type") :]} == {
        "expansion_type": "mcp_prompt",
        "command_name": "mcp__sample__review",
        "command_args": "x=1 long plain",
        "command_source": "mcp",
        "prompt": "/mcp__sample__review x=1 long plain",
    }


def test_slash_mcp_shows_the_servers_interactively(tmp_path: Path) -> None:
    from tests.cli.test_interactive import Session, start

    project, config, _ = _setup(tmp_path, {"sample": _sample()})
    spawned: list[Session] = []
    try:
        s = start(spawned, tmp_path, project, [DONE], "--mcp-config", str(config))
        s.say("/mcp")
        s.expect("sample (dynamic, --mcp-config")
        s.expect("tools (10): mcp__sample__echo")
        s.say("/exit")
        assert s.leave() == 0
    finally:
        for session in spawned:
            session.child.close(force=True)


def test_an_elicitation_is_a_form_at_the_terminal(tmp_path: Path) -> None:
    """The sample server's ``ask-user`` elicits a name and a boolean: asked field by field,
    a wrong value asked again, then sent; a second form cancelled with Esc."""
    from tests.cli.test_interactive import Session, start

    project, config, _ = _setup(tmp_path, {"sample": _sample()})
    ask = [{"type": "tool_use", "name": "mcp__sample__ask-user", "input": {}}]
    spawned: list[Session] = []
    try:
        s = start(spawned, tmp_path, project, [ask, DONE, ask, DONE], "--mcp-config", str(config))
        s.say("go")
        s.expect("MCP server sample asks:")
        s.expect("Please provide inputs for the following fields:")
        s.expect("name:")
        s.child.sendline("Ada")
        s.expect("check:")
        s.child.sendline("maybe")
        s.expect("answer y or n")
        s.child.sendline("y")
        s.expect("Send? [Y/n]")
        s.child.sendline("")
        s.expect("accepted: Ada True")
        s.say("again")
        s.expect("name:")
        s.child.send("\x1b")
        s.expect("action: cancel")
        s.say("/exit")
        assert s.leave() == 0
    finally:
        for session in spawned:
            session.child.close(force=True)


def test_servers_end_with_a_killed_dsh(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import time

    import psutil

    marker = f"marker-{os.getpid()}-{time.monotonic_ns()}"
    sleeper = f"{290 + (time.monotonic_ns() % 10**6) / 10**6:.6f}"  # the grandchild's
    _, config, args = _setup(tmp_path, {"sample": _sample(marker)})
    spawn = [{"type": "tool_use", "name": "mcp__sample__spawn", "input": {"seconds": sleeper}}]
    slow = [{"type": "tool_use", "name": "mcp__sample__slow", "input": {"seconds": 120}}]
    args[1] = f"scripted:{write_script(tmp_path / 'slow.json', [spawn, slow, DONE])}"
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    env = {k: v for k, v in env.items() if not k.startswith("DSH_")}
    argv = [sys.executable, "-m", "dsh", "run", "go", *args, "--mcp-config", str(config)]
    argv += ["--permission-mode", "bypassPermissions"]
    dsh = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL)

    def alive(word: str) -> list[psutil.Process]:
        found = []
        for p in psutil.process_iter(["cmdline", "status"]):
            if word in (p.info["cmdline"] or []) and p.info["status"] != "zombie":
                found.append(p)
        return found

    deadline = time.monotonic() + 60
    while not alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(marker), "the server never started"
    assert alive(sleeper), "the server's grandchild never started"
    os.kill(dsh.pid, signal.SIGKILL)  # in the slow call, or about to make it
    dsh.wait()
    deadline = time.monotonic() + 30
    while (alive(marker) or alive(sleeper)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(marker), "the MCP server outlived dsh"
    assert not alive(sleeper), "what the MCP server started outlived dsh"


def test_mcp_tool_hooks_decide_and_fail_as_claude_code_reads_them(tmp_path: Path) -> None:
    """An ``mcp_tool`` PreToolUse handler whose tool answers JSON denies the call (the tool
    here: the sample server's ``env``, reading a deny set in the server's environment under
    the name the input's ``${tool_name}`` becomes); one
    on a server not configured is a non-blocking error; the run goes on."""
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "CASE-MCP-HOOK-DENY",
        }
    }
    server = _sample() | {"env": {"mcp__sample__echo": json.dumps(deny)}}
    _, config, args = _setup(tmp_path, {"sample": server})
    pre = {"type": "mcp_tool", "server": "sample", "tool": "env", "input": {"name": "${tool_name}"}}
    nowhere = {"type": "mcp_tool", "server": "nowhere", "tool": "echo", "input": {}}
    hooks = {"PreToolUse": [{"matcher": "mcp__sample__echo", "hooks": [pre, nowhere]}]}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    done = run_dsh(
        "run", "go", *args, "--mcp-config", str(config), "--strict-mcp-config",
        "--settings", str(settings), "--permission-mode", "bypassPermissions",
        cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    denied = "error [DENIED] by a PreToolUse hook: PreToolUse:mcp__sample__echo hook error:"
    assert f"{denied} CASE-MCP-HOOK-DENY" in done.stdout
    assert "CASE-MCP-HOOK-DENY" in done.stdout
    assert "Echo: HI" not in done.stdout
    # The handler on a server that is not there: a failure, not a decision (2.1.332's notice).
    assert "A hook gave no usable answer, so it didn't check this action." in done.stdout


def test_blocking_mcp_tool_hooks_fail_closed_when_their_server_is_gone(tmp_path: Path) -> None:
    """``onFailure: "block"`` on an ``mcp_tool`` handler whose server failed to start: the
    PreToolUse handler refuses the call and the PermissionRequest handler denies it, each in
    2.1.332's words; a plain text answer of a blocking handler is no verdict either."""
    _, config, args = _setup(tmp_path, {"sample": _sample(), "gone": _sample("crash")})
    add = {"type": "tool_use", "name": "mcp__sample__add", "input": {"a": 1, "b": 2}}
    text = {"type": "tool_use", "name": "mcp__sample__structured", "input": {"x": 1}}
    model = write_script(tmp_path / "script.json", [ECHO, [add], [text], DONE])
    args[args.index("--model") + 1] = f"scripted:{model}"

    def handler(server: str, tool: str, **more: object) -> dict[str, object]:
        return {"type": "mcp_tool", "server": server, "tool": tool, "onFailure": "block", **more}

    plain = handler("sample", "echo", input={"message": "plain"})
    hooks = {
        "PreToolUse": [
            {"matcher": "mcp__sample__echo", "hooks": [handler("gone", "echo")]},
            {"matcher": "mcp__sample__structured", "hooks": [plain]},
        ],
        "PermissionRequest": [{"matcher": "mcp__sample__add", "hooks": [handler("gone", "x")]}],
    }
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    allow = {"permissions": {"allow": ["mcp__sample__echo", "mcp__sample__structured"]}}
    (tmp_path / "project" / ".claude").mkdir()
    (tmp_path / "project" / ".claude" / "settings.json").write_text(json.dumps(allow))
    done = run_dsh(
        "run", "go", *args, "--mcp-config", str(config), "--strict-mcp-config",
        "--settings", str(settings), "--output-format", "stream-json", "--trust-project",
        cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    results = [line["message"]["content"][0] for line in lines if line.get("type") == "user"]
    blocking = (
        'failed; blocking because onFailure is "block" and the hook got no usable answer from'
        " its MCP server. The user needs to fix the cause (in a session, /mcp shows the"
        " server's state) or ask whoever manages the hook; Claude should not change the hook"
        " or work around it."
    )
    pre, permission, no_verdict = (r["content"] for r in results)
    assert all(r["is_error"] for r in results)
    assert pre == (
        f"PreToolUse:mcp__sample__echo hook error: [gone/echo]: {blocking}\n"
        "MCP server 'gone' not connected"
    )
    assert permission == (f"[gone/x]: {blocking}\nMCP server 'gone' not connected")
    assert no_verdict.startswith(
        f"PreToolUse:mcp__sample__structured hook error: [sample/echo]: {blocking}\n"
        "The MCP tool's answer is not a hook's JSON output, {} or empty. Details are left out"
    )


HOOK = """
import json, pathlib, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(payload) + "\\n")
answer = pathlib.Path(sys.argv[2]).read_text()
sys.stdout.write(answer)
sys.exit(int(sys.argv[3]))
"""

EACH_CALL_HOOK = """
import json, pathlib, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(payload) + "\\n")
calls = len(pathlib.Path(sys.argv[1]).read_text().splitlines())
answer, code = json.loads(pathlib.Path(sys.argv[2]).read_text())[calls - 1]
sys.stdout.write(answer)
sys.exit(code)
"""


def _elicit_run(
    tmp_path: Path, answers: list[tuple[object, int]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """``ask-user`` called once per answer, in one session, with an ElicitationResult hook
    that logs its payload and gives the call's answer (``None``: nothing) with its exit
    code: each call's result text, the payloads."""
    _, config, args = _setup(tmp_path, {"sample": _sample()})
    ask = [{"type": "tool_use", "name": "mcp__sample__ask-user", "input": {}}]
    model = write_script(tmp_path / "script.json", [*([ask] * len(answers)), DONE])
    args[args.index("--model") + 1] = f"scripted:{model}"
    hook, log, said = tmp_path / "hook.py", tmp_path / "log.jsonl", tmp_path / "answers.json"
    hook.write_text(EACH_CALL_HOOK)
    said.write_text(json.dumps([["" if a is None else json.dumps(a), c] for a, c in answers]))
    command = f"{sys.executable} {hook} {log} {said}"
    handler = {"type": "command", "command": command}
    hooks = {"ElicitationResult": [{"matcher": "sample", "hooks": [handler]}]}
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"hooks": hooks}))
    done = run_dsh(
        "run", "go", *args, "--mcp-config", str(config), "--strict-mcp-config",
        "--settings", str(settings), "--permission-mode", "bypassPermissions",
        "--output-format", "stream-json", cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    results = [line for line in lines if line.get("type") == "user"]
    texts = [b["text"] for result in results for b in result["tool_use_result"]]
    return texts, [json.loads(line) for line in log.read_text().splitlines()]


def test_elicitation_result_hooks_see_the_answer_and_may_replace_it(tmp_path: Path) -> None:
    accept = {
        "hookSpecificOutput": {
            "hookEventName": "ElicitationResult",
            "action": "accept",
            "content": {"name": "CASE-RESULT-NAME", "check": True},
        }
    }
    cancel = {"hookSpecificOutput": {"hookEventName": "ElicitationResult", "action": "cancel"}}
    # One session, four calls: the hook accepts; is silent (the answer stands); exits 2
    # (which declines whatever its JSON says); cancels.
    texts, payloads = _elicit_run(tmp_path, [(accept, 0), (None, 0), (accept, 2), (cancel, 0)])
    assert texts == [
        "accepted: CASE-RESULT-NAME True",
        "action: cancel",
        "action: decline",
        "action: cancel",
    ]
    assert len(payloads) == 4
    payload = payloads[0]
    # 2.1.332's keys, in its order: no Elicitation hook answered, so headless cancels (as
    # tests/fixtures/mcp_hooks.json records).
    keys = list(payload)
    assert keys[keys.index("hook_event_name") :] == [
        "hook_event_name",
        "mcp_server_name",
        "mode",
        "action",
    ]
    assert {k: payload[k] for k in ("hook_event_name", "mcp_server_name", "mode", "action")} == {
        "hook_event_name": "ElicitationResult",
        "mcp_server_name": "sample",
        "mode": "form",
        "action": "cancel",
    }
    assert "content" not in payload
    assert "permission_mode" not in payload


def test_a_codex_run_does_not_wait_for_a_server_still_starting(tmp_path: Path) -> None:
    """Under the Codex bridge the first request goes without a server that has not answered
    within Codex 0.171's grace (one that never does, with a start-up timeout longer than any
    test), as 0.171's does (tests/fixtures/codex_slow_mcp.json); it is ended with the session."""
    _, _, args = _setup(tmp_path, {})
    codex_home = tmp_path / "codex"
    codex_home.mkdir()
    (codex_home / "config.toml").write_text(
        "[mcp_servers.slow]\n"
        f"command = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(SERVER)}, 'hang']\n"
        "startup_timeout_sec = 3600\n"
    )
    env = {"HOME": str(tmp_path / "home"), "CODEX_HOME": str(codex_home)}
    done = run_dsh(
        "run", "go", *args, "--hooks", "codex", "--output-format", "stream-json",
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    init = json.loads(done.stdout.splitlines()[0])
    assert init["mcp_servers"] == [{"name": "slow", "status": "pending", "source": "codex"}]
    assert not [t for t in init["tools"] if t.startswith("mcp__")]


def test_a_blocking_precompact_mcp_tool_hook_takes_plain_text(tmp_path: Path) -> None:
    """``onFailure: "block"`` on PreCompact: the tool's plain text lets the compaction go on
    (2.1.332 excepts PreCompact from needing a verdict), a tool error blocks it in 2.1.332's
    words (both recorded: tests/fixtures/claude_mcp_block.json)."""
    _, config, args = _setup(tmp_path, {"sample": _sample()})
    script = write_script(tmp_path / "hello.json", [[{"type": "text", "text": "hello there"}]])
    args[1] = f"scripted:{script}"
    first = run_dsh("run", "say hello", *args, cwd=tmp_path, env={"HOME": str(tmp_path / "home")})
    assert first.returncode == 0, first.stderr
    (log,) = (tmp_path / "sessions").glob("*.jsonl")
    recorded = json.loads((FIXTURES / "claude_mcp_block.json").read_text())
    for case in recorded["cases"]:
        tool = case["tool"]
        handler = {"type": "mcp_tool", "server": "sample", "tool": tool, "onFailure": "block"}
        handler["input"] = {"message": "CASE"} if tool == "echo" else {"reason": "CASE-FAIL"}
        settings = tmp_path / f"{tool}.json"
        settings.write_text(json.dumps({"hooks": {"PreCompact": [{"hooks": [handler]}]}}))
        done = run_dsh(
            "run", "--resume", log.stem, *args, "--mcp-config", str(config),
            "--strict-mcp-config", "--settings", str(settings), "--trust-project", "--",
            "/compact", cwd=tmp_path, env={"HOME": str(tmp_path / "home")},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        out = done.stdout + done.stderr
        assert ("compacted:" in out) is case["post_compact_ran"], out
        if not case["post_compact_ran"]:
            assert case["result"] in out  # 2.1.332's line, word for word
