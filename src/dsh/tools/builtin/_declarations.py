"""The built-in tools as a session registers them: name, description, schema and flags, with
bodies and presenters imported at the first call.

Every session registers every built-in tool; a run may call none of them. Each definition here
(``builtin_tools`` gives them) says everything the registry and the model are told (its schema
generated ahead of time, ``_schemas.py``; its models named lazily), and its body and presenter
import the tool's module (``_bash``, ``_read``, ...) when first called, then use that module's
definition, which is this one with the real body and presenter (``implement``). So a ``dsh run``
that calls no tool imports no tool's implementation. The constants a description states live
here; the tool modules import them.
"""

from __future__ import annotations

from dataclasses import replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from dsh.tools._deferred import TOOL_SEARCH
from dsh.tools._types import LazyModel, OutputPresenter, ToolBody, ToolDefinition, ToolInvocation
from dsh.tools.builtin._schemas import INPUT_SCHEMAS

if TYPE_CHECKING:
    from dsh.messages import Content
    from dsh.tools._types import ToolResult

__all__ = [
    "BASH",
    "BASH_INPUT",
    "DEFAULT_MAX_RESULTS",
    "DEFAULT_READ_LIMIT",
    "DEFAULT_TIMEOUT_MS",
    "EDIT",
    "EDIT_INPUT",
    "GLOB",
    "GLOB_INPUT",
    "GREP",
    "GREP_INPUT",
    "MAX_GLOB_RESULTS",
    "MAX_LINE_CHARS",
    "MAX_OUTPUT_CHARS",
    "MAX_TIMEOUT_MS",
    "MULTI_EDIT",
    "MULTI_EDIT_INPUT",
    "READ",
    "READ_INPUT",
    "TASK_CREATE",
    "TASK_CREATE_INPUT",
    "TASK_GET",
    "TASK_GET_INPUT",
    "TASK_LIST",
    "TASK_LIST_INPUT",
    "TASK_UPDATE",
    "TASK_UPDATE_INPUT",
    "TOOL_SEARCH_DEFINITION",
    "TOOL_SEARCH_INPUT",
    "WRITE",
    "WRITE_INPUT",
    "builtin_input",
    "builtin_model",
    "implement",
]

_PACKAGE = "dsh.tools.builtin"
_MODELS = "dsh.tools.builtin._models"
_TASK_IO = "dsh.tools.builtin._task_io"

DEFAULT_TIMEOUT_MS = 120_000
MAX_TIMEOUT_MS = 600_000
MAX_OUTPUT_CHARS = 30_000
DEFAULT_READ_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_GLOB_RESULTS = 100
DEFAULT_MAX_RESULTS = 5


def builtin_model(name: str, module: str = _MODELS) -> LazyModel[Any]:
    """A built-in tool's model, by class name (in ``_models.py`` unless ``module`` says)."""
    return LazyModel(module, name)


def builtin_input(tool: str, name: str, module: str = _MODELS) -> LazyModel[Any]:
    """A built-in tool's input model, with the tool's schema deciding for it
    (``LazyModel.schema``: the input models check nothing their schemas do not say)."""
    return LazyModel(module, name, schema=INPUT_SCHEMAS[tool])


def _implemented_in(module: str, name: str) -> tuple[ToolBody, OutputPresenter]:
    """A body and a presenter that import ``module`` at their first call and hand over to its
    definition ``name`` (later calls find the module imported)."""

    def definition() -> ToolDefinition:
        found: ToolDefinition = getattr(import_module(f"{_PACKAGE}.{module}"), name)
        return found

    async def run(invocation: ToolInvocation) -> ToolResult:
        return await definition().run(invocation)

    def present(output: Any) -> Content:
        presenter = definition().present
        assert presenter is not None  # every tool declared here presents its output
        return presenter(output)

    return run, present


def _declare(
    name: str,
    description: str,
    model: LazyModel[Any],
    implemented_in: tuple[str, str],
    *,
    output_model: LazyModel[Any],
    read_only: bool = False,
    concurrency_safe: bool = False,
    deferred: bool = False,
    shell_command: str | None = None,
    max_result_chars: int | None = 50_000,
    max_error_chars: int | None = 10_000,
) -> ToolDefinition:
    run, present = _implemented_in(*implemented_in)
    return ToolDefinition(
        name=name,
        description=description,
        input_schema=INPUT_SCHEMAS[name],
        run=run,
        read_only=read_only,
        concurrency_safe=concurrency_safe,
        input_model=model,
        output_model=output_model,
        present=present,
        deferred=deferred,
        shell_command=shell_command,
        max_result_chars=max_result_chars,
        max_error_chars=max_error_chars,
    )


