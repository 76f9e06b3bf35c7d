"""What Claude Code's hook events are (their specs) and which of them dsh runs, and how (the
support table).
"""
