"""Claude Code's permission policy: rule evaluation, the native permissions plugin, persistence,
its report.
"""
