"""dsh's fingerprints of a trusted project's Codex layer, through the real ``dsh`` commands.

Codex trusts a project with one boolean; dsh records what the layer held
(``.codex/hooks.json``, ``.codex/config.toml``) in its own trust record and,
once recorded, leaves out a file that changed or was added, naming it in one
notice. The ``AGENTS.md`` chain follows the project's trust, edits included, as
in Codex. Most tests run ``dsh run`` / ``dsh hooks
check`` / ``dsh hooks trust`` as subprocesses with a temporary ``CODEX_HOME``,
home and data directory, real hook processes and a scripted model. (The new
names are imported inside the tests that use them, so the others also run
against older code.)
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import stat
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.cli.test_cli import dsh as cli_dsh

KEYS = ("format", "codex", "hooks", "fingerprint", "where", "file", "project")
TRUST_FORMAT = "dsh-claude-trust/1"
MARK_SCRIPT = "import os\nopen(os.environ['MARK'], 'a').write('ran\\n')\n"


def dsh(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``dsh ARGS`` with its homes and data directory under ``tmp_path``, trusting nothing."""
    env = {
        "HOME": str(tmp_path / "home"),
        "CODEX_HOME": str(tmp_path / "home" / ".codex"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "MARK": str(tmp_path / "mark.txt"),
    }
    return cli_dsh(*args, cwd=tmp_path, env_extra=env, trust=False)


def trust_in_codex(tmp_path: Path, project: Path) -> None:
    config = tmp_path / "home" / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository with an ``AGENTS.md`` and a ``.codex/``, trusted in Codex's config."""
    return make_project(tmp_path)


def make_project(tmp_path: Path) -> Path:
    """``project``'s repository, for the sibling tests."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".codex").mkdir()
    (root / "AGENTS.md").write_text("PROJECT-AGENTS-NOTE\n")
    trust_in_codex(tmp_path, root)
    script = {"openai": {"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    (tmp_path / "mark.py").write_text(MARK_SCRIPT)
    return root


def run(tmp_path: Path, project: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """A ``dsh run`` in ``project`` (Codex's bridge) and the text of the session log it wrote."""
    sessions = tmp_path / "s"
    before = set(sessions.glob("*.jsonl")) if sessions.exists() else set()
    model = f"scripted:{tmp_path / 'script.json'}"
    args = ("run", "hi", "--model", model, "--project", str(project), "--hooks", "codex")
    done = dsh(tmp_path, *args, "--session-dir", str(sessions), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    [log] = set(sessions.glob("*.jsonl")) - before
    return done, log.read_text()


def layer_notices(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stdout.splitlines() if "Codex project layer" in line]


def record_file(tmp_path: Path, project: Path) -> Path:
    """The project's record, by the recipe written out (so the test also runs on old code)."""
    name = hashlib.sha256(str(project).encode()).hexdigest()[:40] + ".json"
    return tmp_path / "data" / "dsh" / "trust" / "claude" / name


def codex_section(tmp_path: Path, project: Path) -> dict[str, str]:
    """The record's ``codex`` section: file to fingerprint."""
    record = json.loads(record_file(tmp_path, project).read_text())
    return {e["file"]: e["fingerprint"] for e in record["codex"] if "file" in e}


def ran(tmp_path: Path) -> int:
    mark = tmp_path / "mark.txt"
    count = len(mark.read_text().splitlines()) if mark.exists() else 0
    mark.unlink(missing_ok=True)
    return count


def write_hooks(project: Path, tmp_path: Path, count: int = 1) -> None:
    hook = {"type": "command", "command": f"{sys.executable} {tmp_path / 'mark.py'}"}
    groups = [{"hooks": [hook]} for _ in range(count)]
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": groups}}))


def test_a_trusted_project_loads_on_the_first_run_and_records_its_layer(
    tmp_path: Path, project: Path
) -> None:
    (project / ".codex" / "config.toml").write_text('model = "x"\n')
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "untrusted:" not in check.stdout  # Codex's trust is the consent: nothing to ask
    assert "project layer: 1 file(s), not recorded by dsh yet" in check.stdout
    assert not record_file(tmp_path, project).exists()  # `check` records nothing
    done, log = run(tmp_path, project)
    assert "PROJECT-AGENTS-NOTE" in log
    assert layer_notices(done) == []
    record = record_file(tmp_path, project)
    assert set(codex_section(tmp_path, project)) == {".codex/config.toml"}
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    assert stat.S_IMODE(record.parent.stat().st_mode) == 0o700
    config = (tmp_path / "home" / ".codex" / "config.toml").read_text()
    assert "codex" not in config
    assert "fingerprint" not in config
    again, log = run(tmp_path, project)  # unchanged: loads with no notice, as before
    assert "PROJECT-AGENTS-NOTE" in log
    assert layer_notices(again) == []


def test_an_edited_agents_md_loads_in_a_project_codex_trusts(tmp_path: Path, project: Path) -> None:
    """As in Codex: the ``AGENTS.md`` chain follows the project's trust, edits included."""
    run(tmp_path, project)  # the first run records the layer
    (project / "AGENTS.md").write_text("PROJECT-AGENTS-NOTE\nPROJECT-EDITED\n")
    done, log = run(tmp_path, project)
    assert "PROJECT-EDITED" in log
    assert layer_notices(done) == []
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "untrusted:" not in check.stdout
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert "AGENTS.md" not in trust.stdout


def test_an_added_override_loads_and_shadows_the_folders_agents_md(
    tmp_path: Path, project: Path
) -> None:
    run(tmp_path, project)
    (project / "AGENTS.override.md").write_text("PROJECT-OVERRIDE-NOTE\n")
    done, log = run(tmp_path, project)
    assert "PROJECT-OVERRIDE-NOTE" in log
    assert "PROJECT-AGENTS-NOTE" not in log  # shadowed by the override, as in Codex
    assert layer_notices(done) == []


def test_an_earlier_records_agents_md_entries_are_ignored(tmp_path: Path, project: Path) -> None:
    """A record written when dsh fingerprinted ``AGENTS.md`` keeps working, with no step."""
    from dsh.hook_protocol import write_record

    stale = {"fingerprint": "0" * 64, "where": "codex AGENTS.md", "file": "AGENTS.md"}
    write_record(project, tmp_path / "data" / "dsh" / "trust" / "claude", {"codex": [stale]})
    done, log = run(tmp_path, project)
    assert "PROJECT-AGENTS-NOTE" in log
    assert layer_notices(done) == []
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "no longer loaded" not in check.stdout
    assert "untrusted:" not in check.stdout


def test_a_changed_hooks_json_is_not_loaded_while_the_rest_of_the_layer_is(
    tmp_path: Path, project: Path
) -> None:
    write_hooks(project, tmp_path)
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert "codex hooks: trusted: Codex project file .codex/hooks.json" in trust.stdout
    assert "AGENTS.md" not in trust.stdout  # it follows the project's trust
    done, log = run(tmp_path, project)
    assert ran(tmp_path) == 1
    write_hooks(project, tmp_path, count=2)  # a second Stop hook: the file changed
    done, log = run(tmp_path, project)
    assert ran(tmp_path) == 0  # neither the new hook nor the one trusted before
    assert "PROJECT-AGENTS-NOTE" in log  # the unchanged AGENTS.md loads as before
    [notice] = layer_notices(done)
    assert ".codex/hooks.json (changed since trusted)" in notice
    assert "Stop[1][0]" not in done.stdout  # the file is not read at all
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert f"{project / '.codex' / 'hooks.json'}: changed since trusted" in check.stdout
    assert f"source: {project / '.codex' / 'hooks.json'}" not in check.stdout
    dsh(tmp_path, "hooks", "trust", "--project", str(project))
    run(tmp_path, project)
    assert ran(tmp_path) == 2


def test_a_changed_project_config_toml_does_not_set_the_approval_policy(
    tmp_path: Path, project: Path
) -> None:
    (project / ".codex" / "config.toml").write_text('model = "x"\n')
    run(tmp_path, project)
    escalate = {
        "type": "function_call",
        "name": "exec_command",
        "arguments": {"cmd": "true", "sandbox_permissions": "require_escalated"},
    }
    replies = [[escalate], [{"type": "text", "text": "ok"}]]
    script = {"openai": {"rules": [{"responses": replies}]}}
    (tmp_path / "script.json").write_text(json.dumps(script))
    (project / ".codex" / "config.toml").write_text(
        'approval_policy = "on-request"\napprovals_reviewer = "auto_review"\n'
    )
    done, _log = run(tmp_path, project)
    assert "approval policy is Never; reject command" in done.stdout
    [notice] = layer_notices(done)
    assert ".codex/config.toml (changed since trusted)" in notice
    dsh(tmp_path, "hooks", "trust", "--project", str(project))
    done, _log = run(tmp_path, project)
    assert "escalation declined" in done.stdout  # the project's policy now applies


def test_an_untrusted_project_behaves_as_before(tmp_path: Path, project: Path) -> None:
    (tmp_path / "home" / ".codex" / "config.toml").write_text("")
    done, log = run(tmp_path, project)
    assert "PROJECT-AGENTS-NOTE" not in log
    assert "1 AGENTS.md file(s) of the untrusted project not loaded" in done.stdout
    assert layer_notices(done) == []
    assert not record_file(tmp_path, project).exists()
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "the project is not trusted, so its AGENTS.md files are not loaded" in check.stdout


HOSTILE = {
    "garbage": b"not json {",
    "other format": json.dumps({"format": "x", "codex": []}).encode(),
    "nested": b"[" * 1000 + b"]" * 1000,
    "a list": b"[]",
}


@pytest.mark.parametrize("kind", [*HOSTILE, "symlink", "fifo"])
def test_a_hostile_record_trusts_none_of_the_layer_and_crashes_nothing(
    tmp_path: Path, project: Path, kind: str
) -> None:
    (project / ".codex" / "config.toml").write_text('model = "x"\n')
    record = record_file(tmp_path, project)
    record.parent.mkdir(parents=True)
    target = tmp_path / "elsewhere.json"
    if kind == "symlink":
        run(tmp_path, project)  # a valid record, then moved away and linked to
        os.replace(record, target)
        record.symlink_to(target)
    elif kind == "fifo":
        os.mkfifo(record)
    else:
        record.write_bytes(HOSTILE[kind])
    done, log = run(tmp_path, project)
    assert "PROJECT-AGENTS-NOTE" in log  # it follows Codex's trust of the project
    [notice] = layer_notices(done)
    assert ".codex/config.toml (record unreadable)" in notice
    assert f"trust record {record}" in notice
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Traceback" not in check.stdout + check.stderr
    assert f"untrusted: trust record {record}" in check.stdout
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert trust.returncode == 0, trust.stdout + trust.stderr
    assert "the record could not be read" in trust.stdout
    assert not record.is_symlink()
    assert stat.S_ISREG(record.lstat().st_mode)
    if kind == "symlink":
        assert "codex" in json.loads(target.read_text())  # the link was replaced, not followed
    done, log = run(tmp_path, project)
    assert "PROJECT-AGENTS-NOTE" in log
    assert layer_notices(done) == []


def test_claude_and_codex_trust_keep_each_others_sections(tmp_path: Path, project: Path) -> None:
    (project / ".codex" / "config.toml").write_text('model = "x"\n')
    (project / ".claude").mkdir()
    claude_hook = {"hooks": [{"type": "command", "command": "true"}]}
    settings = project / ".claude" / "settings.json"
    settings.write_text(json.dumps({"hooks": {"Stop": [claude_hook]}}))
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert "claude hooks: trusted: Stop[0][0]" in trust.stdout
    assert "codex hooks: trusted: Codex project file .codex/config.toml" in trust.stdout
    codex = codex_section(tmp_path, project)
    claude_hook["hooks"][0]["command"] = "false"
    settings.write_text(json.dumps({"hooks": {"Stop": [claude_hook]}}))
    dsh(tmp_path, "hooks", "trust", "--project", str(project))  # the Claude side rewrites
    record = json.loads(record_file(tmp_path, project).read_text())
    assert [e["command"] for e in record["hooks"]] == ["false"]
    assert codex_section(tmp_path, project) == codex  # the Codex section kept as it was
    done, log = run(tmp_path, project, "--hooks", "both")
    assert "PROJECT-AGENTS-NOTE" in log
    assert "untrusted project" not in done.stdout
    assert layer_notices(done) == []


@settings(max_examples=200)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
            lambda inner: (
                st.lists(inner, max_size=4)
                | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
            ),
            max_leaves=20,
        ).map(lambda v: json.dumps(v).encode()),
        st.dictionaries(
            st.sampled_from(KEYS),
            st.lists(st.dictionaries(st.sampled_from(KEYS), st.text(max_size=8) | st.integers())),
            max_size=3,
        ).map(lambda v: json.dumps({**v, "format": TRUST_FORMAT}).encode()),
    )
)
def test_any_record_bytes_are_read_without_raising(data: bytes) -> None:
    from dsh.hook_protocol import read_record, write_record
    from dsh.hook_protocol._trust_record import record_path
    from dsh.hooks.codex.trust._layer import review_layer

    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "p"
        trust_dir = Path(scratch) / "trust"
        trust_dir.mkdir()
        record_path(project, trust_dir).write_bytes(data)
        record = read_record(project, trust_dir, owned=("codex",))
        assert record.problem is not None or isinstance(record.sections, Mapping)
        review = review_layer(project, [], trust_dir)
        assert review.problem == record.problem
        write_record(project, trust_dir, {"codex": []})  # replaces what it cannot read
        assert read_record(project, trust_dir, owned=("codex",)).problem is None


