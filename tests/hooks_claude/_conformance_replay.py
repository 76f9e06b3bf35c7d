"""The replay of one recorded Claude Code case as `dsh run` would run it.

The case's ``files`` written, its ``cli_env`` set, ``HOME`` its own, the handlers of its
``hook_settings`` registered as recorded for the events the bridge supports (``record_hook.py``
run from this checkout), the scripted model playing its ``model_script``; then the prompt and
the ``--continue`` follow-ups. ``Places`` maps this replay's paths to the recording's
placeholders. (``bridge_support.mount_hooks`` asserts a clean catalog, which a recorded
``asyncRewake`` handler is not, hence a mount of its own.)
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import run_notifications, subagent_plugin
from dsh.cli._model_command import model_command, run_model_command
from dsh.cli._stream_input import run_stream
from dsh.hooks.claude import (
    HOOK_EVENT_HOST_SUPPORT,
    ClaudePermissionsPlugin,
    claude_hooks_plugin,
    load_catalog,
    permission_state,
)
from dsh.hooks.claude._compact_prompt import SUMMARY_ASK
from dsh.hooks.claude.settings._commands import load_commands
from dsh.instructions import claude_instructions_plugin
from dsh.models import Model
from tests.agent.support import make_harness
from tests.hooks_claude.bridge_support import SCRIPT, Rig
from tests.hooks_claude.recorded_server import recorded_model
from tests.shared_paths import CONFORMANCE

CASES_DIR = CONFORMANCE / "claude"
SUPPORTED = {e for e, row in HOOK_EVENT_HOST_SUPPORT.items() if row.status != "not-supported"}
RECORDED_HOOK = "python3 record_hook.py"


def recorded(case_dir: Path) -> list[dict[str, Any]]:
    """The recorded invocations, in ``hook_order`` order (``<Event>.json``, ``<Event>-n.json``)."""
    case = json.loads((case_dir / "case.json").read_text())
    seen: dict[str, int] = {}
    out = []
    for event in case["hook_order"]:
        n = seen[event] = seen.get(event, 0) + 1
        name = f"{event}.json" if n == 1 else f"{event}-{n}.json"
        out.append(json.loads((case_dir / name).read_text()))
    return out


class Places:
    """The recording's placeholders for this replay's paths (``${PROJECT_DIR}``, ...)."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir.resolve()
        self.project = self.run_dir / "project"
        self.home = self.run_dir / "home"
        slug = re.sub(r"[^A-Za-z0-9]", "-", str(self.project))
        self.theirs = {
            "${PROJECT_DIR}": str(self.project),
            "__PROJ__": str(self.project),
            "${HOME}": str(self.home),
            "${RUN_DIR}": str(self.run_dir),
            "${PROJECT_SLUG}": slug,
        }

    def placeholders(self, value: Any) -> Any:
        """``value`` with this replay's paths written as the recording's placeholders."""
        text = json.dumps(value)
        for placeholder in ("${PROJECT_DIR}", "${HOME}", "${RUN_DIR}"):
            text = text.replace(self.theirs[placeholder], placeholder)
        return json.loads(text)


# The control requests `dsh run --input-format stream-json` handles (dsh.cli._stream_input).
CONTROL_REQUESTS = {"set_model", "register_repo_root"}
# The slash commands `dsh run` runs itself (`/compact`, `/model NAME`), besides custom ones.
BUILTIN_COMMANDS = {"/compact", "/model"}


def needs(case: dict[str, Any]) -> list[str]:
    """The command-line features of Claude Code the case uses that dsh has none of yet."""
    missing = []
    kinds = {line["request"]["subtype"] for line in case.get("stdin") or [] if "request" in line}
    if kinds - CONTROL_REQUESTS:
        missing.append(f"control requests ({', '.join(sorted(kinds - CONTROL_REQUESTS))})")
    prompts = [case["prompt"] or "", *(case["then"] or [])]
    files = (case.get("files") or {}).get("files") or {}
    known = BUILTIN_COMMANDS | {
        "/" + name.removeprefix(".claude/commands/").removesuffix(".md")
        for name in files
        if name.startswith(".claude/commands/")
    }
    slash = [p.split()[0] for p in prompts if p.startswith("/") and p.split()[0] not in known]
    if slash:
        missing.append(f"slash commands ({', '.join(slash)})")
    return missing


