"""dsh.models: see ARCHITECTURE.md (to be built)."""
