"""Replays every recorded Claude Code 2.1.332 case through the real loop and the bridge.

Each case of the corpus (``tests.shared_paths.CONFORMANCE / "claude"``, its README is the
format): the case's ``files`` are written, its ``cli_env`` set, the handlers of its
``hook_settings`` registered as recorded (matcher, ``if``, ``async``/``asyncRewake``, the
command around ``record_hook.py``) for the events the bridge supports, ``record_hook.py``
answers as ``hook_answers`` says and the scripted model plays ``model_script``. Then the event
order (restricted to supported events, the README's varying orders accepted), each
invocation's payload (field names, the values that are not ids, paths or times), its working
directory and environment, and the hook-derived items of every model request are compared
with the recording, as is the stdin's layout. A case that cannot pass is listed in
``EXPECTED_DIFFERENCES`` (``_conformance_differences``) with why (strict xfail), never skipped;
a difference every case shares (an environment variable, a payload value, the stdin layout) is
listed once in that module's other tables, checked as strictly. The corpus is found as
``tests.shared_paths`` finds it; under ``CI=true`` a missing corpus fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import HOOK_EVENT_HOST_SUPPORT
from dsh.hooks.claude.payloads import HOOK_INPUTS
from tests.hook_payloads import payload_problems
from tests.hook_rig import corpus_params
from tests.hooks_claude.bridge_support import Rig
from tests.shared_paths import on_ci

from ._conformance_differences import (
    EXPECTED_DIFFERENCES,
    EXPECTED_ENV_DIFFERENCES,
    EXPECTED_STYLE_DIFFERENCES,
    EXPECTED_TEXT_DIFFERENCES,
    EXPECTED_VALUE_DIFFERENCES,
)
from ._conformance_replay import (
    CASES_DIR,
    SUPPORTED,
    Places,
    expected_views,
    mount,
    needs,
    recorded,
    replay,
)
from ._conformance_text import comparable

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
    # The recording's is the mock server's usage report (120); dsh logs no usage and sends
    # an estimate from the resumed log (tests/hooks_claude/test_resume.py checks it).
    "context_tokens",
    "estimated_cache_write_usd",
    "model",
    "compact_summary",
}
# The compaction's SubagentStop (`agent_type: ""`) reports the summarization answer, which,
# like `compact_summary`, is what the replay's adapted script answers dsh's compaction request
# (`compact-bad-summary` answers by reply count); tests/hooks_claude/test_bridge_seams.py
# checks the value.
COMPACTION_ANSWER = ("last_assistant_message", "")
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


def require_corpus(cases_dir: Path, *, ci: bool) -> None:
    """A missing corpus fails the run under CI (``CI=true``), and is a skip elsewhere."""
    if cases_dir.is_dir():
        return
    if ci:
        pytest.fail(f"the conformance corpus is missing: {cases_dir} (CI=true must have it)")
    pytest.skip(f"the conformance corpus is not present at {cases_dir}")


def cases() -> list[Any]:
    return corpus_params(CASES_DIR, EXPECTED_DIFFERENCES)


def test_a_missing_corpus_fails_under_ci_and_is_skipped_elsewhere(tmp_path: Path) -> None:
    require_corpus(tmp_path, ci=True)
    with pytest.raises(pytest.fail.Exception, match="corpus is missing"):
        require_corpus(tmp_path / "absent", ci=True)
    with pytest.raises(pytest.skip.Exception, match="not present"):
        require_corpus(tmp_path / "absent", ci=False)


def test_every_expected_difference_names_a_case() -> None:
    require_corpus(CASES_DIR, ci=on_ci())
    names = {p.name for p in CASES_DIR.iterdir() if (p / "case.json").is_file()}
    assert names
    assert set(EXPECTED_DIFFERENCES) <= names
    tables = [EXPECTED_DIFFERENCES, EXPECTED_ENV_DIFFERENCES, EXPECTED_VALUE_DIFFERENCES]
    tables += [EXPECTED_STYLE_DIFFERENCES, EXPECTED_TEXT_DIFFERENCES]
    for reason in (r for table in tables for r in table.values()):
        assert re.search(r"\(issue 1[347]\)$", reason), reason
    # The shared differences too: each is seen in the corpus, or its entry is stale.
    entries = [e for name in names for e in recorded(CASES_DIR / name)]
    assert set(EXPECTED_ENV_DIFFERENCES) <= {k for e in entries for k in e["env"]}
    assert set(EXPECTED_VALUE_DIFFERENCES) <= {k for e in entries for k in e["payload"] or {}}
    texts = json.dumps([e["payload"] for e in entries])
    assert all(f"{part}" in texts for part in EXPECTED_TEXT_DIFFERENCES)


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
    want = set(expected)
    if set(got) != want:
        problems.append(
            f"{event} fields: dsh lacks {sorted(want - set(got))}, adds {sorted(set(got) - want)}"
        )
    for key, value in expected.items():
        if key in TOOL_OUTPUT or key not in got:
            continue
        mine = got[key]
        if key in VOLATILE or (key, expected.get("agent_type")) == COMPACTION_ANSWER:
            mine, value = shape(mine), shape(value)
        elif key in EXPECTED_VALUE_DIFFERENCES:
            # Strict: once dsh sends the recorded value, the entry must go.
            if mine == value:
                problems.append(f"{event}.{key} now as recorded: drop its expected difference")
            continue
        elif key == "tool_calls":
            mine, value = without_ids(mine), without_ids(value)
        elif key == "background_tasks":
            mine, value = [shaped_id(t) for t in mine], [shaped_id(t) for t in value]
        mine, value = comparable(mine, recorded=False), comparable(value, recorded=True)
        if mine != value:
            problems.append(f"{event}.{key}: 2.1.332 {value!r}, dsh {mine!r}")


def shaped_id(task: dict[str, Any]) -> dict[str, Any]:
    """A ``background_tasks`` entry with its id (the agent's, new each run) as its type."""
    return {**task, "id": shape(task.get("id"))}


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


def with_recorded_commands(text: str, back: dict[str, str]) -> str:
    for ours, theirs in back.items():
        text = text.replace(ours, theirs)
    return text


def compare_style(
    event: str, got: dict[str, Any], expected: dict[str, Any], problems: list[str]
) -> None:
    """How the stdin JSON was laid out (not its length, which ids and paths change)."""
    for key in ("separators", "non_ascii", "trailing_newline"):
        if key in EXPECTED_STYLE_DIFFERENCES:
            if got[key] == expected[key]:
                problems.append(f"{event} stdin {key} now as recorded: drop its difference")
        elif got[key] != expected[key]:
            problems.append(f"{event} stdin {key}: 2.1.332 {expected[key]!r}, dsh {got[key]!r}")


def compare_transcript_layout(entries: list[dict[str, Any]], problems: list[str]) -> None:
    """``json-spacing``: 2.1.332 writes each transcript line as compact JSON, UTF-8 raw."""
    paths = {e["payload"]["transcript_path"] for e in entries if e["payload"]}
    for path in sorted(paths):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            compact = json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False)
            if line != compact:
                problems.append(f"transcript line not compact JSON: {line[:120]}")
                return


