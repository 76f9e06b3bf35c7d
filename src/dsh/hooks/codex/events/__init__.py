"""Codex 0.171's hook events (names, labels, matcher fields, timeouts) and which of them dsh runs
(the support table).
"""
