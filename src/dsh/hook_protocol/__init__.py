"""dsh.hook_protocol: see ARCHITECTURE.md (to be built)."""
