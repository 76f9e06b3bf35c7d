"""The real Codex beside dsh: where it is, its config for a loopback model, one run's argv.

``codex_invocation`` writes ``$CODEX_HOME/config.toml`` for a side-by-side
case: a model provider pointing at a ``ResponsesMock`` (``_responses_mock``;
``wire_api = "responses"``, the key in ``DSH_MOCK_API_KEY``), no sandbox and no
approvals (``codex exec`` then runs the shell call headless), and the case's
hooks in Codex's own inline TOML form. The hooks are then trusted by dsh's
``dsh hooks trust`` code (``CodexProfile.trust``: Codex's key and hash recipe,
Codex's record layout), not by ``--dangerously-bypass-hook-trust``: Codex
skips an untrusted hook silently, so every run also checks that the real Codex
accepts the trust dsh writes (``check_side_run`` fails when a hook did not run).

Run ``codex exec`` with stdin at ``/dev/null``: with a prompt argument and a
piped stdin it reads stdin to its end and appends it to the prompt.

``hooks_list`` asks ``codex app-server`` for ``hooks/list``: each hook's key,
the hash Codex itself computes for it (``currentHash``) and its trust status.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from _responses_mock import MODEL, ResponsesMock, model_responses, shell_call
from _side_cases import EXPECT, HOOK_LOG, TOOL_LOG, SideCase

from dsh.hooks.codex import CODEX_HOOK_EVENTS, CodexProfile
from dsh.hooks.codex.config._trust import toml_string

__all__ = [
    "MODEL",
    "ResponsesMock",
    "check_side_run",
    "codex_env",
    "codex_invocation",
    "codex_path",
    "hooks_list",
    "hooks_toml",
    "model_responses",
    "provider_toml",
    "shell_call",
    "trust_with_dsh",
]

PROVIDER: Final = "dsh_mock"
API_KEY_ENV: Final = "DSH_MOCK_API_KEY"
ROOT: Final = Path(__file__).resolve().parent.parent
_LAUNCHER: Final = Path(".bench-tools", "node_modules", ".bin", "codex")
_TOOL_EVENTS: Final = frozenset({"PreToolUse", "PermissionRequest", "PostToolUse"})


def codex_path() -> str | None:
    """The ``codex`` to run: ``$DSH_CODEX``, else ``codex`` on ``PATH``, else ``.bench-tools/``."""
    if named := os.environ.get("DSH_CODEX"):
        return named if Path(named).is_file() else None
    if found := shutil.which("codex"):
        return found
    local = ROOT / _LAUNCHER
    return str(local) if local.is_file() else None


def hooks_toml(hooks: Mapping[str, str]) -> str:
    """``[[hooks.<Event>]]`` tables for ``event -> command`` (``""``: none), Codex's TOML form.

    ``matcher = "*"`` on the tool events, none elsewhere (they ignore it).
    """
    lines: list[str] = []
    for event, command in hooks.items():
        if not command:
            continue
        if event not in CODEX_HOOK_EVENTS:
            raise ValueError(f"{event} is not a Codex hook event")
        lines.append(f"[[hooks.{event}]]")
        if event in _TOOL_EVENTS:
            lines.append('matcher = "*"')
        lines += [
            f"[[hooks.{event}.hooks]]",
            'type = "command"',
            f"command = {toml_string(command)}",
        ]
        lines.append("")
    return "\n".join(lines)


def provider_toml(
    url: str, workdir: Path, *, approval: str = "never", sandbox: str = "danger-full-access"
) -> str:
    """Model, provider, approvals, sandbox and project trust for a headless run against ``url``."""
    return "\n".join(
        [
            f"model = {toml_string(MODEL)}",
            f"model_provider = {toml_string(PROVIDER)}",
            f"approval_policy = {toml_string(approval)}",
            f"sandbox_mode = {toml_string(sandbox)}",
            "check_for_update_on_startup = false",
            "",
            "[analytics]",
            "enabled = false",
            "",
            f"[model_providers.{PROVIDER}]",
            'name = "dsh loopback mock"',
            f"base_url = {toml_string(url)}",
            'wire_api = "responses"',
            f"env_key = {toml_string(API_KEY_ENV)}",
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
            f"[projects.{toml_string(str(workdir))}]",
            'trust_level = "trusted"',
            "",
        ]
    )


def codex_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of one ``codex`` run with ``home`` as ``$CODEX_HOME`` (and ``extra``)."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TERM")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(home.parent),
        CODEX_HOME=str(home),
        NO_COLOR="1",
        SHELL="/bin/bash",
        **{API_KEY_ENV: "sk-loopback"},
        **extra,
    )
    return env


def trust_with_dsh(home: Path, workdir: Path) -> list[str]:
    """Trust every hook under ``home`` as ``dsh hooks trust`` does; what it recorded."""
    lines = list(CodexProfile(home=home, system_dir=None).trust(workdir))
    refused = [line for line in lines if line.startswith("not trusted")]
    if refused:
        raise RuntimeError("; ".join(refused))
    return lines


def codex_invocation(
    case: SideCase, workdir: Path, home: Path, url: str
) -> tuple[list[str], dict[str, str]]:
    """Write ``home/config.toml`` for ``case`` and return ``codex exec``'s argv and env.

    ``home`` is ``$CODEX_HOME`` (it may be reused across runs: Codex sets up
    its skills there on first use); the hooks are trusted with dsh's recipe.
    """
    codex = codex_path()
    if codex is None:
        raise FileNotFoundError("no codex: set DSH_CODEX or run `make bench-tools`")
    home = home.absolute()
    workdir = workdir.absolute()
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text(provider_toml(url, workdir) + "\n" + hooks_toml(case.hooks))
    trust_with_dsh(home, workdir)
    argv = [codex, "exec", *exec_flags(workdir), case.prompt]
    return argv, codex_env(home)


def exec_flags(workdir: Path) -> list[str]:
    """``codex exec``'s flags for a headless, unsandboxed run in ``workdir``."""
    return [
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--color",
        "never",
        "-C",
        str(workdir),
    ]