def test_a_write_keeps_the_sections_of_the_other_bridge(tmp_path: Path) -> None:
    from dsh.hook_protocol import read_record, write_record

    project = tmp_path / "p"
    write_record(project, tmp_path, {"hooks": [{"fingerprint": "a", "where": "Stop[0][0]"}]})
    write_record(project, tmp_path, {"codex": [{"fingerprint": "b", "where": "codex AGENTS.md"}]})
    claude = read_record(project, tmp_path, owned=("hooks",))
    codex = read_record(project, tmp_path, owned=("codex",))
    assert dict(claude.fingerprints) == {"a": "Stop[0][0]"}  # each sees its own sections only
    assert dict(codex.fingerprints) == {"b": "codex AGENTS.md"}
    write_record(project, tmp_path, {"hooks": []})
    assert read_record(project, tmp_path, owned=("codex",)).has("codex")


def test_an_agents_md_changed_after_the_load_still_loads(tmp_path: Path, project: Path) -> None:
    from dsh.hooks.codex import CodexProfile
    from dsh.instructions import CodexInstructionsPlugin, find_agents_files

    profile = CodexProfile(home=tmp_path / "home" / ".codex", system_dir=None, env={})
    profile = dataclasses.replace(profile, trust_dir=tmp_path / "trust")
    mount = profile.load(project)  # the first load records the layer
    assert isinstance(mount.instructions, CodexInstructionsPlugin)
    assert mount.instructions.gate is None  # no per-file gate: the project's trust decides
    (project / "AGENTS.md").write_text("CHANGED BEFORE THE SESSION STARTED\n")
    [found] = find_agents_files(project, codex_home=None)
    assert found.path == project / "AGENTS.md"


