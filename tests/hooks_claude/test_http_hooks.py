"""``type: "http"`` handlers, against a real HTTP server: the claude-next recordings replayed
strictly, then what they do not show (status codes, redirects, timeouts, bounds, the policy
settings, a proxy) through the executor and the catalog."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from dsh.base import AbortSignal
from dsh.hook_protocol import HookCommand, HookOrigin, HttpTarget, OnFailure, hook_outcome
from dsh.hook_protocol._executor import run_hook
from dsh.hooks.claude import decode_answer
from dsh.hooks.claude.settings._http_policy import url_allowed
from tests.cli.support import run_dsh
from tests.hooks_claude.conftest import Machine, settings
from tests.hooks_claude.http_server import HookServer, serve
from tests.hooks_claude.next_replay import replay_next


@pytest.fixture(scope="module")
def server() -> Iterator[HookServer]:
    yield from serve()


@pytest.fixture
def hook_server(server: HookServer) -> Iterator[HookServer]:
    server.reset()
    yield server
    server.reset()


@pytest.mark.parametrize(
    "name",
    ["http-hook-pretool", "http-hook-mixed", "http-hook-plain-text", "http-hook-url-blocked"],
)
async def test_recorded_case(
    name: str, tmp_path: Path, hook_server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _rig, problems = await replay_next(name, tmp_path, hook_server, monkeypatch)
    assert not problems, "\n".join(problems)


# --- The request and its answer, through the executor -------------------------------------


def http_hook(
    url: str,
    *,
    timeout: float = 10.0,
    headers: tuple[tuple[str, str], ...] = (),
    allowed: frozenset[str] = frozenset(),
    env: dict[str, str] | None = None,
    on_failure: OnFailure = "ignore",
) -> HookCommand:
    return HookCommand(
        argv=(url,),
        timeout=timeout,
        origin=HookOrigin(source="test", event="PreToolUse"),
        env=env,
        on_failure=on_failure,
        http=HttpTarget(url=url, headers=headers, allowed_env=allowed),
    )


async def test_a_json_answer_is_exit_0_with_the_body_as_stdout(hook_server: HookServer) -> None:
    hook_server.answer("/a", {"body": {"decision": "block", "reason": "R"}})
    run = await run_hook(http_hook(hook_server.url("/a")), b'{"x": 1}')
    assert (run.exit_code, run.stderr) == (0, "")
    assert run.stdout == '{"decision": "block", "reason": "R"}'
    assert hook_server.requests()[0]["body"] == {"x": 1}


@pytest.mark.parametrize(
    ("answer", "stderr"),
    [
        ({"status": 500, "body": "down"}, "HTTP 500 from "),
        ({"status": 404, "body": {"decision": "block"}}, "HTTP 404 from "),
        ({"body": "plain text"}, "must return JSON, but got non-JSON response body: plain text"),
        ({"body": "{broken"}, "must return valid JSON, but parsing failed"),
        ({"body": [1, 2]}, "must return JSON, but got non-JSON"),
    ],
)
async def test_other_answers_are_failures_with_the_reason(
    hook_server: HookServer, answer: dict[str, object], stderr: str
) -> None:
    hook_server.answer("/f", answer)
    run = await run_hook(http_hook(hook_server.url("/f")), b"{}")
    assert (run.exit_code, run.stdout) == (1, "")
    assert stderr in run.stderr
    outcome = hook_outcome(run, lambda r: decode_answer(r, "PreToolUse"))
    assert outcome.no_decision == "nonzero_exit"


async def test_an_empty_2xx_body_abstains(hook_server: HookServer) -> None:
    hook_server.answer("/e", {"status": 204})
    run = await run_hook(http_hook(hook_server.url("/e")), b"{}")
    outcome = hook_outcome(run, lambda r: decode_answer(r, "PreToolUse"))
    assert (run.exit_code, outcome.no_decision) == (0, "abstained")


async def test_a_redirect_is_not_followed(hook_server: HookServer) -> None:
    target = hook_server.url("/target")
    hook_server.answer("/moved", {"status": 307, "headers": {"Location": target}})
    hook_server.answer("/target", {"body": {"decision": "block", "reason": "R"}})
    run = await run_hook(http_hook(hook_server.url("/moved")), b"{}")
    assert (run.exit_code, run.stderr) == (1, f"HTTP 307 from {hook_server.url('/moved')}")
    assert [r["path"] for r in hook_server.requests()] == ["/moved"]


async def test_a_body_over_the_cap_is_cut_and_fails(hook_server: HookServer) -> None:
    hook_server.answer("/big", {"size": 300_000})
    run = await run_hook(http_hook(hook_server.url("/big")), b"{}", stdout_cap=65_536)
    assert (run.exit_code, run.stdout, run.stdout_truncated) == (1, "", True)
    assert "over 65536 bytes" in run.stderr


async def test_the_timeout_ends_the_request(hook_server: HookServer) -> None:
    hook_server.answer("/slow", {"hold": True})
    run = await run_hook(http_hook(hook_server.url("/slow"), timeout=0.3), b"{}")
    assert run.timed_out
    assert run.exit_code is None
    assert hook_outcome(run, lambda r: None).no_decision == "timed_out"


async def test_the_abort_signal_cancels_the_request(hook_server: HookServer) -> None:
    hook_server.answer("/held", {"hold": True})
    signal = AbortSignal()
    task = asyncio.ensure_future(
        run_hook(http_hook(hook_server.url("/held")), b"{}", signal=signal)
    )
    while not hook_server.requests():
        await asyncio.sleep(0.01)
    signal.abort("user")
    run = await task
    assert run.cancelled
    assert not run.timed_out


async def test_a_refused_connection_is_a_spawn_error_and_fails_closed_when_declared() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    run = await run_hook(http_hook(f"http://127.0.0.1:{port}/x", on_failure="block"), b"{}")
    assert run.spawn_error is not None
    assert "ConnectError" in run.spawn_error
    assert hook_outcome(run, lambda r: None).failed_closed


async def test_headers_interpolate_only_listed_variables_never_model_keys(
    hook_server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LISTED", "yes")
    monkeypatch.setenv("UNLISTED", "no")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    headers = (
        ("X-A", "a=$LISTED b=${UNLISTED} c=${LISTED}"),
        ("X-Key", "$ANTHROPIC_API_KEY"),
        ("X-Own", "$OWN"),
        ("X-Crlf", "v\r\nInjected: 1"),
        ("Content-Length", "1"),
    )
    allowed = frozenset({"LISTED", "ANTHROPIC_API_KEY", "OWN"})
    cmd = http_hook(hook_server.url("/h"), headers=headers, allowed=allowed, env={"OWN": "mine"})
    await run_hook(cmd, b"{}")
    got = hook_server.requests()[0]["headers"]
    assert got["X-A"] == "a=yes b= c=yes"
    assert got["X-Key"] == ""
    assert got["X-Own"] == "mine"
    assert got["X-Crlf"] == "vInjected: 1"
    assert "Injected" not in got
    assert list(got)[:2] == ["Accept", "Content-Type"]


async def test_a_proxy_the_environment_names_carries_the_request(
    hook_server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("NO_PROXY", "no_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", hook_server.url(""))
    url = "http://hooks.invalid/via-proxy"
    hook_server.answer(url, {"body": {"continue": True}})
    run = await run_hook(http_hook(url), b"{}")
    assert run.exit_code == 0, run
    assert [r["path"] for r in hook_server.requests()] == [url]


# --- Settings: admitted, and the policy ----------------------------------------------------


def http_settings(url: str, **extra: object) -> dict[str, object]:
    handler = {"type": "http", "url": url}
    return {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}, **extra}


def test_an_http_handler_is_admitted_without_a_warning(machine: Machine) -> None:
    machine.write(machine.project_settings, http_settings("http://127.0.0.1:9/h"))
    catalog = machine.load()
    assert catalog.ok, catalog.render_report()
    (decl,) = catalog.for_event("PreToolUse")
    assert (decl.kind, decl.declared_command, decl.timeout) == ("http", "http://127.0.0.1:9/h", 600)
    assert "not supported" not in catalog.render_report()


@pytest.mark.parametrize(
    ("handler", "code"),
    [
        ({"type": "http"}, "missing-command"),
        ({"type": "http", "url": "ftp://x/y"}, "bad-field"),
        ({"type": "http", "url": "http://x", "headers": {"A": 1}}, "bad-field"),
        ({"type": "http", "url": "http://x", "timeout": 0}, "bad-timeout"),
    ],
)
def test_malformed_http_handlers_are_errors(
    machine: Machine, handler: dict[str, object], code: str
) -> None:
    machine.write(machine.project_settings, settings("PreToolUse", handler))
    catalog = machine.load()
    assert any(d.code == code and d.severity == "error" for d in catalog.diagnostics)


@pytest.mark.parametrize(
    ("url", "pattern", "allowed"),
    [
        ("http://127.0.0.1:8080/hook", "http://hooks.example.com/*", False),
        ("https://hooks.example.com/a/b", "https://hooks.example.com/*", True),
        ("https://HOOKS.example.com./a", "https://hooks.example.com/*", True),
        ("http://hooks.example.com/a", "https://hooks.example.com/*", False),
        ("https://a.example.com/x", "https://*.example.com", True),
        ("https://hooks.example.com:8443/x", "https://hooks.example.com/*", False),
        ("https://hooks.example.com/other", "https://hooks.example.com/api/*", False),
        ("https://hooks.example.com/api/v1", "https://hooks.example.com/api/*", True),
        ("http://anything/at/all", "*", True),
    ],
)
def test_allowed_http_hook_urls_patterns(url: str, pattern: str, allowed: bool) -> None:
    assert url_allowed(url, pattern) is allowed


def test_url_policy_merges_across_files_and_blocks_with_a_warning(machine: Machine) -> None:
    machine.write(machine.user_settings, {"allowedHttpHookUrls": ["http://127.0.0.1:9/allowed/*"]})
    data = http_settings("http://127.0.0.1:9/blocked", allowedHttpHookUrls=["http://other/*"])
    data["hooks"]["Stop"] = [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/allowed/x"}]}]  # type: ignore[index]
    machine.write(machine.project_settings, data)
    catalog = machine.load()
    assert [d.declared_command for d in catalog.all_hooks()] == ["http://127.0.0.1:9/allowed/x"]
    (diag,) = [d for d in catalog.diagnostics if d.code == "policy"]
    assert (diag.event, diag.severity) == ("PreToolUse", "warning")
    assert "does not match any pattern in allowedHttpHookUrls" in diag.reason


def test_an_empty_or_broken_url_list_allows_none(machine: Machine) -> None:
    values: list[object] = [[], "http://x/*"]
    for value in values:
        machine.write(
            machine.project_settings, http_settings("http://x/h", allowedHttpHookUrls=value)
        )
        assert machine.load().all_hooks() == ()


def test_env_var_policy_narrows_each_hooks_list(machine: Machine) -> None:
    handler = {"type": "http", "url": "http://x/h", "allowedEnvVars": ["A", "B"]}
    data = {"hooks": {"Stop": [{"hooks": [handler]}]}, "httpHookAllowedEnvVars": ["B", "C"]}
    machine.write(machine.project_settings, data)
    (decl,) = machine.load().all_hooks()
    assert decl.http is not None
    assert decl.http.allowed_env == {"B"}


# --- Settings that change what hooks see (claude-next) -------------------------------------


@pytest.mark.parametrize("name", ["settings-env", "disable-all-hooks"])
async def test_recorded_settings_case(
    name: str, tmp_path: Path, hook_server: HookServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CASE_SETTINGS_ENV", raising=False)
    rig, problems = await replay_next(name, tmp_path, hook_server, monkeypatch)
    assert not problems, "\n".join(problems)
    if name == "settings-env":
        envs = {e["event"]: e["env"].get("CASE_SETTINGS_ENV") for e in rig.entries()}
        assert set(envs.values()) == {"from-settings-env"}, envs
    else:
        assert rig.entries() == []


def test_dsh_run_sends_an_http_hook_and_applies_its_answer(
    tmp_path: Path, hook_server: HookServer
) -> None:
    deny = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "CASE-HTTP-DENY",
        }
    }
    hook_server.answer("/run/pre", {"body": deny})
    project = tmp_path / "project"
    project.mkdir()
    settings = tmp_path / "settings.json"
    handler = {"type": "http", "url": hook_server.url("/run/pre")}
    settings.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}})
    )
    script = tmp_path / "script.json"
    replies = [
        [{"type": "tool_use", "name": "Bash", "input": {"command": "echo hi"}}],
        [{"type": "text", "text": "Done."}],
    ]
    script.write_text(json.dumps({"rules": [{"has_tool": "Bash", "responses": replies}]}))
    args: tuple[str, ...] = ("run", "--project", str(project), "--settings", str(settings))
    args += ("--model", f"scripted:{script}", "--permission-mode", "bypassPermissions", "go")
    done = run_dsh(*args, cwd=project, env={"HOME": str(tmp_path / "home")})
    assert done.returncode == 0, done.stderr
    assert "PreToolUse:Bash hook error: CASE-HTTP-DENY" in done.stdout
    (request,) = hook_server.requests()
    assert request["body"]["tool_input"] == {"command": "echo hi"}
