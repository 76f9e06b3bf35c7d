"""The floor every dsh package stands on: values with no dsh dependency.

Frozen JSON values, the error root ``DshError``, the root of the closed
decision unions ``ClosedUnion``, and ``AbortSignal`` with the
one race against it (``race``), hostile JSON contained (``load_json``,
``loggable_json``), and the containment of the processes dsh starts
(``mark_environment``, ``contain_process``, ``end_process_tree``,
``end_left_behind``, ``sweep_processes``), so the tool
pipeline, the hook runtime and the agent loop share them.
"""

from dsh.base._child_watcher import use_pidfd_child_watcher
from dsh.base._containment import (
    CONTAINMENT_ENV,
    HookHelpers,
    become_subreaper,
    contain_process,
    end_left_behind,
    end_process_tree,
    hook_helpers,
    mark_environment,
    release_process,
    set_hook_helpers,
    sweep_processes,
)
from dsh.base._errors import DshError
from dsh.base._json import (
    FrozenDict,
    FrozenJSON,
    JSONValue,
    NotJSONError,
    freeze_json,
    freeze_loaded,
    json_kind,
    thaw_json,
)
from dsh.base._process_group import own_session
from dsh.base._safe_json import JSON_MAX_DEPTH, UnsafeJSONError, load_json, loggable_json
from dsh.base._signal import AbortedError, AbortSignal, SignalAbortedError, race
from dsh.base._union import ClosedUnion

__all__ = [
    "CONTAINMENT_ENV",
    "JSON_MAX_DEPTH",
    "AbortSignal",
    "AbortedError",
    "ClosedUnion",
    "DshError",
    "FrozenDict",
    "FrozenJSON",
    "HookHelpers",
    "JSONValue",
    "NotJSONError",
    "SignalAbortedError",
    "UnsafeJSONError",
    "become_subreaper",
    "contain_process",
    "end_left_behind",
    "end_process_tree",
    "freeze_json",
    "freeze_loaded",
    "hook_helpers",
    "json_kind",
    "load_json",
    "loggable_json",
    "mark_environment",
    "own_session",
    "race",
    "release_process",
    "set_hook_helpers",
    "sweep_processes",
    "thaw_json",
    "use_pidfd_child_watcher",
]
