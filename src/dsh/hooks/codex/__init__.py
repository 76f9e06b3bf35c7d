"""The Codex bridge (to be built)."""
