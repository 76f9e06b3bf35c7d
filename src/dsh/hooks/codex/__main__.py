"""``python -m dsh.hooks.codex``: regenerate the coverage page, or check a project's Codex hooks.

python -m dsh.hooks.codex coverage [--write docs/hooks-codex.md]
python -m dsh.hooks.codex check [--project DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dsh.hooks.codex._profile import untrusted_line
from dsh.hooks.codex._report import render_codex_coverage
from dsh.hooks.codex.config._catalog import load_codex_catalog


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsh.hooks.codex")
    sub = parser.add_subparsers(dest="command", required=True)
    coverage = sub.add_parser("coverage", help="print or write the coverage page")
    coverage.add_argument("--write", type=Path, help="write the page to this file")
    check = sub.add_parser("check", help="report a project's Codex hooks")
    check.add_argument("--project", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)
    if args.command == "coverage":
        page = render_codex_coverage()
        if args.write is None:
            sys.stdout.write(page)
        else:
            args.write.write_text(page, encoding="utf-8")
        return 0
    catalog = load_codex_catalog(args.project)
    for diag in catalog.diagnostics:
        sys.stdout.write(f"{diag.severity}: {diag.describe()}\n")
    for hook in catalog.hooks:
        if not hook.runs:
            sys.stdout.write(f"untrusted: {untrusted_line(hook)}\n")
    return 0 if not catalog.errors and all(h.runs for h in catalog.hooks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
