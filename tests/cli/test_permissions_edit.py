"""``/permissions`` in a pseudo-terminal edits rules as Claude Code 2.1.332's does (issue 32):
a rule added goes to the settings file 2.1.332 writes it to (``localSettings`` by default,
``projectSettings``, ``userSettings``, or the session alone) and is in force at once; a
rule deleted leaves the file it came from and the session; a rule of a file ``/permissions``
does not edit stays. Helpers: ``test_interactive``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.test_interactive import Session, bash, project, spawned, text
from tests.cli.test_interactive_keys import start_rules

__all__ = ["project", "spawned"]  # the fixtures, used by name


def _permissions(path: Path) -> dict[str, Any]:
    block: dict[str, Any] = json.loads(path.read_text())["permissions"]
    return block


def test_rules_added_and_removed_where_claude_code_keeps_them(
    spawned: list[Session], tmp_path: Path, project: Path
) -> None:
    claude = project / ".claude"
    claude.mkdir()
    shared = claude / "settings.json"
    shared.write_text(
        json.dumps({"env": {"KEPT": "1"}, "permissions": {"ask": ["Bash(ls *)"]}}, indent=4)
    )
    flag = tmp_path / "flag.json"
    flag.write_text(json.dumps({"permissions": {"deny": ["WebFetch"]}}))
    rm = {"contains": "remove the file", "responses": [[bash("rm doomed.txt")], text("TRIED")]}
    s = start_rules(spawned, tmp_path, project, [rm], "--settings", str(flag))
    (project / "doomed.txt").write_text("x")

    s.say("/permissions add deny Bash(rm *)")  # 2.1.332's first place: .claude/settings.local.json
    s.expect("Added deny rule Bash(rm *)")
    assert _permissions(claude / "settings.local.json") == {"deny": ["Bash(rm *)"]}
    s.say("remove the file")
    s.expect("TRIED")
    assert (project / "doomed.txt").exists()  # the new rule is in force in this session

    s.say("/permissions add allow Read(src/**) project")
    s.expect("Added allow rule Read(src/**)")
    s.say("/permissions add ask WebSearch user")
    s.expect("Added ask rule WebSearch")
    s.say("/permissions add allow Glob session")
    s.expect("Added allow rule Glob for this session only, not saved to settings")
    data = json.loads(shared.read_text())
    assert data == {
        "env": {"KEPT": "1"},
        "permissions": {"ask": ["Bash(ls *)"], "allow": ["Read(src/**)"]},
    }
    assert shared.read_text().startswith('{\n    "env"')  # its indentation kept
    user = tmp_path / "home" / ".claude" / "settings.json"
    assert _permissions(user) == {"ask": ["WebSearch"]}

    s.say("/permissions")
    s.expect("allow Glob  [session: session]")
    s.say("/permissions remove deny Bash(rm *)")
    s.expect("Deleted deny rule Bash(rm *)")
    s.say("/permissions remove ask Bash(ls *)")
    s.expect("Deleted ask rule Bash(ls *)")
    s.say("/permissions remove deny WebFetch")  # --settings: not a file /permissions edits
    s.expect("Could not delete WebFetch — the rule is unchanged")
    s.say("/permissions add maybe Bash")
    s.expect("dsh: /permissions add maybe Bash: maybe: a rule is allow, ask or deny")
    s.say("/permissions add deny Bash(")
    s.expect("dsh: /permissions add deny Bash(: Bash(:")
    s.say("/permissions")
    s.expect("rules (deny, then ask, then allow, then the mode):")
    s.say("/exit")
    assert s.leave() == 0
    assert _permissions(claude / "settings.local.json") == {"deny": []}
    assert _permissions(shared) == {"ask": [], "allow": ["Read(src/**)"]}
    assert json.loads(flag.read_text()) == {"permissions": {"deny": ["WebFetch"]}}
    transcript = s.transcript.getvalue()
    report = transcript[transcript.rindex("rules (deny, then ask") :]
    assert "Bash(rm *)" not in report.split("/permissions add")[0]
    assert "Bash(ls *)" not in report.split("/permissions add")[0]
    [denied] = [e for e in s.events() if e["type"] == "tool/result"]
    assert denied["code"] == "DENIED"
