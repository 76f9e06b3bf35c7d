"""Claude Code's permission vocabulary: the rule grammar, Bash commands as rules see them, what
each mode allows.
"""
