"""``user_data_dir`` and ``user_config_dir``: the platform's per-user directories for dsh.

On Linux and the BSDs this is the XDG base-directory rule as ``platformdirs``
applies it there, written out, because importing ``platformdirs`` costs ~4 ms
of every ``dsh run`` (the data dir for its transcripts, the config dir for the
user's config file). Elsewhere (macOS, Windows, Android) it asks
``platformdirs``. ``tests/data_dir`` checks the two agree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_config_dir", "user_data_dir"]


def user_data_dir() -> Path:
    """dsh's per-user data directory: ``$XDG_DATA_HOME/dsh``, else ``~/.local/share/dsh``."""
    if _not_xdg():
        import platformdirs

        return Path(platformdirs.user_data_dir("dsh", appauthor=False))
    return _xdg("XDG_DATA_HOME", ".local", "share")


def user_config_dir() -> Path:
    """dsh's per-user config directory: ``$XDG_CONFIG_HOME/dsh``, else ``~/.config/dsh``."""
    if _not_xdg():
        import platformdirs

        return Path(platformdirs.user_config_dir("dsh", appauthor=False))
    return _xdg("XDG_CONFIG_HOME", ".config")


def _not_xdg() -> bool:
    return sys.platform in ("darwin", "win32", "cygwin", "android") or "ANDROID_DATA" in os.environ


def _xdg(variable: str, *default: str) -> Path:
    # The XDG spec ignores a relative $XDG_*_HOME, and platformdirs a relative HOME.
    xdg = os.environ.get(variable, "")
    if os.path.isabs(xdg):
        return Path(xdg) / "dsh"
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    return Path(home).joinpath(*default, "dsh")
