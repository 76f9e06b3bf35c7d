"""What discovery reads before validation: hook files, settings, suites, and their diagnostics.

Shared by the catalog (settings sources) and plugin discovery (``_plugins``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import TYPE_CHECKING, Any, Final

from dsh._frozen import slotted
from dsh.hooks.claude.settings._parse import JSONProblem
from dsh.hooks.claude.settings._types import (
    Diagnostic,
    DiagnosticCode,
    HookSource,
    Severity,
    SourceKind,
)
from dsh.hooks.claude.settings._validate import SuiteContext

if TYPE_CHECKING:
    from dsh.hooks.claude.settings._models import Settings

__all__ = ["SCALAR_PRECEDENCE", "Diagnostics", "ReadSettings", "SourceFile", "Suite"]

SCALAR_PRECEDENCE: Final[Mapping[SourceKind, int]] = {
    "managed": 0,
    "cli": 1,
    "local": 2,
    "project": 3,
    "user": 4,
    "plugin": 5,
}
"""Settings precedence for a scalar key (``disableAllHooks``, ``defaultMode``): lower wins."""


@slotted
class SourceFile:
    """A hook file read from disk (or inline), before validation."""

    source: HookSource
    data: dict[str, Any] | None
    problem: JSONProblem | None = None


@slotted
class ReadSettings:
    file: SourceFile
    model: Settings | None


@slotted
class Suite:
    """One settings file, or one plugin with every hook file it ships."""

    kind: SourceKind
    files: list[SourceFile]
    hooks: list[tuple[SourceFile, Mapping[str, Any]]] = field(default_factory=list)
    context: SuiteContext | None = None
    disabled: str | None = None
    plugin: str | None = None


class Diagnostics:
    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def add(
        self,
        source: HookSource,
        severity: Severity,
        code: DiagnosticCode,
        reason: str,
        *,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.items.append(
            Diagnostic(
                file=source.label,
                plugin=source.plugin,
                event=None,
                group_index=None,
                hook_index=None,
                reason=reason,
                severity=severity,
                code=code,
                line=line,
                column=column,
            )
        )

    def problem(self, source: HookSource, problem: JSONProblem) -> None:
        self.add(
            source, "error", problem.code, problem.reason, line=problem.line, column=problem.column
        )
