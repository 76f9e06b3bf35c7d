"""Codex's instructions files: ``AGENTS.md``, found and read into a session's context as Codex does.

``find_agents_files(cwd, codex_home=...)`` returns what Codex 0.171 loads for a
directory: the global file in ``$CODEX_HOME`` (``AGENTS.override.md`` when it
exists, else ``AGENTS.md``), then one file per folder from the repository root
(the nearest folder above ``cwd`` holding ``.git``; ``cwd`` alone without one)
down to ``cwd``, each folder's ``AGENTS.override.md`` winning over its
``AGENTS.md``. The project files share Codex's budget (``project_doc_max_bytes``,
32 KiB by default): what is over it is cut, a file past it is left out, and
the text says so. ``render_agents`` is the context text; the plugin queues it
at each root session's start (and after a compaction), like Codex's
``# AGENTS.md instructions for <cwd>`` message. An ``AgentsGate`` (a seam for an
embedder: the Codex bridge passes none, its repository files follow the project's
trust, edits included, as in Codex) may refuse a repository file;
the folder then gives nothing (its ``AGENTS.md`` stays shadowed, as in Codex)
and the gate's notice names what was left out. ``agents_chain`` lists the
repository files Codex would pick, whatever the budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final, Protocol, final

from dsh._frozen import frozen
from dsh.agent import SESSION_START, Agent, SessionStartSource
from dsh.base import read_head
from dsh.context import Context

__all__ = [
    "AGENTS_FILE",
    "AGENTS_OVERRIDE_FILE",
    "PROJECT_DOC_MAX_BYTES",
    "AgentsFile",
    "AgentsGate",
    "CodexInstructionsPlugin",
    "agents_chain",
    "codex_instructions_plugin",
    "find_agents_files",
    "render_agents",
]

AGENTS_FILE: Final = "AGENTS.md"
AGENTS_OVERRIDE_FILE: Final = "AGENTS.override.md"
PROJECT_DOC_MAX_BYTES: Final = 32 * 1024
"""Codex's default ``project_doc_max_bytes``: the project files' combined budget."""

_SOURCE: Final = "codex-instructions"


@final
@frozen(kw_only=True)
class AgentsFile:
    """One loaded file: where it is, whether it is the global one, its text, whether it was cut."""

    path: Path
    scope: str
    text: str
    truncated: bool = False


class AgentsGate(Protocol):
    """Which of the repository's ``AGENTS.md`` files may load (project trust), and a notice."""

    def admits(self, path: Path, /) -> bool:
        """Whether the repository file at ``path`` may load."""
        ...

    def notice(self, refused: Sequence[Path], /) -> str | None:
        """One notice naming ``refused`` (``None``: nothing new to say)."""
        ...


def _read(path: Path, limit: int) -> tuple[str, bool] | None:
    try:
        head = read_head(path, limit, "instructions file")
    except OSError:
        return None  # absent, unreadable, a FIFO or a device: never blocked on, never read
    return head.data.decode("utf-8", "replace" if not head.cut else "ignore"), head.cut


def _pick(folder: Path) -> Path | None:
    for name in (AGENTS_OVERRIDE_FILE, AGENTS_FILE):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _repo_root(cwd: Path) -> Path:
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return cwd


def agents_chain(cwd: Path) -> list[Path]:
    """The repository's files Codex would pick for ``cwd``, root first (one per folder)."""
    cwd = cwd.absolute()
    root = _repo_root(cwd)
    folders = [cwd, *cwd.parents]
    chain = reversed(folders[: folders.index(root) + 1])
    return [path for folder in chain if (path := _pick(folder)) is not None]


def find_agents_files(
    cwd: Path,
    *,
    codex_home: Path | None,
    max_bytes: int = PROJECT_DOC_MAX_BYTES,
    project: bool = True,
    gate: AgentsGate | None = None,
    refused: list[Path] | None = None,
) -> list[AgentsFile]:
    """The ``AGENTS.md`` files Codex loads for ``cwd``, global first, never raising.

    ``project``: also the repository's files (``False``: the global one only, for a project
    that is not trusted). A repository file ``gate`` does not admit is left out and added
    to ``refused``."""
    cwd = cwd.absolute()
    found: list[AgentsFile] = []
    if codex_home is not None:
        path = _pick(codex_home)
        read = _read(path, max_bytes) if path is not None else None
        if path is not None and read is not None and read[0].strip():
            found.append(AgentsFile(path=path, scope="global", text=read[0], truncated=read[1]))
    if not project:
        return found
    budget = max_bytes
    for path in agents_chain(cwd):
        if budget <= 0:
            continue
        if gate is not None and not gate.admits(path):
            if refused is not None:
                refused.append(path)
            continue
        read = _read(path, budget)
        if read is None or not read[0].strip():
            continue
        text, cut = read
        budget -= len(text.encode("utf-8"))
        found.append(AgentsFile(path=path, scope="project", text=text, truncated=cut))
    return found


def render_agents(files: Sequence[AgentsFile], cwd: Path) -> str:
    """The context text for ``files``: Codex's ``# AGENTS.md instructions for <cwd>`` block."""
    parts = []
    for f in files:
        note = (
            f"\n[truncated: {f.path} is over the {PROJECT_DOC_MAX_BYTES}-byte budget]"
            if f.truncated
            else ""
        )
        parts.append(f"{f.text.rstrip()}{note}")
    body = "\n\n".join(parts)
    return f"# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"


class CodexInstructionsPlugin:
    """The plugin ``codex_instructions_plugin`` returns: ``ctx.plugin(plugin)`` mounts it."""

    def __init__(
        self,
        *,
        codex_home: Path | None,
        max_bytes: int = PROJECT_DOC_MAX_BYTES,
        project: bool = True,
        gate: AgentsGate | None = None,
    ) -> None:
        self.codex_home = codex_home
        self.max_bytes = max_bytes
        self.project = project
        self.gate = gate

    def apply(self, ctx: Context) -> None:
        ctx.on(SESSION_START, self._session_start)

    async def _session_start(self, agent: Agent, source: SessionStartSource) -> None:
        if agent.parent is not None or source == "resume":
            return  # a resumed session's history already holds them
        cwd = agent.workspace.cwd
        refused: list[Path] = []
        files = find_agents_files(
            cwd,
            codex_home=self.codex_home,
            max_bytes=self.max_bytes,
            project=self.project,
            gate=self.gate,
            refused=refused,
        )
        notice = self.gate.notice(refused) if self.gate is not None and refused else None
        if notice is not None:
            agent.notice(notice, source=_SOURCE, level="warning")
        if files:
            agent.inject(render_agents(files, cwd), source=_SOURCE)


def codex_instructions_plugin(
    *,
    codex_home: Path | None,
    max_bytes: int = PROJECT_DOC_MAX_BYTES,
    project: bool = True,
    gate: AgentsGate | None = None,
) -> CodexInstructionsPlugin:
    """Load Codex's ``AGENTS.md`` files into each root session's context (``project``: the
    repository's too, not only the global one; ``gate``: those it admits)."""
    return CodexInstructionsPlugin(
        codex_home=codex_home, max_bytes=max_bytes, project=project, gate=gate
    )
