"""Replays every recorded Claude Code 2.1.332 case through the real loop and the bridge, strictly.

Each case of the corpus (``tests.shared_paths.CONFORMANCE / "claude"``, its README is the
format): the case's ``files`` are written, its ``cli_env`` set, the handlers of its
``hook_settings`` registered as recorded (matcher, ``if``, ``async``/``asyncRewake``, the
command around ``record_hook.py``), ``record_hook.py`` answers as ``hook_answers`` says and the
scripted model plays ``model_script``, as a user who trusted the project (every CLAUDE.md
loads). Then compared with the recording, modulo ids, paths and times/durations only
(``_conformance_text``): every event and its order (among the orders the real tool produced,
``SWAPPABLE``/``FLOATING``), every field of every payload (``tool_response`` included), each
invocation's working directory, environment and stdin layout, and what every model request
showed: all its tool results exactly, and each recorded hook text whole, in one message as
recorded (consecutive context messages are one system message, as the Anthropic wire folds
them). A case that cannot pass is listed in ``_conformance_differences`` with why (strict
xfail), never skipped. The corpus is found as ``tests.shared_paths`` finds it; under
``CI=true`` a missing corpus fails.
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
    PENDING,
    PENDING_CX,
)
from ._conformance_replay import (
    CASES_DIR,
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
# Every case that may not pass, with why.
NOT_YET = {**EXPECTED_DIFFERENCES, **PENDING_CX, **PENDING}


def require_corpus(cases_dir: Path, *, ci: bool) -> None:
    """A missing corpus fails the run under CI (``CI=true``), and is a skip elsewhere."""
    if cases_dir.is_dir():
        return
    if ci:
        pytest.fail(f"the conformance corpus is missing: {cases_dir} (CI=true must have it)")
    pytest.skip(f"the conformance corpus is not present at {cases_dir}")


def cases() -> list[Any]:
    return corpus_params(CASES_DIR, NOT_YET)


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
    assert set(NOT_YET) <= names
    assert len(NOT_YET) == len(EXPECTED_DIFFERENCES) + len(PENDING_CX) + len(PENDING)
    for reason in PENDING_CX.values():
        assert reason.endswith("(strict28cx, issue 28)"), reason
    for reason in PENDING.values():
        assert reason.endswith("(issue 28)"), reason
    tables = [EXPECTED_DIFFERENCES, EXPECTED_ENV_DIFFERENCES, EXPECTED_STYLE_DIFFERENCES]
    for reason in (r for table in tables for r in table.values()):
        assert re.search(r"\(issue 1[347]\)$", reason), reason
    # The shared differences too: each is seen in the corpus, or its entry is stale.
    entries = [e for name in names for e in recorded(CASES_DIR / name)]
    assert set(EXPECTED_ENV_DIFFERENCES) <= {k for e in entries for k in e["env"]}


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


def compare_payload(
    event: str, got: dict[str, Any], expected: dict[str, Any], problems: list[str]
) -> None:
    """Every field, its value modulo ids, paths and times (``_conformance_text``)."""
    want = set(expected)
    if set(got) != want:
        problems.append(
            f"{event} fields: dsh lacks {sorted(want - set(got))}, adds {sorted(set(got) - want)}"
        )
    mine_all, theirs_all = comparable(got), comparable(expected)
    for key in sorted(want & set(got)):
        if mine_all[key] != theirs_all[key]:
            problems.append(f"{event}.{key}: 2.1.332 {theirs_all[key]!r}, dsh {mine_all[key]!r}")


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


def our_items(request: dict[str, Any], back: dict[str, str]) -> list[dict[str, Any]]:
    """One of our requests, one item a message, in the recording's vocabulary: each tool
    result (its content and ``is_error``), each user or steering message's text, and the
    context messages as the Anthropic wire sends them (``dsh.models._anthropic_body``):
    consecutive ones one system text, joined by a blank line, as 2.1.332 folds them."""
    items: list[dict[str, Any]] = []
    folding = False  # the last message was a context message
    for m in request["messages"]:
        if m["role"] == "context" and folding:
            text = with_recorded_commands(m["text"], back)
            items[-1] = {"role": "system", "text": f"{items[-1]['text']}\n\n{text}"}
        elif m["role"] == "tool":
            content = m["content"]
            if isinstance(content, str):
                content = with_recorded_commands(content, back)
            items.append({"tool_result": content, "is_error": m["is_error"]})
        elif m["role"] in ("context", "steering", "user"):
            role = "system" if m["role"] == "context" else "user"
            for body in texts_of(m["text"] if "text" in m else m["content"]):
                items.append({"role": role, "text": with_recorded_commands(body, back)})
        folding = m["role"] == "context"
    return items


def texts_of(content: Any) -> list[str]:
    """A message's texts: a string, or each of its text blocks (the recording's ``text``
    item is one block: an expanded command's prompt is two)."""
    if isinstance(content, str):
        return [content]
    return [b["text"] for b in content if b.get("type") == "text"]


def matches(want: dict[str, Any], got: dict[str, Any]) -> bool:
    """Whether our message ``got`` is the recorded item ``want``: a tool result or a text
    exactly; recorded hook lines (the hook lines of one system message, which also holds
    Claude Code's own text, the recording's blank lines left out) all in one message of the
    same role, in order."""
    if "tool_result" in want or "text" in want:
        return want == got
    if got.get("role") != want["role"]:
        return False
    lines = iter(got["text"].split("\n"))
    return all(any(line == hook for line in lines) for hook in want["hook_lines"])


def is_matched_in_order(wanted: list[dict[str, Any]], got: list[dict[str, Any]]) -> bool:
    it = iter(got)
    return all(any(matches(w, g) for g in it) for w in wanted)


def recorded_items(view: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in view["hook_relevant"]:
        if "tool_result" in item:
            out.append({"tool_result": item["tool_result"], "is_error": item["is_error"]})
        elif "text" in item:
            out.append({"role": item["role"], "text": item["text"]})
        else:
            out.append({"role": item["role"], "hook_lines": item["hook_lines"]})
    return out


def compare_invocations(
    case_dir: Path, rig: Rig, places: Places, back: dict[str, str], problems: list[str]
) -> None:
    """The order of every recorded event; then each invocation's payload, working directory,
    environment and stdin layout."""
    theirs_all = recorded(case_dir)
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
    """What the model saw: as many requests; in each, the same tool results exactly, and
    each recorded hook text whole, in its own message, in the recorded order."""
    requests, views = rig.requests(), expected_views(case)
    if len(requests) != len(views):
        problems.append(f"model requests: 2.1.332 {len(views)}, dsh {len(requests)}")
    for request, view in zip(requests, views, strict=False):  # counted above
        want = comparable(recorded_items(view))
        got = comparable(places.placeholders(our_items(request, back)))
        results = [g for g in got if "tool_result" in g]
        if results != [w for w in want if "tool_result" in w]:
            problems.append(f"request {view['seq']} tool results: 2.1.332 {want}, dsh {results}")
        elif not is_matched_in_order(want, got):
            problems.append(f"request {view['seq']}: 2.1.332 {want}, dsh {got}")


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
