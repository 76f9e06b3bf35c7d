"""UserPromptSubmit: add the project's notes on what a prompt mentions to Claude's context.

Reads the hook payload on stdin; for each keyword of NOTES found in the prompt,
prints its note as ``additionalContext``. Prints nothing (exit 0: no effect)
when no keyword matches. Standard library only.
"""

import json
import sys

# Keyword (lower case) -> what the model should know when a prompt mentions it.
NOTES = {
    "build": "build/ holds generated files only: `make` recreates them, so deleting it is safe.",
    "config": "Configuration lives in config.toml; secrets never go there.",
}


def main() -> int:
    payload = json.load(sys.stdin)
    prompt = str(payload.get("prompt", "")).lower()
    notes = [note for word, note in NOTES.items() if word in prompt]
    if notes:
        answer = {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": " ".join(notes),
            }
        }
        print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
