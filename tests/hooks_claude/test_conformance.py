"""Replays every recorded Claude Code 2.1.332 case through the real loop and the bridge.

Each case of the corpus (``tests.shared_paths.CONFORMANCE / "claude"``, its README is the
format): the case's ``files`` are written, its ``cli_env`` set, the handlers of its
``hook_settings`` registered as recorded (matcher, ``if``, ``async``/``asyncRewake``, the
command around ``record_hook.py``) for the events the bridge supports, ``record_hook.py``
answers as ``hook_answers`` says and the scripted model plays ``model_script``. Then the event
order (restricted to supported events, the README's varying orders accepted), each
invocation's payload (field names, the values that are not ids, paths or times), its working
directory and environment, and the hook-derived items of every model request are compared
with the recording. A case that cannot pass is listed in ``EXPECTED_DIFFERENCES`` with why
(strict xfail), never skipped; a difference every case shares (an environment variable, a
payload field) is listed once in the tables below it, checked as strictly.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.agent import subagent_plugin
from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT, claude_hooks_plugin, load_catalog
from dsh.instructions import claude_instructions_plugin
from dsh.models import ScriptedModel
from tests.agent.support import make_harness
from tests.hooks_claude.bridge_support import SCRIPT, Rig
from tests.shared_paths import CONFORMANCE

from ._conformance_differences import (
    EXPECTED_DIFFERENCES,
    EXPECTED_ENV_DIFFERENCES,
    EXPECTED_FIELD_DIFFERENCES,
    EXPECTED_VALUE_DIFFERENCES,
)

CASES_DIR = CONFORMANCE / "claude"
SUPPORTED = {e for e, row in HOOK_EVENT_HOST_SUPPORT.items() if row.status != "not-supported"}
RECORDED_HOOK = "python3 record_hook.py"

# Set by the recording rig, not by Claude Code (the corpus README), so not expected from dsh.
RECORDING_ENV = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "CLAUDE_CONFIG_DIR"}

# Fields whose values differ on every run (ids, paths, times): compared by type only.
VOLATILE = {
    "session_id",
    "transcript_path",
    "agent_transcript_path",
    "prompt_id",
    "turn_id",
    "message_id",
    "tool_use_id",
    "agent_id",
    "duration_ms",
    "seconds_since_last_response",
    "estimated_cache_write_usd",
    "model",
    "compact_summary",
}
# Tool outputs: compared by the tool tests (tests/tools/builtin) and the model view.
TOOL_OUTPUT = {"tool_response"}

# Orders that vary between runs of the same case (the README): pairs that may swap places.
SWAPPABLE: dict[str, set[tuple[str, str]]] = {
    "claude-md": {("SessionStart", "InstructionsLoaded")},
    "exit2-session": {("SessionStart", "InstructionsLoaded")},
    "cwd-change": {("CwdChanged", "PostToolUse")},
    "exit2-cwd": {("CwdChanged", "PostToolUse")},
    "env-file": {("CwdChanged", "PostToolUse")},
    "subagent": {("SubagentStart", "PostToolUse")},
}
# An async hook's log line lands anywhere up to the next tool call: compared on its own.
FLOATING: dict[str, str] = {"async-hook": "PostToolUse"}


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def cases() -> list[Any]:
    if not CASES_DIR.is_dir():
        return []
    out = []
    for path in sorted(CASES_DIR.iterdir()):
        if not (path / "case.json").is_file():
            continue
        marks = []
        if path.name in EXPECTED_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=EXPECTED_DIFFERENCES[path.name], strict=True))
        out.append(pytest.param(path, id=path.name, marks=marks))
    return out


def test_the_corpus_is_present() -> None:
    if CASES_DIR.is_dir():
        assert cases(), f"no case in {CASES_DIR}"
        return
    if in_ci():
        pytest.fail(f"the conformance corpus is missing: {CASES_DIR} (CI must have it)")
    pytest.skip(f"the conformance corpus is not present at {CASES_DIR}")


def test_every_expected_difference_names_a_case() -> None:
    if not CASES_DIR.is_dir():
        pytest.skip("no corpus")
    names = {p.name for p in CASES_DIR.iterdir() if (p / "case.json").is_file()}
    assert set(EXPECTED_DIFFERENCES) <= names


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


def is_artifact(entry: dict[str, Any]) -> bool:
    # Claude Code's /compact runs an internal agent that fires SubagentStop with no type.
    payload = entry.get("payload") or {}
    return entry["event"] == "SubagentStop" and payload.get("agent_type") == ""


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

    def fill(self, text: str) -> str:
        for placeholder, value in self.theirs.items():
            text = text.replace(placeholder, value)
        return text

    def placeholders(self, value: Any) -> Any:
        """``value`` with this replay's paths written as the recording's placeholders."""
        text = json.dumps(value)
        for placeholder in ("${PROJECT_DIR}", "${HOME}", "${RUN_DIR}"):
            text = text.replace(self.theirs[placeholder], placeholder)
        return json.loads(text)


def needs(case: dict[str, Any]) -> list[str]:
    """The command-line features of Claude Code the case uses that dsh has none of yet."""
    runs = case["cli_args"] if case["cli_args"] and isinstance(case["cli_args"][0], list) else []
    args = [a for run in runs for a in run] if runs else case["cli_args"]
    missing = []
    if case.get("stdin"):
        kinds = sorted({line["request"]["subtype"] for line in case["stdin"] if "request" in line})
        missing.append(f"stream-json input with control requests ({', '.join(kinds)})")
    prompts = [case["prompt"] or "", *(case["then"] or [])]
    slash = [p.split()[0] for p in prompts if p.startswith("/") and p != "/compact"]
    if slash:
        missing.append(f"slash commands ({', '.join(slash)})")
    if "--plugin-dir" in args:
        missing.append("`--plugin-dir`")
    return missing


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
    """The case's ``model_script`` for dsh's tools: a rule the recording keyed on ToolSearch
    because 2.1.332 offers the task tools only deferred behind it (the README's "Harness
    changes") keys on the tool its replies call, which dsh offers directly, when the replies
    never call ToolSearch itself."""
    script = json.loads(json.dumps(case["model_script"]))
    for rule in script.get("anthropic", script).get("rules", []):
        called = [
            block["name"]
            for reply in rule["responses"]
            for block in reply
            if block.get("type") == "tool_use"
        ]
        if rule.get("has_tool") == "ToolSearch" and called and "ToolSearch" not in called:
            rule["has_tool"] = called[0]
    return script


def expected_views(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded requests, without 2.1.332's degraded retries of an HTTP 400 (the README's
    "Harness changes": the same request again without betas or deferred tools, no hook's
    doing), which dsh, offering neither, has no reason to send."""
    views: list[dict[str, Any]] = case["model_view"]
    if '"status": 400' not in json.dumps(case["model_script"]):
        return views
    out: list[dict[str, Any]] = []
    for view in views:
        if not out or view["hook_relevant"] != out[-1]["hook_relevant"]:
            out.append(view)
    return out


def write_files(case: dict[str, Any], places: Places) -> None:
    files = case.get("files") or {}
    for base, tree in ((places.project, files.get("files")), (places.home, files.get("home_files"))):
        for name, text in (tree or {}).items():
            path = (base / name).resolve()
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def mount(
    case: dict[str, Any], places: Places, monkeypatch: pytest.MonkeyPatch
) -> tuple[Rig, dict[str, str]]:
    """The harness with the case's model, files, environment and hooks (``bridge_support``'s
    ``mount_hooks`` asserts a clean catalog; a recorded ``asyncRewake`` handler is not)."""
    script = adapted_script(case)
    harness = make_harness(places.run_dir, script)
    harness.model = ScriptedModel(script, record_to=harness.record, substitutions=places.theirs)
    places.home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(places.home))
    for key, value in (case.get("cli_env") or {}).items():
        monkeypatch.setenv(key, value)
    write_files(case, places)
    hooks, back = settings_hooks(case)
    settings = places.project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": hooks}))
    catalog = load_catalog(
        places.project,
        home=places.home,
        managed_path=places.run_dir / "no-managed.json",
        env={},
        discover_installed_plugins=False,
    )
    assert not catalog.errors, catalog.diagnostics
    log = places.run_dir / "hooks.jsonl"
    respond = places.run_dir / "answers.json"
    respond.write_text(json.dumps(case.get("hook_answers")))
    monkeypatch.setenv("CASE_HOOK_LOG", str(log))
    monkeypatch.setenv("CASE_HOOK_RESPOND", str(respond))
    transcripts = places.run_dir / "transcripts"
    modes = [e["payload"]["permission_mode"] for e in recorded_of(case) if has_mode(e)]
    harness.ctx.plugin(
        claude_hooks_plugin(
            catalog,
            transcript_dir=transcripts,
            permission_mode=modes[0] if modes else "bypassPermissions",
        )
    )
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


