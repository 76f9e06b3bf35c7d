"""The configuration's fast path: a layer of plain valid strings, checked without pydantic.

Most runs give only flags of the plainest shape (``--model NAME``, ``--base-url
URL``): ``plain_layer`` accepts exactly such values, giving what
``_config_schema.Settings`` would, so those runs load no pydantic. Anything else
(plugins, a value of another shape, an unknown key) goes through ``Settings``,
which alone reports errors. ``tests/host`` checks the two agree on generated layers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from dsh.host._config import HookHelpersName, OutputFormatName, PermissionModeName

__all__ = ["plain_layer"]

_CHOICES: dict[str, frozenset[str]] = {
    "permission_mode": frozenset(get_args(PermissionModeName)),
    "output_format": frozenset(get_args(OutputFormatName)),
    "hook_helpers": frozenset(get_args(HookHelpersName)),
}


def plain_layer(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """``values`` as ``Settings`` validates them when each is a plain valid string, else ``None``.

    ``model`` and ``base_url``: any ``str``; ``api_key_env``: a non-empty ``str``
    without ``=`` or NUL; the choices: one of their names. ``plugins`` and
    anything else are left to ``Settings``.
    """
    for key, value in values.items():
        if type(value) is not str:
            return None
        if key in _CHOICES:
            if value not in _CHOICES[key]:
                return None
        elif key == "api_key_env":
            if not value or "=" in value or "\x00" in value:
                return None
        elif key not in ("model", "base_url"):
            return None
    return dict(values)
