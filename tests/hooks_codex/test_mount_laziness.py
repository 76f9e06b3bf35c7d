"""What ``dsh run --hooks codex`` imports of the Codex bridge: what declaring and firing needs.

One real process through the console script's ``main()``, with a user ``config.toml`` whose
trusted UserPromptSubmit hook blocks the prompt (``bench_startup``'s Codex case): just before
the process exits, the probe writes the names in ``sys.modules`` to a file. Pins the bridge's
laziness (not its speed: that is benchmarks/bench_startup.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from dsh.hooks.codex import CodexProfile
from tests.cli.test_startup_laziness import _probed
from tests.models.chat_server import serving

# Not for a prompt hook's firing: the coverage page and the support table, the project layer's
# trust review (the project is not trusted), the plugin reader (no plugin is listed), the tool
# and model-request handler groups, a left-out hook's record, a spilled text, exec_command's
# spawn and sandbox (the model is never asked), running one payload by hand.
_NOT_FOR_A_PROMPT_HOOK = (
    "dsh.hooks.codex._report",
    "dsh.hooks.codex._why",
    "dsh.hooks.codex.events._support",
    "dsh.hooks.codex.trust._layer",
    "dsh.hooks.codex.trust._scripts",
    "dsh.hooks.codex.config._plugins",
    "dsh.hooks.codex.config._selection",
    "dsh.hooks.codex.runtime._tool_events",
    "dsh.hooks.codex.runtime._model_events",
    "dsh.hooks.codex.runtime._spill",
    "dsh.hooks.codex.runtime._notify",
    "dsh.hooks.codex.runtime._trial",
    "dsh.tools._sandbox",
    "dsh.tools.builtin._shell",
)


def _codex_home(tmp_path: Path, project: Path) -> Path:
    home = tmp_path / "codex-home"
    home.mkdir()
    block = json.dumps({"decision": "block", "reason": "blocked by the test"})
    (home / "config.toml").write_text(
        '[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\ntype = "command"\n'
        f"command = {json.dumps(f'echo {block!r}')}\n"
    )
    assert CodexProfile(home=home, system_dir=None).trust(project)  # the hook's trusted_hash
    return home


def test_a_blocking_prompt_hook_loads_only_what_mounting_and_firing_need(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = _codex_home(tmp_path, project)
    with serving() as server:
        run = ["run", "--hooks", "codex", "--model", "m", "--base-url", server.url]
        done, loaded = _probed(
            tmp_path, *run, "--project", str(project), "go",
            env={"DSH_API_KEY": "k", "CODEX_HOME": str(home)},
        )  # fmt: skip
        assert server.seen == []  # the prompt never reached the model
    assert "blocked by the test" in done.stdout + done.stderr
    # The hook was declared, fired and its JSON answer read by Codex's schema.
    fired = ("dsh.hooks.codex.runtime._lifecycle", "dsh.hooks.codex.answers._decode", "msgspec")
    assert set(fired) <= loaded
    assert sorted(loaded & set(_NOT_FOR_A_PROMPT_HOOK)) == []
