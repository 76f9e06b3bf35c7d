"""Replays every recorded Codex 0.171 case through the real loop and the Codex bridge, strictly.

Each case of the corpus (``tests.shared_paths.CONFORMANCE / "codex"``): the
recording hook registered on every Codex event in ``$CODEX_HOME/hooks.json``
(``matcher: "*"``), trust bypassed as the recording's
``--dangerously-bypass-hook-trust`` did (except ``no-trust-flag``, run without
it), ``record_hook.py`` answering as ``hook_answers`` says and the scripted
model playing the case's ``openai`` script under the recording's model name
(``mock-model``) and reporting the usage the recording's server reported. Then
compared with the recording, strictly: the events and their order; every payload
field exactly, except ids (compared by their shape: Codex's UUIDs, the model's
call ids), paths (the recording's placeholders) and times; each hook's working
directory and environment; the number of model requests and, in each, every
hook-derived item (tool outputs, developer context, user feedback) in its order
and exactly, Codex's exec framing included (its chunk id and wall time excepted).
A case that cannot pass is in ``EXPECTED_DIFFERENCES`` with why (strict xfail),
never skipped.
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
from dsh.messages import AssistantMessage
from dsh.models import ModelRequest, ScriptedModel, TextCallback
from dsh.models._anthropic_body import ThinkingStore
from dsh.models._responses import responses_body
from tests.agent.support import make_harness
from tests.hook_payloads import payload_problems
from tests.hook_rig import corpus_params
from tests.hooks_claude._conformance_replay import recorded
from tests.hooks_codex._codex_differences import EXPECTED_DIFFERENCES, RECORDING_ENV
from tests.hooks_codex.codex_support import CodexRig, mount_codex, recording_hooks
from tests.shared_paths import CONFORMANCE, on_ci

CASES_DIR = CONFORMANCE / "codex"
SUPPORTED = {e for e, row in CODEX_EVENT_SUPPORT.items() if row.status != "not-supported"}

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# Ids differ on every run: compared by shape (Codex's are UUIDs; a call id is the model's).
ID_SHAPES = {
    "session_id": _UUID,
    "turn_id": _UUID,
    "agent_id": _UUID,
    "tool_use_id": re.compile(r"^call_\w+$"),
}
# The model the recording's config.toml named.
RECORDED_MODEL = "mock-model"
# What differs on every run inside a path or an exec output: ids and times.
_VOLATILE_TEXT = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<id>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"), "<time>"),
    (re.compile(r"\d{4}/\d{2}/\d{2}"), "<date>"),
    (re.compile(r"^Chunk ID: [0-9a-f]+$", re.M), "Chunk ID: <id>"),
    (re.compile(r"^Wall time: \d+\.\d{4} seconds$", re.M), "Wall time: <time>"),
)


def without_volatile(text: str) -> str:
    for pattern, name in _VOLATILE_TEXT:
        text = pattern.sub(name, text)
    return text


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
    if list(got) != list(want):
        problems.append(f"{event} fields: Codex {list(want)}, dsh {list(got)}")
    for key, value in want.items():
        if key not in got:
            continue
        mine = got[key]
        shape = ID_SHAPES.get(key)
        if shape is not None and isinstance(mine, str) and isinstance(value, str):
            if not shape.match(mine):
                problems.append(f"{event}.{key}: Codex's shape {value!r}, dsh {mine!r}")
            continue
        if key == "transcript_path" and isinstance(mine, str) and isinstance(value, str):
            # A path (dsh's own session log, Codex's rollout): the session's, absolute, JSONL.
            if not (is_session_file(mine, got["session_id"]) and value.endswith(".jsonl")):
                problems.append(f"{event}.{key}: Codex {value!r}, dsh {mine!r}")
            continue
        if mine != value:
            problems.append(f"{event}.{key}: Codex {value!r}, dsh {mine!r}")


def is_session_file(path: str, session_id: Any) -> bool:
    return Path(path).is_absolute() and path.endswith(f"{session_id}.jsonl")


def wire_items(body: dict[str, Any], prompts: list[str]) -> list[dict[str, Any]]:
    """The hook-relevant items of one Responses body dsh sent, in the recording's vocabulary:
    tool outputs, developer messages, user messages but the prompts (and a compaction
    request's last, which asks for the summary: vendor text, which the recording leaves out)."""
    items: list[dict[str, Any]] = []
    inputs = body["input"] if body["tools"] else body["input"][:-1]
    for item in inputs:
        if item["type"] == "function_call_output":
            items.append({"role": "tool", "output": item["output"]})
        elif item["type"] == "message" and item["role"] in ("developer", "user"):
            text = "".join(part.get("text", "") for part in item["content"])
            if item["role"] == "developer" or text not in prompts:
                items.append({"role": item["role"], "text": text})
    return items


def exact(item: dict[str, Any]) -> dict[str, Any]:
    """An item as compared: a tool output without its chunk id and wall time."""
    if item["role"] == "tool":
        return {"role": "tool", "output": without_volatile(item["output"])}
    return item


def compare_requests(
    case: dict[str, Any], model: RecordedModel, places: Places, problems: list[str]
) -> None:
    bodies = model.bodies
    views = case["model_view"]
    if len(bodies) != len(views):
        problems.append(f"model requests: Codex {len(views)}, dsh {len(bodies)}")
    prompts = [case["prompt"], *(case["then"] or [])]
    for body, view in zip(bodies, views, strict=False):
        want = [exact(i) for i in view["hook_relevant"]]
        got = [exact(i) for i in places.placeholders(wire_items(body, prompts))]
        if got != want:
            problems.append(f"request {view['seq']}: Codex {want}, dsh {got}")


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


EXEC = "exec_command"
# The start of Codex's framing of a compaction summary, which a script's rule keys on.
CODEX_SUMMARY_LEAD = "Another language model started"


def adapted_script(case: dict[str, Any]) -> dict[str, Any]:
    """The case's script for dsh: a rule keyed on Codex's summary framing keys on the summary
    itself (what dsh's request after a compaction carries); ``auto_shell`` is the call of
    ``exec_command`` the recording's server made of it (dsh offers ``Bash`` beside it)."""
    script: dict[str, Any] = json.loads(json.dumps(case["model_script"]))
    rules = script["openai"]["rules"]
    for rule in rules:
        for reply in rule["responses"]:
            for n, block in enumerate(reply):
                if block["type"] == "auto_shell":
                    arguments = {"cmd": block["command"]}
                    reply[n] = {"type": "function_call", "name": EXEC, "arguments": arguments}
    summary = next(
        (r["responses"][0][0]["text"] for r in rules if r.get("no_tools") and r["responses"]), None
    )
    for rule in rules:
        if rule.get("contains") == CODEX_SUMMARY_LEAD and summary is not None:
            rule["contains"] = summary
    return script


class RecordedModel:
    """The case's scripted model, named as the recording's ``config.toml`` named it, keeping
    each request as the Responses wire (Codex's) sends it."""

    def __init__(self, script: dict[str, Any], record: Path) -> None:
        self._scripted = ScriptedModel(script, record_to=record, name=RECORDED_MODEL)
        self.bodies: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self._scripted.name

    async def complete(
        self, request: ModelRequest, *, on_text: TextCallback | None = None
    ) -> AssistantMessage:
        self.bodies.append(responses_body(self.name, request, ThinkingStore()))
        return await self._scripted.complete(request, on_text=on_text)


# The recording's server: every reply reports 100 input and 10 output tokens; in
# `auto-compact`, a request offering tools reports a million, over the configured limit.
RECORDED_USAGE = {"type": "usage", "input_tokens": 100, "output_tokens": 10}
BIG_USAGE = {**RECORDED_USAGE, "input_tokens": 10**6}
AUTO_COMPACT_CONFIG = "model_auto_compact_token_limit = 200000\n"


def with_usage(script: dict[str, Any], big: bool) -> None:
    """Each reply of ``script`` reports the usage the recording's server reported."""
    for rule in script["openai"]["rules"]:
        usage = BIG_USAGE if big and not rule.get("no_tools") else RECORDED_USAGE
        for reply in rule["responses"]:
            reply.append(usage)


def mount(
    case: dict[str, Any], places: Places, monkeypatch: pytest.MonkeyPatch
) -> tuple[CodexRig, RecordedModel]:
    script = adapted_script(case)
    compacts = case["case"] == "auto-compact"
    with_usage(script, compacts)
    harness = make_harness(places.run_dir, script)
    model = RecordedModel(script, harness.record)
    places.home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(places.home))
    modes = [e["payload"].get("permission_mode") for e in recorded(CASES_DIR / case["case"])]
    mode: CodexPermissionMode = "default" if "default" in modes else "bypassPermissions"
    rig = mount_codex(
        places.run_dir,
        monkeypatch,
        harness,
        recording_hooks(),
        case.get("hook_answers"),
        bypass_trust=case["case"] != "no-trust-flag",
        permission_mode=mode,
        config_toml=AUTO_COMPACT_CONFIG if compacts else None,
    )
    return rig, model


async def replay(case: dict[str, Any], rig: CodexRig, model: RecordedModel) -> None:
    """The prompt, then each follow-up as ``codex exec resume --last`` runs it."""
    harness = rig.harness
    agent = harness.agent(model=model)
    agent.send(case["prompt"])
    await agent.run_turn()
    await agent.close("other")
    for prompt in case["then"] or []:
        session = agent.session
        session.close()
        agent = harness.agent(session=harness.store.open(session.id), model=model)
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
    rig, model = mount(case, places, monkeypatch)
    assert not [d for d in rig.diagnostics if "not trusted" not in d], rig.diagnostics
    await replay(case, rig, model)
    problems: list[str] = []
    compare_invocations(case_dir, rig, places, problems)
    compare_requests(case, model, places, problems)
    assert not problems, "\n".join(problems)
