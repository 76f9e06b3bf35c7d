"""Record what Codex 0.171 does when an MCP server marked ``required = true`` fails to start.

usage: DSH_CODEX=... python benchmarks/record_codex_required_mcp.py OUT.json

``codex exec`` against the Responses mock, one stdio server per case: ``exits`` (its
command exits 3 at once), ``missing`` (a command that does not exist) and ``slow`` (never
answers ``initialize``; ``startup_timeout_sec = 1``), each with ``required = true``; the
first two together; and ``exits`` without it, for comparison. Kept: the exit code, stdout,
the tail of stderr, how many model requests were made. Never run by ``make test``; its output is
``tests/fixtures/codex_required_mcp.json``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _codex_side import ResponsesMock, codex_env, codex_path, exec_flags, provider_toml

from dsh.hooks.codex.config._trust import toml_string

COMMANDS = {
    "exits": (sys.executable, ["-c", "import sys; sys.exit(3)"]),
    "missing": ("/nonexistent/mcp-server", []),
    "slow": (sys.executable, ["-c", "import time; time.sleep(30)"]),
}


def _tables(kinds: list[str], required: bool) -> str:
    return "\n".join(_table(kind, required) for kind in kinds)


def _table(kind: str, required: bool) -> str:
    command, args = COMMANDS[kind]
    lines = [f"[mcp_servers.{kind}]", f"command = {toml_string(command)}"]
    lines.append(f"args = [{', '.join(toml_string(a) for a in args)}]")
    if kind == "slow":
        lines.append("startup_timeout_sec = 1")
    if required:
        lines.append("required = true")
    return "\n".join(lines) + "\n"


def record(codex: str, kinds: list[str], *, required: bool) -> dict[str, Any]:
    run = Path(tempfile.mkdtemp(prefix="dsh-rec-codex-required-"))
    work, home = run / "w", run / "home" / ".codex"
    work.mkdir()
    home.mkdir(parents=True)
    with ResponsesMock() as mock:
        config = provider_toml(mock.url, work) + "\n" + _tables(kinds, required)
        (home / "config.toml").write_text(config)
        mock.load_script({"rules": [{"responses": [[{"type": "text", "text": "done"}]]}]})
        done = subprocess.run(
            [codex, "exec", *exec_flags(work), "go"], env=codex_env(home), cwd=work,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        requests = len(mock.main_requests())
    scrub = (str(run), "${RUN_DIR}"), (sys.executable, "${PYTHON}")
    stderr, stdout = done.stderr, done.stdout
    for old, new in scrub:
        stderr, stdout = stderr.replace(old, new), stdout.replace(old, new)
    return {
        "case": f"{'+'.join(kinds)}-{'required' if required else 'optional'}",
        "config": _tables(kinds, required).replace(sys.executable, "${PYTHON}"),
        "exit_code": done.returncode,
        "requests": requests,
        "stdout": stdout[-1500:],
        "stderr_tail": stderr[-2500:],
    }


def main() -> None:
    codex = codex_path()
    if codex is None:
        raise SystemExit("no codex: set DSH_CODEX")
    cases = [record(codex, [kind], required=True) for kind in COMMANDS]
    cases.append(record(codex, ["exits", "missing"], required=True))
    cases.append(record(codex, ["exits"], required=False))
    Path(sys.argv[1]).write_text(json.dumps({"codex": "0.171", "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
