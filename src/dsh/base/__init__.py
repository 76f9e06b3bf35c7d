"""The floor every dsh package stands on: values with no dsh dependency.

Public: frozen JSON values (``FrozenDict``, ``FrozenJSON``, ``freeze_json``,
``thaw_json``), hostile JSON contained (``load_json``, ``UnsafeJSONError``), the error
root ``DshError``, files from outside read without blocking and within a bound
(``read_bounded``, ``read_head``, ``FileHead``, ``UnreadableFileError``), text UTF-8 can
carry (``valid_text``), the environment of the processes the model drives
(``EnvironmentPolicy``, Codex's ``shell_environment_policy``), and ``AbortSignal`` with
the one race against it (``race``). dsh's own packages also share what the private
modules here own: the root of the closed decision unions (``_union.ClosedUnion``), dsh's
model keys (``_env_policy``) and the containment of the processes dsh starts
(``_containment``, ``_namespace``, ``_watchdog``, ``_process_group``) and the sandbox of the
processes the model drives (``_sandbox``, ``_sandbox_kernel``).
"""

from dsh._public import publish
from dsh.base._bounded_read import FileHead, UnreadableFileError, read_bounded, read_head
from dsh.base._env_policy import EnvironmentPolicy
from dsh.base._errors import DshError
from dsh.base._json import FrozenDict, FrozenJSON, JSONValue, NotJSONError, freeze_json, thaw_json
from dsh.base._safe_json import UnsafeJSONError, load_json
from dsh.base._signal import AbortedError, AbortSignal, race
from dsh.base._text import valid_text

__all__ = [
    "AbortSignal",
    "AbortedError",
    "DshError",
    "EnvironmentPolicy",
    "FileHead",
    "FrozenDict",
    "FrozenJSON",
    "JSONValue",
    "NotJSONError",
    "UnreadableFileError",
    "UnsafeJSONError",
    "freeze_json",
    "load_json",
    "race",
    "read_bounded",
    "read_head",
    "thaw_json",
    "valid_text",
]

publish(globals())
