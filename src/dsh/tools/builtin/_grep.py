"""The ``Grep`` tool: ripgrep when it is on PATH, a Python search with the same results otherwise.

Both searchers produce ripgrep's raw lines (``path:line:text``, ``path-line-text``
context, ``--`` separators, ``path:count``, ``path``) for the same flags
(``--hidden``, VCS directories skipped, ``--sort path``, ``--max-columns
500``, ``.gitignore``/``.ignore``/``.rgignore`` honored, binary files
skipped); one formatter turns them into Claude Code's result. Set
``DSH_GREP_FALLBACK=1`` (or build the tool with ``grep_tool(use_ripgrep=False)``)
to force the fallback.
"""

from __future__ import annotations

import asyncio
import bisect
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import field
from pathlib import Path
from typing import Any, Literal, final

from pydantic import Field, NonNegativeInt
from pydantic.json_schema import SkipJsonSchema

from dsh._frozen import frozen, slotted
from dsh.base import AbortSignal
from dsh.session import Content
from dsh.tools._types import ToolDefinition, ToolInvocation, ToolResult
from dsh.tools.builtin._common import (
    VCS_DIRS,
    ArgumentsError,
    ToolInput,
    ToolOutput,
    builtin_tool,
    display_path,
    glob_regex,
    parse_arguments,
    walk,
)
from dsh.tools.builtin._process import run_in_group

__all__ = [
    "FILE_TYPES",
    "GREP_TOOL",
    "GrepError",
    "GrepInput",
    "GrepOutput",
    "grep_tool",
    "present_grep",
    "search_python",
]

OutputMode = Literal["content", "files_with_matches", "count"]
MAX_COLUMNS = 500
GREP_TIMEOUT_S = 120.0

# ripgrep 13's definitions (`rg --type-list`) of the commonly used types.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "cmake": ("*.cmake", "CMakeLists.txt"),
    "cpp": ("*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in",
            "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"),
    "cs": ("*.cs",),
    "csharp": ("*.cs",),
    "css": ("*.css", "*.scss"),
    "dart": ("*.dart",),
    "docker": ("*Dockerfile*",),
    "elixir": ("*.eex", "*.ex", "*.exs"),
    "go": ("*.go",),
    "haskell": ("*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"),
    "html": ("*.ejs", "*.htm", "*.html"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "js": ("*.js", "*.jsx", "*.vue"),
    "json": ("*.json", "composer.lock"),
    "jsonl": ("*.jsonl",),
    "kotlin": ("*.kt", "*.kts"),
    "lua": ("*.lua",),
    "make": ("*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am",
             "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mkdn"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mkdn"),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.phtml"),
    "protobuf": ("*.proto",),
    "py": ("*.py",),
    "r": ("*.R", "*.Rmd", "*.Rnw", "*.r"),
    "ruby": ("*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"),
    "rust": ("*.rs",),
    "scala": ("*.sbt", "*.scala"),
    "sh": ("*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh",
           "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc",
           ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout",
           ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile",
           "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"),
    "sql": ("*.psql", "*.sql"),
    "swift": ("*.swift",),
    "tf": ("*.tf",),
    "toml": ("*.toml", "Cargo.lock"),
    "ts": ("*.ts", "*.tsx"),
    "txt": ("*.txt",),
    "xml": ("*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd",
            "*.xsl", "*.xslt"),
    "yaml": ("*.yaml", "*.yml"),
    "zig": ("*.zig",),
}  # fmt: skip


class GrepInput(ToolInput):
    """Claude Code's Grep input (the flag-named fields keep their ``-i`` style names)."""

    pattern: str = Field(description="The regular expression to search for in file contents")
    path: str | SkipJsonSchema[None] = Field(
        default=None,
        description="File or directory to search in; the current working directory if omitted",
    )
    glob: str | SkipJsonSchema[None] = Field(
        default=None, description='Glob to filter files (e.g. "*.js", "*.{ts,tsx}")'
    )
    output_mode: OutputMode | SkipJsonSchema[None] = Field(
        default=None,
        description='"content" shows matching lines, "files_with_matches" (default) file '
        'paths, "count" match counts',
    )
    before: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None, alias="-B", description="Lines before each match (content mode)"
    )
    after: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None, alias="-A", description="Lines after each match (content mode)"
    )
    context: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None, alias="-C", description="Lines around each match (content mode)"
    )
    line_numbers: bool | SkipJsonSchema[None] = Field(
        default=None, alias="-n", description="Show line numbers (content mode; default true)"
    )
    ignore_case: bool | SkipJsonSchema[None] = Field(
        default=None, alias="-i", description="Case insensitive search"
    )
    type: str | SkipJsonSchema[None] = Field(
        default=None, description='File type to search (rg --type), e.g. "py", "js", "rust"'
    )
    head_limit: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None, description="Only the first N output lines or entries"
    )
    offset: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None, description="Skip the first N output lines or entries"
    )
    multiline: bool | SkipJsonSchema[None] = Field(
        default=None, description="Patterns may span lines and . matches newlines"
    )


