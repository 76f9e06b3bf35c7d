#!/usr/bin/env python3
"""A test hook: records what it got, then answers as a JSON file says.

usage: python3 record_hook.py <Event>
Appends one JSON line to $CASE_HOOK_LOG (`event`, `cwd`, `payload`, `stdin_raw`, `env` with the
CLAUDE* variables). Answers from $CASE_HOOK_RESPOND, the conformance `hook_answers` format:
{"<Event>": {"exit": N, "stderr": "...", "stdout": "..." | {...}, "times": N, "sleep": S}}.
`times`: only the first N invocations answer so (counted next to the log).
"""

import json
import os
import sys
import time


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "unlabelled"
    raw = sys.stdin.read()
    try:
        payload, stdin_raw = json.loads(raw), None
    except ValueError:
        payload, stdin_raw = None, raw
    log = os.environ["CASE_HOOK_LOG"]
    env = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")}
    entry = {"event": label, "cwd": os.getcwd(), "payload": payload, "stdin_raw": stdin_raw}
    entry["env"] = env
    with open(log, "a") as f:
        f.write(json.dumps(entry) + "\n")
    path = os.environ.get("CASE_HOOK_RESPOND")
    if not path or not os.path.exists(path):
        return 0
    with open(path) as f:
        answer = (json.load(f) or {}).get(label)
    if not answer:
        return 0
    if "times" in answer:
        state = log + ".times.json"
        try:
            with open(state) as f:
                used = json.load(f)
        except (OSError, ValueError):
            used = {}
        if used.get(label, 0) >= answer["times"]:
            return 0
        used[label] = used.get(label, 0) + 1
        with open(state, "w") as f:
            json.dump(used, f)
    if answer.get("sleep"):
        time.sleep(answer["sleep"])
    out = answer.get("stdout")
    if out is not None:
        sys.stdout.write(out if isinstance(out, str) else json.dumps(out))
    if answer.get("stderr"):
        sys.stderr.write(answer["stderr"])
    return int(answer.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main())
