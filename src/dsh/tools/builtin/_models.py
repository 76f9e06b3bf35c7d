"""The built-in tools' pydantic input and output models (imported at a tool's first call).

The tool definitions name these models by ``LazyModel`` and carry their input
schemas precomputed (``_schemas.py``), so declaring and registering the tools
imports no pydantic: this module is imported, with pydantic, when a built-in
tool's arguments are first validated or its output first replaced.
"""

# No ``from __future__ import annotations``: pydantic then reads the models' annotations
# as objects instead of evaluating strings.
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, PositiveInt, model_validator
from pydantic.json_schema import SkipJsonSchema

from dsh.tools.builtin._declarations import DEFAULT_MAX_RESULTS, MAX_TIMEOUT_MS
from dsh.tools.builtin._grep_search import OutputMode
from dsh.tools.builtin._read import ImageMediaType

__all__ = [
    "BashInput",
    "BashOutput",
    "EditInput",
    "EditOperation",
    "EditOutput",
    "GlobInput",
    "GlobOutput",
    "GrepInput",
    "GrepOutput",
    "MultiEditInput",
    "MultiEditOutput",
    "ReadInput",
    "ReadOutput",
    "ToolInput",
    "ToolOutput",
    "ToolSearchInput",
    "ToolSearchOutput",
    "WriteInput",
    "WriteOutput",
]


def _tidy_schema(schema: dict[str, Any]) -> None:
    """Drop pydantic's titles, docstrings and ``null`` defaults (Claude Code's have none)."""
    schema.pop("title", None)
    schema.pop("description", None)  # the model class's docstring
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
        if prop.get("default", 0) is None:
            del prop["default"]
    for sub in schema.get("$defs", {}).values():
        _tidy_schema(sub)


class ToolInput(BaseModel):
    """Base of the tools' input models: unknown fields rejected, schema as Claude Code's.

    ``defer_build``: a model's validator is built at its first validation, so a
    session that never calls Grep never pays for GrepInput.
    """

    model_config = ConfigDict(
        extra="forbid", populate_by_name=True, json_schema_extra=_tidy_schema, defer_build=True
    )


class ToolOutput(BaseModel):
    """Base of the tools' output models: the shape of a successful call's ``output``.

    Unknown keys are ignored (as Claude Code's schemas strip them). Strict:
    ``present`` renders the JSON as given, not the validated model, so a
    value pydantic would coerce (``"false"`` for a bool, ``1.0`` for an int)
    must be rejected rather than rendered wrongly. ``defer_build`` as for
    ``ToolInput``: only a replaced output pays for its validator.
    """

    model_config = ConfigDict(extra="ignore", strict=True, defer_build=True)


# Bash ----------------------------------------------------------------------------------


class BashInput(ToolInput):
    """Claude Code's Bash input."""

    command: str = Field(description="The command to execute")
    timeout: Annotated[int, Field(gt=0, le=MAX_TIMEOUT_MS)] | SkipJsonSchema[None] = Field(
        default=None,
        description=f"Optional timeout in milliseconds (max {MAX_TIMEOUT_MS})",
    )
    description: str | SkipJsonSchema[None] = Field(
        default=None,
        description="Clear, concise description of what this command does in 5-10 words",
    )
    run_in_background: bool | SkipJsonSchema[None] = Field(
        default=None,
        description="Set to true to run this command in the background; read its output "
        "from the file named in the result",
    )
    dangerouslyDisableSandbox: bool | SkipJsonSchema[None] = Field(
        default=None,
        description="Set this to true to dangerously override sandbox mode and run commands "
        "without sandboxing.",
    )


class BashOutput(ToolOutput):
    """A successful Bash call's output (the tool merges stderr into stdout: its stderr is "")."""

    stdout: str
    stderr: str
    interrupted: bool
    # Always produced by the tool, optional in a replacement (as in Claude Code's schema).
    isImage: bool = False
    noOutputExpected: bool = False
    backgroundTaskId: str = ""  # a run_in_background call's only
    # An output over BASH_MAX_OUTPUT_LENGTH: the file holding it whole, and its size in bytes.
    persistedOutputPath: str = ""
    persistedOutputSize: int = 0


# Read ----------------------------------------------------------------------------------


class ReadInput(ToolInput):
    """Claude Code's Read input."""

    file_path: str = Field(description="The absolute path to the file to read")
    offset: NonNegativeInt | SkipJsonSchema[None] = Field(
        default=None,
        description="The line number to start reading from. Only provide if the file is too "
        "large to read at once",
    )
    limit: PositiveInt | SkipJsonSchema[None] = Field(
        default=None,
        description="The number of lines to read. Only provide if the file is too large to "
        "read at once.",
    )