def implement(declared: ToolDefinition, run: ToolBody, present: OutputPresenter) -> ToolDefinition:
    """``declared`` with its real body and presenter: the definition of the tool's own module."""
    return replace(declared, run=run, present=present)


BASH_INPUT: LazyModel[Any] = builtin_input("Bash", "BashInput")
BASH = _declare(
    "Bash",
    "Executes a bash command with an optional timeout (milliseconds, default "
    f"{DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS}). The working directory and exported "
    "environment persist between commands. stdout and stderr are returned together; "
    f"output beyond {MAX_OUTPUT_CHARS} characters is saved to a file and previewed. A non-zero "
    "exit is an error result. Use run_in_background for long-running processes.",
    BASH_INPUT,
    ("_bash", "BASH_TOOL"),
    output_model=builtin_model("BashOutput"),
    shell_command="command",
    # Claude Code's maxResultSizeChars for Bash: what a raised BASH_MAX_OUTPUT_LENGTH or a
    # hook's replacement lets through is persisted past it like any tool's result.
    max_result_chars=MAX_OUTPUT_CHARS,
)

READ_INPUT: LazyModel[Any] = builtin_input("Read", "ReadInput")
READ = _declare(
    "Read",
    "Reads a file from the local filesystem. file_path should be absolute (a relative path is "
    f"taken from the working directory). Reads up to {DEFAULT_READ_LIMIT} lines from the start "
    "by default; offset (1-based line number) and limit select a range. Lines come numbered "
    f"(number, tab, line); lines longer than {MAX_LINE_CHARS} characters are truncated. "
    "PNG, JPEG, GIF and WebP images are returned as images.",
    READ_INPUT,
    ("_read", "READ_TOOL"),
    output_model=builtin_model("ReadOutput"),
    read_only=True,
    concurrency_safe=True,
    max_result_chars=None,  # Read bounds itself; Claude Code never persists it
)

WRITE_INPUT: LazyModel[Any] = builtin_input("Write", "WriteInput")
WRITE = _declare(
    "Write",
    "Writes a file to the local filesystem, replacing it if it exists and creating missing "
    "parent directories. file_path should be absolute.",
    WRITE_INPUT,
    ("_write", "WRITE_TOOL"),
    output_model=builtin_model("WriteOutput"),
)

EDIT_INPUT: LazyModel[Any] = builtin_input("Edit", "EditInput")
EDIT = _declare(
    "Edit",
    "Performs an exact string replacement in a file. old_string must occur exactly once "
    "unless replace_all is true; new_string must differ from it. An empty old_string on a "
    "missing file creates it.",
    EDIT_INPUT,
    ("_write", "EDIT_TOOL"),
    output_model=builtin_model("EditOutput"),
    max_error_chars=None,  # Claude Code shows an edit's failure whole (it quotes old_string,
    # which the arguments' own bound limits)
)

MULTI_EDIT_INPUT: LazyModel[Any] = builtin_input("MultiEdit", "MultiEditInput")
MULTI_EDIT = _declare(
    "MultiEdit",
    "Performs several exact string replacements in one file, in order, each on the result of "
    "the previous one. Either all edits apply or none does.",
    MULTI_EDIT_INPUT,
    ("_write", "MULTI_EDIT_TOOL"),
    output_model=builtin_model("MultiEditOutput"),
    max_error_chars=None,  # Claude Code shows an edit's failure whole (it quotes old_string,
    # which the arguments' own bound limits)
)

GLOB_INPUT: LazyModel[Any] = builtin_input("Glob", "GlobInput")
GLOB = _declare(
    "Glob",
    'Fast file pattern matching, e.g. "**/*.js" or "src/**/*.{ts,tsx}". Returns matching file '
    f"paths, most recently modified first, at most {MAX_GLOB_RESULTS}.",
    GLOB_INPUT,
    ("_glob", "GLOB_TOOL"),
    output_model=builtin_model("GlobOutput"),
    read_only=True,
    concurrency_safe=True,
)

