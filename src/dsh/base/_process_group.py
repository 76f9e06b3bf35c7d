"""How a contained process gets a process group of its own: setsid only where there is a terminal.

Every hook and Bash process leads its own group, so that ending it ends all
it started. Where dsh has a controlling terminal, the process also gets a
session of its own (``setsid``), so it cannot reach that terminal (no
``/dev/tty`` to prompt on, no stop for reading it from the background). Where
dsh has none (``dsh run`` from a script or CI, ``dsh acp`` under an editor)
there is no terminal to keep it from, and a group of its own
(``setpgid(0, 0)``, ``process_group=0``) is the same containment without the
scheduler group the kernel makes for every new session when autogroup is on:
about 5 ms a spawn against under 1 ms (``benchmarks/bench_hooks.py``).
"""

from __future__ import annotations

import functools
import os

__all__ = ["own_session"]


@functools.cache
def own_session() -> bool:
    """Whether a contained process needs a session of its own: dsh has a controlling terminal.

    A process cannot gain a controlling terminal without leading a session,
    which dsh never does, so the answer, once found, holds for its life.
    """
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | os.O_NOCTTY)
    except OSError:  # ENXIO: no controlling terminal (or none that can be opened)
        return False
    os.close(fd)
    return True
