"""dsh.acp: see ARCHITECTURE.md (to be built)."""
