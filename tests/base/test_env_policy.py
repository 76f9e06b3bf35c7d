"""``EnvironmentPolicy``: Codex's ``shell_environment_policy`` algorithm, its patterns, dsh's
defaults, and dsh's model keys never passed."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.base import EnvironmentPolicy
from dsh.base._env_policy import CORE_VARIABLES, MODEL_KEY_VARIABLES, name_matches


def _wildmatch(pattern: str, name: str) -> bool:
    """The ``wildmatch`` crate's meaning, written the slow way: ``*`` any run, ``?`` one
    character, the rest literal, ASCII letters without case."""
    fold = str.lower if pattern.isascii() and name.isascii() else _ascii_lower
    p, n = fold(pattern), fold(name)
    # matched[i][j]: p[:i] matches n[:j]
    matched = [[False] * (len(n) + 1) for _ in range(len(p) + 1)]
    matched[0][0] = True
    for i in range(1, len(p) + 1):
        matched[i][0] = matched[i - 1][0] and p[i - 1] == "*"
        for j in range(1, len(n) + 1):
            if p[i - 1] == "*":
                matched[i][j] = matched[i - 1][j] or matched[i][j - 1]
            else:
                same = p[i - 1] == "?" or p[i - 1] == n[j - 1]
                matched[i][j] = same and matched[i - 1][j - 1]
    return matched[len(p)][len(n)]


def _ascii_lower(text: str) -> str:
    return "".join(c.lower() if c.isascii() else c for c in text)


_NAME_CHARS = st.sampled_from("aAkK_1.ÄäİıK")  # the Kelvin sign and dotted I: not ASCII
_PATTERN_CHARS = st.one_of(_NAME_CHARS, st.sampled_from("*?[]\\"))


@settings(max_examples=2000, deadline=None)
@given(st.text(_PATTERN_CHARS, max_size=8), st.text(_NAME_CHARS, max_size=8))
def test_patterns_match_as_codexs_wildmatch(pattern: str, name: str) -> None:
    assert name_matches(pattern, name) == _wildmatch(pattern, name)


@settings(max_examples=500, deadline=None)
@given(st.text(_NAME_CHARS, min_size=1, max_size=8), st.text(_NAME_CHARS, max_size=4))
def test_a_star_pattern_finds_the_word_anywhere_in_any_case(word: str, around: str) -> None:
    name = around + word.swapcase() + around
    assert name_matches(f"*{word}*", name) == _wildmatch(f"*{word}*", name)
    if word.isascii():
        assert name_matches(f"*{word}*", name)


VARS = {
    "PATH": "/usr/bin",
    "HOME": "/home/user",
    "API_KEY": "secret",
    "SECRET_TOKEN": "t",
    "FOO": "bar",
}


def test_codexs_own_cases() -> None:
    """Codex's exec_env tests, with ``ignore_default_excludes`` given (dsh's default differs)."""
    keep_all = EnvironmentPolicy(ignore_default_excludes=True)
    assert keep_all.environment(VARS) == VARS
    assert EnvironmentPolicy(ignore_default_excludes=False).environment(VARS) == {
        "PATH": "/usr/bin",
        "HOME": "/home/user",
        "FOO": "bar",
    }
    only_path = EnvironmentPolicy(ignore_default_excludes=True, include_only=("*PATH",))
    assert only_path.environment(VARS) == {"PATH": "/usr/bin"}
    with_set = EnvironmentPolicy(ignore_default_excludes=True, set={"NEW_VAR": "42"})
    assert with_set.environment({"PATH": "/usr/bin"}) == {"PATH": "/usr/bin", "NEW_VAR": "42"}
    none = EnvironmentPolicy(inherit="none", ignore_default_excludes=True, set={"ONLY": "yes"})
    assert none.environment(VARS) == {"ONLY": "yes"}
    core = EnvironmentPolicy(inherit="core", ignore_default_excludes=True)
    assert core.environment({**VARS, "LANG": "C", "Path": "x"}) == {
        "PATH": "/usr/bin",
        "HOME": "/home/user",
        "LANG": "C",
    }
    # `set` comes after the excludes, `include_only` after `set`.
    order = EnvironmentPolicy(
        exclude=("FOO",), set={"FOO": "again", "GONE": "1"}, include_only=("F*",)
    )
    assert order.environment(VARS) == {"FOO": "again"}


def test_dshs_defaults_drop_secret_names_in_any_case() -> None:
    inherited = {
        "PATH": "/bin",
        "my_api_key": "1",
        "Db_Password": "2",
        "GCP_CREDENTIALS": "3",
        "GITHUB_TOKEN": "4",
        "AWS_SECRET_ACCESS_KEY": "5",
        "KEYBOARD": "6",  # Codex's patterns are substrings: this goes too
        "EDITOR": "vi",
    }
    assert EnvironmentPolicy().environment(inherited) == {"PATH": "/bin", "EDITOR": "vi"}


def test_the_model_keys_never_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DSH_API_KEY_ENV", "PROVIDER_SECRETISH")
    inherited = dict.fromkeys(MODEL_KEY_VARIABLES, "sk") | {
        "PROVIDER_SECRETISH": "sk",
        "DSH_API_KEY_ENV": "PROVIDER_SECRETISH",
        "PLAIN": "p",
    }
    open_door = EnvironmentPolicy(
        ignore_default_excludes=True, set={"OPENAI_API_KEY": "sk-set"}, include_only=("*",)
    )
    assert open_door.environment(inherited) == {
        "DSH_API_KEY_ENV": "PROVIDER_SECRETISH",
        "PLAIN": "p",
    }


def test_layers_merge_as_codex_merges_config_layers() -> None:
    user = EnvironmentPolicy().layered({"inherit": "core", "set": {"A": "1", "B": "1"}})
    project = user.layered({"set": {"B": "2"}, "exclude": ["X*"]})
    assert project == EnvironmentPolicy(inherit="core", set={"A": "1", "B": "2"}, exclude=("X*",))
    assert project.layered({"exclude": []}).exclude == ()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"inherit": "some"}, "inherit: 'some' is not one of all, core, none"),
        ({"ignore_default_excludes": "yes"}, "ignore_default_excludes"),
        ({"exclude": "KEY"}, "exclude: not a list of patterns"),
        ({"include_only": [1]}, "include_only: not a list of patterns"),
        ({"set": {"A": 1}}, "set: not a table"),
        ({"set": {"A=B": "1"}}, "set: 'A=B' is not an environment variable"),
        ({"filters": {}}, "unknown key 'filters'"),
    ],
)
def test_a_bad_table_is_refused_naming_the_key(table: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        EnvironmentPolicy().layered(table)
    if "filters" in table:  # Codex's own file may hold keys dsh does not use
        assert EnvironmentPolicy().layered(table, strict=False) == EnvironmentPolicy()


_ENV = st.dictionaries(
    st.sampled_from(["PATH", "HOME", "A_KEY", "my_token", "X1", "x2", "DSH_API_KEY"]), st.just("v")
)
_PATTERNS = st.lists(st.sampled_from(["*", "X*", "x?", "*KEY*", "PATH", "?OK"]), max_size=3)


@settings(max_examples=400, deadline=None)
@given(
    _ENV,
    st.sampled_from(["all", "core", "none"]),
    st.booleans(),
    _PATTERNS,
    _PATTERNS,
    st.dictionaries(st.sampled_from(["S", "X9", "A_KEY"]), st.just("s")),
)
def test_the_steps_hold_whatever_the_options(
    env: dict[str, str],
    inherit: str,
    ignore: bool,
    exclude: list[str],
    include_only: list[str],
    added: dict[str, str],
) -> None:
    policy = EnvironmentPolicy().layered(
        {
            "inherit": inherit,
            "ignore_default_excludes": ignore,
            "exclude": exclude,
            "include_only": include_only,
            "set": added,
        }
    )
    result = policy.environment(env)
    assert "DSH_API_KEY" not in result
    for name in result:
        assert name in added or name in env
        if include_only:
            assert any(name_matches(p, name) for p in include_only)
        if name not in added:
            assert not any(name_matches(p, name) for p in exclude)
            assert inherit == "all" or (inherit == "core" and name in CORE_VARIABLES)
            assert ignore or ("key" not in name.lower() and "token" not in name.lower())
    for name in added:
        if not include_only or any(name_matches(p, name) for p in include_only):
            assert result[name] == "s"
