"""Running external command hooks: declarations, the executor, outcomes, ``hook/*`` events.

Shared by the Claude Code and Codex bridges (which never import each other).
A bridge builds ``HookCommand``s from its tool's configuration (the
environment through ``hook_environment``; no hook inherits the model API
keys, ``SECRET_ENV_VARS``, unless ``$DSH_HOOK_PASS_ENV`` names them) and fires an event's hooks with
``fire_hooks``: it runs them concurrently, records ``hook/invocation`` and
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
scripts it runs, in a project hook's fingerprint). The
lower-level ``run_hooks`` and ``hook_outcome`` stay public for a bridge with
other needs. A native plugin needs none of this.
"""

from dsh.hook_protocol._background import BackgroundFirings
from dsh.hook_protocol._declarations import (
    HookCommand,
    HookOrigin,
    OnFailure,
    exec_argv,
    shell_argv,
)
from dsh.hook_protocol._environment import (
    PASS_ENV_SETTING,
    SECRET_ENV_VARS,
    spawn_environment,
    withhold_variable,
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
from dsh.hook_protocol._firing import (
    AnswerRules,
    HookSink,
    MergedAnswers,
    RoutedSink,
    Verdict,
    fire_hooks,
)
from dsh.hook_protocol._named_files import named_files
from dsh.hook_protocol._outcome import (
    FAILURE_REASONS,
    HookDecodeError,
    HookOutcome,
    NoDecision,
    WrongEvent,
    hook_outcome,
)
from dsh.hook_protocol._regex import (
    MAX_GROUP_DEPTH,
    MAX_PATTERN_LENGTH,
    MAX_REPEAT_COUNT,
    regex_problem,
    unsafe_char_problem,
)
from dsh.hook_protocol._sessions import Nested, SessionStates, hook_environment, root_session
from dsh.hook_protocol._trust_record import (
    TRUST_FORMAT,
    TrustRecord,
    TrustState,
    default_trust_dir,
    file_digest,
    read_record,
    record_path,
    state_of,
    write_record,
)

__all__ = [
    "DEFAULT_CAPTURE_CAP",
    "DEFAULT_EOF_GRACE",
    "DEFAULT_KILL_GRACE",
    "FAILURE_REASONS",
    "HOOK_STDERR_LOG_LIMIT",
    "MAX_GROUP_DEPTH",
    "MAX_PATTERN_LENGTH",
    "MAX_REPEAT_COUNT",
    "PASS_ENV_SETTING",
    "SECRET_ENV_VARS",
    "TRUST_FORMAT",
    "AnswerRules",
    "BackgroundFirings",
    "CancelSignal",
    "HookCommand",
    "HookDecodeError",
    "HookInvocationEvent",
    "HookOrigin",
    "HookOutcome",
    "HookResultEvent",
    "HookRun",
    "HookSink",
    "MergedAnswers",
    "Nested",
    "NoDecision",
    "OnFailure",
    "RoutedSink",
    "SessionStates",
    "TrustRecord",
    "TrustState",
    "Verdict",
    "WrongEvent",
    "default_trust_dir",
    "exec_argv",
    "file_digest",
    "fire_hooks",
    "hook_environment",
    "hook_outcome",
    "invocation_event",
    "named_files",
    "read_record",
    "record_path",
    "regex_problem",
    "result_event",
    "root_session",
    "run_hook",
    "run_hooks",
    "shell_argv",
    "spawn_environment",
    "state_of",
    "unique_hooks",
    "unsafe_char_problem",
    "withhold_variable",
    "write_record",
]
