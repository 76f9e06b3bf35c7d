"""dsh.approval: see ARCHITECTURE.md (to be built)."""