def _outputs(mock: ResponsesMock) -> list[str]:
    return [
        str(item.get("output"))
        for body in mock.requests
        for item in body.get("input") or ()
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]


_SEEN: Final = {
    "pretool-deny": "Command blocked by PreToolUse hook: denied by the case.",
    "posttool-block": "blocked by the case",
    "stop-block-once": "<hook_prompt hook_run_id=",
}


def check_side_run(case: SideCase, workdir: Path, mock: ResponsesMock) -> list[str]:
    """What went wrong in a Codex run of ``case`` (none: it did what the case says).

    The shell commands run and the hook runs per event (the logs in ``workdir``)
    are ``EXPECT``'s; the model saw each block's effect; the mock had no errors.
    """
    problems = [f"mock: {e}" for e in mock.errors]
    want = EXPECT[case.name]
    tool_log, hook_log = workdir / TOOL_LOG, workdir / HOOK_LOG
    tools = len(tool_log.read_text().split()) if tool_log.is_file() else 0
    hooks = collections.Counter(hook_log.read_text().split() if hook_log.is_file() else ())
    if tools != want.tools:
        problems.append(f"shell commands run: {tools}, want {want.tools}")
    for event, count in want.hooks.items():
        if hooks.get(event, 0) != count:
            problems.append(f"{event} hook runs: {hooks.get(event, 0)}, want {count}")
    seen = _SEEN.get(case.name)
    if seen is not None:
        texts = json.dumps(mock.requests, ensure_ascii=False)
        if seen.replace('"', '\\"') not in texts:
            problems.append(f"the model never saw {seen!r}")
    if case.name == "prompt-block" and mock.requests:
        problems.append(f"a blocked prompt reached the model ({len(mock.requests)} requests)")
    return problems


def hooks_list(codex: str, home: Path, cwd: Path, *, timeout: float = 60) -> dict[str, Any]:
    """``codex app-server``'s ``hooks/list`` answer for ``cwd`` with ``home`` as ``$CODEX_HOME``:
    ``{"hooks": [{"key", "currentHash", "trustStatus", …}], "warnings": […], "errors": […]}``."""
    requests: list[dict[str, Any]] = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "dsh", "version": "0"}},
        },
        {"method": "initialized"},
        {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}},
    ]
    text = "".join(json.dumps({"jsonrpc": "2.0", **r}) + "\n" for r in requests)
    answers: queue.Queue[dict[str, Any] | None] = queue.Queue()
    with subprocess.Popen(
        [codex, "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=codex_env(home),
        cwd=cwd,
        text=True,
    ) as proc:
        assert proc.stdin is not None
        assert proc.stdout is not None
        out = proc.stdout

        def read() -> None:
            for line in out:
                message = json.loads(line)
                if message.get("id") == 2:
                    answers.put(message)
            answers.put(None)

        threading.Thread(target=read, daemon=True).start()
        proc.stdin.write(text)
        proc.stdin.flush()
        try:
            answer = answers.get(timeout=timeout)
        except queue.Empty:
            answer = None
        finally:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    if answer is None or "result" not in answer:
        raise RuntimeError(f"codex app-server gave no hooks/list answer: {answer}")
    (entry,) = answer["result"]["data"]
    return dict(entry)