async def replay(case: dict[str, Any], rig: Rig) -> None:
    """Run the case's prompt and follow-ups (``--continue``) as ``dsh run`` runs them."""
    harness = rig.harness
    first_args = case["cli_args"][0] if isinstance(case["cli_args"][0], list) else case["cli_args"]
    agent = harness.agent()
    if "--init-only" in first_args:
        await agent.setup("init")
        await agent.start()
    else:
        agent.send(case["prompt"])
        await agent.run_turn()
    await agent.close("other")
    for prompt in case["then"] or []:
        session = agent.session
        session.close()
        agent = harness.agent(session=harness.store.open(session.id))
        if prompt == "/compact":
            await agent.start()
            await agent.compact()
        else:
            agent.send(prompt)
            await agent.run_turn()
        await agent.close("other")


def canonical(entries: list[dict[str, Any]], case: str) -> list[dict[str, Any]]:
    """``entries`` with each swappable pair in one order, so either recorded order matches."""
    pairs = SWAPPABLE.get(case, set())
    out = list(entries)
    changed = True
    while changed:
        changed = False
        for i in range(len(out) - 1):
            if (out[i + 1]["event"], out[i]["event"]) in pairs:
                out[i], out[i + 1] = out[i + 1], out[i]
                changed = True
    return out


