"""Record Codex 0.171's built-in providers, ``openai_base_url`` and a profile's hooks (issue 29).

usage: DSH_CODEX=/path/to/codex python benchmarks/record_codex_providers.py OUT.json

Runs ``codex exec`` against the loopback Responses mock once per case, each with a user
``config.toml`` (``model = "m-user"``, optionally a ``model_provider``, ``openai_base_url``
and tables), optionally a profile file and ``--profile``, and environment variables
(``OPENAI_BASE_URL``, ``CODEX_OSS_BASE_URL``, ``CODEX_OSS_PORT``: ``<port>`` stands for the
mock's port, ``<url>`` for its root URL). Keeps the paths the requests went to (a case
tells its URL apart by a path prefix), their ``Authorization`` header, the exit code,
Codex's last stderr lines, and which hooks ran (a profile file's ``[hooks]``). Never run
by ``make test``; its output is ``tests/fixtures/codex_providers.json``, which
``tests/wire/test_codex_providers.py`` replays through dsh.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from _codex_side import codex_env, exec_flags
from record_codex_model_config import case_places, record_all, run_codex

HOOK: Final = (
    "[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
    'type = "command"\ncommand = "echo profile-hook >> hooks.log"\n'
)
OTHER: Final = '[model_providers.other]\nname = "other"\nbase_url = "<url>/other/v1"\n'

CASES: Final[dict[str, dict[str, Any]]] = {
    "openai-base-url-config": {
        "user": 'openai_base_url = "<url>/config/v1"\n',
        "env": {"OPENAI_API_KEY": "sk-openai"},
    },
    "openai-base-url-env": {
        "env": {"OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": "<url>/env/v1"},
    },
    "openai-base-url-config-and-env": {
        "user": 'openai_base_url = "<url>/config/v1"\n',
        "env": {"OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": "<url>/env/v1"},
    },
    "openai-base-url-profile": {
        "user": 'openai_base_url = "<url>/config/v1"\n',
        "files": {"p.config.toml": 'openai_base_url = "<url>/profile/v1"\n'},
        "argv": ["--profile", "p"],
        "env": {"OPENAI_API_KEY": "sk-openai"},
    },
    "openai-table-ignored": {
        "user": 'model_provider = "openai"\n\n[model_providers.openai]\nname = "x"\n'
        'base_url = "<url>/table/v1"\n',
        "env": {"OPENAI_API_KEY": "sk-openai", "OPENAI_BASE_URL": "<url>/env/v1"},
    },
    "ollama-base-url": {
        "user": 'model_provider = "ollama"\n',
        "env": {"CODEX_OSS_BASE_URL": "<url>/oss/v1"},
    },
    "ollama-port": {"user": 'model_provider = "ollama"\n', "env": {"CODEX_OSS_PORT": "<port>"}},
    "lmstudio-port": {
        "user": 'model_provider = "lmstudio"\n',
        "env": {"CODEX_OSS_PORT": "<port>"},
    },
    "lmstudio-base-url-over-port": {
        "user": 'model_provider = "lmstudio"\n',
        "env": {"CODEX_OSS_BASE_URL": "<url>/oss/v1", "CODEX_OSS_PORT": "1"},
    },
    "ollama-table-ignored": {
        "user": 'model_provider = "ollama"\n\n[model_providers.ollama]\nname = "x"\n'
        'base_url = "<url>/table/v1"\n',
        "env": {"CODEX_OSS_BASE_URL": "<url>/oss/v1"},
    },
    "ollama-chat": {"user": 'model_provider = "ollama-chat"\n'},
    "amazon-bedrock": {"user": 'model_provider = "amazon-bedrock"\n'},
    "amazon-bedrock-runtime": {"user": 'model_provider = "amazon-bedrock-runtime"\n'},
    "profile-provider": {
        "user": OTHER,
        "files": {"p.config.toml": 'model_provider = "other"\n'},
        "argv": ["--profile", "p"],
    },
    "profile-hooks": {
        "user": 'model_provider = "other"\n\n' + OTHER,
        "files": {"p.config.toml": HOOK},
        "argv": ["--profile", "p", "--dangerously-bypass-hook-trust"],
    },
    "no-profile-hooks": {
        "user": 'model_provider = "other"\n\n' + OTHER,
        "files": {"p.config.toml": HOOK},
        "argv": ["--dangerously-bypass-hook-trust"],
    },
}


def fill(text: str, url: str) -> str:
    return text.replace("<url>", url.removesuffix("/v1")).replace(
        "<port>", url.rsplit(":", 1)[1].split("/")[0]
    )


def write_setup(case: Mapping[str, Any], home: Path, url: str) -> None:
    head = [
        'model = "m-user"',
        'approval_policy = "never"',
        'sandbox_mode = "danger-full-access"',
        "check_for_update_on_startup = false",
        fill(str(case.get("user", "")), url),
        "[analytics]",
        "enabled = false",
        "",
    ]
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("\n".join(head))
    for file, text in dict(case.get("files", {})).items():
        (home / file).write_text(fill(text, url))


def record(name: str, case: Mapping[str, Any], codex: str) -> dict[str, Any]:
    with case_places(name) as (root, work, home, mock):
        write_setup(case, home, mock.url)
        env = codex_env(home, **{k: fill(v, mock.url) for k, v in case.get("env", {}).items()})
        argv = [codex, "exec", *exec_flags(work), *case.get("argv", ()), "hi"]
        print(name, flush=True)
        code, raw = run_codex(argv, env, work)
        err = raw.decode("utf-8", "replace").replace(str(root), "<tmp>")
        err = err.replace(mock.url.removesuffix("/v1"), "<url>")
        log = work / "hooks.log"
        hooks = log.read_text().split() if log.is_file() else []
        auth = [h.get("authorization", "") for h in mock.headers]
    return {
        "case": name,
        "setup": dict(case),
        "exit_code": code,
        "models": [r.get("model") for r in mock.requests],
        "paths": mock.paths,
        "authorization": auth,
        "hooks": hooks,
        "stderr": [line for line in err.splitlines() if line.strip()][-6:],
    }


def main() -> int:
    return record_all(CASES, record, ("paths", "hooks"))


if __name__ == "__main__":
    raise SystemExit(main())
