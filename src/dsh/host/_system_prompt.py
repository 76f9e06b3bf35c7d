"""The system prompt a host gives its agents: dsh's coding-agent prompt and the environment block.

``SystemPrompt`` is the value ``HostOptions.system`` holds by default: dsh's
own prompt (written for its tools), or a replacement, with text appended,
followed by the environment block Claude Code and Codex give their model
(working directory, whether it is a git repository, platform, date, model).
It is rendered when an agent is made (``render``), so the date and the model
are the session's. A plain string in ``HostOptions.system`` is sent as it is,
``None`` sends none.
"""

from __future__ import annotations

import datetime
import platform
import sys
from pathlib import Path
from typing import final

from dsh._frozen import frozen

__all__ = ["DEFAULT_SYSTEM_PROMPT", "SystemPrompt", "environment_block", "is_git_repository"]

DEFAULT_SYSTEM_PROMPT = """\
You are dsh, a coding agent working in the user's project on their machine. You help \
with software engineering tasks: fixing bugs, adding features, refactoring, explaining \
code, running tests. Use the tools below to act; do not guess at what a file holds or \
what a command prints when a tool can tell you.

# Tools
- Bash: run a shell command in the working directory (tests, builds, git, package \
managers). Quote paths with spaces. Prefer the dedicated tools below to cat, sed, find \
and grep.
- Read: read a file (with line numbers; `offset`/`limit` for a part of a long one). \
Read a file before you edit it.
- Write: create a file or replace it whole. Prefer Edit for a change to an existing file.
- Edit: replace one exact string in a file (`old_string` must match once, with its \
indentation, unless `replace_all`). MultiEdit: several such edits to one file at once.
- Glob: find files by name pattern (`**/*.py`). Grep: search file contents with a \
regular expression.
- TaskCreate, TaskGet, TaskList, TaskUpdate: keep a task list for work of several steps; \
mark each task in progress when you start it and completed when it is done.
- Agent: hand a self-contained task (a broad search, an independent change) to a \
subagent that works in a fresh conversation with the same tools and returns its answer.

A tool call may be refused by a policy or a hook of this project: the result then says \
why. Do not try to get around a refusal; adapt, or tell the user what was refused.

# How to work
- Understand first: look at the code around a change, its tests and the project's \
conventions (read any instructions the project gives), then change as little as does \
the job, in the project's style.
- Check your work: run the relevant tests or build after a change, and fix what you broke.
- Never do something destructive or hard to undo (deleting files you did not create, \
force-pushing, rewriting history) unless the user asked for it.
- Do not commit unless asked.

# How to report
Be brief and direct. When you are done, say what you changed and how you checked it, \
and anything that is left or that you could not do. Refer to code as `path:line`."""


def is_git_repository(directory: Path) -> bool:
    """Whether ``directory`` is inside a git work tree (a ``.git`` here or in a parent)."""
    try:
        here = directory.resolve()
    except OSError:
        return False
    for candidate in (here, *here.parents):
        try:
            if (candidate / ".git").exists():
                return True
        except OSError:
            return False
    return False


def environment_block(project: Path, model: str, *, today: datetime.date | None = None) -> str:
    """The environment block: working directory, git or not, platform, OS, date, model."""
    day = today if today is not None else datetime.date.today()
    git = "Yes" if is_git_repository(project) else "No"
    return (
        "Here is useful information about the environment you are running in:\n"
        "<env>\n"
        f"Working directory: {project}\n"
        f"Is directory a git repo: {git}\n"
        f"Platform: {sys.platform}\n"
        f"OS Version: {platform.system()} {platform.release()}\n"
        f"Today's date: {day.isoformat()}\n"
        "</env>\n"
        f"You are powered by the model {model}."
    )


@final
@frozen(kw_only=True)
class SystemPrompt:
    """A system prompt to render per agent: ``base`` (default: dsh's), ``append``, the environment.

    ``base`` replaces dsh's prompt (``--system-prompt``); ``append`` is added
    after it (``--append-system-prompt``); ``environment`` adds the
    environment block at the end.
    """

    base: str | None = None
    append: str | None = None
    environment: bool = True

    def render(self, project: Path, model: str, *, today: datetime.date | None = None) -> str:
        parts = [DEFAULT_SYSTEM_PROMPT if self.base is None else self.base]
        if self.append:
            parts.append(self.append)
        if self.environment:
            parts.append(environment_block(project, model, today=today))
        return "\n\n".join(part for part in parts if part)
