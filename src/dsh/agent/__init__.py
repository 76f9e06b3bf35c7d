"""dsh.agent: see ARCHITECTURE.md (to be built)."""
