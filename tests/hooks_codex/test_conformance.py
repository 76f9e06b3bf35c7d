"""Replays every recorded Codex 0.171 case through the real loop and the Codex bridge.

Each case of the corpus (``tests.shared_paths.CONFORMANCE / "codex"``): the
recording hook registered on every Codex event in ``$CODEX_HOME/hooks.json``
(``matcher: "*"``), trust bypassed as the recording's
``--dangerously-bypass-hook-trust`` did (except ``no-trust-flag``, run without
it), ``record_hook.py`` answering as ``hook_answers`` says and the scripted
model playing the case's ``openai`` script. Then the event order, each
invocation's payload (field names; values that are not ids, paths or times),
its working directory and environment, and the hook-derived items of every
model request are compared with the recording. A case that cannot pass is in
``EXPECTED_DIFFERENCES`` with why (strict xfail), never skipped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.codex import CODEX_EVENT_SUPPORT
from dsh.hooks.codex.config._types import CodexPermissionMode
from dsh.hooks.codex.payloads import HOOK_INPUTS
from dsh.models import ScriptedModel
from tests.agent.support import make_harness
from tests.hook_payloads import payload_problems
from tests.hook_rig import corpus_params
from tests.hooks_claude._conformance_replay import recorded
from tests.hooks_codex._codex_differences import EXPECTED_DIFFERENCES, RECORDING_ENV
from tests.hooks_codex.codex_support import CodexRig, mount_codex, recording_hooks
from tests.shared_paths import CONFORMANCE, on_ci

CASES_DIR = CONFORMANCE / "codex"
SUPPORTED = {e for e, row in CODEX_EVENT_SUPPORT.items() if row.status != "not-supported"}

# Values that differ on every run (ids, paths, times) or name the model: compared by type.
VOLATILE = {"session_id", "turn_id", "tool_use_id", "agent_id", "transcript_path", "model"}
# The recorded `Output:` of Codex's exec tool is the command's; dsh's Bash frames it its own way.
_CODEX_EXEC = re.compile(r"^Chunk ID: \w+\nWall time: .*?\nOutput:\n", re.S)


def cases() -> list[Any]:
    return corpus_params(CASES_DIR, EXPECTED_DIFFERENCES)


def test_every_expected_difference_names_a_case() -> None:
    if not CASES_DIR.is_dir():
        assert not on_ci(), f"the Codex corpus is missing: {CASES_DIR}"
        pytest.skip("no corpus")
    names = {p.name for p in CASES_DIR.iterdir() if (p / "case.json").is_file()}
    assert set(EXPECTED_DIFFERENCES) <= names
    for reason in EXPECTED_DIFFERENCES.values():
        assert re.search(r"\(issue \d+\)$", reason), reason


class Places:
    """This replay's paths, written as the recording's placeholders."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = run_dir.resolve()
        self.project = self.run_dir / "project"
        self.home = self.run_dir / "home"

    def placeholders(self, value: Any) -> Any:
        text = json.dumps(value)
        for path, name in ((self.project, "${PROJECT_DIR}"), (self.home, "${HOME}")):
            text = text.replace(str(path), name)
        return json.loads(text)


def compare_payload(
    event: str, got: dict[str, Any], want: dict[str, Any], problems: list[str]
) -> None:
    if set(got) != set(want):
        problems.append(
            f"{event} fields: dsh lacks {sorted(set(want) - set(got))},"
            f" adds {sorted(set(got) - set(want))}"
        )
    for key, value in want.items():
        if key not in got:
            continue
        mine = got[key]
        if key == "tool_response" and isinstance(value, str) and isinstance(mine, str):
            # dsh's Bash tool trims the output's final newline (CONFIG_LIMITS says so).
            mine, value = mine.rstrip("\n"), value.rstrip("\n")
        if key in VOLATILE and value is not None and mine is not None:
            mine, value = type(mine).__name__, type(value).__name__
        if mine != value:
            problems.append(f"{event}.{key}: Codex {value!r}, dsh {mine!r}")


