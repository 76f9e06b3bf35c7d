"""Codex hook configuration: hook sources, plugins, matchers, Codex's own trust state, the catalog
built from them.
"""
