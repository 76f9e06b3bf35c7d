"""The Claude Code transcript a hook reads: tool-result content, the projection of the session log,
resume figures.
"""
