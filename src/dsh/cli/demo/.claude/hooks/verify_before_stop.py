"""Stop: before Claude ends its turn, ask it once for a one-line summary of its changes.

The first time Claude stops, ``decision: "block"`` sends it back with the
reason as its instruction. ``stop_hook_active`` is true when Claude is already
continuing because of a Stop hook: then the hook lets it stop, which is what
keeps a Stop hook from looping forever. Standard library only.
"""

import json
import sys


def main() -> int:
    payload = json.load(sys.stdin)
    if payload.get("stop_hook_active"):
        return 0
    answer = {
        "decision": "block",
        "reason": "Before you stop, summarise your changes in one line starting with 'Summary:'.",
    }
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
