"""Record the MCP hook payloads the corpus lacks (issue 30): Claude Code 2.1.332's
``ElicitationResult``, and Codex 0.171's hooks around an MCP tool call (and whether it runs an
``mcp_tool`` handler).

usage: DSH_CLAUDE=... DSH_CODEX=... python benchmarks/record_mcp_hooks.py OUT.json

Claude Code: ``claude -p`` against the loopback Anthropic mock (``bench_mcp.McpCallScript``)
calling ``mcp__sample__ask-user`` of ``tests/mcp/sample_server.py`` (an elicitation), with a
logging hook on Elicitation, ElicitationResult, PreToolUse and PostToolUse. Codex: ``codex
exec`` against the Responses mock calling the same server's ``echo`` (named as Codex offers
it), with logging command hooks on PreToolUse, PermissionRequest and PostToolUse, and, in a
second run, an ``mcp_tool`` PreToolUse handler whose tool answers a deny. Kept: the payloads
(ids scrubbed), exit codes, what the model was sent back. Never run by ``make test``; its
output is ``tests/fixtures/mcp_hooks.json``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _claude_side import claude_path
from _codex_side import ResponsesMock, codex_env, codex_path, exec_flags, provider_toml
from bench_mcp import McpCallScript
from record_claude_defer import HOOK, _model_view, _scrub

from dsh.hooks.codex.config._trust import toml_string

ROOT = Path(__file__).resolve().parent.parent
SERVER = str(ROOT / "tests" / "mcp" / "sample_server.py")
EVERYTHING = ROOT / "tests" / "mcp" / "node" / "node_modules" / ".bin" / "mcp-server-everything"
# Codex 0.171 does not wait for a server that starts slowly (the SDK's, ~1 s), so its tools
# would be missing from the first request: a server of the standard library's instead.
QUICK = r"""
import json, sys
SCHEMA = {"type": "object", "properties": {"message": {"type": "string"}}}
TOOLS = [{"name": n, "inputSchema": SCHEMA} for n in ("echo", "deny")]
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "quick", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": TOOLS}
    elif method == "tools/call":
        name, args = m["params"]["name"], m["params"].get("arguments") or {}
        text = sys.argv[1] if name == "deny" else "Echo: " + str(args.get("message"))
        r = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        r = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
"""
DENY = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "CASE-MCP-HOOK-DENY",
    }
}


def _logged(run: Path) -> list[dict[str, Any]]:
    log = run / "hooks.jsonl"
    seen = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    scrubbed: list[dict[str, Any]] = json.loads(
        json.dumps(_scrub(seen)).replace(str(run), "${RUN_DIR}")
    )
    return scrubbed


def run_elicitation(
    claude: str, run: Path, home: Path, project: Path, server: str
) -> tuple[subprocess.CompletedProcess[str], Any]:
    """Claude Code run headless in ``project`` on ``run``'s ``settings.json``, the model
    calling server-everything's elicitation tool once: the run and what the model was sent."""
    config = {"command": server, "args": ["stdio"]}
    (run / "mcp.json").write_text(json.dumps({"mcpServers": {"everything": config}}))
    mock = McpCallScript(1, "mcp__everything__trigger-elicitation-request", {})
    with mock:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"),
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "dummy",
            "IS_SANDBOX": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "CASE_LOG": str(run / "hooks.jsonl"),
        }
        argv = [claude, "-p", "go", "--settings", str(run / "settings.json")]
        argv += ["--mcp-config", str(run / "mcp.json"), "--strict-mcp-config"]
        argv += ["--dangerously-skip-permissions"]
        done = subprocess.run(
            argv, cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=180, check=False,
        )  # fmt: skip
        view = _model_view([json.dumps(b).encode() for b in mock.seen])
    return done, view


