"""dsh's fingerprints of the scripts a trusted project's Codex hooks run, through the real
``dsh run`` / ``dsh hooks check`` / ``dsh hooks trust``.

Codex's ``trusted_hash`` covers a hook's command line only: a trusted
``python3 .codex/hooks/check.py`` would run whatever the script says later.
dsh records the files of the project a project hook's command names in its
own trust record (section ``codex``); a changed, added or removed one keeps
that hook from running (the others run) until trusted again. Real hook
processes, a scripted model, temporary ``CODEX_HOME``, home and data directory
(the helpers are ``test_trust_layer``'s).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hooks_codex.test_trust_layer import (
    KEYS,
    TRUST_FORMAT,
    dsh,
    layer_notices,
    make_project,
    record_file,
    run,
)

SCRIPT = "import os, sys\nopen(os.environ['MARK'], 'a').write(sys.argv[1] + '\\n')\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``test_trust_layer``'s trusted repository, with ``.codex/hooks/check.py``."""
    root = make_project(tmp_path)
    (root / ".codex" / "hooks").mkdir()
    (root / ".codex" / "hooks" / "check.py").write_text(SCRIPT)
    return root


def marks(tmp_path: Path) -> list[str]:
    """What the hooks wrote since the last call (each hook writes its name)."""
    mark = tmp_path / "mark.txt"
    found = mark.read_text().splitlines() if mark.exists() else []
    mark.unlink(missing_ok=True)
    return sorted(found)


def write_hooks(project: Path, *commands: str, event: str = "Stop") -> None:
    groups = [{"hooks": [{"type": "command", "command": c}]} for c in commands]
    (project / ".codex" / "hooks.json").write_text(json.dumps({"hooks": {event: groups}}))


def other(tmp_path: Path) -> str:
    """A hook that runs a script outside the project (``mark.py`` writes ``ran``)."""
    return f"{sys.executable} {tmp_path / 'mark.py'}"


def check(tmp_path: Path, project: Path) -> tuple[int, str]:
    done = dsh(tmp_path, "hooks", "check", "--project", str(project))
    assert "Traceback" not in done.stdout + done.stderr
    return done.returncode, done.stdout


def trust(tmp_path: Path, project: Path) -> str:
    done = dsh(tmp_path, "hooks", "trust", "--project", str(project))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


FORMS = {
    "relative": "{python} .codex/hooks/relative.py relative",
    "absolute": "{python} {project}/.codex/hooks/absolute.py absolute",
    "$PWD": '{python} "$PWD/.codex/hooks/pwd.py" pwd',
}
"""Each form of naming a project script, each naming its own script (so each form's
hook is kept from running, and trusted again, by its own script's fingerprint)."""
FORM_SCRIPTS = (".codex/hooks/relative.py", ".codex/hooks/absolute.py", ".codex/hooks/pwd.py")


def test_an_edited_script_keeps_its_trusted_hook_from_running_until_trusted_again(
    tmp_path: Path, project: Path
) -> None:
    # The three forms in one session sequence (one set of dsh runs, not one per form):
    # hook Stop[i][0] runs FORM_SCRIPTS[i] and writes its form's name.
    commands = [f.format(python=sys.executable, project=project) for f in FORMS.values()]
    for name in FORM_SCRIPTS:
        (project / name).write_text(SCRIPT)
    write_hooks(project, *commands, other(tmp_path))
    lines = trust(tmp_path, project)
    for i, name in enumerate(FORM_SCRIPTS):
        assert (
            f"codex hooks: trusted: Codex project script {name} (run by Stop[{i}][0] in"
            " .codex/hooks.json)" in lines
        )
    config = tmp_path / "home" / ".codex" / "config.toml"
    written = config.read_text()
    assert ".codex/hooks/" not in written  # only Codex's own records
    run(tmp_path, project)
    assert marks(tmp_path) == ["absolute", "pwd", "ran", "relative"]
    for name in FORM_SCRIPTS:
        (project / name).write_text(SCRIPT.replace("sys.argv[1]", "sys.argv[1] + ' edited'"))
    done, _log = run(tmp_path, project)
    assert marks(tmp_path) == ["ran"]  # the other hook still runs
    [notice] = layer_notices(done)
    assert "3 hook(s) of the Codex project layer" in notice
    for i, name in enumerate(FORM_SCRIPTS):
        assert f"Stop[{i}][0] in .codex/hooks.json runs {name} (changed since" in notice
    assert f"dsh hooks trust --project {project}" in notice
    assert "--trust-project" in notice
    assert "trusted_hash" not in done.stdout  # Codex's own trust still holds: one notice only
    code, report = check(tmp_path, project)
    assert code == 1
    assert "3 hook(s) not run (a script changed since)" in report
    assert report.count("[script changed;") == 3
    for i, name in enumerate(FORM_SCRIPTS):
        assert (
            f"untrusted: Stop[{i}][0] in .codex/hooks.json runs {name} (changed since"
            " trusted)" in report
        )
    lines = trust(tmp_path, project)
    for i, name in enumerate(FORM_SCRIPTS):
        assert (
            f"trusted: Codex project script {name} (run by Stop[{i}][0] in"
            " .codex/hooks.json, changed since last trust)" in lines
        )
    assert config.read_text() == written  # nothing new written into Codex's config
    run(tmp_path, project)
    assert marks(tmp_path) == ["absolute edited", "pwd edited", "ran", "relative edited"]
    assert check(tmp_path, project)[0] == 0


