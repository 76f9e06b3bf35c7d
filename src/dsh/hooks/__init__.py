"""dsh.hooks: see ARCHITECTURE.md (to be built)."""
