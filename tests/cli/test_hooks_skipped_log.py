"""``hook/skipped`` for every event of the Claude Code bridge: what ``dsh log ID --hooks --why``
shows for the handlers a real session ran without (not trusted, matcher, deduplicated, a file
turned off), with the reasons ``dsh hooks why`` gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dsh.hooks.claude import load_catalog
from dsh.hooks.claude.trust._left_out import left_out_selections
from dsh.hooks.codex import CodexProfile
from tests.cli.support import run_dsh
from tests.cli.test_hooks_why import dsh, hook, project, settings

__all__ = ["project"]


def session_why(project: Path, *run: str) -> list[str]:
    """Run one prompt (the scripted model answers ``ok``), then ``dsh log --hooks --why``."""
    script = project.parent / "script.json"
    replies = [[{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = project.parent / "sessions"
    ran = dsh(
        project, "run", "hi", "--model", f"scripted:{script}", "--session-dir", str(sessions), *run
    )
    assert ran.returncode == 0, ran.stderr
    (log,) = sessions.glob("*.jsonl")
    env = {"HOME": str(project.parent / "home")}
    shown = run_dsh(
        "log", log.stem, "--session-dir", str(sessions), "--hooks", "--why", cwd=project, env=env
    )
    assert shown.returncode == 0, shown.stderr
    return [line.strip() for line in shown.stdout.splitlines()]


def test_untrusted_matcher_and_deduplicated_at_lifecycle_events(project: Path) -> None:
    settings(
        project,
        {
            "SessionStart": [
                {"matcher": "resume", "hooks": [hook("echo r")]},
                {"hooks": [hook("echo s")]},
            ],
            "UserPromptSubmit": [{"hooks": [hook("echo u")]}, {"hooks": [hook("echo u")]}],
        },
    )
    assert dsh(project, "hooks", "trust").returncode == 0
    settings(
        project,
        {
            "SessionStart": [
                {"matcher": "resume", "hooks": [hook("echo r")]},
                {"hooks": [hook("echo s")]},
            ],
            "UserPromptSubmit": [
                {"hooks": [hook("echo u")]},
                {"hooks": [hook("echo u")]},
                {"hooks": [hook("echo v")]},
            ],
        },
    )
    lines = session_why(project, "--skip-untrusted-hooks")
    print("\n".join(lines))
    assert "matcher: its matcher 'resume' does not select source 'startup'" in lines
    dedup = "deduplicated: an identical command runs already ("
    (same,) = [line for line in lines if line.startswith(dedup)]
    assert same.endswith("/.claude/settings.json: UserPromptSubmit[0][0])")
    untrusted = lines.index(
        "untrusted: project hook not trusted yet (`dsh hooks trust` trusts it as it is)"
    )
    assert lines[untrusted - 1].endswith("UserPromptSubmit[2][0]: echo v")
    assert sum("hook/skipped" in line for line in lines) == 2  # once each, nothing when all run


@pytest.mark.parametrize(
    ("managed", "code", "reason"),
    [
        (
            {},
            "disabled",
            "hooks not loaded: `disableAllHooks` is true in ",
        ),
        ({"allowManagedHooksOnly": True}, "policy", "managed settings set `allowManagedHooksOnly`"),
    ],
)
def test_a_file_turned_off_or_left_out_by_policy(
    project: Path, managed: dict[str, Any], code: str, reason: str
) -> None:
    """What a run's catalog never has is logged for any event (``"*"``) at its first firing."""
    path = project.parent / "managed-settings.json"
    stop = {"Stop": [{"hooks": [hook("echo m")]}]}
    path.write_text(json.dumps({"hooks": stop, **managed}))
    settings(project, {"Stop": [{"hooks": [hook("echo p")]}]}, disableAllHooks=code == "disabled")
    catalog = load_catalog(project, home=project.parent / "home", managed_path=path, env={})
    assert [h.declared_command for h in catalog.for_event("Stop")] == ["echo m"]
    (selection,) = left_out_selections(catalog, None)["*"]
    assert (selection.code, selection.command) == (code, "(every hook in it)")
    assert reason in selection.reason


