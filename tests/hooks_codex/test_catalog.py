"""Codex's hook sources: layers, project trust, and Codex's rejections as diagnostics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.hooks.codex import CodexCatalog, load_codex_catalog


def load(tmp_path: Path, **kw: Any) -> CodexCatalog:
    return load_codex_catalog(tmp_path / "project", home=tmp_path / "home", system_dir=None, **kw)


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def cmd(command: str = "echo hi", **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def lines(catalog: CodexCatalog) -> list[str]:
    return [d.describe() for d in catalog.diagnostics]


def test_a_schema_key_voids_the_whole_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "home/hooks.json", {"$schema": "x", "hooks": {"Stop": [{"hooks": [cmd()]}]}}
    )
    catalog = load(tmp_path)
    assert catalog.hooks == ()
    (line,) = lines(catalog)
    assert line.startswith(f"{path}: unknown field `$schema`; Codex rejects the whole file")


def test_an_http_handler_voids_the_whole_file_naming_event_group_and_index(tmp_path: Path) -> None:
    hooks = {
        "SessionStart": [{"hooks": [cmd()]}],
        "PreToolUse": [{"hooks": [cmd()]}, {"hooks": [cmd(), {"type": "http", "url": "u"}]}],
    }
    path = write(tmp_path / "home/hooks.json", {"hooks": hooks})
    catalog = load(tmp_path)
    assert catalog.hooks == ()
    (diag,) = catalog.diagnostics
    assert (diag.source, diag.event, diag.group, diag.index, diag.severity) == (
        str(path),
        "PreToolUse",
        1,
        1,
        "error",
    )
    assert (
        "unknown variant `http`, expected one of `command`, `mcp_tool`, `prompt`, `agent`"
        in diag.reason
    )
    assert diag.describe().startswith(f"{path}: PreToolUse[1][1]: unknown variant `http`")


def test_a_wrong_type_voids_the_file_and_other_layers_still_load(tmp_path: Path) -> None:
    write(tmp_path / "home/hooks.json", {"hooks": {"Stop": [{"hooks": [cmd(timeout="30")]}]}})
    write(
        tmp_path / "home/config.toml",
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "toml"\n',
    )
    catalog = load(tmp_path)
    assert [h.command for h in catalog.hooks] == ["toml"]
    assert "Stop[0][0]: invalid `timeout`" in lines(catalog)[0]


def test_unknown_events_prompt_handlers_and_bad_matchers_are_ignored_but_said(
    tmp_path: Path,
) -> None:
    hooks = {
        "Notification": [{"hooks": [cmd()]}],
        "PreToolUse": [
            {"matcher": "(a+)+", "hooks": [cmd("x")]},
            {"matcher": "Bash", "hooks": [cmd("y")]},
        ],
        "Stop": [{"hooks": [{"type": "prompt", "prompt": "p"}, cmd("", timeout=1)]}],
    }
    write(tmp_path / "home/hooks.json", {"hooks": hooks, "description": "ok"})
    catalog = load(tmp_path)
    assert [h.command for h in catalog.hooks] == ["y"]
    text = "\n".join(lines(catalog))
    assert "`Notification` is not a Codex hook event: ignored" in text
    assert "PreToolUse[0]: invalid matcher '(a+)+'" in text
    assert "group is skipped" in text
    assert "Stop[0][0]: `prompt` hooks are not supported yet" in text
    assert "Stop[0][1]: `command` is empty" in text
    assert all(d.severity == "warning" for d in catalog.diagnostics)


def test_layers_in_codex_order_and_display_numbering(tmp_path: Path) -> None:
    system = tmp_path / "etc"
    write(system / "hooks.json", {"hooks": {"Stop": [{"hooks": [cmd("system")]}]}})
    write(
        tmp_path / "home/hooks.json",
        {
            "hooks": {
                "Stop": [{"hooks": [cmd("user-json")]}],
                "PreToolUse": [{"hooks": [cmd("user-pre")]}],
            }
        },
    )
    write(
        tmp_path / "home/config.toml",
        '[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "user-toml"\n',
    )
    write(
        tmp_path / "project/.codex/hooks.json", {"hooks": {"Stop": [{"hooks": [cmd("project")]}]}}
    )
    catalog = load_codex_catalog(
        tmp_path / "project", home=tmp_path / "home", system_dir=system, trust_project=True
    )
    # Within a file, Codex's event order (PreToolUse before Stop), not the file's.
    assert [(h.layer, h.command, h.display_order) for h in catalog.hooks] == [
        ("system", "system", 0),
        ("user", "user-pre", 1),
        ("user", "user-json", 2),
        ("user", "user-toml", 3),
        ("project", "project", 4),
    ]
    assert any("prefer a single representation" in line for line in lines(catalog))


def test_the_project_layer_needs_project_trust(tmp_path: Path) -> None:
    write(tmp_path / "project/.codex/hooks.json", {"hooks": {"Stop": [{"hooks": [cmd("p")]}]}})
    catalog = load(tmp_path)
    assert catalog.hooks == ()
    assert not catalog.project_trusted
    assert "the project is not trusted" in lines(catalog)[0]
    project = (tmp_path / "project").absolute()
    write(tmp_path / "home/config.toml", f'[projects."{project}"]\ntrust_level = "trusted"\n')
    trusted = load(tmp_path)
    assert trusted.project_trusted
    assert [h.command for h in trusted.hooks] == ["p"]


def test_timeouts_follow_codex(tmp_path: Path) -> None:
    hooks = {
        "Stop": [{"hooks": [cmd("a"), cmd("b", timeout=0), cmd("c", timeout=5)]}],
        "SessionEnd": [{"hooks": [cmd("d"), cmd("e", timeout=10)]}],
        "Interrupt": [{"hooks": [cmd("f", timeout=2)]}],
    }
    write(tmp_path / "home/hooks.json", {"hooks": hooks})
    catalog = load(tmp_path)
    assert {h.command: h.timeout for h in catalog.hooks} == {
        "a": 600,
        "b": 1,
        "c": 5,
        "d": 1,
        "e": 3,
        "f": 2,
    }
    assert any("clamping SessionEnd hook timeout to 3s" in line for line in lines(catalog))


def test_unreadable_sources_are_diagnostics(tmp_path: Path) -> None:
    write(tmp_path / "home/hooks.json", "{not json")
    write(tmp_path / "home/config.toml", "hooks = [")
    catalog = load(tmp_path)
    text = "\n".join(lines(catalog))
    assert "not JSON" in text
    assert "not valid TOML" in text
    write(tmp_path / "home/hooks.json", "[" * 100_000)
    write(tmp_path / "home/config.toml", "")
    assert "nested too deep" in "\n".join(lines(load(tmp_path))) or "not JSON" in "\n".join(
        lines(load(tmp_path))
    )
    write(tmp_path / "home/hooks.json", " " * (2 << 20))
    assert "larger than" in "\n".join(lines(load(tmp_path)))


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=10),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    ["hooks", "Stop", "PreToolUse", "matcher", "type", "command", "timeout", "x"]
                ),
                c,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
def test_no_hooks_json_makes_the_loader_raise(tmp_path_factory: Any, data: Any) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    write(root / "home/hooks.json", {"hooks": data} if not isinstance(data, dict) else data)
    catalog = load(root)
    for hook in catalog.hooks:
        assert hook.command.strip()
        assert hook.timeout >= 1


def test_an_async_session_end_hook_runs_synchronously_with_a_warning(tmp_path: Path) -> None:
    hooks = {
        "SessionEnd": [{"hooks": [cmd("a", **{"async": True})]}],
        "Stop": [{"hooks": [cmd("b", **{"async": True})]}],
    }
    write(tmp_path / "home/hooks.json", {"hooks": hooks})
    catalog = load(tmp_path)
    assert {h.command: h.run_async for h in catalog.hooks} == {"a": False, "b": True}
    (line,) = [x for x in lines(catalog) if "async" in x]
    assert "SessionEnd[0][0]" in line
    assert "running async SessionEnd hook synchronously" in line