class GrepOutput(ToolOutput):
    """A successful Grep's output; which fields are set depends on ``mode``.

    ``content`` (raw ``path:line:text`` or ``path:count`` lines) in content and
    count mode, ``numLines`` in content mode, ``numMatches`` in count mode;
    ``appliedLimit``/``appliedOffset`` when ``head_limit``/``offset`` were
    given and not zero.
    """

    mode: OutputMode
    numFiles: int
    filenames: list[str]
    content: str = ""
    numLines: int = 0
    numMatches: int = 0
    appliedLimit: int = 0
    appliedOffset: int = 0


def present_grep(output: Any) -> Content:
    """What the model sees of a successful Grep, in each output mode."""
    note = _pagination_note(output.get("appliedLimit"), output.get("appliedOffset", 0))
    mode: OutputMode = output["mode"]
    content: str = output.get("content", "")
    if mode == "content":
        return (content or "No matches found") + note
    if mode == "count":
        if not content:
            return "No matches found" + note
        total, files = output.get("numMatches", 0), output["numFiles"]
        summary = (
            f"\n\nFound {total} total {'occurrence' if total == 1 else 'occurrences'} across "
            f"{files} {'file' if files == 1 else 'files'}."
        )
        return content + summary + note
    filenames = output["filenames"]
    if not filenames:
        return "No files found" + note
    n = output["numFiles"]
    return f"Found {n} {'file' if n == 1 else 'files'}\n" + "\n".join(filenames) + note


class GrepError(Exception):
    """The search could not run (a bad pattern, an unknown type); the message says why."""


@final
@frozen
class _Query:
    pattern: str
    root: Path  # absolute: a file or a directory
    mode: OutputMode
    globs: tuple[str, ...]
    type: str | None
    ignore_case: bool
    line_numbers: bool
    before: int
    after: int
    multiline: bool


def _split_globs(glob: str | None) -> tuple[str, ...]:
    """Claude Code's splitting: on whitespace, then on commas outside brace patterns."""
    if not glob:
        return ()
    out: list[str] = []
    for part in glob.split():
        if "{" in part and "}" in part:
            out.append(part)
        else:
            out.extend(p for p in part.split(",") if p)
    return tuple(out)


# ripgrep --------------------------------------------------------------------------


async def _search_ripgrep(rg: str, q: _Query, cwd: Path, signal: AbortSignal | None) -> list[str]:
    argv = [rg, "--no-config", "--hidden", "--no-heading", "--color", "never", "--with-filename",
            "--sort", "path", "--max-columns", str(MAX_COLUMNS)]  # fmt: skip
    for vcs in sorted(VCS_DIRS):
        argv += ["--glob", f"!{vcs}"]
    if q.multiline:
        argv += ["-U", "--multiline-dotall"]
    if q.ignore_case:
        argv.append("-i")
    if q.mode == "files_with_matches":
        argv.append("-l")
    elif q.mode == "count":
        argv.append("-c")
    else:
        if q.line_numbers:
            argv.append("-n")
        if q.before:
            argv += ["-B", str(q.before)]
        if q.after:
            argv += ["-A", str(q.after)]
    if q.type:
        argv += ["--type", q.type]
    for g in q.globs:
        argv += ["--glob", g]
    argv += ["-e", q.pattern, "--", _rg_path(q.root, cwd)]
    outcome = await run_in_group(
        argv,
        cwd=cwd,
        env=os.environ,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        signal=signal,
        timeout=GREP_TIMEOUT_S,
    )
    out = (outcome.stdout or b"").decode("utf-8", errors="replace")
    err = (outcome.stderr or b"").decode("utf-8", errors="replace").strip()
    if outcome.aborted is not None:
        raise GrepError(f"search aborted: {outcome.aborted}")
    if outcome.timed_out:
        raise GrepError(f"search timed out after {GREP_TIMEOUT_S:g} s")
    if outcome.returncode == 2 and not out:
        raise GrepError(err or "ripgrep failed")
    lines = out.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[2:] if line.startswith("./") else line for line in lines]


