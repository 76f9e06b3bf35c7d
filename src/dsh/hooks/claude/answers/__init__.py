"""Decoding a Claude Code hook's answer: exit code, stderr and JSON output into one value, and the
output caps.
"""