def tool_text(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content)


def hook_items(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The hook-relevant items of one of our requests, in the recording's vocabulary."""
    items: list[dict[str, Any]] = []
    for m in request["messages"]:
        if m["role"] == "tool":
            items.append({"role": "tool", "output": tool_text(m)})
        elif m["role"] == "context":
            items.append({"role": "developer", "text": m["text"]})
        elif m["role"] == "steering":
            items.append({"role": "user", "text": m["text"]})
    return items


def matches(want: dict[str, Any], got: dict[str, Any]) -> bool:
    if want["role"] != got["role"]:
        return False
    if want["role"] != "tool":
        return bool(want["text"] == got["text"])
    expected = want["output"]
    framed = _CODEX_EXEC.match(expected)
    if framed is None:
        return bool(expected == got["output"])
    # The command's own output, as dsh's Bash shows it (dsh adds its exit-code line).
    return expected[framed.end() :].strip() in got["output"]


def is_subsequence(needles: list[dict[str, Any]], haystack: list[dict[str, Any]]) -> bool:
    it = iter(haystack)
    return all(any(matches(n, h) for h in it) for n in needles)


def compare_requests(
    case: dict[str, Any], rig: CodexRig, places: Places, problems: list[str]
) -> None:
    requests = [r for r in rig.requests() if r.get("tools")]  # a compaction request offers none
    views = expected_views(case)
    if len(requests) != len(views):
        problems.append(f"model requests: Codex {len(views)}, dsh {len(requests)}")
    previous: list[dict[str, Any]] = []
    for request, view in zip(requests, views, strict=False):
        recorded_items = [i for i in view["hook_relevant"] if not is_compaction_summary(i)]
        want = dsh_order(recorded_items, previous)
        previous = recorded_items
        got = places.placeholders(hook_items(request))
        if not is_subsequence(want, got):
            problems.append(f"request {view['seq']}: Codex {want}, dsh {got}")


def expected_views(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded requests, without the one whose reply Codex threw away to compact: Codex
    compacts when a reply's reported usage is over its limit and asks again from the summary;
    dsh compacts before the request, by its own estimate, so it never sends that request."""
    views: list[dict[str, Any]] = case["model_view"]
    for n, view in enumerate(views):
        if n > 0 and any(is_compaction_summary(i) for i in view["hook_relevant"]):
            return [*views[: n - 1], *views[n:]]
    return views


def dsh_order(items: list[dict[str, Any]], previous: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The recorded items with the one documented difference applied: Codex puts a step's
    PostToolUse context (new in this request) before the tool output, dsh after the step's
    tool results."""
    out = list(items)
    i = 0
    while i < len(out) - 1:
        fresh = out[i] not in previous
        if fresh and out[i]["role"] == "developer" and out[i + 1]["role"] == "tool":
            j = i + 1
            while j < len(out) and out[j]["role"] == "tool":
                j += 1
            out[i:j] = [*out[i + 1 : j], out[i]]
            i = j
        else:
            i += 1
    return out


def is_compaction_summary(item: dict[str, Any]) -> bool:
    # Codex's own framing of a compaction summary: no hook's doing.
    return item["role"] == "user" and str(item["text"]).startswith(CODEX_SUMMARY_LEAD)


def compare_invocations(case_dir: Path, rig: CodexRig, places: Places, problems: list[str]) -> None:
    theirs = [e for e in recorded(case_dir) if e["event"] in SUPPORTED]
    ours = rig.entries()
    if [e["event"] for e in ours] != [e["event"] for e in theirs]:
        problems.append(
            f"order: Codex {[e['event'] for e in theirs]}, dsh {[e['event'] for e in ours]}"
        )
        return
    for mine, entry in zip(ours, theirs, strict=True):
        event = mine["event"]
        compare_payload(event, places.placeholders(mine["payload"]), entry["payload"], problems)
        problems.extend(payload_problems(mine["payload"], HOOK_INPUTS))
        if places.placeholders(mine["cwd"]) != entry["cwd"]:
            problems.append(f"{event} cwd: Codex {entry['cwd']}, dsh {mine['cwd']}")
        want = {k for k in entry["env"] if k not in RECORDING_ENV}
        if set(mine["env"]) != want:
            problems.append(f"{event} environment: Codex {sorted(want)}, dsh {sorted(mine['env'])}")
        elif places.placeholders(mine["env"]).get("CODEX_HOME") != entry["env"].get("CODEX_HOME"):
            problems.append(f"{event} CODEX_HOME: Codex {entry['env'].get('CODEX_HOME')}")
        if mine["stdin_style"] and mine["stdin_style"]["trailing_newline"]:
            problems.append(f"{event} stdin ends with a newline (Codex writes none)")


# The start of Codex's framing of a compaction summary, which a script's rule keys on.
CODEX_SUMMARY_LEAD = "Another language model started"


def adapted_script(case: dict[str, Any]) -> dict[str, Any]:
    """The case's script for dsh: a rule keyed on Codex's summary framing keys on the summary
    itself (what dsh's request after a compaction carries)."""
    script: dict[str, Any] = json.loads(json.dumps(case["model_script"]))
    rules = script["openai"]["rules"]
    summary = next(
        (r["responses"][0][0]["text"] for r in rules if r.get("no_tools") and r["responses"]), None
    )
    for rule in rules:
        if rule.get("contains") == CODEX_SUMMARY_LEAD and summary is not None:
            rule["contains"] = summary
    return script


def mount(case: dict[str, Any], places: Places, monkeypatch: pytest.MonkeyPatch) -> CodexRig:
    script = adapted_script(case)
    harness = make_harness(places.run_dir, script)
    harness.model = ScriptedModel(script, record_to=harness.record)
    places.home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(places.home))
    modes = [e["payload"].get("permission_mode") for e in recorded(CASES_DIR / case["case"])]
    mode: CodexPermissionMode = "default" if "default" in modes else "bypassPermissions"
    return mount_codex(
        places.run_dir,
        monkeypatch,
        harness,
        recording_hooks(),
        case.get("hook_answers"),
        bypass_trust=case["case"] != "no-trust-flag",
        permission_mode=mode,
    )


async def replay(case: dict[str, Any], rig: CodexRig) -> None:
    """The prompt, then each follow-up as ``codex exec resume --last`` runs it."""
    harness = rig.harness
    compacts = case["case"] == "auto-compact"
    # Over budget after the first tool result, under it again after the summary (in chars).
    options: dict[str, Any] = {"compact_budget": 40} if compacts else {}
    agent = harness.agent(**options)
    agent.send(case["prompt"])
    await agent.run_turn()
    await agent.close("other")
    for prompt in case["then"] or []:
        session = agent.session
        session.close()
        agent = harness.agent(session=harness.store.open(session.id))
        agent.send(prompt)
        await agent.run_turn()
        await agent.close("other")


@pytest.mark.parametrize("case_dir", cases())
async def test_case(case_dir: Path | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if case_dir is None:
        assert not on_ci(), f"the Codex corpus is missing: {CASES_DIR}"
        pytest.skip("no corpus")
    case = json.loads((case_dir / "case.json").read_text())
    unknown = sorted({e for e in case["hook_order"] if e not in CODEX_EVENT_SUPPORT})
    assert not unknown, f"events missing from CODEX_EVENT_SUPPORT: {unknown}"
    places = Places(tmp_path)
    rig = mount(case, places, monkeypatch)
    assert not [d for d in rig.diagnostics if "not trusted" not in d], rig.diagnostics
    await replay(case, rig)
    problems: list[str] = []
    compare_invocations(case_dir, rig, places, problems)
    compare_requests(case, rig, places, problems)
    assert not problems, "\n".join(problems)