def test_the_trust_prompt_shows_a_changed_file_and_accepting_records_it(
    tmp_path: Path, project: Path
) -> None:
    from dsh.cli._trust import ask_to_trust
    from dsh.hooks.codex import CodexProfile

    profile = CodexProfile(
        home=tmp_path / "home" / ".codex", system_dir=None, env={}, trust_dir=tmp_path / "t"
    )
    (project / ".codex" / "config.toml").write_text('model = "x"\n')
    profile.load(project)  # the first run records the layer
    (project / ".codex" / "config.toml").write_text('model = "y"\n')
    shown: list[str] = []

    def decline(lines: Sequence[str]) -> bool:
        shown.extend(lines)
        return False

    assert ask_to_trust([profile], project, decline) is False
    [line] = shown
    config = project / ".codex" / "config.toml"
    assert line.startswith(f"codex hooks: {config}: changed since trusted")
    assert profile.untrusted(project) != ()  # declined: nothing recorded
    assert ask_to_trust([profile], project, lambda lines: True) is True
    assert profile.untrusted(project) == ()
    assert profile.load(project).diagnostics == ()


def _large_claude_record(tmp_path: Path, project: Path) -> bytes:
    """A valid record whose Claude sections (6 MiB of hooks, as a project of tens of
    thousands of hooks records) are over the bound a Codex write reads it within."""
    hooks = [
        {"fingerprint": f"{i:064x}", "where": f"Stop[{i}][0] in .claude/settings.json"}
        | {"command": f"check-{i} " + "x" * 1200}
        for i in range(5000)
    ]
    permissions = [{"fingerprint": "p" * 64, "where": "permissions.allow Bash(ls)"}]
    data = json.dumps(
        {
            "format": TRUST_FORMAT,
            "project": str(project),
            "hooks": hooks,
            "permissions": permissions,
        },
        indent=1,
    ).encode()
    record = record_file(tmp_path, project)
    record.parent.mkdir(parents=True)
    record.write_bytes(data)
    return data


