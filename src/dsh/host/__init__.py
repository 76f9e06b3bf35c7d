"""The host: the one place that assembles a working dsh (``open_host``).

``open_host(HostOptions(project=..., model=...))`` yields a ``Host``: the
context with the tool registry (built-in tools included), the approval
service, the session store, the model, the session (new, resumed or forked)
and the agent, with the native plugins and the protocol ``Profile``s mounted.
It closes everything on every path. ``dsh run``, ``dsh demo``, the test rigs
and ``dsh.acp`` assemble through it; ``docs/embedding.md`` shows it in a
program of your own. The host imports no bridge: a bridge comes in as a
``Profile``, a structural protocol.
"""

from dsh._public import publish
from dsh.host._assembly import Assembly, assemble
from dsh.host._config import ConfigError, DshConfig, load_config
from dsh.host._host import Host, open_host
from dsh.host._options import HostOptions
from dsh.host._profile import Profile, ProfileDiagnostic, ProfileMount, TrustingProfile
from dsh.host._system_prompt import SystemPrompt

__all__ = [
    "Assembly",
    "ConfigError",
    "DshConfig",
    "Host",
    "HostOptions",
    "Profile",
    "ProfileDiagnostic",
    "ProfileMount",
    "SystemPrompt",
    "TrustingProfile",
    "assemble",
    "load_config",
    "open_host",
]

publish(globals())
