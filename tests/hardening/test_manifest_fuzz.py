"""Fuzzing plugin manifests for both bridges: an unusable ``hooks`` path is a diagnostic.

Each example is a ``.claude-plugin/plugin.json`` (read by ``plugin_suite``) and a
``.codex-plugin/plugin.json`` (read by ``enabled_plugins``) whose ``hooks`` is built from
hostile paths (a NUL, a name over 255 bytes, a path over 4096 bytes, ``..``, absolute,
lone surrogates, links out of the plugin) in the shapes a manifest allows and others.
Neither reader may raise. The short profile runs by default; ``DSH_FULL_EXAMPLES=1`` is
the 100,000-example run (``DSH_FUZZ_EXAMPLES=N`` picks a count).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsh.hooks.claude.settings._plugins import plugin_suite
from dsh.hooks.claude.settings._sources import Diagnostics
from dsh.hooks.codex import CodexDiagnostic
from dsh.hooks.codex.config._plugins import enabled_plugins

EXAMPLES = (
    100_000
    if os.environ.get("DSH_FULL_EXAMPLES") == "1"
    else int(os.environ.get("DSH_FUZZ_EXAMPLES", "150"))
)
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PATHS = st.sampled_from(
    [
        "./hooks/hooks.json",
        "hooks/a\x00b.json",
        "\x00",
        "./" + "a" * 256 + ".json",
        "./" + "é" * 128,
        "x/" * 2100,
        "../outside.json",
        "./hooks/../../outside.json",
        "hooks/../hooks/hooks.json",
        "/etc/passwd",
        "//",
        "",
        ".",
        "./out/x.json",
        "./loop/x.json",
        "./gone.json",
        "\ud800",
        "x\udfff.json",
        "\x1b]0;t\x07",
        "~/x.json",
    ]
) | st.text(max_size=40)
HOOKS: Any = st.one_of(
    PATHS,
    st.lists(PATHS, max_size=4),
    st.none(),
    st.integers(),
    st.dictionaries(st.text(max_size=8), st.one_of(PATHS, st.lists(PATHS, max_size=2))),
)


def _plugin(base: Path, manifest_dir: str, hooks: Any) -> Path:
    root = base / manifest_dir.strip(".").replace("-plugin", "") / "1.0.0"
    (root / manifest_dir).mkdir(parents=True, exist_ok=True)
    (root / "hooks").mkdir(exist_ok=True)
    (root / "hooks" / "hooks.json").write_text('{"hooks": {}}')
    for name, target in (("out", base), ("loop", root / "loop"), ("gone.json", root / "none")):
        if not (root / name).is_symlink():
            (root / name).symlink_to(target)
    text = json.dumps({"name": "p", "hooks": hooks})
    (root / manifest_dir / "plugin.json").write_text(text, errors="surrogatepass")
    return root


@FUZZ
@given(hooks=HOOKS)
def test_no_manifest_path_makes_either_bridge_raise(hooks: Any) -> None:
    check_manifest(hooks)


def check_manifest(hooks: Any) -> None:
    """The property: both bridges read a manifest whose ``hooks`` is ``hooks`` without
    raising, and Codex's diagnostics are printable."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        claude = _plugin(base, ".claude-plugin", hooks)
        diags = Diagnostics()
        plugin_suite(claude, None, base / "config", base, diags)
        home = base / "codex"
        cache = home / "plugins" / "cache" / "m" / "p"
        cache.mkdir(parents=True)
        codex = _plugin(base, ".codex-plugin", hooks)
        codex.rename(cache / "1.0.0")
        found: list[CodexDiagnostic] = []
        list(enabled_plugins(home, {"plugins": {"p@m": {"enabled": True}}}, found))
        for diagnostic in found:
            diagnostic.describe().encode("utf-8")


FUZZ_TARGET = ("plugin manifests", check_manifest, {"hooks": HOOKS})
"""What ``benchmarks/fuzz_all.py`` (``make fuzz``) runs: a name, the property, its strategies."""