class _TextFile(ToolOutput):
    filePath: str
    content: str  # the selected lines, unclipped, joined by newlines
    numLines: int
    startLine: int
    totalLines: int


class _ImageFile(ToolOutput):
    base64: str
    type: ImageMediaType
    originalSize: int


class _NotebookFile(ToolOutput):
    filePath: str
    cells: list[dict[str, Any]]  # 2.1.332's cell records (``_read_notebook``)


class ReadOutput(ToolOutput):
    """A successful Read's output: ``{"type": "text", "file": {...}}`` or an image's.

    One model with a check tying ``type`` to the file's shape, rather than a
    ``RootModel`` of a union: importing ``RootModel`` builds its validator and
    pydantic's plugin loader, ~10 ms on every start-up.
    """

    type: Literal["text", "image", "notebook"]
    file: _TextFile | _ImageFile | _NotebookFile

    @model_validator(mode="after")
    def _file_fits_type(self) -> Self:
        kinds = {"image": _ImageFile, "notebook": _NotebookFile, "text": _TextFile}
        if not isinstance(self.file, kinds[self.type]):
            needs = {
                "image": "base64, type, originalSize",
                "notebook": "filePath, cells",
                "text": "filePath, content",
            }[self.type]
            raise ValueError(f"type {self.type!r} needs a file with {needs}, ...")
        return self


# Write, Edit, MultiEdit ----------------------------------------------------------------


class WriteInput(ToolInput):
    """Claude Code's Write input."""

    file_path: str = Field(description="The absolute path to the file to write")
    content: str = Field(description="The content to write to the file")


class EditInput(ToolInput):
    """Claude Code's Edit input."""

    file_path: str = Field(description="The absolute path to the file to modify")
    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with (must differ from old_string)")
    replace_all: bool | SkipJsonSchema[None] = Field(
        default=None, description="Replace all occurrences of old_string (default false)"
    )


class EditOperation(ToolInput):
    """One edit of a MultiEdit."""

    old_string: str = Field(description="The text to replace")
    new_string: str = Field(description="The text to replace it with")
    replace_all: bool | SkipJsonSchema[None] = Field(
        default=None, description="Replace all occurrences of old_string (default false)"
    )


class MultiEditInput(ToolInput):
    """Claude Code's MultiEdit input."""

    file_path: str = Field(description="The absolute path to the file to modify")
    edits: list[EditOperation] = Field(
        min_length=1, description="Edits applied in order; either all apply or none"
    )


class _Hunk(ToolOutput):
    """One hunk of a ``structuredPatch``."""

    oldStart: int
    oldLines: int
    newStart: int
    newLines: int
    lines: list[str]


class WriteOutput(ToolOutput):
    """A successful Write's output."""

    type: Literal["create", "update"]
    filePath: str
    content: str
    structuredPatch: list[_Hunk]
    originalFile: str | None  # None when created
    userModified: bool


class EditOutput(ToolOutput):
    """A successful Edit's output."""

    filePath: str
    oldString: str
    newString: str
    originalFile: str  # "" when created
    structuredPatch: list[_Hunk]
    userModified: bool
    replaceAll: bool


class _AppliedEdit(ToolOutput):
    old_string: str
    new_string: str
    replace_all: bool


class MultiEditOutput(ToolOutput):
    """A successful MultiEdit's output."""

    filePath: str
    edits: list[_AppliedEdit]
    originalFileContents: str  # "" when created
    structuredPatch: list[_Hunk]
    userModified: bool


# Glob ----------------------------------------------------------------------------------


class GlobInput(ToolInput):
    """Claude Code's Glob input."""

    pattern: str = Field(description='The glob pattern to match files against, e.g. "**/*.py"')
    path: str | SkipJsonSchema[None] = Field(
        default=None,
        description="The directory to search in; the current working directory if omitted",
    )


class GlobOutput(ToolOutput):
    """A successful Glob's output: absolute paths, newest first."""

    filenames: list[str]
    durationMs: int
    numFiles: int
    truncated: bool


# Grep ----------------------------------------------------------------------------------


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


# ToolSearch ----------------------------------------------------------------------------


class ToolSearchInput(ToolInput):
    """Claude Code's ToolSearch input."""

    query: str = Field(
        description=(
            'Query to find deferred tools. Use "select:<tool_name>" for direct selection,'
            " or keywords to search."
        )
    )
    max_results: int = Field(
        default=DEFAULT_MAX_RESULTS, description="Maximum number of results to return (default: 5)"
    )


class ToolSearchOutput(ToolOutput):
    """A ToolSearch's output: the names it matched, the query, how many tools are deferred."""

    matches: list[str]
    query: str
    total_deferred_tools: int
