"""``dsh.cli._early``: the cheap guess that has dsh's namespace made before a run reads its
MCP and hook configuration properly: a server or a hook named anywhere it may be declared
says yes, files that declare none say no; a hooked run uses the namespace made early, and a
wrong guess changes nothing a user sees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dsh.cli._early import hooks_likely, servers_likely
from tests.cli.test_cli import write_script
from tests.hardening.test_containment import gone, namespace_refused

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return tmp_path / "home"


def _likely(home: Path, mcp_config: tuple[str, ...] = (), **env: str) -> bool:
    return servers_likely(home.parent / "project", mcp_config, {"HOME": str(home), **env})


def test_nothing_configured_is_no(home: Path) -> None:
    assert not _likely(home)


def test_a_mcp_config_flag_or_a_project_file_is_yes(home: Path) -> None:
    assert _likely(home, ("servers.json",))
    (home.parent / "project" / ".mcp.json").write_text("{}")
    assert _likely(home)


def test_claude_json_with_servers_is_yes_and_with_empty_tables_no(home: Path) -> None:
    config = home / ".claude.json"
    config.write_text(json.dumps({"mcpServers": {}, "projects": {"/p": {"mcpServers": {}}}}))
    assert not _likely(home)
    config.write_text(json.dumps({"projects": {"/p": {"mcpServers": {"s": {"command": "x"}}}}}))
    assert _likely(home)
    moved = home.parent / "claude"
    moved.mkdir()
    config.rename(moved / ".claude.json")
    assert not _likely(home)
    assert _likely(home, CLAUDE_CONFIG_DIR=str(moved))


def test_a_codex_mcp_servers_table_is_yes(home: Path) -> None:
    codex = home / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('model = "m"\n# [mcp_servers.x]\n')
    assert not _likely(home)
    (codex / "config.toml").write_text('model = "m"\n[mcp_servers.docs]\ncommand = "x"\n')
    assert _likely(home)
    project = home.parent / "project" / ".codex"
    project.mkdir()
    (project / "config.toml").write_text("[mcp_servers.y]\nurl = 'http://h'\n")
    assert _likely(home, CODEX_HOME=str(home.parent / "elsewhere"))


def _hooks(home: Path, choice: str | None = None, **flags: Any) -> bool:
    return hooks_likely(home.parent / "project", {"HOME": str(home)}, choice=choice, **flags)


@pytest.fixture
def no_system(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The system's managed Claude Code settings and Codex layer: none (folders of the test)."""
    from dsh.cli import _early

    monkeypatch.setattr(_early, "_MANAGED_CLAUDE", tmp_path / "etc" / "managed-settings.json")
    monkeypatch.setattr(_early, "_SYSTEM_CODEX", tmp_path / "etc" / "codex")


@pytest.mark.usefixtures("no_system")
def test_claude_settings_with_hooks_or_plugins_are_yes_and_without_no(home: Path) -> None:
    assert not _hooks(home)
    user = home / ".claude"
    user.mkdir()
    (user / "settings.json").write_text(json.dumps({"hooks": {}, "model": "m"}))
    assert not _hooks(home)
    assert _hooks(home, settings_files=('{"model": "m"}',))  # may hold hooks: not read here
    assert _hooks(home, plugin_dirs=(home / "plugin",))
    (user / "settings.json").write_text(json.dumps({"hooks": {"Stop": []}}))
    assert _hooks(home)
    assert not _hooks(home, "codex")
    (user / "settings.json").unlink()
    local = home.parent / "project" / ".claude"
    local.mkdir()
    (local / "settings.local.json").write_text(json.dumps({"enabledPlugins": {"p@m": True}}))
    assert _hooks(home)


@pytest.mark.usefixtures("no_system")
def test_codex_hooks_in_a_layer_are_yes(home: Path, tmp_path: Path) -> None:
    codex = home / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('model = "m"\n# [hooks]\n[tools]\nhooks_x = 1\n')
    assert not _hooks(home)
    (codex / "config.toml").write_text("[[hooks.UserPromptSubmit]]\n")
    assert _hooks(home)
    assert not _hooks(home, "claude")
    (codex / "config.toml").unlink()
    (codex / "hooks.json").write_text("{}")
    assert _hooks(home)
    (codex / "hooks.json").unlink()
    (home.parent / "project" / ".codex").mkdir()
    (home.parent / "project" / ".codex" / "hooks.json").write_text("{}")
    assert _hooks(home, "both")
    (tmp_path / "etc" / "codex").mkdir(parents=True)
    (tmp_path / "etc" / "codex" / "config.toml").write_text("[hooks]\n")
    (home.parent / "project" / ".codex" / "hooks.json").unlink()
    assert _hooks(home)