def split_floating(entries: list[dict[str, Any]], case: str) -> list[list[dict[str, Any]]]:
    floating = FLOATING.get(case)
    if floating is None:
        return [entries]
    return [
        [e for e in entries if e["event"] != floating],
        [e for e in entries if e["event"] == floating],
    ]


def shape(value: Any) -> Any:
    """What is compared of a volatile value: its JSON type."""
    return type(value).__name__


def compare_payload(
    event: str, got: dict[str, Any], expected: dict[str, Any], problems: list[str]
) -> None:
    missing = {f for (e, f) in EXPECTED_FIELD_DIFFERENCES if e == event and f in expected}
    want = set(expected) - missing
    if set(got) != want:
        problems.append(
            f"{event} fields: dsh lacks {sorted(want - set(got))}, adds {sorted(set(got) - want)}"
        )
    for key, value in expected.items():
        if key in missing or key in TOOL_OUTPUT or key not in got:
            continue
        mine = got[key]
        if key in VOLATILE:
            mine, value = shape(mine), shape(value)
        elif key in EXPECTED_VALUE_DIFFERENCES:
            # Strict: once dsh sends the recorded value, the entry must go.
            if mine == value:
                problems.append(f"{event}.{key} now as recorded: drop its expected difference")
            continue
        elif key == "tool_calls":
            mine, value = without_ids(mine), without_ids(value)
        if mine != value:
            problems.append(f"{event}.{key}: 2.1.332 {value!r}, dsh {mine!r}")


