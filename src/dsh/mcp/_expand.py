"""``${VAR}`` and ``${VAR:-default}`` in an MCP server's declaration, as Claude Code expands them.

Claude Code 2.1.332 expands the two forms in ``command``, ``args``, ``env``, ``url`` and
``headers`` of ``.mcp.json``-shaped files; a bare ``$VAR`` is left as written, and so is
``${VAR}`` when ``VAR`` is unset (Claude Code then warns of the missing variable: the names
are given back so the caller can say so). ``${CLAUDE_PLUGIN_ROOT}`` in a plugin's file is a
variable like any other, set to the plugin's root.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["expand"]

_REFERENCE = re.compile(r"\$\{([^}:]+)(?::-([^}]*))?\}")


def expand(text: str, env: Mapping[str, str], missing: set[str]) -> str:
    """``text`` with each ``${VAR}`` / ``${VAR:-default}`` replaced; unset names go to
    ``missing`` (their reference left as written)."""

    def one(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = env.get(name)
        if value is not None:
            return value
        if default is not None:
            return default
        missing.add(name)
        return match.group(0)

    return _REFERENCE.sub(one, text) if "${" in text else text