def _rg_path(root: Path, cwd: Path) -> str:
    """The path as ripgrep should print it: relative to cwd when under it, else absolute."""
    shown = display_path(root, cwd)
    return "./" if shown == "." else shown if not os.path.isabs(shown) else str(root)


# Python fallback ------------------------------------------------------------------


@final
@slotted
class _IgnoreFile:
    base: str  # absolute directory the patterns are relative to, with a trailing "/"
    rules: list[tuple[re.Pattern[str], bool, bool]]  # (regex, negated, directories only)

    def decide(self, abs_path: str, is_dir: bool) -> bool | None:
        """True: ignored, False: whitelisted, None: no pattern here matches."""
        if not abs_path.startswith(self.base):
            return None
        rel = abs_path[len(self.base) :]
        for regex, negated, dir_only in reversed(self.rules):
            if dir_only and not is_dir:
                continue
            if regex.fullmatch(rel):
                return not negated
        return None


def _parse_ignore(text: str, base: str) -> _IgnoreFile:
    rules: list[tuple[re.Pattern[str], bool, bool]] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line.strip() or line.startswith("#"):
            continue
        if not line.endswith("\\ "):
            line = line.rstrip(" ")
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        body = glob_regex(line.lstrip("/")) if "/" in line else "(?:.*/)?" + glob_regex(line)
        rules.append((re.compile(body, re.DOTALL), negated, dir_only))
    return _IgnoreFile(base, rules)


@final
@slotted
class _Ignores:
    """``.gitignore`` (in a git repository), ``.ignore``, ``.rgignore``, read as ripgrep does."""

    git_root: str | None
    cache: dict[str, list[_IgnoreFile]] = field(default_factory=dict)

    @classmethod
    def for_root(cls, root: Path) -> _Ignores:
        for d in (root, *root.parents):
            if (d / ".git").exists():
                return cls(str(d))
        return cls(None)

    def _files(self, directory: str) -> list[_IgnoreFile]:
        """The ignore files of ``directory``, highest precedence first."""
        cached = self.cache.get(directory)
        if cached is not None:
            return cached
        names = [".rgignore", ".ignore"]
        in_repo = self.git_root is not None and (
            directory == self.git_root or directory.startswith(self.git_root + os.sep)
        )
        if in_repo:
            names.append(".gitignore")
        files: list[_IgnoreFile] = []
        base = directory.rstrip(os.sep) + os.sep
        for name in names:
            try:
                text = Path(directory, name).read_text(errors="replace")
            except OSError:
                continue
            files.append(_parse_ignore(text, base))
        if in_repo and directory == self.git_root:
            try:
                text = Path(directory, ".git", "info", "exclude").read_text(errors="replace")
            except OSError:
                pass
            else:
                files.append(_parse_ignore(text, base))
        self.cache[directory] = files
        return files

    def ignored(self, abs_path: str, is_dir: bool) -> bool:
        directory = os.path.dirname(abs_path)
        while True:
            for f in self._files(directory):
                decision = f.decide(abs_path, is_dir)
                if decision is not None:
                    return decision
            parent = os.path.dirname(directory)
            if parent == directory:
                return False
            directory = parent