def test_codex_untrusted_and_matcher(project: Path) -> None:
    codex_home = project.parent / "home" / ".codex"
    codex_home.mkdir(parents=True)

    def group(command: str, matcher: str | None = None) -> dict[str, Any]:
        return {"hooks": [{"type": "command", "command": command}]} | (
            {"matcher": matcher} if matcher else {}
        )

    def declare(*prompt: str) -> None:
        hooks = {
            "SessionStart": [group("echo r", "^resume$"), group("echo s")],
            "UserPromptSubmit": [group(c) for c in prompt],
        }
        (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))

    declare("echo u")
    profile = CodexProfile(home=codex_home, system_dir=None, trust_dir=project.parent / "trust")
    assert list(profile.trust(project))
    declare("echo u", "echo v")
    lines = session_why(project, "--hooks", "codex")
    print("\n".join(lines))
    assert "matcher: its matcher '^resume$' does not select source 'startup'" in lines
    untrusted = [i for i, line in enumerate(lines) if line.startswith("untrusted: not trusted")]
    assert len(untrusted) == 1
    assert lines[untrusted[0] - 1].endswith("UserPromptSubmit[1][0]: echo v")
    assert sum("hook/skipped" in line for line in lines) == 2


def test_an_event_whose_every_handler_is_left_out_is_recorded(project: Path) -> None:
    """SessionStart and SessionEnd fire with none of their handlers: each is a ``hook/skipped``
    (the matcher's reason, and the left-out ones the first time), though no hook ran."""
    settings(
        project,
        {
            "SessionStart": [{"matcher": "resume", "hooks": [hook("echo r")]}],
            "SessionEnd": [{"matcher": "logout", "hooks": [hook("echo bye")]}],
        },
    )
    assert dsh(project, "hooks", "trust").returncode == 0
    lines = session_why(project)
    print("\n".join(lines))
    assert "matcher: its matcher 'resume' does not select source 'startup'" in lines
    assert "matcher: its matcher 'logout' does not select reason 'other'" in lines
    assert not any(line.startswith("hook/result") for line in lines)
    assert sum("hook/skipped" in line for line in lines) == 2


def test_an_event_whose_every_handler_is_not_trusted_is_recorded_at_the_start(
    project: Path,
) -> None:
    stop = {"Stop": [{"hooks": [hook("echo stopped")]}]}
    settings(project, stop)
    assert dsh(project, "hooks", "trust").returncode == 0
    settings(project, {**stop, "PreCompact": [{"hooks": [hook("echo compacting")]}]})
    lines = session_why(project, "--skip-untrusted-hooks")
    print("\n".join(lines))
    (skipped,) = [line for line in lines if "hook/skipped" in line]
    assert skipped.endswith("PreCompact: 1 handler(s) did not run")
    assert lines[lines.index(skipped) + 2] == (
        "untrusted: project hook not trusted yet (`dsh hooks trust` trusts it as it is)"
    )


def test_codex_a_firing_whose_matchers_select_none_is_recorded(project: Path) -> None:
    """Under the Codex bridge, SessionStart fires and none of its handlers runs (a matcher,
    one not trusted): a ``hook/skipped`` says why for each, as the Claude bridge does."""
    codex_home = project.parent / "home" / ".codex"
    codex_home.mkdir(parents=True)

    def declare(*start: dict[str, Any]) -> None:
        hooks = {"SessionStart": list(start)}
        (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}))

    resume = {"matcher": "^resume$", "hooks": [{"type": "command", "command": "echo r"}]}
    declare(resume)
    profile = CodexProfile(home=codex_home, system_dir=None, trust_dir=project.parent / "trust")
    assert list(profile.trust(project))
    declare(resume, {"hooks": [{"type": "command", "command": "echo s"}]})
    lines = session_why(project, "--hooks", "codex")
    print("\n".join(lines))
    (skipped,) = [line for line in lines if "hook/skipped" in line]
    assert skipped.endswith("SessionStart: 2 handler(s) did not run")
    at = lines.index(skipped)
    assert lines[at + 1].endswith("SessionStart[0][0]: echo r")
    assert lines[at + 2] == "matcher: its matcher '^resume$' does not select source 'startup'"
    assert lines[at + 3].endswith("SessionStart[1][0]: echo s")
    assert lines[at + 4].startswith("untrusted: not trusted in Codex's config.toml")
    assert not any("hook/result" in line for line in lines)


