"""The Claude Code bridge (to be built)."""
