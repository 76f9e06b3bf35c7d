#!/usr/bin/env python3
"""A test hook: records what it got, then answers as a JSON file says.

The conformance corpus's ``record_hook.py`` (Claude Code 2.1.332 recordings), typed.
usage: python3 record_hook.py <Event>
Appends one JSON line to $CASE_HOOK_LOG: `event`, `argv`, `cwd`, `payload` (`stdin_raw` when
the stdin is not JSON), `stdin_style` (how the JSON was laid out), `env` (the CLAUDE*/CODEX*
variables), `env_keys` and `env_paths` (for CLAUDE_ENV_FILE / CLAUDE_PLUGIN_ROOT /
CLAUDE_PLUGIN_DATA: whether the path exists, is a directory, and a file's text); with
CASE_HOOK_RAW=1 also `stdin_text`. Answers from $CASE_HOOK_RESPOND, the `hook_answers` format:
{"<Event>": {"exit": N, "stderr": "...", "stdout": "..." | {...}, "times": N, "sleep": S,
"env_file": "..."}}. `times`: only the first N invocations answer so (counted next to the log);
`sleep`: seconds to wait after logging; `env_file`: text appended to $CLAUDE_ENV_FILE's file.
A replay's own key, `wait_for`: {"event": E, "nth": N} waits after logging until the log holds
the Nth invocation of E (at most WAIT_BOUND seconds): the event a recorded `sleep` was there
to let happen first, which a sleep orders only on an idle machine.
"""

import json
import os
import sys
import time
from typing import Any

PATH_VARS = ("CLAUDE_ENV_FILE", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA")
WAIT_BOUND = 60.0


def stdin_style(raw: str, payload: Any) -> dict[str, Any] | None:
    """``separators`` compact/spaced/indented/other; ``non_ascii`` none/raw/escaped."""
    if payload is None:
        return None
    body = raw.rstrip("\n")
    if body in (
        json.dumps(payload, separators=(",", ":"), ensure_ascii=False),
        json.dumps(payload, separators=(",", ":")),
    ):
        seps = "compact"
    elif body in (json.dumps(payload, ensure_ascii=False), json.dumps(payload)):
        seps = "spaced"
    else:
        seps = "indented" if "\n " in body else "other"
    if json.dumps(payload, ensure_ascii=False).isascii():
        non_ascii = "none"
    else:
        non_ascii = "raw" if not body.isascii() else "escaped"
    return {
        "separators": seps,
        "non_ascii": non_ascii,
        "trailing_newline": raw.endswith("\n"),
        "bytes": len(raw.encode()),
    }


def path_info(path: str) -> dict[str, Any]:
    info: dict[str, Any] = {
        "path": path,
        "exists": os.path.exists(path),
        "is_dir": os.path.isdir(path),
    }
    if os.path.isfile(path):
        try:
            with open(path) as f:
                info["text"] = f.read(4000)
        except OSError:
            pass
    return info


def record(label: str, raw: str, log: str) -> None:
    try:
        payload, stdin_raw = json.loads(raw), None
    except ValueError:
        payload, stdin_raw = None, raw
    # `CASE_HOOK_ENV_KEEP`: more names to record (comma-separated; a settings `env` case's).
    keep = set(os.environ.get("CASE_HOOK_ENV_KEEP", "").split(",")) - {""}
    env = {k: v for k, v in os.environ.items() if k.startswith(("CLAUDE", "CODEX")) or k in keep}
    entry: dict[str, Any] = {
        "event": label,
        "argv": sys.argv,
        "cwd": os.getcwd(),
        "payload": payload,
        "stdin_raw": stdin_raw,
        "stdin_style": stdin_style(raw, payload),
        "env": env,
        "env_keys": sorted(env),
        "env_paths": {k: path_info(os.environ[k]) for k in PATH_VARS if os.environ.get(k)},
    }
    if os.environ.get("CASE_HOOK_RAW") == "1":
        entry["stdin_text"] = raw
    with open(log, "a") as f:
        f.write(json.dumps(entry) + "\n")


def counted(label: str, times: int, log: str) -> bool:
    """Whether this invocation is one of the first ``times`` of ``label``."""
    state = log + ".times.json"
    try:
        with open(state) as f:
            used = json.load(f)
    except (OSError, ValueError):
        used = {}
    if used.get(label, 0) >= times:
        return False
    used[label] = used.get(label, 0) + 1
    with open(state, "w") as f:
        json.dump(used, f)
    return True


def logged(event: str, log: str) -> int:
    """How many invocations of ``event`` the log holds (a line still being written is not
    counted)."""
    count = 0
    with open(log) as f:
        for line in f:
            try:
                count += json.loads(line)["event"] == event
            except ValueError:
                continue
    return count


def wait_for(event: str, nth: int, log: str) -> None:
    """Until the log holds the ``nth`` invocation of ``event``, or WAIT_BOUND has passed
    (then the replay's order check says what came instead)."""
    deadline = time.monotonic() + WAIT_BOUND
    while logged(event, log) < nth and time.monotonic() < deadline:
        time.sleep(0.01)


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "unlabelled"
    log = os.environ["CASE_HOOK_LOG"]
    record(label, sys.stdin.read(), log)
    path = os.environ.get("CASE_HOOK_RESPOND")
    if not path or not os.path.exists(path):
        return 0
    with open(path) as f:
        answer = (json.load(f) or {}).get(label)
    if not answer:
        return 0
    if "times" in answer and not counted(label, answer["times"], log):
        return 0
    if answer.get("sleep"):
        time.sleep(float(answer["sleep"]))
    if answer.get("wait_for"):
        wait_for(answer["wait_for"]["event"], int(answer["wait_for"].get("nth", 1)), log)
    env_file = os.environ.get("CLAUDE_ENV_FILE")
    if answer.get("env_file") is not None and env_file:
        with open(env_file, "a") as f:
            f.write(answer["env_file"])
    out = answer.get("stdout")
    if out is not None:
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    if answer.get("stderr"):
        sys.stderr.write(answer["stderr"])
    return int(answer.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
