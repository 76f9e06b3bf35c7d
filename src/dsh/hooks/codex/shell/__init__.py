"""Codex's shell tool (exec_command) on a dsh session, and Codex's approval of its sandbox
escalations.
"""
