"""The floor every dsh package stands on: values with no dsh dependency.

``AbortSignal`` and the one race against it (``race``) live here so the tool
pipeline and the agent loop share them.
"""

from dsh.base._signal import AbortedError, AbortSignal, SignalAbortedError, race

__all__ = [
    "AbortSignal",
    "AbortedError",
    "SignalAbortedError",
    "race",
]
