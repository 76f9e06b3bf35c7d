#!/usr/bin/env python3
"""A hostile test hook: writes the bytes of $HOSTILE_ANSWER_FILE to stdout, exits 0.

usage: python3 raw_hook.py <Event>; appends the event name to $HOSTILE_HOOK_LOG.
"""

import os
import sys

sys.stdin.buffer.read()
with open(os.environ["HOSTILE_HOOK_LOG"], "a") as log:
    log.write(sys.argv[1] + "\n")
with open(os.environ["HOSTILE_ANSWER_FILE"], "rb") as answer:
    sys.stdout.buffer.write(answer.read())
sys.exit(int(os.environ.get("HOSTILE_EXIT", "0")))
