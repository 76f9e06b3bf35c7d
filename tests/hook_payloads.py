"""A hook payload against its event's ``TypedDict``: the keys it must have, may have, in order."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def payload_problems(payload: Mapping[str, Any], types: Mapping[str, type[Any]]) -> list[str]:
    """What ``payload`` does wrong by its event's type: a required key missing, a key the type
    does not declare, or its keys out of the declared order; ``[]`` when nothing."""
    event = payload.get("hook_event_name")
    kind = types.get(str(event))
    if kind is None:
        return [f"{event}: no payload type for this event"]
    declared = list(kind.__annotations__)
    required: frozenset[str] = kind.__required_keys__
    problems = []
    missing = sorted(required - set(payload))
    extra = sorted(set(payload) - set(declared))
    if missing or extra:
        problems.append(f"{event}: lacks {missing}, adds {extra}")
    elif list(payload) != [k for k in declared if k in payload]:
        problems.append(f"{event}: keys in the order {list(payload)}, declared {declared}")
    return problems


def recorded_payloads(cases_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    """Every JSON payload recorded under ``cases_dir``, with its case and file name."""
    found = []
    for path in sorted(cases_dir.glob("*/*.json")):
        if path.name == "case.json":
            continue
        payload = json.loads(path.read_text()).get("payload")
        if isinstance(payload, dict):
            found.append((f"{path.parent.name}/{path.name}", payload))
    return found
