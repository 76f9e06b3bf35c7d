"""``dsh.hooks.codex.payloads``: a ``TypedDict`` per event, held to what Codex sends.

Every payload the real Codex 0.171 recorded in the conformance corpus has exactly
the keys its event's type declares (each required one, no other), in the declared
order; the payloads dsh builds are held to the same types in the replay
(``test_conformance``'s invocation comparison).
"""

from __future__ import annotations

from typing import get_args

from dsh.hooks.codex import CODEX_EVENT_SUPPORT
from dsh.hooks.codex.payloads import HOOK_INPUTS
from tests.hook_payloads import payload_problems, recorded_payloads
from tests.hooks_claude.test_conformance import require_corpus
from tests.hooks_codex.test_conformance import CASES_DIR
from tests.shared_paths import on_ci


def test_every_event_the_bridge_runs_has_a_payload_type_named_for_it() -> None:
    assert set(HOOK_INPUTS) == set(CODEX_EVENT_SUPPORT)
    for event, kind in HOOK_INPUTS.items():
        assert kind.__name__ == f"{event}HookInput"
        assert get_args(kind.__annotations__["hook_event_name"]) == (event,)


def test_every_recorded_payload_has_exactly_its_events_keys_in_order() -> None:
    require_corpus(CASES_DIR, ci=on_ci())
    payloads = recorded_payloads(CASES_DIR)
    assert len(payloads) > 100
    problems = [f"{where}: {p}" for where, d in payloads for p in payload_problems(d, HOOK_INPUTS)]
    assert problems == []
