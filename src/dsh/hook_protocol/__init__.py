"""Running external command hooks: declarations, the executor, outcomes, ``hook/*`` events.

Shared by the Claude Code and Codex bridges (which never import each other).
A bridge builds ``HookCommand``s from its tool's configuration (the
environment through ``hook_environment``; no hook inherits the model API
keys, ``SECRET_ENV_VARS``, unless ``$DSH_HOOK_PASS_ENV`` names them; an
HTTP hook is a ``HookCommand`` with an ``HttpTarget``: its payload POSTed, the
answer read as its output, ``_http``) and fires an event's hooks with
``fire_hooks``: it runs them concurrently (at most the process's hook
concurrency limit at once, the others queued in declaration order:
``_slots``), records ``hook/invocation`` and
``hook/result`` events in the bridge's ``HookSink`` (one fsync per group, a
result for every invocation even when cancelled), turns each ``HookRun`` into
a ``HookOutcome`` with the bridge's ``AnswerRules`` and returns the decided
answers as ``MergedAnswers``, which the bridge reads with its own precedence
(``MergedAnswers.strongest``); ``BackgroundFirings`` runs the firings a
protocol does not wait for (async hooks), bounded, until the session's end
cancels them. ``SessionStates`` keeps the bridge's state per
root session; ``regex_problem`` bounds a matcher's regex before it is
compiled. ``read_record``/``write_record`` keep the per-project trust record
both bridges store their fingerprints in, each in its own sections, and
``named_files`` the files of the project a hook's command line names (the
scripts it runs, in a project hook's fingerprint). ``HookSelection`` says whether
a declared handler runs for an event and why not (``dsh hooks why``);
``skipped_event`` records those that did not in the log (``hook/skipped``),
``logged_before`` whether the session's log holds that record already. The
lower-level ``run_hooks`` and ``hook_outcome`` stay public for a bridge with
other needs. A native plugin needs none of this. ``HttpTarget``, ``InProcessHook`` and
``Answered`` are loaded when first asked for: a session declaring no HTTP hook and no
in-process handler (an agent or prompt hook, an MCP tool hook) never imports them.
"""

from typing import TYPE_CHECKING

from dsh._public import lazy, publish
from dsh.hook_protocol._background import BackgroundFirings
from dsh.hook_protocol._declarations import (
    HookCommand,
    HookOrigin,
    OnFailure,
    exec_argv,
    shell_argv,
)
from dsh.hook_protocol._environment import SECRET_ENV_VARS, HookVariables, add_hook_variables
from dsh.hook_protocol._events import HookInvocationEvent, HookResultEvent
from dsh.hook_protocol._executor import run_hooks
from dsh.hook_protocol._firing import (
    AnswerRules,
    HookSink,
    MergedAnswers,
    RoutedSink,
    Strongest,
    fire_hooks,
)
from dsh.hook_protocol._named_files import named_files
from dsh.hook_protocol._outcome import (
    HookDecodeError,
    HookOutcome,
    NoDecision,
    WrongEvent,
    hook_outcome,
)
from dsh.hook_protocol._regex import regex_problem
from dsh.hook_protocol._run import HookRun
from dsh.hook_protocol._selection import (
    HookSelection,
    HookSkippedEvent,
    SelectionCode,
    logged_before,
    skipped_event,
)
from dsh.hook_protocol._sessions import SessionStates, hook_environment
from dsh.hook_protocol._trust_record import (
    TrustRecord,
    UntrustedHooksError,
    read_record,
    record_bound,
    write_record,
)

__all__ = [
    "SECRET_ENV_VARS",
    "AnswerRules",
    "Answered",
    "BackgroundFirings",
    "HookCommand",
    "HookDecodeError",
    "HookInvocationEvent",
    "HookOrigin",
    "HookOutcome",
    "HookResultEvent",
    "HookRun",
    "HookSelection",
    "HookSink",
    "HookSkippedEvent",
    "HookVariables",
    "HttpTarget",
    "InProcessHook",
    "MergedAnswers",
    "NoDecision",
    "OnFailure",
    "RoutedSink",
    "SelectionCode",
    "SessionStates",
    "Strongest",
    "TrustRecord",
    "UntrustedHooksError",
    "WrongEvent",
    "add_hook_variables",
    "exec_argv",
    "fire_hooks",
    "hook_environment",
    "hook_outcome",
    "logged_before",
    "named_files",
    "read_record",
    "record_bound",
    "regex_problem",
    "run_hooks",
    "shell_argv",
    "skipped_event",
    "write_record",
]

publish(globals())

# Only a declared HTTP hook or in-process handler needs these (the executor imports their
# runners when it meets one), so a session of command hooks never loads them.
if TYPE_CHECKING:
    from dsh.hook_protocol._http import HttpTarget
    from dsh.hook_protocol._in_process import Answered, InProcessHook

__getattr__ = lazy(
    globals(),
    {
        "dsh.hook_protocol._http": ("HttpTarget",),
        "dsh.hook_protocol._in_process": ("Answered", "InProcessHook"),
    },
)
