#!/usr/bin/env python3
"""A test hook: appends {"event": ..., "env": {...}} (its whole environment) to $ENV_HOOK_LOG."""

import json
import os
import sys

sys.stdin.buffer.read()
with open(os.environ["ENV_HOOK_LOG"], "a") as log:
    log.write(json.dumps({"event": sys.argv[1], "env": dict(os.environ)}) + "\n")
