"""Codex's strict reading of a hook's answer: exit codes, stdout JSON, per-event schemas."""