def claude_elicitation(claude: str) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-rec-elicit-"))
    project, home = run / "project", run / "home"
    project.mkdir()
    (home / ".claude").mkdir(parents=True)
    (run / "hook.py").write_text(HOOK)
    events = ["Elicitation", "ElicitationResult", "PreToolUse", "PostToolUse"]
    hooks = {
        e: [{"hooks": [{"type": "command", "command": f"python3 {run}/hook.py {e}"}]}]
        for e in events
    }
    (run / "settings.json").write_text(json.dumps({"hooks": hooks}))
    done, view = run_elicitation(claude, run, home, project, str(EVERYTHING))
    return {
        "case": "claude-elicitation-result",
        "exit_code": done.returncode,
        "hooks": _logged(run),
        "model_view": json.loads(json.dumps(view).replace(str(run), "${RUN_DIR}")),
    }


def _codex_hooks(run: Path, mcp_tool: bool) -> str:
    lines = []
    for event in ("PreToolUse", "PermissionRequest", "PostToolUse"):
        lines += [f"[[hooks.{event}]]", 'matcher = "*"', f"[[hooks.{event}.hooks]]"]
        lines += ['type = "command"', f"command = {toml_string(f'python3 {run}/hook.py {event}')}"]
        if mcp_tool and event == "PreToolUse":
            lines += [f"[[hooks.{event}.hooks]]", 'type = "mcp_tool"', 'server = "sample"']
            lines += ['tool = "deny"', 'input = { message = "${tool_name}" }']
        lines.append("")
    return "\n".join(lines)


def codex_mcp(codex: str, mcp_tool: bool) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-rec-codex-mcp-"))
    work, home = run / "w", run / "home" / ".codex"
    work.mkdir()
    home.mkdir(parents=True)
    (run / "hook.py").write_text(HOOK)
    with ResponsesMock() as mock:
        # First: which name Codex offers the server's echo under.
        (run / "quick.py").write_text(QUICK)
        args = [str(run / "quick.py"), json.dumps(DENY)]
        server = [
            "[mcp_servers.sample]",
            f"command = {toml_string(sys.executable)}",
            f"args = [{', '.join(toml_string(a) for a in args)}]",
            "",
        ]
        config = provider_toml(mock.url, work) + "\n" + "\n".join(server)
        (home / "config.toml").write_text(config + "\n" + _codex_hooks(run, mcp_tool))
        mock.load_script({"rules": [{"responses": [[{"type": "text", "text": "done"}]]}]})
        argv = [codex, "exec", *exec_flags(work), "--dangerously-bypass-hook-trust", "go"]
        env = codex_env(home, CASE_LOG=str(run / "hooks.jsonl"))
        first = subprocess.run(
            argv, env=env, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=300, check=False,
        )  # fmt: skip
        offered = [t for t in mock.requests[0].get("tools", []) if "sample" in json.dumps(t)]
        if not offered:
            raise SystemExit(f"Codex offered no tool of the server: {first.stderr[-3000:]}")
        echo = "echo"
        (run / "hooks.jsonl").unlink(missing_ok=True)
        call = {"type": "function_call", "name": echo, "arguments": {"message": "hi"}}
        call["namespace"] = "mcp__sample"
        text = {"type": "text", "text": "done"}
        mock.load_script({"rules": [{"responses": [[call], [text]]}]})
        done = subprocess.run(argv, env=env, cwd=work, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
        outputs = [
            item
            for body in mock.main_requests()
            for item in body.get("input") or ()
            if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
    return {
        "case": "codex-mcp-tool-hook" if mcp_tool else "codex-mcp",
        "tools_offered": offered,
        "exit_code": done.returncode,
        "hooks": _logged(run),
        "function_call_outputs": json.loads(
            json.dumps(_scrub(outputs)).replace(str(run), "${RUN_DIR}")
        ),
    }


def main() -> None:
    out = Path(sys.argv[1])
    claude, codex = claude_path(), codex_path()
    cases = []
    if claude is not None:
        cases.append(claude_elicitation(claude))
    if codex is not None:
        cases += [codex_mcp(codex, False), codex_mcp(codex, True)]
    out.write_text(
        json.dumps({"claude": "2.1.332", "codex": "0.171", "cases": cases}, indent=1) + "\n"
    )


if __name__ == "__main__":
    main()