def all_args(case: dict[str, Any]) -> list[str]:
    """Every command-line argument of the case's runs (one run, or a list of them)."""
    runs = case["cli_args"] if case["cli_args"] and isinstance(case["cli_args"][0], list) else []
    return [a for run in runs for a in run] if runs else list(case["cli_args"])


def plugin_dirs(case: dict[str, Any], places: Places) -> list[Path]:
    """The case's ``--plugin-dir`` arguments, as ``dsh run --plugin-dir`` is given them."""
    args = all_args(case)
    dirs = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--plugin-dir"]
    return [Path(places.theirs["${RUN_DIR}"] + d.removeprefix("${RUN_DIR}")) for d in dirs]


def settings_hooks(case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The case's ``hook_settings`` for the supported events, with our script's path; and a
    map from each of our commands back to the recorded command text."""
    ours = f"{shlex.quote(sys.executable)} {shlex.quote(str(SCRIPT))}"
    back: dict[str, str] = {}
    hooks: dict[str, Any] = {}
    for event, groups in case["hook_settings"]["hooks"].items():
        if event not in SUPPORTED:
            continue
        hooks[event] = []
        for group in groups:
            handlers = []
            for handler in group["hooks"]:
                command = handler["command"].replace(RECORDED_HOOK, ours)
                back[command] = handler["command"]
                handlers.append({**handler, "command": command})
            hooks[event].append({**group, "hooks": handlers})
    return hooks, back


def adapted_script(case: dict[str, Any]) -> dict[str, Any]:
    """The case's ``model_script`` for dsh's requests: as recorded. A rule keyed on ToolSearch
    (2.1.332 offers the task tools only deferred behind it, the README's "Harness changes")
    stands: dsh offers ToolSearch too, while a tool is deferred. A case that compacts too:
    dsh's compaction request is 2.1.332's (the last request's tools and messages, then Claude
    Code's prompt: ``dsh.hooks.claude._compact_prompt``), so the same rules answer it."""
    script: dict[str, Any] = json.loads(json.dumps(case["model_script"]))
    return script


def expected_views(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded requests, every one (2.1.332's retries of a failed request included)."""
    views: list[dict[str, Any]] = case["model_view"]
    return views


# A recorded ``sleep`` that ordered the recording's events, with the event it let come first:
# the replay's hook waits for that event instead (``record_hook.py``'s ``wait_for``), since a
# sleep orders them only on an idle machine. ``subagent``: SubagentStart slept 1.5 s so that
# the parent's turn ends (its Stop) before the subagent's first request (the corpus README).
# ``async-hook``: the async PostToolUse slept 1 s so that it answers after the next request
# (the second PreToolUse is that request's tool call) and before the one after it (that
# call runs `sleep 3`).
SLEEP_STANDS_FOR: dict[tuple[str, str], dict[str, Any]] = {
    ("subagent", "SubagentStart"): {"event": "Stop", "nth": 1},
    ("async-hook", "PostToolUse"): {"event": "PreToolUse", "nth": 2},
}


def hook_answers(case: dict[str, Any]) -> dict[str, Any] | None:
    """The case's ``hook_answers`` as the replay's hooks answer: each sleep of
    ``SLEEP_STANDS_FOR`` a wait for its event."""
    answers: dict[str, Any] | None = case.get("hook_answers")
    if not answers:
        return answers
    out = dict(answers)
    for (name, event), wait in SLEEP_STANDS_FOR.items():
        if name == case["case"] and "sleep" in out.get(event, {}):
            out[event] = {k: v for k, v in out[event].items() if k != "sleep"}
            out[event]["wait_for"] = wait
    return out


def write_files(case: dict[str, Any], places: Places) -> None:
    files = case.get("files") or {}
    for base, tree in (
        (places.project, files.get("files")),
        (places.home, files.get("home_files")),
    ):
        for name, text in (tree or {}).items():
            path = (base / name).resolve()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def mount(
    case: dict[str, Any], places: Places, monkeypatch: pytest.MonkeyPatch
) -> tuple[Rig, dict[str, str]]:
    """The harness with the case's model, files, environment and hooks mounted."""
    script = adapted_script(case)
    harness = make_harness(places.run_dir, script)
    harness.model = recorded_model(
        script,
        requested=_requested_model(case),
        record_to=harness.record,
        substitutions=places.theirs,
    )
    places.home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(places.home))
    for key, value in (case.get("cli_env") or {}).items():
        monkeypatch.setenv(key, value)
    write_files(case, places)
    hooks, back = settings_hooks(case)
    settings = places.project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": hooks}))
    plugins = plugin_dirs(case, places)
    if plugins:
        # A plugin's hook runs `record_hook.py` from the session's directory, as recorded.
        shutil.copy(SCRIPT, places.project / "record_hook.py")
    catalog = load_catalog(
        places.project,
        plugin_roots=plugins,
        home=places.home,
        managed_path=places.run_dir / "no-managed.json",
        env={},
        discover_installed_plugins=False,
    )
    assert not catalog.errors, catalog.diagnostics
    log = places.run_dir / "hooks.jsonl"
    respond = places.run_dir / "answers.json"
    respond.write_text(json.dumps(hook_answers(case)))
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    monkeypatch.setenv("CASE_HOOK_RESPOND", str(respond))
    transcripts = places.run_dir / "transcripts"
    modes = [e["payload"]["permission_mode"] for e in recorded_of(case) if has_mode(e)]
    # The permission policy as `dsh run` mounts it, after the bridge; `auto` with dsh's own
    # classifier (unavailable, as the corpus's 2.1.332 has it).
    state = permission_state(
        catalog.permissions,
        places.project,
        mode=modes[0] if modes else "bypassPermissions",
        home=places.home,
    )
    harness.ctx.plugin(
        claude_hooks_plugin(
            catalog,
            transcript_dir=transcripts,
            permission_mode=state.mode,
            permissions=state,
            commands=load_commands(places.project, home=places.home, plugin_roots=plugins),
        )
    )
    harness.ctx.plugin(ClaudePermissionsPlugin(state))
    harness.ctx.plugin(subagent_plugin)
    # As `dsh run` mounts it (the files of `claude-md` hold a CLAUDE.md).
    harness.ctx.plugin(
        claude_instructions_plugin(
            config_dir=places.home / ".claude", managed_dir=places.run_dir / "no-managed"
        )
    )
    return Rig(harness=harness, catalog=catalog, log=log, transcripts=transcripts), back


def recorded_of(case: dict[str, Any]) -> list[dict[str, Any]]:
    return recorded(CASES_DIR / case["case"])


def has_mode(entry: dict[str, Any]) -> bool:
    return "permission_mode" in (entry["payload"] or {})


def _requested_model(case: dict[str, Any]) -> str | None:
    """The case's ``--model`` (the recording's model is its catalog id), else ``None``."""
    args = all_args(case)
    if "--model" in args and args.index("--model") + 1 < len(args):
        return args[args.index("--model") + 1]
    return None


def model_resolver(case: dict[str, Any], rig: Rig, places: Places) -> Callable[[str], Model]:
    """What a switch to ``name`` selects in the replay: the case's script under that name."""
    script = adapted_script(case)

    def resolve(name: str) -> Model:
        record = rig.harness.record
        return recorded_model(script, requested=name, record_to=record, substitutions=places.theirs)

    return resolve


async def replay(case: dict[str, Any], rig: Rig, places: Places) -> None:
    """Run the case's prompt and follow-ups (``--continue``) as ``dsh run`` runs them; a case
    driven through stdin as ``dsh run --input-format stream-json`` reads it."""
    harness = rig.harness
    first_args = case["cli_args"][0] if isinstance(case["cli_args"][0], list) else case["cli_args"]
    # The options `dsh run`'s Claude Code mount gives every agent (the compaction's request).
    agent = harness.agent(summary_ask=SUMMARY_ASK)
    if case.get("stdin"):
        lines = "".join(json.dumps(line) + "\n" for line in case["stdin"])
        for placeholder, path in places.theirs.items():
            lines = lines.replace(placeholder, path)
        await run_stream(
            agent,
            io.StringIO(lines),
            resolve_model=model_resolver(case, rig, places),
            respond=lambda _response: None,  # the corpus records no control responses
        )
    elif "--init-only" in first_args:
        await agent.setup("init")
        await agent.start()
    else:
        agent.send(case["prompt"])
        await agent.run_turn()
        await run_notifications(agent)  # background subagents' turns, as `claude -p` runs them
    await agent.close("other")
    for prompt in case["then"] or []:
        session = agent.session
        session.close()
        agent = harness.agent(session=harness.store.open(session.id), summary_ask=SUMMARY_ASK)
        if prompt == "/compact":
            await agent.start()
            await agent.compact()
        elif model_command(prompt) is not None:
            await agent.start()
            await run_model_command(
                agent, prompt, resolve_model=model_resolver(case, rig, places), say=print
            )
        else:
            agent.send(prompt)
            await agent.run_turn()
        await agent.close("other")