def test_a_codex_write_onto_a_record_over_its_bound_refuses_and_keeps_the_claude_sections(
    tmp_path: Path, project: Path
) -> None:
    (project / ".codex" / "config.toml").write_text('model = "x"\n')  # a layer to record
    data = _large_claude_record(tmp_path, project)
    record = record_file(tmp_path, project)
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert "Traceback" not in trust.stdout + trust.stderr
    [line] = [line for line in trust.stdout.splitlines() if "not trusted:" in line]
    assert f"trust record {record}" in line
    assert "over the" in line
    assert "left as it is" in line
    done, _log = run(tmp_path, project)  # the first run records the layer: refused the same
    assert any(f"trust record {record}" in line for line in done.stdout.splitlines())
    assert record.read_bytes() == data  # nothing recorded is lost


def test_write_record_refuses_a_record_it_cannot_read_whole(tmp_path: Path) -> None:
    from dsh.hook_protocol import read_record, write_record
    from dsh.hook_protocol._trust_record import record_path
    from dsh.session import SessionError

    project = tmp_path / "p"
    hooks = [{"fingerprint": f"{i:064x}", "where": "x" * 1000} for i in range(5000)]
    write_record(project, tmp_path, {"hooks": hooks})  # its own bound covers what it writes
    data = record_path(project, tmp_path).read_bytes()
    assert len(data) > 4 << 20
    with pytest.raises(SessionError, match=f"trust record {record_path(project, tmp_path)}"):
        write_record(project, tmp_path, {"codex": [{"fingerprint": "b", "where": "codex x"}]})
    assert record_path(project, tmp_path).read_bytes() == data
    # With a bound sized to the whole configuration (as each bridge gives), it merges.
    write_record(project, tmp_path, {"codex": []}, bound=len(data) + (1 << 20))
    kept = read_record(project, tmp_path, owned=("hooks",), bound=len(data) + (1 << 20))
    assert len(kept.sections["hooks"]) == 5000
    assert kept.has("codex")


def test_a_codex_section_over_the_base_bound_stays_trusted(tmp_path: Path, project: Path) -> None:
    # 1,000 hooks that each run 64 project scripts: the section's entries (a digest per
    # script per hook) are ~5 MB, over the 4 MiB a record was read within whatever it held.
    scripts = project / "s"
    scripts.mkdir()
    for i in range(64):
        (scripts / f"{i:02}").write_text(f"echo {i}\n")
    command = "cat " + " ".join(f"s/{i:02}" for i in range(64))
    groups = [{"hooks": [{"type": "command", "command": f"{command} #{n}"}]} for n in range(1000)]
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {"Stop": groups}}))
    trust = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert trust.returncode == 0, trust.stdout + trust.stderr
    assert "not trusted:" not in trust.stdout
    assert record_file(tmp_path, project).stat().st_size > 4 << 20
    check = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Traceback" not in check.stdout + check.stderr
    assert "could not be read" not in check.stdout
    assert "unreadable" not in check.stdout
    assert "not trusted yet" not in check.stdout
