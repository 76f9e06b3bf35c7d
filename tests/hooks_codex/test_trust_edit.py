"""Recording Codex trust edits ``config.toml`` in one pass, exactly as the per-record edit did.

``record_trust`` once rescanned and reparsed the whole file for every record (3,000
hooks: 101 s). The one-pass edit must give the same text: the former per-record edit is
kept here as the oracle, and both run over generated files holding tables, comments,
fields in any order and keys that need escapes.
"""

from __future__ import annotations

import re
import tempfile
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hooks.codex import TrustError, record_trust
from dsh.hooks.codex.config._trust import toml_string


def _oracle_header(prefix: tuple[str, ...], key: str) -> re.Pattern[str]:
    dots = r"[ \t]*\.[ \t]*"
    return re.compile(
        r"^[ \t]*\[[ \t]*"
        + dots.join(re.escape(p) for p in prefix)
        + dots
        + re.escape(toml_string(key))
        + r"[ \t]*\][ \t]*(#.*)?$",
        re.M,
    )


def _oracle_with_value(text: str, prefix: tuple[str, ...], key: str, field: str, value: str) -> str:
    """The per-record edit ``record_trust`` made before (8df7b92), for one record."""
    line = f"{field} = {toml_string(value)}"
    header = _oracle_header(prefix, key).search(text)
    if header is None:
        sep = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        return f"{text}{sep}[{'.'.join(prefix)}.{toml_string(key)}]\n{line}\n"
    body_start = header.end() + 1
    nxt = re.compile(r"^[ \t]*\[", re.M).search(text, body_start)
    body_end = nxt.start() if nxt is not None else len(text)
    body = text[body_start:body_end]
    existing = re.compile(rf"^[ \t]*{re.escape(field)}[ \t]*=.*$", re.M)
    found = existing.search(body)
    body = existing.sub(line, body, count=1) if found else f"{line}\n{body}"
    return text[:body_start] + body + text[body_end:]


def oracle(text: str, records: Sequence[tuple[str, str]], projects: Sequence[str]) -> str:
    for project in projects:
        text = _oracle_with_value(text, ("projects",), project, "trust_level", "trusted")
    for key, digest in records:
        text = _oracle_with_value(text, ("hooks", "state"), key, "trusted_hash", digest)
    return text


KEYS = st.sampled_from(
    [
        "/p/.codex/hooks.json:pre_tool_use:0:0",
        "/p/.codex/hooks.json:stop:1:2",
        'C:\\odd "dir"\\hooks.json:stop:0:0',
        "/p/tab\there.json:stop:0:0",
        "/p/é.json:session_start:0:0",
    ]
)
DIGESTS = st.sampled_from(["sha256:aa", "sha256:bb", "sha256:cc"])
BLANK = st.sampled_from(["", " ", "\t", "  "])


@st.composite
def table(draw: st.DrawFn) -> str:
    """One table of a config file: a hook's state, a project, or something else."""
    kind = draw(st.sampled_from(["state", "project", "other"]))
    a, b = draw(BLANK), draw(BLANK)
    comment = draw(st.sampled_from(["", " # kept", "  #x"]))
    if kind == "state":
        head = f"[{a}hooks{b}.{a}state{b}.{a}{toml_string(draw(KEYS))}{b}]{comment}\n"
        fields = draw(
            st.lists(
                st.sampled_from(
                    [
                        f'trusted_hash{a}={b}"{draw(DIGESTS)}"\n',
                        "enabled = true\n",
                        "# a note\n",
                        "\n",
                    ]
                ),
                max_size=4,
            )
        )
    elif kind == "project":
        head = f"[projects.{toml_string(draw(st.sampled_from(['/p', '/q', '/r s'])))}]{comment}\n"
        fields = draw(st.lists(st.sampled_from(['trust_level = "untrusted"\n', "\n"]), max_size=2))
    else:
        head = f"[{draw(st.sampled_from(['model_providers.x', 'tui', 'hooks']))}]{comment}\n"
        fields = draw(st.lists(st.sampled_from(['name = "v"\n', "n = 1\n", "\n"]), max_size=3))
    return head + "".join(fields)


@st.composite
def config_text(draw: st.DrawFn) -> str:
    top = draw(st.sampled_from(["", 'model = "m"\n', 'model = "m"\n\n', "# top\n"]))
    text = (top + "".join(draw(st.lists(table(), max_size=6)))).rstrip("\n")
    if not text:
        return text
    # A header as the last line without a newline: the old edit glued the line to it
    # (the test after this one says what happens now).
    last = text.rsplit("\n", 1)[-1]
    ends = ["\n", "\n\n"] if last.lstrip().startswith("[") else ["", "\n", "\n\n"]
    return text + draw(st.sampled_from(ends))


def _parses(text: str) -> dict[str, Any] | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


@settings(max_examples=400, deadline=None)
@given(
    config_text(),
    st.lists(st.tuples(KEYS, DIGESTS), max_size=6),
    st.lists(st.sampled_from(["/p", "/q", "/t"]), max_size=2),
)
def test_one_pass_gives_the_text_the_per_record_edit_gave(
    text: str, records: list[tuple[str, str]], projects: list[str]
) -> None:
    if _parses(text) is None:
        return  # not a file record_trust edits (it refuses it before editing)
    expected = oracle(text, records, projects)
    if _parses(expected) is None:
        return  # the old edit broke the file (and so refused to write): see below
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config.toml"
        config.write_text(text, encoding="utf-8")
        try:
            record_trust(config, records, projects=[Path(p) for p in projects])
        except TrustError:
            written = None
        else:
            written = config.read_text(encoding="utf-8")
    parsed = tomllib.loads(expected)
    states = parsed.get("hooks", {}).get("state", {})
    kept = all(states.get(k, {}).get("trusted_hash") == d for k, d in records)
    if not kept:
        assert written is None  # the old edit could not keep a record either: refused
        return
    assert written == expected


def test_a_header_at_the_end_of_a_file_without_a_newline_gets_its_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    key = "/p/.codex/hooks.json:stop:0:0"
    config.write_text(f"[hooks.state.{toml_string(key)}]")
    record_trust(config, [(key, "sha256:aa")])
    assert tomllib.loads(config.read_text())["hooks"]["state"][key] == {"trusted_hash": "sha256:aa"}


def test_thousands_of_records_are_written_and_read_back(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('model = "m"\n')
    first = [(f"/p/.codex/hooks.json:stop:{i}:0", f"sha256:{i:x}") for i in range(3000)]
    record_trust(config, first)
    again = [(k, d + "0") if i % 2 else (k, d) for i, (k, d) in enumerate(first)]
    record_trust(config, [*again, ("/p/new.json:stop:0:0", "sha256:new")])
    states = tomllib.loads(config.read_text())["hooks"]["state"]
    assert len(states) == 3001
    assert all(states[k] == {"trusted_hash": d} for k, d in again)
    assert config.read_text().startswith('model = "m"\n\n[hooks.state.')


@pytest.mark.parametrize("written", ['[hooks.state."k"]\nenabled = false\n'])
def test_a_table_already_there_keeps_its_other_fields(tmp_path: Path, written: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(written)
    record_trust(config, [("k", "sha256:x")])
    assert config.read_text() == '[hooks.state."k"]\ntrusted_hash = "sha256:x"\nenabled = false\n'