def test_codex_an_event_whose_every_handler_is_untrusted_is_recorded(project: Path) -> None:
    """Under the Codex bridge, Stop's only handler is not trusted: it never fires, and the
    log's ``hook/skipped`` at the session's start says why, as the Claude bridge's does."""
    codex_home = project.parent / "home" / ".codex"
    codex_home.mkdir(parents=True)
    profile = CodexProfile(home=codex_home, system_dir=None, trust_dir=project.parent / "trust")
    assert list(profile.trust(project)) == []  # nothing declared yet: the layer is recorded
    stop = {"hooks": [{"type": "command", "command": "echo stopped"}]}
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [stop]}}))
    lines = session_why(project, "--hooks", "codex")
    print("\n".join(lines))
    (skipped,) = [line for line in lines if "hook/skipped" in line]
    assert skipped.endswith("Stop: 1 handler(s) did not run")
    at = lines.index(skipped)
    assert lines[at + 1].endswith("Stop[0][0]: echo stopped")
    assert lines[at + 2].startswith("untrusted: not trusted in Codex's config.toml")
    assert not any("hook/result" in line for line in lines)


def test_a_run_that_loads_none_of_the_projects_hooks_records_why(project: Path) -> None:
    """Every handler left out (not trusted, with ``--skip-untrusted-hooks``): the bridge is
    not mounted, and the log still says why each did not run, at the session's start."""
    settings(project, {"Stop": [{"hooks": [hook("echo stopped")]}]})
    lines = session_why(project, "--skip-untrusted-hooks")
    print("\n".join(lines))
    (skipped,) = [line for line in lines if "hook/skipped" in line]
    assert skipped.endswith("Stop: 1 handler(s) did not run")
    at = lines.index(skipped)
    assert lines[at + 1].endswith("/.claude/settings.json: Stop[0][0]: echo stopped")
    assert lines[at + 2] == (
        "untrusted: project hook not trusted yet (`dsh hooks trust` trusts it as it is)"
    )
    assert not any("hook/result" in line for line in lines)


def test_a_run_whose_every_hook_file_is_turned_off_records_why(project: Path) -> None:
    settings(project, {"Stop": [{"hooks": [hook("echo stopped")]}]}, disableAllHooks=True)
    lines = session_why(project, "--trust-project")
    print("\n".join(lines))
    (skipped,) = [line for line in lines if "hook/skipped" in line]
    assert skipped.endswith("every event: 1 handler(s) did not run")
    at = lines.index(skipped)
    assert lines[at + 1].endswith("/.claude/settings.json: (every hook in it)")
    assert lines[at + 2].startswith("disabled: hooks not loaded: `disableAllHooks` is true in ")


def skipped_in_log(project: Path, *flags: str) -> list[str]:
    """Run a prompt, then resume the session with ``/compact``: each start's ``hook/skipped``
    events in the one log, by their hook event."""
    script = project.parent / "script.json"
    replies = [[{"type": "text", "text": "ok"}]]
    script.write_text(json.dumps({"anthropic": {"rules": [{"responses": replies}]}}))
    sessions = project.parent / "sessions"
    base = ["--model", f"scripted:{script}", "--session-dir", str(sessions), *flags]
    assert dsh(project, "run", "hi", *base).returncode == 0
    (log,) = sessions.glob("*.jsonl")
    done = dsh(project, "run", "--resume", log.stem, *base, "--", "/compact")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert "compaction/end" in [e["type"] for e in events]
    return [e["hook_event"] for e in events if e["type"] == "hook/skipped"]


@pytest.mark.parametrize("mounted", [True, False])
def test_a_left_out_event_is_logged_once_per_session(project: Path, mounted: bool) -> None:
    """An event whose every handler is left out is recorded at the session's start, and not
    again at the start after a compaction nor at a resumed session's start (its log has
    that record): with the bridge mounted (``_never_fire``) and without (``LeftOutLog``)."""
    stop = {"Stop": [{"hooks": [hook("echo stopped")]}]} if mounted else {}
    settings(project, stop)
    assert dsh(project, "hooks", "trust").returncode == 0
    settings(project, {**stop, "Notification": [{"hooks": [hook("echo note")]}]})
    assert skipped_in_log(project, "--skip-untrusted-hooks") == ["Notification"]


def test_codex_a_left_out_event_is_logged_once_per_session(project: Path) -> None:
    codex_home = project.parent / "home" / ".codex"
    codex_home.mkdir(parents=True)
    stop = {"hooks": [{"type": "command", "command": "echo stopped"}]}
    (codex_home / "hooks.json").write_text(json.dumps({"hooks": {"Stop": [stop]}}))
    assert skipped_in_log(project, "--hooks", "codex") == ["Stop"]