def hook_items(request: dict[str, Any], back: dict[str, str]) -> list[dict[str, Any]]:
    """The hook-relevant items of one of our requests, in the recording's vocabulary."""
    items: list[dict[str, Any]] = []
    for m in request["messages"]:
        if m["role"] == "tool":
            content = m["content"]
            if isinstance(content, list) and len(content) == 1 and content[0]["type"] == "text":
                content = content[0]["text"]
            if isinstance(content, str):
                content = with_recorded_commands(content, back)
            items.append({"tool_result": content, "is_error": m["is_error"]})
        elif m["role"] in ("context", "steering", "user"):
            # A prompt is user text too (an expanded command's, with its shell output).
            text = m["text"] if "text" in m else content_lines(m["content"])
            text = with_recorded_commands(text, back)
            kind = "steering" if m["role"] == "user" else m["role"]
            items.extend({"line": line, "as": kind} for line in text.split("\n") if line)
    return items


def content_lines(content: Any) -> str:
    """A recorded message's content as text: a string, or its text blocks' texts."""
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


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


AS_DSH = {"system": "context", "user": "steering"}


def expected_items(view: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for item in view["hook_relevant"]:
        if "tool_result" in item:
            result = expected_result(item["tool_result"])
            items.append({"tool_result": result, "is_error": item["is_error"]})
        else:
            # What Claude Code sends as system text is dsh's context; as user text, steering.
            kind = AS_DSH[item["role"]]
            lines = item.get("hook_lines")
            if lines is None:
                lines = re.sub(r"</?system-reminder>", "", item["text"]).split("\n")
            items.extend({"line": line, "as": kind} for line in lines if line)
    return items


def is_subsequence(needles: list[Any], haystack: list[Any]) -> bool:
    it = iter(haystack)
    return all(any(n == h for h in it) for n in needles)


def compare_invocations(
    case_dir: Path, rig: Rig, places: Places, back: dict[str, str], problems: list[str]
) -> None:
    """The event order, restricted to the events the bridge supports; then each invocation's
    payload, working directory, environment and stdin layout."""
    theirs_all = [e for e in recorded(case_dir) if e["event"] in SUPPORTED]
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
        for mine, entry in zip(ours, theirs, strict=True):
            event = mine["event"]
            payload = json.loads(with_recorded_commands(json.dumps(mine["payload"]), back))
            compare_payload(event, places.placeholders(payload), entry["payload"], problems)
            problems.extend(payload_problems(mine["payload"], HOOK_INPUTS))
            if places.placeholders(mine["cwd"]) != entry["cwd"]:
                problems.append(f"{event} cwd: 2.1.332 {entry['cwd']}, dsh {mine['cwd']}")
            compare_env(event, mine["env"], entry["env"], problems)
            compare_style(event, mine["stdin_style"], entry["stdin_style"], problems)
    if "transcript_raw" in json.loads((case_dir / "case.json").read_text()):
        compare_transcript_layout(ours_all, problems)


def compare_requests(
    case: dict[str, Any], rig: Rig, places: Places, back: dict[str, str], problems: list[str]
) -> None:
    """What the model saw: as many requests, each with the recorded hook effects in order."""
    requests, views = rig.requests(), expected_views(case)
    if len(requests) != len(views):
        problems.append(f"model requests: 2.1.332 {len(views)}, dsh {len(requests)}")
    for request, view in zip(requests, views, strict=False):  # counted above
        want = comparable(expected_items(view), recorded=True)
        got_items = comparable(places.placeholders(hook_items(request, back)), recorded=False)
        if not is_subsequence(want, got_items):
            problems.append(f"request {view['seq']}: 2.1.332 {want}, dsh {got_items}")


@pytest.mark.parametrize("case_dir", cases())
async def test_case(case_dir: Path | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require_corpus(CASES_DIR, ci=on_ci())
    assert case_dir is not None
    case = json.loads((case_dir / "case.json").read_text())
    unknown = sorted({e for e in case["hook_order"] if e not in HOOK_EVENT_HOST_SUPPORT})
    assert not unknown, f"events missing from HOOK_EVENT_HOST_SUPPORT: {unknown}"
    missing = needs(case)
    assert not missing, f"needs what dsh has no equivalent for yet: {'; '.join(missing)}"
    places = Places(tmp_path)
    rig, back = mount(case, places, monkeypatch)
    await replay(case, rig, places)
    problems: list[str] = []
    compare_invocations(case_dir, rig, places, back, problems)
    compare_requests(case, rig, places, back, problems)
    assert not problems, "\n".join(problems)
