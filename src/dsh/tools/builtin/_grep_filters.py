"""Which files the Python fallback of ``Grep`` searches, decided as ripgrep decides.

``FILE_TYPES`` (``--type``), ``Overrides`` (``--glob`` and ``--type``, with
ripgrep's precedence) and ``Ignores`` (``.gitignore``, ``.ignore``,
``.rgignore`` and ``.git/info/exclude``).
"""

from __future__ import annotations

import os
import re
from dataclasses import field
from pathlib import Path
from typing import final

from dsh._frozen import slotted
from dsh.base import read_head
from dsh.tools.builtin._common import VCS_DIRS, glob_regex

__all__ = ["FILE_TYPES", "Ignores", "Overrides"]

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
class Ignores:
    """``.gitignore`` (in a git repository), ``.ignore``, ``.rgignore``, read as ripgrep does."""

    git_root: str | None
    cache: dict[str, list[_IgnoreFile]] = field(default_factory=dict)

    @classmethod
    def for_root(cls, root: Path) -> Ignores:
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
                text = _read_ignore_file(Path(directory, name))
            except OSError:
                continue
            files.append(_parse_ignore(text, base))
        if in_repo and directory == self.git_root:
            try:
                text = _read_ignore_file(Path(directory, ".git", "info", "exclude"))
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
class Overrides:
    """``--glob`` and ``--type`` filters, with ripgrep's precedence.

    The last matching glob decides (``!`` excludes) and beats ignore files;
    with any including glob, an unmatched file is excluded (a directory is
    not); a type filter applies to files no glob decided.
    """

    globs: list[tuple[re.Pattern[str], bool]]  # (regex over the root-relative path, negated)
    whitelist: bool
    types: list[re.Pattern[str]]  # over the basename

    @classmethod
    def build(cls, globs: tuple[str, ...], type_name: str | None) -> Overrides:
        """The filters; ``type_name``, when given, is one of ``FILE_TYPES`` (the caller checks)."""
        compiled: list[tuple[re.Pattern[str], bool]] = []
        for g in (*(f"!{v}" for v in sorted(VCS_DIRS)), *globs):
            negated = g.startswith("!")
            body = (g[1:] if negated else g).rstrip("/")
            regex = glob_regex(body.lstrip("/")) if "/" in body else "(?:.*/)?" + glob_regex(body)
            compiled.append((re.compile(regex, re.DOTALL), negated))
        types: list[re.Pattern[str]] = []
        if type_name is not None:
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


_MAX_IGNORE_FILE_BYTES = 1 << 20


def _read_ignore_file(path: Path) -> str:
    """An ignore file's text: never blocking on a FIFO, never more than its first MiB."""
    head = read_head(path, _MAX_IGNORE_FILE_BYTES, "ignore file")
    return head.data.decode("utf-8", errors="replace")
