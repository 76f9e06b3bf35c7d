"""Project trust for Claude Code: fingerprints, trust records, the review, permission entries gated
on trust.
"""
