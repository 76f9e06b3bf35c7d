"""dsh's fingerprints of a trusted project's Codex layer and of the scripts its hooks run."""
