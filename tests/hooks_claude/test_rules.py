"""Claude Code's permission rule grammar: the parser, the Bash splitter and the matcher.

Examples pin the forms the reference and the recordings show; hypothesis checks the
parser never fails but with ``RuleError`` and the matcher against a simple reference
model of the grammar (word prefixes, ``fnmatch`` wildcards, gitignore paths).
"""

from __future__ import annotations

import fnmatch
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dsh.hooks.claude import PermissionRule, RuleError, parse_rule
from dsh.hooks.claude.rules._bash import split_command
from dsh.hooks.claude.settings._matcher import IfRule, MatcherError

CWD = Path("/proj")


def bash(rule: str, command: str) -> bool:
    return parse_rule(rule).matches("Bash", {"command": command}, cwd=CWD)


@pytest.mark.parametrize(
    ("rule", "command", "matches"),
    [
        ("Bash(rm:*)", "rm x.txt", True),
        ("Bash(rm:*)", "rm", True),
        ("Bash(rm:*)", "rmdir x", False),
        ("Bash(rm:*)", "ls", False),
        ("Bash(npm run test:*)", "npm run test --watch", True),
        ("Bash(npm run test:*)", "npm run testing", False),
        ("Bash(git * main)", "git push origin main", True),
        ("Bash(git * main)", "git push origin dev", False),
        ("Bash(ls *)", "ls -la", True),
        ("Bash(ls *)", "ls", True),
        ("Bash(ls *)", "lsof", False),
        ("Bash(ls*)", "lsof", True),
        ("Bash(echo \\*)", "echo *", True),
        ("Bash(echo \\*)", "echo hi", False),
        ("Bash(git status)", "git status", True),
        ("Bash(git status)", "git status -s", False),
        ("Bash", "anything at all", True),
        ("Bash(*)", "anything at all", True),
        # Compound commands: any part (deny, ask, `if`).
        ("Bash(rm:*)", "ls && rm -rf build", True),
        ("Bash(rm:*)", "ls; echo rm", False),
        ("Bash(rm:*)", "cat f | rm -i x", True),
        ("Bash(rm:*)", "echo $(rm x)", True),
        ("Bash(rm:*)", "FOO=1 rm x", True),
        ("Bash(rm:*)", "echo 'rm x && rm y'", False),
        ("Bash(rm:*)", "echo 'unbalanced", False),
    ],
)
def test_bash_specifiers(rule: str, command: str, matches: bool) -> None:
    assert bash(rule, command) is matches


def test_an_allow_rule_needs_every_part_of_a_compound() -> None:
    rule = parse_rule("Bash(git status:*)")
    assert rule.matches("Bash", {"command": "git status && git status -s"}, cwd=CWD, mode="all")
    assert not rule.matches("Bash", {"command": "git status && rm x"}, cwd=CWD, mode="all")


@pytest.mark.parametrize(
    ("rule", "tool", "path", "matches"),
    [
        ("Edit(src/**)", "Write", "/proj/src/a/b.py", True),
        ("Edit(src/**)", "Edit", "/proj/x/src/b.py", False),
        ("Edit(**/src/**)", "Edit", "/proj/x/src/b.py", True),
        ("Edit(*.ts)", "MultiEdit", "/proj/deep/down/a.ts", True),
        ("Edit(*.ts)", "Edit", "/proj/a.tsx", False),
        ("Read(.env)", "Read", "/proj/sub/.env", True),
        ("Read(./.env)", "Read", "/proj/sub/.env", False),
        ("Read(./.env)", "Grep", "/proj/.env", True),
        ("Read(//etc/**)", "Read", "/etc/passwd", True),
        ("Read(//etc/**)", "Read", "/proj/etc/passwd", False),
        ("Read(~/secrets/*)", "Read", "/home/me/secrets/key", True),
        ("Read(/docs/*.md)", "Read", "/root-of-settings/docs/a.md", True),
        ("Read(/docs/*.md)", "Read", "/proj/docs/a.md", False),
        ("Read(src/**)", "Write", "/proj/src/a.py", False),
        ("Edit(src/**)", "Read", "/proj/src/a.py", False),
        ("Write", "NotebookEdit", "/anywhere", True),
    ],
)
def test_file_specifiers(rule: str, tool: str, path: str, matches: bool) -> None:
    parsed = parse_rule(rule, root=Path("/root-of-settings"))
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    got = parsed.matches(tool, {key: path}, cwd=CWD, home=Path("/home/me"))
    assert got is matches


