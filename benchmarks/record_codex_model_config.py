"""Record which model and provider the real Codex 0.171 takes from its config layers (issue 29).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_model_config.py OUT.json

Runs ``codex exec`` against the loopback Responses mock once per case: a user
``config.toml`` (two providers, ``user`` and ``other``, told apart by their base URL's
path), optionally a profile file (``$CODEX_HOME/NAME.config.toml``), legacy
``profile``/``[profiles.NAME]`` tables, a project ``.codex/config.toml`` (trusted or
not) and ``--profile``/``-m`` flags. Keeps the model each request named, the path it
went to (the provider), the exit code and Codex's warnings. Never run by ``make test``;
its output is ``tests/fixtures/codex_model_config.json``, which
``tests/wire/test_codex_config_layers.py`` replays through ``dsh``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

from _codex_side import API_KEY_ENV, codex_env, codex_path, exec_flags
from _responses_mock import ResponsesMock
from _side_cases import Reply, SideCase

from dsh.hooks.codex.config._trust import toml_string

USER: Final = 'model = "m-user"\nmodel_provider = "user"'
"""The user layer's own model settings, first in every case's ``config.toml``."""


def providers_toml(url: str) -> str:
    """Two providers, ``user`` at ``url`` and ``other`` at ``<root>/other/v1``."""
    root = url.removesuffix("/v1")
    lines = []
    for name, base in (("user", url), ("other", f"{root}/other/v1")):
        lines += [
            f"[model_providers.{name}]",
            f'name = "{name}"',
            f"base_url = {toml_string(base)}",
            'wire_api = "responses"',
            f"env_key = {toml_string(API_KEY_ENV)}",
            "request_max_retries = 0",
            "stream_max_retries = 0",
            "",
        ]
    return "\n".join(lines)


CASES: Final[dict[str, dict[str, Any]]] = {
    "user-only": {},
    "legacy-profile-key": {
        "user": 'profile = "p1"\n\n[profiles.p1]\nmodel = "m-p1"\nmodel_provider = "other"\n',
    },
    "legacy-profile-table-unselected": {
        "user": '[profiles.p1]\nmodel = "m-p1"\n',
    },
    "flag-profile-file": {
        "files": {"p2.config.toml": 'model = "m-p2"\nmodel_provider = "other"\n'},
        "argv": ["--profile", "p2"],
    },
    "flag-profile-missing-file": {"argv": ["--profile", "p3"]},
    "flag-profile-over-legacy-table": {
        "user": '[profiles.p2]\nmodel = "m-p2-legacy"\n',
        "files": {"p2.config.toml": 'model = "m-p2"\n'},
        "argv": ["--profile", "p2"],
    },
    "flag-profile-over-legacy-key": {
        "user": 'profile = "p1"\n\n[profiles.p1]\nmodel = "m-p1"\n',
        "files": {"p2.config.toml": 'model = "m-p2"\n'},
        "argv": ["--profile", "p2"],
    },
    "flag-profile-bad-name": {"argv": ["--profile", "../p2"]},
    "project-trusted": {
        "project": (
            'model = "m-project"\nmodel_provider = "other"\nprofile = "p1"\n'
            'openai_base_url = "http://127.0.0.1:9/v1"\n\n'
            "[model_providers.other]\n"
            'name = "hijack"\nbase_url = "http://127.0.0.1:9/v1"\nwire_api = "responses"\n'
        ),
        "trusted": True,
    },
    "project-untrusted": {"project": 'model = "m-project"\n', "trusted": False},
    "project-over-flag-profile": {
        "files": {"p2.config.toml": 'model = "m-p2"\nmodel_provider = "other"\n'},
        "project": 'model = "m-project"\n',
        "trusted": True,
        "argv": ["--profile", "p2"],
    },
    "model-flag-over-project": {
        "project": 'model = "m-project"\n',
        "trusted": True,
        "argv": ["-m", "m-flag"],
    },
    "project-bad-toml-trusted": {"project": "model = \n", "trusted": True},
    "project-bad-toml-untrusted": {"project": "model = \n", "trusted": False},
}


def write_setup(case: Mapping[str, Any], home: Path, work: Path, url: str) -> None:
    """``case``'s files: the user's ``config.toml`` (its providers at ``url``), its profile
    files, the project's ``.codex/config.toml`` (``work`` trusted or not)."""
    head = [
        USER,
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "check_for_update_on_startup = false",
        str(case.get("user", "")),
        "[analytics]",
        "enabled = false",
        "",
        providers_toml(url),
    ]
    if case.get("trusted"):
        head += [f"[projects.{toml_string(str(work))}]", 'trust_level = "trusted"', ""]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("\n".join(head))
    for file, text in dict(case.get("files", {})).items():
        (home / file).write_text(text)
    if "project" in case:
        (work / ".codex").mkdir(parents=True, exist_ok=True)
        (work / ".codex" / "config.toml").write_text(case["project"])


def run_codex(argv: list[str], env: Mapping[str, str], cwd: Path) -> tuple[int | str, bytes]:
    """One ``codex exec`` run: its exit code (or ``timed out (60 s)``, the launcher and the
    binary it runs then killed) and its stderr."""
    with subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as proc:
        try:
            _, raw = proc.communicate(timeout=60)
            return proc.returncode, raw
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, raw = proc.communicate()
            return "timed out (60 s)", raw


@contextmanager
def case_places(name: str) -> Iterator[tuple[Path, Path, Path, ResponsesMock]]:
    """A temporary folder, its project ``w`` and ``$CODEX_HOME`` (``home/.codex``), and the
    mock answering ``done`` to the prompt ``hi``."""
    side = SideCase(name=name, prompt="hi", replies=(Reply(text="done"),), hooks={})
    with tempfile.TemporaryDirectory() as tmp, ResponsesMock() as mock:
        root = Path(tmp)
        work, home = root / "w", root / "home" / ".codex"
        work.mkdir()
        mock.load(side)
        yield root, work, home, mock


def record(name: str, case: Mapping[str, Any], codex: str) -> dict[str, Any]:
    with case_places(name) as (root, work, home, mock):
        write_setup(case, home, work, mock.url)
        argv = [codex, "exec", *exec_flags(work), *case.get("argv", ()), "hi"]
        print(name, flush=True)
        code, raw = run_codex(argv, codex_env(home), work)
        err = raw.decode("utf-8", "replace").replace(str(root), "<tmp>")
    return {
        "case": name,
        "setup": dict(case),
        "exit_code": code,
        "models": [r.get("model") for r in mock.requests],
        "paths": [p for p in mock.paths if p.startswith("POST")],
        "stderr": [line for line in err.splitlines() if line.strip()][-6:],
    }


def record_all(
    cases: Mapping[str, Mapping[str, Any]],
    record: Callable[[str, Mapping[str, Any], str], dict[str, Any]],
    shown: tuple[str, ...],
) -> int:
    """``record`` each of ``cases`` (those named after OUT on the command line, or all) with
    the codex found, into OUT; a line per case with its ``shown`` fields."""
    out, only = Path(sys.argv[1]), sys.argv[2:]
    codex = codex_path()
    if codex is None:
        print("no codex: set DSH_CODEX", file=sys.stderr)
        return 2
    results = [record(n, c, codex) for n, c in cases.items() if not only or n in only]
    out.write_text(json.dumps({"codex": "0.171.0", "cases": results}, indent=1) + "\n")
    for result in results:
        print(result["case"], result["exit_code"], *(result[k] for k in shown))
    return 0


def main() -> int:
    return record_all(CASES, record, ("models", "paths"))


if __name__ == "__main__":
    raise SystemExit(main())