def without_ids(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """PostToolBatch's ``tool_calls`` without their ids, each result as dsh is to give it."""
    out = []
    for call in calls:
        kept = {k: v for k, v in call.items() if k != "tool_use_id"}
        if "tool_response" in kept:
            kept["tool_response"] = expected_result(kept["tool_response"])
        out.append(kept)
    return out


def compare_env(
    event: str, got: dict[str, str], expected: dict[str, str], problems: list[str]
) -> None:
    unset = {k for k in EXPECTED_ENV_DIFFERENCES if k in expected}
    want = {k for k in expected if k not in RECORDING_ENV | unset}
    if set(got) != want:
        problems.append(
            f"{event} environment: dsh lacks {sorted(want - set(got))},"
            f" adds {sorted(set(got) - want)}"
        )


def hook_items(request: dict[str, Any], back: dict[str, str]) -> list[dict[str, Any]]:
    """The hook-relevant items of one of our requests, in the recording's vocabulary."""
    items: list[dict[str, Any]] = []
    for m in request["messages"]:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, list) and len(content) == 1 and content[0]["type"] == "text":
                content = content[0]["text"]
            items.append({"tool_result": content, "is_error": m["is_error"]})
        elif m["role"] in ("context", "steering"):
            text = m["text"]
            for ours, theirs in back.items():
                text = text.replace(ours, theirs)
            items.extend({"line": line} for line in text.split("\n") if line)
    return items


_REPORT = re.compile(r"The report follows:\n(.*?)\nagentId: ", re.S)


def expected_result(result: Any) -> Any:
    """A recorded tool result as dsh is to give it: for the Agent tool, the subagent's report
    (Claude Code wraps it in a hand-back frame, indented, with its own bookkeeping)."""
    if not isinstance(result, list) or any(b.get("type") != "text" for b in result):
        return result
    text = "\n".join(b["text"] for b in result)
    report = _REPORT.search(text)
    if report is None:
        return text
    return "\n".join(line.removeprefix("  ") for line in report.group(1).split("\n"))


def expected_items(view: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for item in view["hook_relevant"]:
        if "tool_result" in item:
            result = expected_result(item["tool_result"])
            items.append({"tool_result": result, "is_error": item["is_error"]})
        elif "hook_lines" in item:
            items.extend({"line": line} for line in item["hook_lines"])
        else:
            text = re.sub(r"</?system-reminder>", "", item["text"])
            items.extend({"line": line} for line in text.split("\n") if line)
    return items


def is_subsequence(needles: list[Any], haystack: list[Any]) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


@pytest.mark.parametrize("case_dir", cases())
async def test_case(case_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = json.loads((case_dir / "case.json").read_text())
    unknown = sorted({e for e in case["hook_order"] if e not in HOOK_EVENT_HOST_SUPPORT})
    assert not unknown, f"events missing from HOOK_EVENT_HOST_SUPPORT: {unknown}"
    missing = needs(case)
    assert not missing, f"needs what dsh has no equivalent for yet: {'; '.join(missing)}"
    places = Places(tmp_path)
    rig, back = mount(case, places, monkeypatch)
    await replay(case, rig)

    problems: list[str] = []
    # 1. the event order, restricted to the events the bridge supports
    theirs_all = [e for e in recorded(case_dir) if e["event"] in SUPPORTED and not is_artifact(e)]
    ours_all = rig.entries()
    for ours, theirs in zip(
        split_floating(canonical(ours_all, case_dir.name), case_dir.name),
        split_floating(canonical(theirs_all, case_dir.name), case_dir.name),
        strict=True,
    ):
        order = [e["event"] for e in ours]
        if order != [e["event"] for e in theirs]:
            problems.append(f"order: 2.1.332 {[e['event'] for e in theirs]}, dsh {order}")
            continue
        # 2. each invocation's payload, working directory and environment
        for mine, entry in zip(ours, theirs, strict=True):
            event = mine["event"]
            payload = places.placeholders(mine["payload"])
            compare_payload(event, payload, entry["payload"], problems)
            if places.placeholders(mine["cwd"]) != entry["cwd"]:
                problems.append(f"{event} cwd: 2.1.332 {entry['cwd']}, dsh {mine['cwd']}")
            compare_env(event, mine["env"], entry["env"], problems)

    # 3. what the model saw: as many requests, each with the recorded hook effects in order
    requests, views = rig.requests(), expected_views(case)
    if len(requests) != len(views):
        problems.append(f"model requests: 2.1.332 {len(views)}, dsh {len(requests)}")
    for request, view in zip(requests, views):
        want = expected_items(view)
        got_items = places.placeholders(hook_items(request, back))
        if not is_subsequence(want, got_items):
            problems.append(f"request {view['seq']}: 2.1.332 {want}, dsh {got_items}")
    assert not problems, "\n".join(problems)