# Not builtin_input: its fields have aliases ("-B"), which a plain read would not know.
GREP_INPUT: LazyModel[Any] = builtin_model("GrepInput")
GREP = _declare(
    "Grep",
    "A search tool built on ripgrep: full regex syntax; filter files with glob (e.g. "
    '"*.js", "**/*.{ts,tsx}") or type (e.g. "py"); output_mode "content" (matching lines, '
    'with -n, -A/-B/-C), "files_with_matches" (default, newest first) or "count"; -i for '
    "case-insensitive; multiline for patterns spanning lines; head_limit and offset page "
    "the results.",
    GREP_INPUT,
    ("_grep", "GREP_TOOL"),
    read_only=True,
    concurrency_safe=True,
    max_result_chars=20_000,
    output_model=builtin_model("GrepOutput"),
)

TASK_CREATE_INPUT: LazyModel[Any] = builtin_input("TaskCreate", "TaskCreateInput", _TASK_IO)
TASK_CREATE = _declare(
    "TaskCreate",
    "Creates a task in the session's task list (status pending) and returns its id. Use it to "
    "track the steps of multi-step work.",
    TASK_CREATE_INPUT,
    ("_tasks", "TASK_CREATE_TOOL"),
    output_model=builtin_model("TaskCreateOutput", _TASK_IO),
    deferred=True,
)

TASK_GET_INPUT: LazyModel[Any] = builtin_input("TaskGet", "TaskGetInput", _TASK_IO)
TASK_GET = _declare(
    "TaskGet",
    "Returns one task of the session's task list by id: subject, status, description and "
    "which tasks it blocks or is blocked by.",
    TASK_GET_INPUT,
    ("_tasks", "TASK_GET_TOOL"),
    output_model=builtin_model("TaskGetOutput", _TASK_IO),
    deferred=True,
    read_only=True,
    concurrency_safe=True,
)

TASK_LIST_INPUT: LazyModel[Any] = builtin_input("TaskList", "TaskListInput", _TASK_IO)
TASK_LIST = _declare(
    "TaskList",
    "Lists every task of the session's task list: id, status, subject, owner and the open "
    "tasks blocking it.",
    TASK_LIST_INPUT,
    ("_tasks", "TASK_LIST_TOOL"),
    output_model=builtin_model("TaskListOutput", _TASK_IO),
    deferred=True,
    read_only=True,
    concurrency_safe=True,
)

TASK_UPDATE_INPUT: LazyModel[Any] = builtin_input("TaskUpdate", "TaskUpdateInput", _TASK_IO)
TASK_UPDATE = _declare(
    "TaskUpdate",
    "Updates a task of the session's task list: subject, description, activeForm, status "
    "(pending, in_progress, completed; deleted removes the task), owner, metadata, and "
    "links to the tasks it blocks or is blocked by.",
    TASK_UPDATE_INPUT,
    ("_tasks", "TASK_UPDATE_TOOL"),
    output_model=builtin_model("TaskUpdateOutput", _TASK_IO),
    deferred=True,
)

TOOL_SEARCH_INPUT: LazyModel[Any] = builtin_input("ToolSearch", "ToolSearchInput")
TOOL_SEARCH_DEFINITION = _declare(
    TOOL_SEARCH,
    "Fetches full schema definitions for deferred tools so they can be called.\n"
    "Deferred tools appear by name in a message from the system."
    " Until fetched, only the name is known \u2014 there is no parameter schema, so the tool"
    " cannot be invoked."
    " This tool takes a query, matches it against the deferred tool list, and returns the"
    " matched tools' complete JSONSchema definitions inside a <functions> block. Once a tool's"
    " schema appears in that result, it is callable exactly like any tool defined at the top"
    " of the prompt.\n"
    'Result format: each matched tool appears as one <function>{"description": "...", "name":'
    ' "...", "parameters": {...}}</function> line inside the <functions> block \u2014 the same'
    " encoding as the tool list at the top of this prompt.\n"
    "Query forms:\n"
    '- "select:Read,Edit,Grep" \u2014 fetch these exact tools by name\n'
    '- "notebook jupyter" \u2014 keyword search, up to max_results best matches\n'
    '- "+slack send" \u2014 require "slack" in the name, rank by remaining terms',
    TOOL_SEARCH_INPUT,
    ("_tool_search", "TOOL_SEARCH_TOOL"),
    output_model=builtin_model("ToolSearchOutput"),
    read_only=True,
    concurrency_safe=True,
)