def test_the_first_run_records_the_scripts_and_bypassing_hashes_does_not_bypass_them(
    tmp_path: Path, project: Path
) -> None:
    write_hooks(project, f"{sys.executable} .codex/hooks/check.py script")
    bypass = "--dangerously-bypass-hook-trust"  # Codex's hash not recorded: bypassed
    done, _log = run(tmp_path, project, bypass)
    assert marks(tmp_path) == ["script"]
    assert layer_notices(done) == []
    record = json.loads(record_file(tmp_path, project).read_text())
    [entry] = [e for e in record["codex"] if e["where"].startswith("codex hook ")]
    assert entry["where"] == "codex hook Stop[0][0] in .codex/hooks.json"
    assert list(json.loads(entry["files"])) == [".codex/hooks/check.py"]
    (project / ".codex" / "hooks" / "check.py").write_text(SCRIPT + "# edited\n")
    done, _log = run(tmp_path, project, bypass)
    assert marks(tmp_path) == []
    [notice] = layer_notices(done)
    assert ".codex/hooks/check.py (changed since trusted)" in notice
    done, _log = run(tmp_path, project, bypass, "--trust-project")  # accepting the prompt
    assert marks(tmp_path) == ["script"]
    assert "trusted 1 project hook(s)" in done.stdout  # Codex's hash
    assert "2 project file(s) of" in done.stdout  # .codex/hooks.json and the script it runs
    assert layer_notices(done) == []


def test_a_script_added_or_removed_since_trusted_keeps_its_hook_from_running(
    tmp_path: Path, project: Path
) -> None:
    # mark.py ignores its argument, so the hook runs whether the file it names exists or not.
    write_hooks(project, f"{other(tmp_path)} .codex/hooks/later.py")
    trust(tmp_path, project)
    run(tmp_path, project)
    assert marks(tmp_path) == ["ran"]  # a missing file is not in the fingerprint, as Claude's
    later = project / ".codex" / "hooks" / "later.py"
    later.write_text("print('new')\n")
    done, _log = run(tmp_path, project)
    assert marks(tmp_path) == []
    [notice] = layer_notices(done)
    assert ".codex/hooks/later.py (new since trusted)" in notice
    assert ".codex/hooks/later.py (new since trusted)" in check(tmp_path, project)[1]
    lines = trust(tmp_path, project)
    assert "script .codex/hooks/later.py (run by Stop[0][0] in .codex/hooks.json, new since" in (
        lines
    )
    run(tmp_path, project)
    assert marks(tmp_path) == ["ran"]
    later.unlink()
    done, _log = run(tmp_path, project)
    assert marks(tmp_path) == []
    [notice] = layer_notices(done)
    assert ".codex/hooks/later.py (removed since trusted)" in notice
    lines = trust(tmp_path, project)
    assert "forgot: Codex project script .codex/hooks/later.py (run by Stop[0][0]" in lines
    run(tmp_path, project)
    assert marks(tmp_path) == ["ran"]