def test_relative_file_paths_are_the_current_directory_s() -> None:
    rule = parse_rule("Edit(src/*.py)")
    assert rule.matches("Write", {"file_path": "src/a.py"}, cwd=CWD)
    assert rule.matches("Write", {"file_path": "x/../src/a.py"}, cwd=CWD)
    assert not rule.matches("Write", {"file_path": "/proj/src/a.py"}, cwd=Path("/other"))


@pytest.mark.parametrize(
    ("rule", "tool", "arguments", "matches"),
    [
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/x"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://EXAMPLE.com."}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://a.example.com"}, False),
        ("WebFetch(domain:*.example.com)", "WebFetch", {"url": "https://a.example.com"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://evil.io/example.com"}, False),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com@evil.io"}, False),
        ("mcp__github", "mcp__github__create_issue", {}, True),
        ("mcp__github__*", "mcp__github__create_issue", {}, True),
        ("mcp__github", "mcp__githubx__create_issue", {}, False),
        ("mcp__github__create_issue", "mcp__github__create_issue", {}, True),
        ("mcp__github__create_issue", "mcp__github__close_issue", {}, False),
        ("Agent(Explore)", "Agent", {"subagent_type": "Explore"}, True),
        ("Agent(Explore)", "Agent", {"subagent_type": "Plan"}, False),
        ("Read", "Bash", {"command": "cat x"}, False),
    ],
)
def test_other_specifiers(rule: str, tool: str, arguments: dict[str, str], matches: bool) -> None:
    assert parse_rule(rule).matches(tool, arguments, cwd=CWD) is matches


@pytest.mark.parametrize(
    ("rule", "says"),
    [
        ("", "empty"),
        ("Bash(", "closes with"),
        ("Bash()", "empty specifier"),
        ("Bash(:*)", "needs a command"),
        ("Bash(npm:* run)", "may only end"),
        ("WebFetch(example.com)", "domain:"),
        ("Bad Tool", "not a tool name"),
        ("Foo(bar)", "no specifier for Foo"),
        ("mcp__x(y)", "takes no specifier"),
        ("Bash(a) && Edit(b)", "more than one rule"),
        ("Bash(x\x00)", "NUL"),
    ],
)
def test_malformed_rules_say_what_is_wrong(rule: str, says: str) -> None:
    with pytest.raises(RuleError, match=says.replace("(", r"\(")):
        parse_rule(rule)


def test_a_malformed_if_is_a_matcher_error() -> None:
    with pytest.raises(MatcherError, match="one permission rule"):
        IfRule.parse("Bash(:*)")


def test_if_fails_open_where_claude_code_does() -> None:
    narrow = IfRule.parse("Bash(git push *)")
    assert narrow.admits("Bash", {"command": "git $(echo push) x"}, cwd=CWD)
    assert narrow.admits("Bash", {"command": "echo 'unbalanced"}, cwd=CWD)
    assert not narrow.admits("Bash", {"command": "git status"}, cwd=CWD)
    assert not narrow.admits("Write", {"file_path": "/x"}, cwd=CWD)
    # Naming only the command, the words are not needed: `$VAR` changes nothing.
    assert not IfRule.parse("Bash(rm:*)").admits("Bash", {"command": "ls $HOME"}, cwd=CWD)


@pytest.mark.parametrize(
    ("command", "parts", "writes"),
    [
        ("ls", [["ls"]], []),
        ("a && b || c; d | e |& f & g\nh", [[x] for x in "abcdefgh"], []),
        ("echo hi > out.txt", [["echo", "hi"]], ["out.txt"]),
        ("echo hi>>log 2>&1", [["echo", "hi"]], ["log"]),
        ("cmd &>all.txt", [["cmd"]], ["all.txt"]),
        ("ls 2>/dev/null", [["ls"]], []),
        ("cat < in.txt", [["cat"]], []),
        ('echo ">" "a && b"', [["echo", ">", "a && b"]], []),
        ("A=1 B=2 env", [["env"]], []),
        ("echo `rm x`", [["echo", "`rm", "x`"], ["rm", "x"]], []),
    ],
)
def test_split_command(command: str, parts: list[list[str]], writes: list[str]) -> None:
    got = split_command(command)
    assert got is not None
    assert [list(p.words) for p in got] == parts
    assert [w for p in got for w in p.writes] == writes


# -- properties against a reference model -----------------------------------------------

WORD = st.text(alphabet="abcxyz", min_size=1, max_size=4)
WORDS = st.lists(WORD, min_size=1, max_size=4)
OPERATOR = st.sampled_from([" && ", " || ", " ; ", " | ", "\n"])


@given(st.text(max_size=60))
def test_the_parser_only_ever_raises_rule_error(text: str) -> None:
    try:
        rule = parse_rule(text)
    except RuleError:
        return
    assert isinstance(rule, PermissionRule)
    assert rule.declared == text.strip()


@given(
    st.sampled_from(["Bash", "Read", "Edit", "WebFetch", "Agent"]),
    st.text(alphabet="abc/*._-: ", min_size=1, max_size=12),
)
def test_a_well_formed_rule_keeps_its_tool_and_specifier(tool: str, spec: str) -> None:
    text = f"{tool}({spec})"
    try:
        rule = parse_rule(text)
    except RuleError:
        return
    assert (rule.tool, rule.specifier) == (tool, spec)


@given(st.lists(WORDS, min_size=1, max_size=4), st.data())
def test_split_finds_the_simple_commands(commands: list[list[str]], data: st.DataObject) -> None:
    text = " ".join(commands[0])
    for words in commands[1:]:
        text += data.draw(OPERATOR) + " ".join(words)
    got = split_command(text)
    assert got is not None
    assert [list(p.words) for p in got] == commands


def reference_prefix(prefix: list[str], words: list[str]) -> bool:
    return words[: len(prefix)] == prefix


def reference_wildcard(pattern: str, command: str) -> bool:
    if pattern.endswith(" *") and fnmatch.fnmatchcase(command, pattern[:-2]):
        return True  # a trailing ` *` also matches the bare command
    return fnmatch.fnmatchcase(command, pattern)


@given(WORDS, st.lists(WORDS, min_size=1, max_size=3), st.data())
def test_prefix_rules_match_as_the_reference(
    prefix: list[str], commands: list[list[str]], data: st.DataObject
) -> None:
    rule = parse_rule(f"Bash({' '.join(prefix)}:*)")
    text = data.draw(OPERATOR).join(" ".join(c) for c in commands)
    expected = [reference_prefix(prefix, c) for c in commands]
    assert rule.matches("Bash", {"command": text}, cwd=CWD) is any(expected)
    assert rule.matches("Bash", {"command": text}, cwd=CWD, mode="all") is all(expected)


@given(
    st.lists(st.one_of(WORD, st.just("*")), min_size=1, max_size=4).map(" ".join),
    WORDS.map(" ".join),
)
def test_wildcard_rules_match_as_the_reference(pattern: str, command: str) -> None:
    rule = parse_rule(f"Bash({pattern})")
    assert rule.matches("Bash", {"command": command}, cwd=CWD) is reference_wildcard(
        pattern, command
    )


SEGMENT = st.sampled_from(["a", "b", "src"])
NAME = st.sampled_from(["x.py", "y.ts", ".env"])


def reference_path(kind: str, arg: str, relative: PurePosixPath) -> bool:
    if kind == "tree":  # `dir/**`
        return relative.parts[0] == arg and len(relative.parts) > 1
    if kind == "name":  # `name`: a name at any depth
        return relative.name == arg
    if kind == "ext":  # `*.ext` at any depth
        return relative.name.endswith(arg) and relative.name != arg.lstrip("*")
    return relative.parent == PurePosixPath(arg.split("/")[0]) and relative.name.endswith(".py")


@given(
    st.lists(SEGMENT, max_size=3),
    NAME,
    st.sampled_from(
        [("tree", "src"), ("tree", "a"), ("name", ".env"), ("ext", ".py"), ("dir", "src/*.py")]
    ),
)
def test_file_rules_match_as_the_reference(
    dirs: list[str], name: str, form: tuple[str, str]
) -> None:
    kind, arg = form
    pattern = {"tree": f"{arg}/**", "name": arg, "ext": f"*{arg}", "dir": arg}[kind]
    relative = PurePosixPath(*dirs, name)
    rule = parse_rule(f"Edit({pattern})")
    got = rule.matches("Edit", {"file_path": str(CWD / relative)}, cwd=CWD)
    assert got is reference_path(kind, arg, relative)


def test_docs_list_the_read_only_commands_as_the_code_has_them() -> None:
    from dsh.hooks.claude.rules._modes import READ_ONLY_COMMANDS, READ_ONLY_GIT

    doc = (Path(__file__).parents[2] / "docs" / "permissions.md").read_text()
    for names in (READ_ONLY_COMMANDS, READ_ONLY_GIT):
        line = ", ".join(f"`{c}`" for c in sorted(names))
        assert f"\n{line}\n" in doc


@given(st.text(max_size=80))
def test_split_command_never_raises(command: str) -> None:
    parts = split_command(command)
    assert parts is None or all(isinstance(p.text, str) for p in parts)


@given(st.text(alphabet="ab $()`'\"\\;&|<>\n", max_size=40))
def test_an_if_on_any_command_decides_without_raising(command: str) -> None:
    assert isinstance(
        IfRule.parse("Bash(a b:*)").admits("Bash", {"command": command}, cwd=CWD), bool
    )
