"""Claude Code settings: discovery, layers, validation, the catalog, plugins, permission settings,
custom commands.
"""
