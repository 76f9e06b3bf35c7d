"""Properties of writing ``updatedPermissions`` into a settings file (``permissions._persist``),
and ``/add-dir``'s checks.

Whatever the file holds, ``persist_update`` never raises: a JSON object gets the update
merged with every other key kept (value and order), anything else is left byte for byte
with a reason naming the file.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hooks.claude.permissions._add_dir import checked_directory
from dsh.hooks.claude.permissions._persist import SettingsTargets, persist_update

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_rules = st.lists(
    st.builds(
        lambda tool, content: {
            "toolName": tool,
            **({} if content is None else {"ruleContent": content}),
        },
        st.sampled_from(["Bash", "Read", "Edit", "WebFetch"]),
        st.none() | st.text(alphabet="abc:* /", min_size=1, max_size=6),
    ),
    min_size=1,
    max_size=3,
)
_behavior = st.sampled_from(["allow", "deny", "ask"])
_entries = st.one_of(
    st.builds(
        lambda kind, behavior, rules: {"type": kind, "behavior": behavior, "rules": rules},
        st.sampled_from(["addRules", "replaceRules", "removeRules"]),
        _behavior,
        _rules,
    ),
    st.builds(
        lambda kind, dirs: {"type": kind, "directories": dirs},
        st.sampled_from(["addDirectories", "removeDirectories"]),
        st.lists(st.text(alphabet="/abc", min_size=1, max_size=5), min_size=1, max_size=3),
    ),
    st.builds(lambda mode: {"type": "setMode", "mode": mode}, st.sampled_from(["default", "plan"])),
)


def _targets(root: Path) -> SettingsTargets:
    project = root / "project"
    project.mkdir()
    return SettingsTargets(project=project, local_root=project, config_dir=root / "config")


def _rule(item: dict[str, Any]) -> str:
    content = item.get("ruleContent")
    return item["toolName"] if content is None else f"{item['toolName']}({content})"


@settings(max_examples=150, deadline=None)
@given(
    other=st.dictionaries(
        st.text(max_size=6).filter(lambda k: k != "permissions"), _json, max_size=4
    ),
    block=st.dictionaries(
        st.sampled_from(["allow", "deny", "ask", "defaultMode"]), st.just([]), max_size=2
    ),
    entry=_entries,
    indent=st.sampled_from([2, 4, "\t"]),
)
def test_an_object_keeps_every_other_key_and_gets_the_update(
    other: dict[str, Any], block: dict[str, Any], entry: dict[str, Any], indent: int | str
) -> None:
    block = {k: ("default" if k == "defaultMode" else v) for k, v in block.items()}
    original = {**other, "permissions": block}
    with tempfile.TemporaryDirectory() as tmp:
        targets = _targets(Path(tmp))
        path = targets.file("localSettings")
        path.parent.mkdir()
        path.write_text(json.dumps(original, indent=indent))
        assert persist_update({**entry, "destination": "localSettings"}, targets) is None
        written = json.loads(path.read_text())
    assert [k for k in written if k != "permissions"] == list(other)
    assert {k: written[k] for k in other} == other
    perms = written["permissions"]
    kind = entry["type"]
    if kind == "addRules":
        assert all(_rule(r) in perms[entry["behavior"]] for r in entry["rules"])
    elif kind == "removeRules":
        assert not any(_rule(r) in perms.get(entry["behavior"], []) for r in entry["rules"])
    elif kind == "replaceRules":
        assert perms[entry["behavior"]] == list(dict.fromkeys(_rule(r) for r in entry["rules"]))
    elif kind == "addDirectories":
        assert all(d in perms["additionalDirectories"] for d in entry["directories"])
    elif kind == "removeDirectories":
        assert not set(entry["directories"]) & set(perms.get("additionalDirectories", []))
    else:
        assert perms["defaultMode"] == entry["mode"]


@settings(max_examples=150, deadline=None)
@given(body=st.binary(max_size=64) | st.text(max_size=40).map(str.encode), entry=_entries)
def test_anything_else_is_left_as_it_is_with_a_reason(body: bytes, entry: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        targets = _targets(Path(tmp))
        path = targets.file("projectSettings")
        path.parent.mkdir()
        path.write_bytes(body)
        problem = persist_update({**entry, "destination": "projectSettings"}, targets)
        after = path.read_bytes()
    try:
        text = body.decode("utf-8-sig")
        parsed = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError):
        parsed = None
    if problem is not None:
        assert after == body  # never clobbered
        assert str(path) in problem
        return
    # Written (or nothing to write): the file was an object with a usable `permissions`.
    assert isinstance(parsed, dict)
    assert isinstance(parsed.get("permissions", {}), dict)
    if after != body:
        merged = json.loads(after)
        assert [k for k in merged if k != "permissions"] == [
            k for k in parsed if k != "permissions"
        ]


def test_a_planted_claude_directory_link_is_not_followed(tmp_path: Path) -> None:
    targets = _targets(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (targets.project / ".claude").symlink_to(elsewhere)
    entry = {"type": "setMode", "mode": "plan", "destination": "projectSettings"}
    problem = persist_update(entry, targets)
    assert problem is not None
    assert "symbolic link" in problem
    assert list(elsewhere.iterdir()) == []


def test_add_dir_checks_say_what_claude_code_says(tmp_path: Path) -> None:
    project, extra = tmp_path / "p", tmp_path / "x"
    (project / "sub").mkdir(parents=True)
    extra.mkdir()
    (extra / "f").write_text("")
    known = (project, extra)

    def check(text: str) -> Path | str:
        return checked_directory(text, cwd=project, project=project, known=known)

    assert check("") == "Give a directory path."
    assert (
        check("sub") == f"sub is already accessible within the current working directory {project}."
    )
    assert check(str(extra)) == f"{extra} is already added as a working directory."
    assert check(".") == ". is already the current working directory."
    assert (
        check(f"{extra}/f")
        == f"{extra}/f is not a directory. Did you mean to add the parent directory {extra}?"
    )
    assert str(check("a\x00b")).startswith("Path a\\0b contains a null character")
    assert check("..") == tmp_path
