"""Matcher semantics (reference §1.4) and the ``if`` rule syntax."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.hooks.claude.settings._matcher import IfRule, Matcher, MatcherError

_NAME = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,12}", fullmatch=True)
_ANY = st.text(max_size=30)


@given(st.sampled_from([None, "", "*"]), _ANY)
def test_star_empty_and_absent_match_everything(declared: str | None, value: str) -> None:
    matcher = Matcher.parse(declared)
    assert matcher.kind == "all"
    assert matcher.matches(value)


@given(
    st.lists(_NAME, min_size=1, max_size=5),
    st.sampled_from(["|", ",", ", ", " | "]),
    _ANY,
)
def test_a_plain_name_list_is_exact(names: list[str], sep: str, value: str) -> None:
    matcher = Matcher.parse(sep.join(names))
    assert matcher.kind == "exact"
    assert matcher.names == frozenset(names)
    assert matcher.matches(value) == (value in names)
    for name in names:
        assert matcher.matches(name)
        # No substring matching: a longer name matches only if it is itself listed.
        assert matcher.matches("X" + name) == ("X" + name in names)
        assert matcher.matches(name + "X") == (name + "X" in names)


def test_exact_names_from_the_reference() -> None:
    m = Matcher.parse("Edit|Write")
    assert m.matches("Edit")
    assert m.matches("Write")
    assert not m.matches("NotebookEdit")
    assert not m.matches("MultiEdit")
    assert not Matcher.parse("mcp__memory").matches("mcp__memory__create")
    hyphen = Matcher.parse("code-reviewer")
    assert hyphen.kind == "exact"
    assert not hyphen.matches("senior-code-reviewer")
    assert not Matcher.parse("bash").matches("Bash")  # case-sensitive


@given(st.from_regex(r"[A-Za-z]{1,6}(\.\*|\.\+|\^|\$)[A-Za-z]{0,4}", fullmatch=True), _ANY)
def test_anything_else_is_an_unanchored_regex(pattern: str, value: str) -> None:
    matcher = Matcher.parse(pattern)
    assert matcher.kind == "regex"
    assert matcher.matches(value) == (re.search(pattern, value) is not None)


def test_regex_examples_from_the_reference() -> None:
    assert Matcher.parse("Edit.*").matches("NotebookEdit")
    assert not Matcher.parse("^Edit.*$").matches("NotebookEdit")
    mcp = Matcher.parse("mcp__memory__.*")
    assert mcp.matches("mcp__memory__create_entities")
    scoped = Matcher.parse("^my-plugin:reviewer$")
    assert scoped.kind == "regex"
    assert scoped.matches("my-plugin:reviewer")
    assert not scoped.matches("my-plugin:reviewer2")


def test_javascript_named_groups_are_translated() -> None:
    m = Matcher.parse(r"^(?<srv>mcp__\w+)__\k<srv>$")
    assert m.kind == "regex"
    assert m.matches("mcp__a__mcp__a")
    assert not m.matches("mcp__a__mcp__b")
    assert Matcher.parse(r"(?<!x)Bash").matches("Bash")  # a lookbehind stays one


@pytest.mark.parametrize("bad", ["mcp__(x", "[Edit", "*Edit", "Edit)"])
def test_a_bad_regex_raises_matcher_error(bad: str) -> None:
    with pytest.raises(MatcherError, match="does not compile"):
        Matcher.parse(bad)


def test_narrow_events_use_the_regex_path_for_hyphens_spaces_and_commas() -> None:
    narrow = Matcher.parse("rate_limit|overloaded", narrow=True)
    assert narrow.kind == "exact"
    assert narrow.matches("overloaded")
    assert not narrow.matches("rate")
    comma = Matcher.parse("rate_limit,overloaded", narrow=True)
    assert comma.kind == "regex"
    assert comma.matches("x rate_limit,overloaded y")
    assert not comma.matches("overloaded")


def test_a_value_is_needed_unless_the_matcher_matches_all() -> None:
    assert not Matcher.parse("Bash").matches(None)
    assert Matcher.parse("*").matches(None)


@pytest.mark.parametrize(
    ("rule", "tool", "pattern"),
    [
        ("Bash(git *)", "Bash", "git *"),
        ("Edit(*.ts)", "Edit", "*.ts"),
        ("Read", "Read", None),
        ("mcp__github__*", "mcp__github__*", None),
        ("Bash(echo (a))", "Bash", "echo (a)"),
    ],
)
def test_if_rules_parse(rule: str, tool: str, pattern: str | None) -> None:
    parsed = IfRule.parse(rule)
    assert (parsed.tool, parsed.pattern) == (tool, pattern)


@pytest.mark.parametrize(
    "rule", ["Bash(git *) && Edit(x)", "Bash(a) || Read(b)", "Bash, Edit", "", "Bash(x"]
)
def test_if_rules_refused(rule: str) -> None:
    with pytest.raises(MatcherError, match="one permission rule"):
        IfRule.parse(rule)
