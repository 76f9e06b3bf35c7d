"""dsh's Codex trust against what the real Codex 0.171.0 computed and accepted (no Codex needed).

The fixture (``fixtures/codex-trust``, ``codex_trust_fixture``) holds a
``$CODEX_HOME`` with a hook on every event and the recipe's corners (matchers
on events that ignore them, ``async``, ``commandWindows``, ``statusMessage``,
``additionalContextLimit`` default/custom/ignored, clamped and default short
timeouts, non-ASCII, the same hook in JSON and TOML), and Codex's own
``hooks/list`` answers for it before and after dsh recorded trust.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from dsh.hooks.codex import CodexHook, load_codex_catalog
from dsh.hooks.codex.config._trust import read_states
from tests.hooks_codex.codex_trust_fixture import (
    FIXTURE,
    HOME,
    materialize,
    recorded,
    trust_as_dsh,
)

# Codex's trustStatus for a hook dsh gives each status.
CODEX_STATUS = {"untrusted": "untrusted", "changed": "modified", "trusted": "trusted"}


def dsh_hooks(home: Path, project: Path) -> dict[str, CodexHook]:
    catalog = load_codex_catalog(project, home=home, system_dir=None)
    return {h.key.replace(str(home), HOME): h for h in catalog.hooks}


def codex_status(hook: CodexHook) -> str:
    return "untrusted" if hook.trust == "disabled" else CODEX_STATUS[hook.trust]


def test_every_hash_is_the_one_codex_computed(tmp_path: Path) -> None:
    home, project = materialize(tmp_path)
    mine = dsh_hooks(home, project)
    listing = recorded("hooks-list.json")["hooks"]
    assert [h["key"] for h in listing] == list(mine)  # same keys, same (display) order
    for entry in listing:
        hook = mine[entry["key"]]
        assert hook.trusted_hash == entry["currentHash"], entry["key"]
        assert hook.timeout == entry["timeoutSec"], entry["key"]
        assert hook.run_async == entry["async"], entry["key"]
        assert (hook.trust != "disabled") == entry["enabled"], entry["key"]
        assert codex_status(hook) == entry["trustStatus"], entry["key"]
    assert {h.trust for h in mine.values()} == {"untrusted", "changed", "disabled"}


def test_dsh_hooks_trust_writes_the_records_codex_accepted(tmp_path: Path) -> None:
    home, project = materialize(tmp_path)
    assert trust_as_dsh(home, project)
    written = (home / "config.toml").read_text(encoding="utf-8").replace(str(home), HOME)
    assert written == (FIXTURE / "config-trusted.toml").read_text(encoding="utf-8")
    # The real Codex, given exactly that file, trusted every hook but the disabled one.
    listing = recorded("hooks-list-trusted.json")["hooks"]
    mine = dsh_hooks(home, project)
    for entry in listing:
        want = "trusted" if entry["enabled"] else "untrusted"
        assert entry["trustStatus"] == want, entry["key"]
        assert codex_status(mine[entry["key"]]) == want, entry["key"]


def test_dsh_trusts_what_codex_itself_trusted(tmp_path: Path) -> None:
    # config-codex-trusted.toml: what Codex's own TUI review wrote ("Trust all and continue").
    home, project = materialize(tmp_path, config="config-codex-trusted.toml")
    states = read_states(tomllib.loads((home / "config.toml").read_text(encoding="utf-8")))
    mine = load_codex_catalog(project, home=home, system_dir=None).hooks
    assert len(mine) == len(recorded("hooks-list.json")["hooks"])
    for hook in mine:
        assert states[hook.key].trusted_hash == hook.trusted_hash, hook.key
        assert hook.trust == ("disabled" if hook.event == "Interrupt" else "trusted"), hook.key


def test_dsh_says_what_codex_warns_about(tmp_path: Path) -> None:
    home, project = materialize(tmp_path)
    diagnostics = load_codex_catalog(project, home=home, system_dir=None).diagnostics
    for warning in recorded("hooks-list.json")["warnings"]:
        for gist in ("ignoring additionalContextLimit for ", "clamping "):
            if warning.startswith(gist):
                event = warning[len(gist) :].split(" ")[0]
                assert any(d.event == event and d.reason.startswith(gist) for d in diagnostics), (
                    warning
                )
