"""Each wire format side by side (issue 29): dsh and the tool whose set-up it takes, one mock.

Run: .venv/bin/python benchmarks/bench_formats_side_by_side.py [--rounds 5] [--cases a,b]
     [--formats anthropic,responses,chat] [--markdown]

The cases are ``bench_side_by_side``'s (``_side_cases.CASES``: no hooks, one Bash call,
PreToolUse deny, PostToolUse block, Stop block once, prompt block, three tool calls),
each run checked as there (hooks, shell commands, model requests, what the model saw);
a run that did not do what its case says is an ERROR line, is not counted, and the
script exits 1. Per wire format, both contenders talk to ONE loopback mock (the same
instance, loaded with the same case before each run):

- Anthropic Messages: ``dsh run`` with Claude Code's set-up alone (``ANTHROPIC_API_KEY``,
  ``ANTHROPIC_BASE_URL``, no model named; the case's hooks in ``.claude/settings.json``)
  and the real Claude Code 2.1.332 (``claude -p``) with the same settings, against one
  ``AnthropicMock``. Target: dsh <= 0.5x Claude Code per case.
- OpenAI Responses: ``dsh run --hooks codex`` with Codex's set-up alone (the same
  ``$CODEX_HOME/config.toml`` Codex gets: ``model``, ``model_provider``, its
  ``[model_providers.X]`` at the mock, the case's ``[hooks]``, trusted with Codex's
  recipe; dsh offers Codex's ``exec_command``, which the mock calls) and the real Codex
  0.171 (``codex exec``), against one ``ResponsesMock``. Target: dsh <= 1x Codex per case.
- chat completions: dsh alone (``--model m --base-url URL``) against the chat mock; no
  other tool speaks it here, so its figures have no ratio.

Runs are interleaved over all formats (case by case, tool by tool, rotating, round by
round) after one warm-up run each, so the machine's load falls on every column alike;
medians per case of the wall clock and of the CPU time (the tool and every child it
waited for). Claude Code and Codex are found as ``bench_side_by_side`` finds them
(``$DSH_CLAUDE`` / ``$DSH_CODEX``, PATH, ``.bench-tools``); one that is absent leaves its
format dsh-only, saying so.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from _anthropic_mock import AnthropicMock
from _claude_side import CLAUDE_INSTALL, claude_path
from _side_cases import CASES, SideCase
from _tree_cpu import become_subreaper
from bench_side_by_side import (
    CODEX_INSTALL,
    DSH,
    SEARCHED,
    ChatMock,
    Tool,
    both_reports,
    claude_tool,
    codex_module,
    codex_tool,
    dsh_anthropic_tool,
    dsh_tool,
    measure,
    summary,
)

FORMATS = {
    "anthropic": "Anthropic Messages: dsh with Claude Code's set-up / Claude Code 2.1.332",
    "responses": "OpenAI Responses: dsh with Codex's set-up (--hooks codex) / Codex 0.171",
    "chat": "chat completions: dsh alone",
}


def dsh_codex_tool(mock: Any, root: Path) -> Tool:
    """``dsh run --hooks codex`` with the ``$CODEX_HOME`` Codex gets for the case (its own
    folder), no dsh model settings: Codex's model set-up and hooks, read by dsh."""
    from _codex_side import check_side_run, codex_env, hooks_toml, provider_toml, trust_with_dsh

    home = root / "dsh-codex-home" / ".codex"
    data = str(root / "dsh-codex-data")

    def invocation(case: SideCase, workdir: Path) -> tuple[list[str], dict[str, str]]:
        home.mkdir(parents=True, exist_ok=True)
        text = provider_toml(mock.url, workdir.absolute()) + "\n" + hooks_toml(case.hooks)
        (home / "config.toml").write_text(text)
        trust_with_dsh(home, workdir.absolute())
        env = codex_env(home, DSH_DATA_DIR=data, XDG_DATA_HOME=data)
        argv = [DSH, "run", "--hooks", "codex", "--project", str(workdir)]
        argv += ["--session-dir", str(root / "dsh-codex-sessions"), case.prompt]
        return argv, env

    def check(case: SideCase, workdir: Path) -> list[str]:
        return [f"Codex check: {p}" for p in check_side_run(case, workdir, mock)]

    return Tool("dsh-codex", mock, invocation, check)


def contenders(
    stack: ExitStack, root: Path, wanted: list[str]
) -> tuple[dict[str, list[Tool]], list[str]]:
    """Each wanted format's tools, sharing the format's one mock; a line per tool skipped."""
    groups: dict[str, list[Tool]] = {}
    skipped: list[str] = []
    if "anthropic" in wanted:
        mock = stack.enter_context(AnthropicMock())
        groups["anthropic"] = [dsh_anthropic_tool(mock, root)]
        if program := claude_path():
            groups["anthropic"].append(claude_tool(mock, root, program))
        else:
            skipped.append(f"Claude Code not found ({SEARCHED.format('CLAUDE')}); {CLAUDE_INSTALL}")
    if "responses" in wanted:
        module = codex_module()
        if module is None:
            skipped.append("Responses: benchmarks/_codex_side.py is not here")
        else:
            responses = stack.enter_context(module.ResponsesMock())
            groups["responses"] = [dsh_codex_tool(responses, root)]
            if module.codex_path() is not None:
                groups["responses"].append(codex_tool(module, responses, root))
            else:
                skipped.append(f"Codex not found ({SEARCHED.format('CODEX')}); {CODEX_INSTALL}")
    if "chat" in wanted:
        groups["chat"] = [dsh_tool(ChatMock(), root)]
    return groups, skipped


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cases", default=",".join(c.name for c in CASES))
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    args = parser.parse_args()
    cases = [c for c in CASES if c.name in args.cases.split(",")]
    load_before = os.getloadavg()[0]
    become_subreaper()
    with tempfile.TemporaryDirectory(prefix="bench-formats-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        groups, skipped = contenders(stack, root, args.formats.split(","))
        for line in skipped:
            print(f"skipped: {line}", flush=True)
        everyone = [tool for tools in groups.values() for tool in tools]
        times, cpu, tree, failures, bare = measure(cases, everyone, args.rounds, root)
    failed = {(f.case, f.tool) for f in failures}
    print(summary(args.rounds, (load_before, os.getloadavg()[0]), bare or [0.0]))
    for name, tools in groups.items():
        print(f"\n## {FORMATS[name]}")
        both_reports(cases, tools, (times, cpu, tree), failed, args.markdown)
    if failures:
        sys.exit(f"{len(failures)} runs did not do what their case says (ERROR lines)")


if __name__ == "__main__":
    main()
