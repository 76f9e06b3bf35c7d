"""Claude Code hooks on dsh's seams: the shared machinery, the handler groups per event family, the
plugin.
"""
