"""Running external command hooks: declarations, the executor, outcomes, ``hook/*`` events.

Shared by the Claude Code and Codex bridges (which never import each other).
A bridge builds ``HookCommand``s from its tool's configuration, runs an event's
hooks with ``run_hooks``, turns each ``HookRun`` into a ``HookOutcome`` with its
own decoder through ``hook_outcome``, and records ``hook/invocation`` and
``hook/result`` events. A native plugin needs none of this.
"""

from dsh.hook_protocol._declarations import (
    HookCommand,
    HookOrigin,
    OnFailure,
    exec_argv,
    shell_argv,
)
from dsh.hook_protocol._events import (
    HOOK_STDERR_LOG_LIMIT,
    HookInvocationEvent,
    HookResultEvent,
    invocation_event,
    result_event,
)
from dsh.hook_protocol._executor import (
    DEFAULT_CAPTURE_CAP,
    DEFAULT_EOF_GRACE,
    DEFAULT_KILL_GRACE,
    CancelSignal,
    HookRun,
    run_hook,
    run_hooks,
    unique_hooks,
)
from dsh.hook_protocol._outcome import (
    FAILURE_REASONS,
    HookDecodeError,
    HookOutcome,
    NoDecision,
    WrongEvent,
    hook_outcome,
)

__all__ = [
    "DEFAULT_CAPTURE_CAP",
    "DEFAULT_EOF_GRACE",
    "DEFAULT_KILL_GRACE",
    "FAILURE_REASONS",
    "HOOK_STDERR_LOG_LIMIT",
    "CancelSignal",
    "HookCommand",
    "HookDecodeError",
    "HookInvocationEvent",
    "HookOrigin",
    "HookOutcome",
    "HookResultEvent",
    "HookRun",
    "NoDecision",
    "OnFailure",
    "WrongEvent",
    "exec_argv",
    "hook_outcome",
    "invocation_event",
    "result_event",
    "run_hook",
    "run_hooks",
    "shell_argv",
    "unique_hooks",
]