def test_files_outside_the_project_and_user_hooks_are_not_fingerprinted(
    tmp_path: Path, project: Path
) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(SCRIPT)
    (project / ".codex" / "hooks" / "link.py").symlink_to(outside)
    write_hooks(project, f"{sys.executable} .codex/hooks/link.py linked", other(tmp_path))
    home = tmp_path / "home" / ".codex"
    user_hook = {"hooks": [{"type": "command", "command": f"{sys.executable} user.py user"}]}
    (home / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [user_hook]}}))
    (project / "user.py").write_text(SCRIPT)  # a project file a user-level hook names
    trust(tmp_path, project)
    run(tmp_path, project)
    assert marks(tmp_path) == ["linked", "ran", "user"]
    outside.write_text(SCRIPT.replace("sys.argv[1]", "'outside edited'"))
    (tmp_path / "mark.py").write_text(SCRIPT.replace("sys.argv[1]", "'mark edited'"))
    (project / "user.py").write_text(SCRIPT.replace("sys.argv[1]", "'user edited'"))
    done, _log = run(tmp_path, project)
    assert marks(tmp_path) == ["mark edited", "outside edited", "user edited"]
    assert layer_notices(done) == []
    assert check(tmp_path, project)[0] == 0


def test_the_claude_side_finds_the_files_a_command_names_as_before(tmp_path: Path) -> None:
    from dsh.hook_protocol import named_files
    from dsh.hook_protocol._trust_record import file_digest

    project = tmp_path / "p"
    plugin = tmp_path / "plugin"
    (project / "h").mkdir(parents=True)
    plugin.mkdir()
    (project / "h" / "a.py").write_text("a")
    (plugin / "b.sh").write_text("b")
    (tmp_path / "outside.py").write_text("c")
    command = 'python3 "$CLAUDE_PROJECT_DIR"/h/a.py ${CLAUDE_PLUGIN_ROOT}/b.sh ../outside.py .'
    found = named_files(
        command,
        project,
        args=("h/a.py", "missing.py"),
        variables={"CLAUDE_PROJECT_DIR": str(project), "CLAUDE_PLUGIN_ROOT": str(plugin)},
        roots=[("plugin:", plugin)],
    )
    assert found == {
        "h/a.py": file_digest(project / "h" / "a.py"),
        "plugin:b.sh": file_digest(plugin / "b.sh"),
    }


@settings(max_examples=200)
@given(st.text(max_size=200), st.lists(st.text(max_size=20), max_size=4))
def test_any_command_is_looked_at_without_raising(command: str, args: list[str]) -> None:
    from dsh.hook_protocol import named_files

    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch)
        (project / "x.py").write_text("x")
        found = named_files(command, project, args=args, variables={"PWD": scratch})
        assert set(found) <= {"x.py"}


@settings(max_examples=200)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from((*KEYS, "files")),
            st.text(max_size=30) | st.just("codex hook Stop[0][0] in .codex/hooks.json"),
        ),
        max_size=4,
    )
)
def test_any_hook_entries_in_the_record_are_read_without_raising(entries: list[object]) -> None:
    from dsh.hook_protocol._trust_record import record_path
    from dsh.hooks.codex import load_codex_catalog
    from dsh.hooks.codex.trust._layer import review_layer

    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "p"
        (project / ".codex").mkdir(parents=True)
        (project / "s.py").write_text("s")
        write_hooks(project, "python3 s.py")
        trust_dir = Path(scratch) / "trust"
        trust_dir.mkdir()
        record = {"format": TRUST_FORMAT, "codex": entries}
        record_path(project, trust_dir).write_text(json.dumps(record))
        home = Path(scratch) / "h"
        catalog = load_codex_catalog(project, home=home, system_dir=None, trust_project=True)
        review = review_layer(project, [], trust_dir).with_hooks(catalog.hooks)
        [hook] = review.hooks
        place = "codex hook Stop[0][0] in .codex/hooks.json"
        known = any(
            isinstance(e, dict) and "fingerprint" in e and e.get("where") == place for e in entries
        )
        assert hook.state == ("changed since trusted" if known else "not trusted yet")
        assert hook.describe().startswith("Stop[0][0] in .codex/hooks.json runs s.py (")