def test_a_chosen_process_containment_leaves_the_namespace_to_the_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``process_containment`` in dsh's own configuration (``"marks"``: no namespace at all)
    is read by the run; nothing is prepared before it."""
    from dsh.base import _containment
    from dsh.cli import _early

    started: list[bool] = []
    monkeypatch.setattr(_containment, "prepare_containment", lambda: started.append(True))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DSH_CONFIG_DIR", str(home / "dsh"))
    project = home.parent / "project"
    (project / ".dsh").mkdir()
    (project / ".dsh" / "config.toml").write_text('process_containment = "marks"\n')
    _early.prepare_for_processes(project, ("servers.json",))
    assert started == []
    (project / ".dsh" / "config.toml").unlink()
    (home / "dsh").mkdir()
    (home / "dsh" / "config.toml").write_text('model = "m"\n')
    _early.prepare_for_processes(project, ("servers.json",))
    assert started == [True]


# The real main() with the watchdog's start recorded (whether the run's modules were imported
# by then, and its pid) and, with GUESS set, the hooks guess forced: yes or no.
_PROBE = """
import json, os, sys
import dsh.cli._main as entry
from dsh.base import _warden
from dsh.cli import _early
starts = []
start = _warden.Warden.start_watchdog
def spy(self):
    early = "dsh.cli._run_command" not in sys.modules
    start(self)
    starts.append({"early": early, "pid": self.watchdog.pid if self.watchdog else None})
_warden.Warden.start_watchdog = spy
if os.environ.get("GUESS"):
    _early.hooks_likely = lambda *args, **kwargs: os.environ["GUESS"] == "yes"
def _exit(status):
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump({"starts": starts, "pidns": os.readlink("/proc/self/ns/pid")}, out)
    os._exit(status)
entry._exit = _exit
sys.argv = ["dsh", *sys.argv[1:]]
entry.main()
"""


def _probe_run(root: Path, name: str, **env: str) -> tuple[subprocess.CompletedProcess[str], Any]:
    """``dsh run`` of a one-reply scripted turn in ``root``'s project, through the probe."""
    out = root / f"{name}.json"
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DSH_", "CLAUDE_"))}
    environ.pop("CODEX_HOME", None)
    environ.pop("XDG_CONFIG_HOME", None)
    environ |= {"HOME": str(root / "home"), "DSH_DATA_DIR": str(root / "data"), "NO_COLOR": "1"}
    environ |= {"PROBE_OUT": str(out), **env}
    script = write_script(root / "script.json", [[{"type": "text", "text": "hello there"}]])
    args = ["run", "say hi", "--model", f"scripted:{script}", "--project", str(root / "project")]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args, "--session-dir", str(root / name)],
        cwd=root,
        env=environ,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done, json.loads(out.read_text())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return tmp_path


@linux
def test_a_hooked_run_has_the_namespace_made_before_its_imports(root: Path) -> None:
    """A UserPromptSubmit hook in the user's settings: the watchdog starts once, before the
    run's modules are imported, and the hook runs in the namespace it made."""
    seen = root / "hook-pidns"
    hook = {"type": "command", "command": f"readlink /proc/self/ns/pid > {seen}"}
    settings = {"hooks": {"UserPromptSubmit": [{"hooks": [hook]}]}}
    (root / "home" / ".claude").mkdir()
    (root / "home" / ".claude" / "settings.json").write_text(json.dumps(settings))
    done, probe = _probe_run(root, "hooked")
    assert done.returncode == 0, done.stderr
    assert "hello there" in done.stdout
    [start] = probe["starts"]
    assert start["early"]
    if namespace_refused():
        return  # the kernel gives dsh no namespace here: marks, from the same early start
    assert seen.read_text().strip() != probe["pidns"]  # the namespace's own pid numbering


@linux
def test_a_wrong_guess_changes_nothing_a_user_sees(root: Path) -> None:
    """No hook anywhere, the guess forced to yes: the same output, exit code and session log
    as with no guess, and the watchdog it started is gone once dsh is."""
    guessed, probe_yes = _probe_run(root, "yes", GUESS="yes")
    plain, probe_no = _probe_run(root, "no", GUESS="no")
    assert probe_no["starts"] == []
    [start] = probe_yes["starts"]
    assert start["early"]
    assert start["pid"] is not None
    assert gone([start["pid"]])
    assert guessed.returncode == 0, guessed.stderr
    assert _as_seen(guessed, root / "yes") == _as_seen(plain, root / "no")


def _as_seen(done: subprocess.CompletedProcess[str], sessions: Path) -> tuple[object, ...]:
    """What the user sees of a run (its session's id and folder made alike) and its log's
    event types."""
    [log] = sessions.glob("*.jsonl")
    types = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    alike = [
        text.replace(str(sessions), "SESSIONS").replace(log.stem, "ID")
        for text in (done.stdout, done.stderr)
    ]
    return done.returncode, *alike, types


def test_process_containment_in_the_environment_leaves_the_namespace_to_the_run(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dsh.base import _containment
    from dsh.cli import _early

    started: list[bool] = []
    monkeypatch.setattr(_containment, "prepare_containment", lambda: started.append(True))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DSH_CONFIG_DIR", str(home / "dsh"))
    monkeypatch.setenv("dsh_process_containment", "marks")
    _early.prepare_for_processes(home.parent / "project", ("servers.json",))
    assert started == []
    monkeypatch.setenv("dsh_process_containment", "namespace")
    _early.prepare_for_processes(home.parent / "project", ("servers.json",))
    assert started == [True]
