"""``--profile NAME`` on the ``dsh hooks`` commands and ``dsh config show``, as on ``dsh run``.

Codex's profile file ``$CODEX_HOME/NAME.config.toml`` is a layer the Codex bridge stacks: a
hook it declares is listed by ``dsh hooks check --profile NAME`` (not without the flag),
explained by ``dsh hooks why``, trusted by ``dsh hooks trust --profile NAME`` and then runs
in ``dsh run --profile NAME`` (a real hook process, a scripted model). A name ``dsh run``
refuses is refused by each command in the same words.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.support import run_dsh

HOOK = """\
import json, sys
payload = json.load(sys.stdin)
with open(sys.argv[1], "a") as out:
    out.write(payload["prompt"] + "\\n")
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".codex").mkdir(parents=True)  # the Codex bridge is what the project has
    home = tmp_path / "codex-home"
    home.mkdir()
    (tmp_path / "hook.py").write_text(HOOK)
    command = f"python3 {tmp_path / 'hook.py'} {tmp_path / 'prompts.txt'}"
    (home / "p.config.toml").write_text(
        "[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
        f'type = "command"\ncommand = {json.dumps(command)}\n'
    )
    return root


def dsh(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(project.parent), "CODEX_HOME": str(project.parent / "codex-home")}
    done = run_dsh(*args, cwd=project, env=env)
    assert "Traceback" not in done.stderr
    return done


def test_a_profiles_hook_is_checked_trusted_and_run_with_the_flag(project: Path) -> None:
    source = project.parent / "codex-home" / "p.config.toml"
    plain = dsh(project, "hooks", "check")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert str(source) not in plain.stdout

    checked = dsh(project, "hooks", "check", "--profile", "p")
    assert checked.returncode == 1  # an untrusted hook is diagnosed in the Codex section
    assert f"  source: {source}" in checked.stdout
    assert f"UserPromptSubmit[0][0] in {source}: 'python3 " in checked.stdout
    assert f"`dsh hooks trust --project {project} --profile p`" in checked.stdout

    why = dsh(project, "hooks", "why", "UserPromptSubmit", "--prompt", "x", "--profile", "p")
    assert f"skipped  {source}: UserPromptSubmit[0][0]" in why.stdout, why.stderr

    script = project.parent / "script.json"
    script.write_text(json.dumps({"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}))
    model = f"scripted:{script}"
    prompts = project.parent / "prompts.txt"
    before = dsh(project, "run", "--profile", "p", "--model", model, "first")
    assert before.returncode == 0, before.stderr
    assert not prompts.exists()  # not trusted yet: left out

    trusted = dsh(project, "hooks", "trust", "--profile", "p")
    assert trusted.returncode == 0, trusted.stderr
    assert f"codex hooks: trusted {source}:user_prompt_submit:0:0" in trusted.stdout

    after = dsh(project, "hooks", "check", "--profile", "p")
    assert after.returncode == 0, after.stdout
    assert "Untrusted" not in after.stdout
    ran = dsh(project, "run", "--profile", "p", "--model", model, "second")
    assert ran.returncode == 0, ran.stderr
    assert prompts.read_text() == "second\n"  # the hook process ran, with the prompt
    dsh(project, "run", "--model", model, "third")  # without the flag: not stacked
    assert prompts.read_text() == "second\n"


def test_a_profiles_hooks_mount_the_codex_bridge_in_a_project_without_codex_folder(
    project: Path,
) -> None:
    # The user's own profile, like their config.toml, mounts the Codex bridge in any project
    # (beside Claude Code's): `trust --profile p` then trusts its hook, and a run under the
    # Codex profile (`--hooks codex`: the project has no .codex/) runs it.
    (project / ".codex").rmdir()
    source = project.parent / "codex-home" / "p.config.toml"
    assert str(source) not in dsh(project, "hooks", "check").stdout
    assert f"  source: {source}" in dsh(project, "hooks", "check", "--profile", "p").stdout
    trusted = dsh(project, "hooks", "trust", "--profile", "p")
    assert f"codex hooks: trusted {source}:user_prompt_submit:0:0" in trusted.stdout
    script = project.parent / "script.json"
    script.write_text(json.dumps({"rules": [{"responses": [[{"type": "text", "text": "ok"}]]}]}))
    model = f"scripted:{script}"
    ran = dsh(project, "run", "--hooks", "codex", "--profile", "p", "--model", model, "third")
    assert ran.returncode == 0, ran.stderr
    assert (project.parent / "prompts.txt").read_text() == "third\n"


def test_config_show_chooses_the_provider_with_the_profile(project: Path) -> None:
    (project.parent / "codex-home" / "p.config.toml").write_text(
        'model = "gpt-p"\nmodel_provider = "mine"\n[model_providers.mine]\nname = "mine"\n'
        'base_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n'
    )
    assert "model provider: (none" in dsh(project, "config", "show").stdout
    shown = dsh(project, "config", "show", "--profile", "p").stdout
    assert "model provider: responses for 'gpt-p'" in shown
    assert "p.config.toml" in shown


@pytest.mark.parametrize(
    "command",
    [("run", "hi"), ("hooks", "check"), ("hooks", "trust"), ("hooks", "why", "Stop"),
     ("config", "show")],
)  # fmt: skip
def test_a_bad_name_is_refused_as_run_refuses_it(project: Path, command: tuple[str, ...]) -> None:
    done = dsh(project, *command, "--profile", "../p")
    assert done.returncode == 2
    assert done.stderr == "dsh: invalid --profile value `../p`; pass a plain name such as `work`\n"
    assert done.stdout == ""
    assert not (project.parent / "codex-home" / "config.toml").exists()  # nothing trusted
