"""The channels: policy rules, the terminal prompt, and the scripted channel."""

from __future__ import annotations

import io

import pytest

from dsh.approval import (
    ApprovalAnswer,
    ApprovalRequest,
    ChannelAnswer,
    PolicyChannel,
    PolicyRule,
    ScriptedChannel,
    TerminalChannel,
)
from dsh.approval._types import answer_outcome
from dsh.base import freeze_json


def req(tool: str = "Bash", **arguments: object) -> ApprovalRequest:
    return ApprovalRequest(tool, freeze_json(arguments), "a hook asked", "s1")


# -- policy ----------------------------------------------------------------------


async def outcome(
    channel: PolicyChannel, request: ApprovalRequest
) -> tuple[str | None, str | None]:
    return answer_outcome(await channel.request(request))


async def test_the_first_matching_rule_decides() -> None:
    policy = PolicyChannel(
        [
            PolicyRule.deny("Bash", argument="command", glob="rm *", reason="no deleting"),
            PolicyRule.allow("Bash", argument="command", glob="git *"),
            PolicyRule.allow("Read"),
            PolicyRule.deny("*"),
        ]
    )
    assert await outcome(policy, req(command="rm -rf build")) == ("rejected", "no deleting")
    assert (await outcome(policy, req(command="git status")))[0] == "allowed-once"
    assert (await outcome(policy, req("Read", file_path="/etc/hosts")))[0] == "allowed-once"
    rejected, why = await outcome(policy, req(command="make"))
    assert rejected == "rejected"
    assert why is not None
    assert "deny *" in why


async def test_a_regex_is_searched_and_non_string_arguments_match_as_json() -> None:
    policy = PolicyChannel(
        [
            PolicyRule.allow("Edit", argument="file_path", regex=r"\.py$"),
            PolicyRule.allow("Grep", argument="-i", glob="true"),
            PolicyRule.allow("Write", regex=r'"content":"hello"'),
        ],
        default="deny",
    )
    assert (await outcome(policy, req("Edit", file_path="src/a.py")))[0] == "allowed-once"
    assert (await outcome(policy, req("Edit", file_path="src/a.txt")))[0] == "rejected"
    assert (await outcome(policy, req("Grep", **{"-i": True})))[0] == "allowed-once"
    assert (await outcome(policy, req("Grep", **{"-i": False})))[0] == "rejected"
    assert (await outcome(policy, req("Grep")))[0] == "rejected"
    assert (await outcome(policy, req("Write", file_path="x", content="hello")))[
        0
    ] == "allowed-once"


async def test_ask_goes_to_the_fallback_channel() -> None:
    person = ScriptedChannel(["allowed-always", None])
    policy = PolicyChannel([PolicyRule.ask("Bash")], fallback=person)
    assert await policy.request(req(command="ls")) == "allowed-always"
    rejected, why = await outcome(policy, req(command="ls"))
    assert rejected == "rejected"
    assert why is not None
    assert "nobody can answer" in why
    assert len(person.requests) == 2


async def test_headless_ask_is_rejected_with_a_reason() -> None:
    rejected, why = await outcome(PolicyChannel(), req(command="ls"))
    assert rejected == "rejected"
    assert (
        why == "Bash needs approval (the policy default says ask) and nobody can answer in this run"
    )


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: PolicyRule("maybe"), "action must be one of allow, deny, ask"),  # type: ignore[arg-type]
        (lambda: PolicyRule.allow(""), "tool must be a non-empty"),
        (lambda: PolicyRule.allow("Bash", glob="a", regex="b"), "not both"),
        (lambda: PolicyRule.allow("Bash", argument="command"), "needs a glob or a regex"),
        (lambda: PolicyRule.allow("Bash", regex="("), "does not compile"),
        (lambda: PolicyChannel(["allow Bash"]), "policy rule #0 is str"),  # type: ignore[list-item]
        (lambda: PolicyChannel(default="maybe"), "policy default must be one of"),  # type: ignore[arg-type]
    ],
)
def test_bad_rules_are_clear_errors(build: object, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        build()  # type: ignore[operator]


# -- terminal --------------------------------------------------------------------


async def ask_terminal(typed: str) -> tuple[ChannelAnswer, str]:
    out = io.StringIO()
    channel = TerminalChannel(io.StringIO(typed), out)
    reply = await channel.request(req(command="make test"))
    return reply, out.getvalue()


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("y\n", "allowed-once"),
        ("YES\n", "allowed-once"),
        ("a\n", "allowed-always"),
        ("n\n", "rejected"),
        ("", "cancelled"),
        ("maybe\n\ny\n", "allowed-once"),
        ("x\nx\nx\ny\n", "rejected"),
    ],
)
async def test_the_terminal_reads_an_answer(typed: str, expected: str) -> None:
    reply, shown = await ask_terminal(typed)
    assert answer_outcome(reply)[0] == expected
    assert 'Bash wants to run with {"command":"make test"}' in shown
    assert "Approval asked: a hook asked" in shown


async def test_the_terminal_says_what_it_did_not_understand() -> None:
    _, shown = await ask_terminal("maybe\ny\n")
    assert "Please answer y, a or n (got 'maybe')" in shown


async def test_a_terminal_without_a_tty_cannot_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert await TerminalChannel().request(req()) is None


# -- scripted --------------------------------------------------------------------


async def test_the_scripted_channel_answers_in_order_and_records() -> None:
    answer = ApprovalAnswer("rejected", "scripted")
    channel = ScriptedChannel(["allowed-once", answer, None])
    assert await channel.request(req(n=1)) == "allowed-once"
    assert await channel.request(req(n=2)) is answer
    assert await channel.request(req(n=3)) is None
    assert [r.arguments["n"] for r in channel.requests] == [1, 2, 3]
    assert channel.remaining == 0
    with pytest.raises(LookupError, match="no outcome left for Bash"):
        await channel.request(req())


def test_a_scripted_outcome_must_be_an_outcome() -> None:
    with pytest.raises(ValueError, match="scripted outcome #1 'ok'"):
        ScriptedChannel(["allowed-once", "ok"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="is not one of"):
        ApprovalAnswer("sure")  # type: ignore[arg-type]
