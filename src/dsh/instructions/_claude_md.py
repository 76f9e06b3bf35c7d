"""Claude Code's instructions files (``CLAUDE.md`` and friends) and the text the model reads.

``find_instructions(cwd, config_dir=...)`` lists, in Claude Code's order, every
instructions file it puts into the model's context at session start, each with
its text and the ``InstructionsFile`` that ``InstructionsLoaded`` reports;
``render_instructions`` writes the context text the model reads for them.

Sources. The docs page "How Claude remembers your project"
(https://code.claude.com/docs/en/memory; earlier
https://docs.anthropic.com/en/docs/claude-code/memory) gives the locations,
scopes, the upward walk that stops before ``/``, ``.claude/rules/`` with
``paths`` frontmatter, ``@path`` imports (relative to the importing file,
``@~/``, absolute; not inside code spans or blocks; recursive) and that
block-level HTML comments are not shown to the model. Claude Code's own
``src/utils/claudemd.ts`` (``getMemoryFiles``, ``processMemoryFile``,
``processMdRules``, ``parseMemoryFileContent``, ``extractIncludePathsFromTokens``,
``stripHtmlComments``, ``getClaudeMds``, ``MEMORY_INSTRUCTION_PROMPT``) and
``src/utils/config.ts`` (``getManagedClaudeRulesDir``, ``getUserClaudeRulesDir``),
read in public copies of that source, give the exact rules and wording used here:

* Order: ``<managed>/CLAUDE.md``, ``<managed>/.claude/rules/**/*.md``,
  ``<config>/CLAUDE.md``, ``<config>/rules/**/*.md``, then for each directory from
  the outermost ancestor of ``cwd`` (never ``/`` itself) down to ``cwd``:
  ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``.claude/rules/**/*.md`` (Project) and
  ``CLAUDE.local.md`` (Local). Rules directories are walked recursively; Claude
  Code takes directory-listing order, here entries are sorted by name.
* A file is never loaded twice (its path and its symlink target both count).
* Frontmatter (``---`` ... ``---`` at the top) is cut from every file's text, and
  so are block-level HTML comments (a line starting ``<!--`` up to the line
  holding ``-->``; the rest of that line stays). A rules file whose ``paths``
  name anything but ``**`` is conditional: it loads when Claude reads a matching
  file, which is not session start and not this module's business.
* A file that is missing, unreadable, a directory or empty (after the cuts
  above) is skipped silently, and its imports are not followed. Bytes that are
  not UTF-8 are read as U+FFFD, as Claude Code reads them.
* ``@path`` imports: Claude Code's pattern ``(?:^|\\s)@((?:[^\\s\\\\]|\\\\ )+)`` over
  the text outside fenced code blocks, code spans and HTML comments; ``#fragment``
  dropped, ``\\ `` is a space; the path must start ``./``, ``~/``, ``/`` or a
  letter, digit, ``.``, ``_`` or ``-``. Relative paths resolve against the real
  directory of the importing file. Only text-like extensions (Claude Code's
  ``TEXT_FILE_EXTENSIONS``) or none are read. Each import is its own entry right
  after its importer, depth first, with the importer's scope, ``load_reason``
  ``include`` and ``parent_path`` the importer. Depth: the top-level file is
  depth 0 and a file at depth 5 (``MAX_INCLUDE_DEPTH``) is not loaded, so a
  chain holds at most five files (four hops; older docs said "five hops").
  A Managed, Project or Local file's import that leaves ``cwd`` is not followed:
  Claude Code follows one only after the user approved it, which a headless
  run (``claude -p``, and every dsh run) never has. A User file's imports go
  anywhere.
* Rendering (``getClaudeMds``): ``MEMORY_INSTRUCTION_PROMPT``, then per file
  ``Contents of <path><label>:\\n\\n<text stripped>``, joined by blank lines;
  Claude Code gives Managed files the User label.

Not done here (Claude Code does them): lazy loads (nested ``CLAUDE.md`` below
``cwd`` and conditional rules, on file reads), asking to approve an import that
leaves ``cwd``, ``claudeMdExcludes``, ``--add-dir`` directories,
the worktree de-duplication, and auto memory (``MEMORY.md``). Markdown is
scanned line by line, not with a full CommonMark lexer: indented code blocks
are read as text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import final

from dsh._frozen import frozen
from dsh.agent import InstructionsFile, InstructionsLoadReason, InstructionsScope
from dsh.base import read_head
from dsh.instructions._markdown import (
    absolute,
    import_paths,
    split_frontmatter,
    strip_block_comments,
)

__all__ = ["LoadedInstructions", "find_instructions", "render_instructions"]

_DEFAULT_MANAGED_DIR = Path("/etc/claude-code")
_MAX_INCLUDE_DEPTH = 5
MAX_INSTRUCTIONS_BYTES = 1 << 20
"""Bytes of one instructions file read (1 MiB); the rest is cut, and the cut said."""

_MEMORY_INSTRUCTION_PROMPT = (
    "Codebase and user instructions are shown below. Be sure to adhere to these "
    "instructions. IMPORTANT: These instructions OVERRIDE any default behavior and "
    "you MUST follow them exactly as written."
)
_USER_LABEL = " (user's private global instructions for all projects)"
_LABELS: dict[InstructionsScope, str] = {
    "Managed": _USER_LABEL,
    "User": _USER_LABEL,
    "Project": " (project instructions, checked into the codebase)",
    "Local": " (user's private project instructions, not checked in)",
}

# Claude Code's TEXT_FILE_EXTENSIONS: an import with any other extension is not read.
_TEXT_EXTENSIONS = frozenset(
    {
        ".md",
        ".txt",
        ".text",
        ".json",
        ".yaml",
        ".yml",
        ".toml",
        ".xml",
        ".csv",
        ".html",
        ".htm",
        ".css",
        ".scss",
        ".sass",
        ".less",
        ".js",
        ".ts",
        ".tsx",
        ".jsx",
        ".mjs",
        ".cjs",
        ".mts",
        ".cts",
        ".py",
        ".pyi",
        ".pyw",
        ".rb",
        ".erb",
        ".rake",
        ".go",
        ".rs",
        ".java",
        ".kt",
        ".kts",
        ".scala",
        ".c",
        ".cpp",
        ".cc",
        ".cxx",
        ".h",
        ".hpp",
        ".hxx",
        ".cs",
        ".swift",
        ".sh",
        ".bash",
        ".zsh",
        ".fish",
        ".ps1",
        ".bat",
        ".cmd",
        ".env",
        ".ini",
        ".cfg",
        ".conf",
        ".config",
        ".properties",
        ".sql",
        ".graphql",
        ".gql",
        ".proto",
        ".vue",
        ".svelte",
        ".astro",
        ".ejs",
        ".hbs",
        ".pug",
        ".jade",
        ".php",
        ".pl",
        ".pm",
        ".lua",
        ".r",
        ".dart",
        ".ex",
        ".exs",
        ".erl",
        ".hrl",
        ".clj",
        ".cljs",
        ".cljc",
        ".edn",
        ".hs",
        ".lhs",
        ".elm",
        ".ml",
        ".mli",
        ".f",
        ".f90",
        ".f95",
        ".for",
        ".cmake",
        ".make",
        ".makefile",
        ".gradle",
        ".sbt",
        ".rst",
        ".adoc",
        ".asciidoc",
        ".org",
        ".tex",
        ".latex",
        ".lock",
        ".log",
        ".diff",
        ".patch",
    }
)


@final
@frozen(kw_only=True)
class LoadedInstructions:
    """An instructions file loaded into the model's context, with its text.

    ``text`` is what the model reads for it: the file's UTF-8 text without its
    frontmatter and block-level HTML comments (as Claude Code cuts them). The
    files it ``@imports`` are separate entries, not inlined.
    """

    file: InstructionsFile
    text: str


def find_instructions(
    cwd: Path,
    *,
    config_dir: Path,
    managed_dir: Path | None = None,
    load_reason: InstructionsLoadReason = "session_start",
    refused: list[str] | None = None,
) -> list[LoadedInstructions]:
    """Every instructions file Claude Code loads at session start for ``cwd``, in its order.

    ``config_dir`` is ``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` (the caller
    decides); ``managed_dir`` defaults to ``/etc/claude-code``. Top-level files
    carry ``load_reason``; the files they import carry ``include``. A Project or
    Local file that is a symlink out of the directory it was found in is not loaded
    (as an import leaving ``cwd``); ``refused``, when given, gets a line for each.
    """
    loader = _Loader(load_reason, Path(os.path.realpath(cwd)))
    managed = _DEFAULT_MANAGED_DIR if managed_dir is None else managed_dir
    loader.load_file(absolute(managed / "CLAUDE.md"), "Managed")
    loader.load_rules(absolute(managed / ".claude" / "rules"), "Managed")
    loader.load_file(absolute(config_dir / "CLAUDE.md"), "User")
    loader.load_rules(absolute(config_dir / "rules"), "User")
    for directory in _walk_down_to(absolute(cwd)):
        loader.load_file(directory / "CLAUDE.md", "Project", within=directory)
        loader.load_file(directory / ".claude" / "CLAUDE.md", "Project", within=directory)
        loader.load_rules(directory / ".claude" / "rules", "Project", within=directory)
        loader.load_file(directory / "CLAUDE.local.md", "Local", within=directory)
    if refused is not None:
        refused.extend(loader.refused)
    return loader.loaded


def render_instructions(loaded: Sequence[LoadedInstructions]) -> str:
    """The context text the model reads for these files (Claude Code's wording where known).

    Claude Code's ``getClaudeMds``: its instruction preamble, then one
    ``Contents of <path> (<label>):`` block per file with a non-empty text, the
    text stripped of surrounding whitespace; the empty string when there is none.
    """
    blocks = [
        f"Contents of {item.file.path}{_LABELS[item.file.scope]}:\n\n{item.text.strip()}"
        for item in loaded
        if item.text
    ]
    if not blocks:
        return ""
    return "\n\n".join([_MEMORY_INSTRUCTION_PROMPT, *blocks])


class _Loader:
    """One session-start pass: the files loaded so far and the paths already seen."""

    def __init__(self, load_reason: InstructionsLoadReason, cwd: Path) -> None:
        self.load_reason: InstructionsLoadReason = load_reason
        self.cwd = cwd
        self.loaded: list[LoadedInstructions] = []
        self.refused: list[str] = []
        self._seen: set[str] = set()

    def load_rules(
        self, rules_dir: Path, scope: InstructionsScope, *, within: Path | None = None
    ) -> None:
        for path in _rule_files(rules_dir, set()):
            self.load_file(path, scope, rule=True, within=within)

    def load_file(
        self,
        path: Path,
        scope: InstructionsScope,
        *,
        rule: bool = False,
        parent: Path | None = None,
        depth: int = 0,
        within: Path | None = None,
    ) -> None:
        if not os.path.lexists(path):
            return  # most candidates: one lstat, not a realpath's (nothing here to load or see)
        key = str(path)
        real = os.path.realpath(path)
        if depth >= _MAX_INCLUDE_DEPTH or key in self._seen or real in self._seen:
            return
        self._seen.update((key, real))
        if within is not None and not _inside(real, within) and os.path.lexists(path):
            # A project's file that is a symlink out of its directory is an import that
            # leaves it: not followed in a run nobody approved it in (as `@` imports).
            self.refused.append(f"{path} (a link to {real}, outside {within})")
            return
        if path.suffix and path.suffix.lower() not in _TEXT_EXTENSIONS:
            return
        raw = _read_text(path)
        if raw is None:
            return
        body, conditional = split_frontmatter(raw)
        if rule and conditional:
            return  # loads when a matching file is read, not at session start
        text = strip_block_comments(body)
        if not text.strip():
            return
        self.loaded.append(
            LoadedInstructions(
                file=InstructionsFile(
                    path=path,
                    scope=scope,
                    load_reason="include" if parent is not None else self.load_reason,
                    parent_path=parent,
                ),
                text=text,
            )
        )
        base = Path(real).parent
        for target in import_paths(body, base):
            # Claude Code follows a non-user file's import out of the working directory only
            # once the user approved it, which a headless run never has: a repository's
            # CLAUDE.md cannot pull ~/.ssh into the context.
            if scope != "User" and not Path(os.path.realpath(target)).is_relative_to(self.cwd):
                continue
            self.load_file(target, scope, parent=path, depth=depth + 1)


def _walk_down_to(cwd: Path) -> list[Path]:
    """``cwd`` and its ancestors, outermost first, without the filesystem root."""
    dirs: list[Path] = []
    current = cwd
    while current != current.parent:
        dirs.append(current)
        current = current.parent
    dirs.reverse()
    return dirs


def _rule_files(rules_dir: Path, visited: set[str]) -> Iterator[Path]:
    if not os.path.isdir(rules_dir):
        return  # most projects have none: one stat, not a realpath's
    real = os.path.realpath(rules_dir)
    if real in visited:
        return
    visited.add(real)
    try:
        entries = sorted(os.scandir(rules_dir), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        path = rules_dir / entry.name
        try:
            is_dir = entry.is_dir()
            is_file = entry.is_file()
        except OSError:
            continue
        if is_dir:
            yield from _rule_files(path, visited)
        elif is_file and entry.name.endswith(".md"):
            yield path


def _inside(real: str, directory: Path) -> bool:
    return Path(real).is_relative_to(os.path.realpath(directory))


def _read_text(path: Path) -> str | None:
    """A regular file's text, its first ``MAX_INSTRUCTIONS_BYTES`` (a FIFO or device: None)."""
    try:
        head = read_head(path, MAX_INSTRUCTIONS_BYTES, "instructions file")
    except OSError:
        return None  # absent, unreadable, a FIFO or a device: never blocked on, never read
    # As Claude Code: bad bytes become U+FFFD, the file still loads.
    text = head.data.decode("utf-8", errors="replace")
    if head.cut:
        text += f"\n[truncated: {head.size:,} bytes, the first {MAX_INSTRUCTIONS_BYTES:,} read]"
    return text
