"""``user_data_dir``: the platform's per-user data directory for dsh.

On Linux and the BSDs this is the XDG base-directory rule as ``platformdirs``
applies it there, written out, because importing ``platformdirs`` costs ~4 ms
of every ``dsh run`` that writes a Claude Code transcript. Elsewhere (macOS,
Windows, Android) it asks ``platformdirs``. ``tests/data_dir`` checks the two
agree.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_data_dir"]


def user_data_dir() -> Path:
    """dsh's per-user data directory: ``$XDG_DATA_HOME/dsh``, else ``~/.local/share/dsh``."""
    if sys.platform in ("darwin", "win32", "cygwin", "android") or "ANDROID_DATA" in os.environ:
        import platformdirs

        return Path(platformdirs.user_data_dir("dsh", appauthor=False))
    # The XDG spec ignores a relative XDG_DATA_HOME, and platformdirs a relative HOME.
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if os.path.isabs(xdg):
        return Path(xdg) / "dsh"
    home = os.environ.get("HOME", "")
    if not os.path.isabs(home):
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    return Path(home) / ".local" / "share" / "dsh"