@final
@slotted
class _Overrides:
    """``--glob`` and ``--type`` filters, with ripgrep's precedence.

    The last matching glob decides (``!`` excludes) and beats ignore files;
    with any including glob, an unmatched file is excluded (a directory is
    not); a type filter applies to files no glob decided.
    """

    globs: list[tuple[re.Pattern[str], bool]]  # (regex over the root-relative path, negated)
    whitelist: bool
    types: list[re.Pattern[str]]  # over the basename

    @classmethod
    def build(cls, globs: tuple[str, ...], type_name: str | None) -> _Overrides:
        compiled: list[tuple[re.Pattern[str], bool]] = []
        for g in (*(f"!{v}" for v in sorted(VCS_DIRS)), *globs):
            negated = g.startswith("!")
            body = (g[1:] if negated else g).rstrip("/")
            regex = glob_regex(body.lstrip("/")) if "/" in body else "(?:.*/)?" + glob_regex(body)
            compiled.append((re.compile(regex, re.DOTALL), negated))
        types: list[re.Pattern[str]] = []
        if type_name is not None:
            if type_name not in FILE_TYPES:
                raise GrepError(f"unrecognized file type: {type_name}")
            types = [re.compile(glob_regex(t), re.DOTALL) for t in FILE_TYPES[type_name]]
        return cls(compiled, any(not n for _, n in compiled), types)

    def decide(self, rel: str, is_dir: bool) -> bool | None:
        """True: skip it, False: take it (ignore files notwithstanding), None: undecided."""
        for regex, negated in reversed(self.globs):
            if regex.fullmatch(rel):
                return negated
        if self.whitelist and not is_dir:
            return True
        return None

    def wrong_type(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return bool(self.types) and not any(t.fullmatch(name) for t in self.types)


def _shown_line(text: str, is_match: bool) -> str:
    if len(text.encode("utf-8", errors="surrogateescape")) > MAX_COLUMNS:
        return "[Omitted long matching line]" if is_match else "[Omitted long context line]"
    return text


def _search_file(data: str, regex: re.Pattern[str], q: _Query) -> tuple[list[str], set[int]]:
    """The file's lines and the indexes of the lines that match (a multiline match marks each)."""
    lines = data.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not q.multiline:
        return lines, {i for i, line in enumerate(lines) if regex.search(line)}
    starts: list[int] = []
    pos = 0
    for line in lines:
        starts.append(pos)
        pos += len(line) + 1
    hit: set[int] = set()
    for m in regex.finditer(data):
        first = bisect.bisect_right(starts, m.start()) - 1
        last = bisect.bisect_right(starts, max(m.end() - 1, m.start())) - 1
        hit.update(range(max(first, 0), min(last, len(lines) - 1) + 1))
    return lines, hit


def search_python(q: _Query, cwd: Path, should_stop: Callable[[], bool] | None = None) -> list[str]:
    """ripgrep's raw output lines for ``q``, computed in Python."""
    flags = re.MULTILINE | (re.IGNORECASE if q.ignore_case else 0)
    if q.multiline:
        flags |= re.DOTALL
    try:
        regex = re.compile(q.pattern, flags)
    except re.error as exc:
        raise GrepError(f"regex parse error in {q.pattern!r}: {exc}") from exc
    overrides = _Overrides.build(q.globs, q.type)
    shown_root = _rg_path(q.root, cwd).removeprefix("./")
    out: list[str] = []
    separated = [False]  # whether a context group was printed before (for "--")

    def files() -> Iterator[tuple[str, str]]:
        if q.root.is_file():
            # An explicitly named file is searched whatever the filters say (as ripgrep).
            yield shown_root, str(q.root)
            return
        ignores = _Ignores.for_root(q.root)
        prefix = "" if shown_root in ("", ".") else shown_root.rstrip("/") + "/"

        def skip_dir(rel: str, path: str) -> bool:
            decided = overrides.decide(rel, True)
            return decided if decided is not None else ignores.ignored(path, True)

        def skip_file(rel: str, path: str) -> bool:
            decided = overrides.decide(rel, False)
            if decided is not None:
                return decided
            return ignores.ignored(path, False) or overrides.wrong_type(rel)

        for rel, entry in walk(q.root, skip_dir=skip_dir, skip_file=skip_file):
            yield prefix + rel, entry.path

    for shown, abs_path in files():
        if should_stop is not None and should_stop():
            break
        try:
            raw = Path(abs_path).read_bytes()
        except OSError:
            continue
        if b"\0" in raw:
            continue  # binary, as ripgrep skips it
        lines, hit = _search_file(raw.decode("utf-8", errors="replace"), regex, q)
        if not hit:
            continue
        if q.mode == "files_with_matches":
            out.append(shown)
        elif q.mode == "count":
            out.append(f"{shown}:{len(hit)}")
        else:
            _content_lines(out, shown, lines, hit, q, separated)
    return out


def _content_lines(
    out: list[str], shown: str, lines: list[str], hit: set[int], q: _Query, separated: list[bool]
) -> None:
    with_context = q.before > 0 or q.after > 0
    printed: set[int] = set()
    for i in hit:
        printed.update(range(max(i - q.before, 0), min(i + q.after, len(lines) - 1) + 1))
    previous: int | None = None
    for i in sorted(printed):
        if with_context and separated[0] and (previous is None or i != previous + 1):
            out.append("--")
        is_match = i in hit
        sep = ":" if is_match else "-"
        text = _shown_line(lines[i], is_match)
        out.append(f"{shown}{sep}{i + 1}{sep}{text}" if q.line_numbers else f"{shown}{sep}{text}")
        previous = i
        separated[0] = True


# The tool ---------------------------------------------------------------------------


def _page(items: list[str], head_limit: int | None, offset: int) -> list[str]:
    end = None if not head_limit else offset + head_limit
    return items[offset:end]


def _pagination_note(head_limit: int | None, offset: int) -> str:
    if not head_limit and not offset:
        return ""
    return f"\n\n[Showing results with pagination = limit: {head_limit or 0}, offset: {offset}]"


def _mtime(cwd: Path, shown: str) -> float:
    try:
        return (cwd / shown).stat().st_mtime
    except OSError:
        return 0.0


def _format(raw: list[str], q: _Query, cwd: Path, args: GrepInput) -> ToolResult:
    output = _output(raw, q, cwd, args)
    return ToolResult.ok(present_grep(output), output=output)


def _output(raw: list[str], q: _Query, cwd: Path, args: GrepInput) -> dict[str, Any]:
    offset = args.offset or 0
    head_limit = args.head_limit
    limits: dict[str, Any] = {}
    if head_limit:
        limits["appliedLimit"] = head_limit
    if offset:
        limits["appliedOffset"] = offset
    if q.mode == "content":
        page = _page(raw, head_limit, offset)
        return {"mode": "content", "numFiles": 0, "filenames": [], "content": "\n".join(page),
                "numLines": len(page), **limits}  # fmt: skip
    if q.mode == "count":
        page = _page(raw, head_limit, offset)
        total = 0
        for line in page:
            _, _, n = line.rpartition(":")
            total += int(n) if n.isdigit() else 0
        return {"mode": "count", "numFiles": len(page), "filenames": [],
                "content": "\n".join(page), "numMatches": total, **limits}  # fmt: skip
    ranked = sorted(raw, key=lambda p: (-_mtime(cwd, p), p))
    page = _page(ranked, head_limit, offset)
    return {"mode": "files_with_matches", "filenames": page, "numFiles": len(page), **limits}


def grep_tool(*, use_ripgrep: bool | None = None) -> ToolDefinition:
    """The Grep tool. ``use_ripgrep=None``: ``rg`` if on PATH, unless ``DSH_GREP_FALLBACK=1``."""

    async def run(invocation: ToolInvocation) -> ToolResult:
        try:
            args = parse_arguments(GrepInput, invocation)
        except ArgumentsError as exc:
            return exc.result
        cwd = invocation.workspace.cwd
        root = invocation.workspace.resolve(args.path) if args.path else cwd
        if not root.exists():
            return ToolResult.error(f"Path does not exist: {root}")
        mode: OutputMode = args.output_mode or "files_with_matches"
        before = args.context if args.context is not None else (args.before or 0)
        after = args.context if args.context is not None else (args.after or 0)
        q = _Query(
            pattern=args.pattern,
            root=root,
            mode=mode,
            globs=_split_globs(args.glob),
            type=args.type,
            ignore_case=bool(args.ignore_case),
            line_numbers=args.line_numbers is not False,
            before=before,
            after=after,
            multiline=bool(args.multiline),
        )
        signal = invocation.signal
        try:
            rg = _ripgrep(use_ripgrep)
            if rg is not None:
                raw = await _search_ripgrep(rg, q, cwd, signal)
            else:
                stop = (lambda: signal.aborted) if signal is not None else None
                raw = await asyncio.to_thread(search_python, q, cwd, stop)
        except GrepError as exc:
            return ToolResult.error(f"Grep failed searching {root}: {exc}")
        return _format(raw, q, cwd, args)

    return builtin_tool(
        "Grep",
        "A search tool built on ripgrep: full regex syntax; filter files with glob (e.g. "
        '"*.js", "**/*.{ts,tsx}") or type (e.g. "py"); output_mode "content" (matching lines, '
        'with -n, -A/-B/-C), "files_with_matches" (default, newest first) or "count"; -i for '
        "case-insensitive; multiline for patterns spanning lines; head_limit and offset page "
        "the results.",
        GrepInput,
        run,
        read_only=True,
        concurrency_safe=True,
        output_model=GrepOutput,
        present=present_grep,
    )


def _ripgrep(use_ripgrep: bool | None) -> str | None:
    if use_ripgrep is False:
        return None
    if use_ripgrep is None and os.environ.get("DSH_GREP_FALLBACK", "") not in ("", "0"):
        return None
    rg = shutil.which("rg")
    if rg is None and use_ripgrep:
        raise GrepError("ripgrep (rg) was requested but is not on PATH")
    return rg


GREP_TOOL = grep_tool()
