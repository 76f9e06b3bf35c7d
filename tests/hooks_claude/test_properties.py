"""The catalog is total: any JSON in a settings file gives a catalog, never an exception."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.hooks.claude import CLAUDE_HOOK_EVENTS, load_catalog
from dsh.hooks.claude.events._support import ADMITTED_EVENTS

_SCALAR = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 700), st.floats(-1, 1e3), st.text(max_size=8)
)
_JSON: st.SearchStrategy[Any] = st.recursive(
    _SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_FIELD = st.sampled_from(
    ["type", "command", "args", "timeout", "async", "shell", "onFailure", "if", "once", "x"]
)
_HANDLER = st.builds(
    lambda kind, cmd, extra: {"type": kind, "command": cmd, **extra},
    st.sampled_from(["command", "prompt", "http", "bogus"]),
    _SCALAR,
    st.dictionaries(_FIELD, _JSON, max_size=3),
)
_GROUP = st.fixed_dictionaries(
    {"hooks": st.lists(_HANDLER, max_size=3)},
    optional={"matcher": st.one_of(st.text(max_size=8), _SCALAR)},
)
_HOOKS = st.dictionaries(
    st.one_of(st.sampled_from(CLAUDE_HOOK_EVENTS), st.text(max_size=6)),
    st.one_of(st.lists(_GROUP, max_size=2), _JSON),
    max_size=4,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(_HOOKS.map(lambda h: {"hooks": h}), _JSON))
def test_any_settings_json_gives_a_catalog(data: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings_file = root / "project" / ".claude" / "settings.json"
        settings_file.parent.mkdir(parents=True)
        settings_file.write_text(json.dumps(data))

        catalog = load_catalog(
            root / "project", home=root / "home", managed_path=root / "m.json", env={}
        )

    assert set(catalog.hooks) <= ADMITTED_EVENTS
    for hook in catalog.all_hooks():
        assert hook.timeout > 0
        assert hook.argv[0]
    if catalog.errors:
        # Never half-mounted: a file with an error contributes no hook at all.
        assert catalog.hooks == {}
        assert catalog.sources[0].status == "skipped"
    else:
        assert catalog.sources[0].status == "loaded"
    catalog.render_report()
