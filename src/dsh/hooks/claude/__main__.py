"""``python -m dsh.hooks.claude``: regenerate the coverage page, or check a project's hooks.

python -m dsh.hooks.claude coverage [--write docs/hooks-claude.md]
python -m dsh.hooks.claude check [--project DIR] [--settings FILE]... [--plugin-dir DIR]...
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from dsh.hooks.claude._report import render_coverage_markdown
from dsh.hooks.claude.settings._catalog import load_catalog


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dsh.hooks.claude")
    sub = parser.add_subparsers(dest="command", required=True)
    coverage = sub.add_parser("coverage", help="print or write the coverage page")
    coverage.add_argument("--write", type=Path, help="write the page to this file")
    check = sub.add_parser("check", help="report a project's Claude Code hooks")
    check.add_argument("--project", type=Path, default=Path.cwd())
    check.add_argument("--settings", action="append", default=[], help="file or inline JSON")
    check.add_argument("--plugin-dir", action="append", type=Path, default=[])
    args = parser.parse_args(argv)

    if args.command == "coverage":
        page = render_coverage_markdown()
        if args.write is None:
            sys.stdout.write(page)
        else:
            args.write.write_text(page, encoding="utf-8")
        return 0
    catalog = load_catalog(args.project, settings_files=args.settings, plugin_roots=args.plugin_dir)
    sys.stdout.write(catalog.render_report())
    return 0 if catalog.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
