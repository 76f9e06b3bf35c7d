"""Codex's PreModelRequest and PostModelRequest through the real loop, with real hook processes.

What the 0.171 binary showed (codex-facts, tests/hooks_codex/fixtures/codex-model-request):
both fire around every model request, matcher ignored, with these payloads; their output
changes nothing; a non-zero exit is a failed run and the request goes on.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dsh.agent import Agent
from dsh.session import AssistantMessageEvent, NoticeEvent, TurnEndReason
from tests.agent.support import bash, http_error, replies, text
from tests.hooks_codex.codex_support import make_codex_rig

USAGE = {"type": "usage", "input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 5}
SCRIPT = replies([bash("echo hi"), USAGE], [text("done")])
PAIR = ["PreModelRequest", "PostModelRequest"]
PRE_KEYS = [
    "kind",
    "request_id",
    "attempt_number",
    "session_id",
    "thread_id",
    "turn_id",
    "cwd",
    "transcript_path",
    "model",
    "hook_event_name",
]
POST_KEYS = [*PRE_KEYS, "status", "error", "token_usage", "response_id"]


def notices(agent: Agent) -> list[str]:
    return [e.text for e in agent.events if isinstance(e, NoticeEvent)]


async def test_both_fire_around_every_model_call_with_codex_payloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rig = make_codex_rig(tmp_path, monkeypatch, SCRIPT, [*PAIR, "PreToolUse"])
    agent, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == [*PAIR, "PreToolUse", *PAIR]
    pre, post = rig.payloads("PreModelRequest"), rig.payloads("PostModelRequest")
    assert [list(p) for p in pre] == [PRE_KEYS, PRE_KEYS]
    assert [list(p) for p in post] == [POST_KEYS, POST_KEYS]
    assert [p["request_id"] for p in pre] == [p["request_id"] for p in post]
    assert pre[0]["request_id"] != pre[1]["request_id"]
    tool_turn = rig.payloads("PreToolUse")[0]["turn_id"]
    for payload in (*pre, *post):
        assert payload["kind"] == "sampling"
        assert payload["attempt_number"] == 1
        assert payload["session_id"] == payload["thread_id"] == agent.session_id
        assert payload["turn_id"] == tool_turn
        assert payload["model"] == agent.model.name
        assert payload["cwd"] == str(agent.workspace.cwd)
    replies_logged = [e.id for e in agent.events if isinstance(e, AssistantMessageEvent)]
    assert [p["response_id"] for p in post] == replies_logged
    assert [p["status"] for p in post] == ["completed", "completed"]
    assert post[0]["error"] is None
    assert post[0]["token_usage"] == {
        "input_tokens": 12,
        "cached_input_tokens": 5,
        "cache_write_input_tokens": 0,
        "output_tokens": 3,
        "reasoning_output_tokens": 0,
        "total_tokens": 15,
    }
    assert post[1]["token_usage"] is None  # the second reply reported no usage


async def test_a_failed_request_is_status_failed_with_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = replies([http_error(400, "CASE-BAD-REQUEST")])
    rig = make_codex_rig(tmp_path, monkeypatch, script, PAIR)
    _, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.ERROR
    assert rig.order() == PAIR
    (post,) = rig.payloads("PostModelRequest")
    assert list(post) == POST_KEYS
    assert post["status"] == "failed"
    assert "CASE-BAD-REQUEST" in post["error"]
    assert post["token_usage"] is None
    assert post["response_id"] is None


@pytest.mark.parametrize(
    "answer",
    [
        {"stdout": {"decision": "block", "reason": "CASE-NO"}},
        {"stdout": {"continue": False, "stopReason": "CASE-NO"}},
        {
            "stdout": {
                "hookSpecificOutput": {
                    "hookEventName": "PreModelRequest",
                    "additionalContext": "CASE-NO",
                }
            }
        },
        {"stdout": "CASE-NO plain text"},
        {"stdout": {"bogus": "CASE-NO"}},
        {"exit": 2, "stderr": "CASE-NO"},
    ],
    ids=["block", "continue-false", "context", "plain", "unknown-key", "exit-2"],
)
async def test_their_output_changes_nothing_as_in_codex(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: dict[str, object]
) -> None:
    answers = {"PreModelRequest": answer, "PostModelRequest": answer}
    rig = make_codex_rig(tmp_path, monkeypatch, SCRIPT, PAIR, answers)
    agent, result = await rig.run("go")
    assert result.end_reason == TurnEndReason.COMPLETED
    assert rig.order() == PAIR * 2
    requests = rig.requests()
    assert len(requests) == 2
    assert "CASE-NO" not in json.dumps(requests)
    failed = [n for n in notices(agent) if "ModelRequest hook failed" in n]
    # A non-zero exit is the only thing Codex counts (a failed run); dsh says so.
    assert len(failed) == (4 if "exit" in answer else 0)
    assert all("exited with code 2" in n and "CASE-NO" in n for n in failed)


FIXTURE = Path(__file__).parent / "fixtures" / "codex-model-request"


def test_trust_keys_hashes_and_order_are_the_real_codexs(tmp_path: Path) -> None:
    """A hook on each of the fourteen events (``hooks.json``), listed by the real Codex 0.171
    (``hooks-list.json``, README there): dsh's keys, hashes and display order are Codex's."""
    from dsh.hooks.codex import load_codex_catalog

    home, project = tmp_path / "home" / ".codex", tmp_path / "proj"
    home.mkdir(parents=True)
    project.mkdir()
    (home / "hooks.json").write_bytes((FIXTURE / "hooks.json").read_bytes())
    catalog = load_codex_catalog(project, home=home, system_dir=None)
    listing = json.loads((FIXTURE / "hooks-list.json").read_text(encoding="utf-8"))
    want = [
        (h["key"].replace("${CODEX_HOME}", str(home)), h["currentHash"], h["displayOrder"])
        for h in listing["hooks"]
    ]
    got = [(h.key, h.trusted_hash, h.display_order) for h in catalog.hooks]
    assert got == want
    ignored = [d.describe() for d in catalog.diagnostics if "additionalContextLimit" in d.reason]
    codex_ignored = [w for w in listing["warnings"] if "additionalContextLimit" in w]
    assert len(ignored) == len(codex_ignored)
    assert any("PreModelRequest" in d for d in ignored)


async def test_a_compactions_request_is_foreground_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex 0.171 fires the pair for its compaction's request too (``kind:
    "foreground_compaction"``, seen with the binary); dsh for its summary request."""
    from tests.agent.support import make_harness
    from tests.hooks_codex.codex_support import mount_codex, recording_hooks

    summary = [text("<summary>S</summary>")]
    harness = make_harness(tmp_path, replies([text("one")], summary, [text("two")]))
    rig = mount_codex(tmp_path, monkeypatch, harness, recording_hooks(PAIR))
    agent = harness.agent()
    agent.send("go")
    await agent.run_turn()
    await agent.compact()
    kinds = [(p["hook_event_name"], p["kind"]) for p in rig.payloads("PostModelRequest")]
    assert kinds == [
        ("PostModelRequest", "sampling"),
        ("PostModelRequest", "foreground_compaction"),
    ]
    post = rig.payloads("PostModelRequest")[1]
    assert post["status"] == "completed"
    assert post["response_id"] is None
    assert rig.order() == PAIR * 2
