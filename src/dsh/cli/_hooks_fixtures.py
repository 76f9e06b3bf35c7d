"""``dsh hooks test --fixtures DIR``: check a folder of hook fixtures; JUnit XML; ``--update``.

Each fixture (``dsh.testing.check_fixtures``) runs its payload through its
bridge's hooks and compares what came out (the decision, the model-visible
text, the exit codes, the notices) with its ``expect``. A line per fixture
(``ok``, ``FAIL``, ``ERROR``, ``NEW`` for one with no ``expect`` yet), the
diff of each mismatch, and a count; the exit status is 1 when any fixture
failed, could not run or has no ``expect``. ``--update`` writes each observed
effect into its fixture instead (exit 0 unless one could not run);
``--junit FILE`` also writes the checks as JUnit XML for CI.
"""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

import click

from dsh.cli._errors import UserError
from dsh.cli._render import terminal_safe
from dsh.testing import FixtureCheck, accept_fixture, check_fixtures

__all__ = ["run_fixtures"]


def _status(check: FixtureCheck) -> str:
    if check.error:
        return "ERROR"
    if check.expected is None:
        return "NEW"
    return "ok" if check.passed else "FAIL"


def run_fixtures(folder: Path, *, project: Path, junit: Path | None, update: bool) -> int:
    """Check every fixture of ``folder``; returns the exit status."""
    checks = asyncio.run(check_fixtures(folder, project=project))
    if not checks:
        raise UserError(f"--fixtures {folder}: no *.json fixture in it")
    for check in checks:
        status = _status(check)
        if update and status in ("FAIL", "NEW"):
            accept_fixture(check)
            status = "updated"
        detail = f": {check.error}" if check.error else ""
        click.echo(terminal_safe(f"{status:<7} {check.name}{detail}"))
        if status == "FAIL":
            for line in check.diff:
                click.echo(terminal_safe(f"    {line}"))
    if junit is not None:
        _write_junit(junit, checks, folder)
    failed = sum(_status(c) != "ok" for c in checks)
    errors = sum(bool(c.error) for c in checks)
    if update:
        click.echo(f"{len(checks)} fixture(s), {failed - errors} updated, {errors} could not run")
        return 1 if errors else 0
    click.echo(f"{len(checks)} fixture(s), {len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


def _xml_safe(text: str) -> str:
    """XML 1.0 has no place for most control characters a hook may print."""
    return "".join(c if c in "\n\t" or ord(c) >= 0x20 else "?" for c in text)


def _write_junit(path: Path, checks: Sequence[FixtureCheck], folder: Path) -> None:
    failures = sum(not c.passed and not c.error for c in checks)
    suite = ET.Element(
        "testsuite",
        name=f"dsh hooks test {folder}",
        tests=str(len(checks)),
        failures=str(failures),
        errors=str(sum(bool(c.error) for c in checks)),
    )
    for check in checks:
        case = ET.SubElement(suite, "testcase", classname="dsh.hooks", name=check.name)
        if check.error:
            ET.SubElement(case, "error", message=_xml_safe(check.error))
        elif check.expected is None:
            ET.SubElement(case, "failure", message="no expect in the fixture")
        elif check.diff:
            failure = ET.SubElement(case, "failure", message="the hook effect differs")
            failure.text = _xml_safe("\n".join(check.diff))
    try:
        ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as exc:
        raise UserError(f"--junit {path}: cannot write it: {exc}") from exc
