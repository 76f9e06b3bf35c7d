"""The values a tool is made of: its definition, what its body receives, what it returns.

The registry pipeline (``_registry.py`` and its phase modules) and the
built-in tools (``builtin/``) both stand on these.
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeAlias, TypeVar, final

from dsh._frozen import frozen, slotted
from dsh.base import AbortSignal, DshError, EnvironmentPolicy

if TYPE_CHECKING:
    from pydantic import BaseModel

    from dsh.base._sandbox import SandboxPolicy
    from dsh.tools._identity import CallToken  # _identity stands on this module
from dsh.base import FrozenDict, thaw_json
from dsh.context import Context
from dsh.messages import Content, content_text
from dsh.session import AbortCause

_logger = logging.getLogger("dsh.tools")

__all__ = [
    "FAILURE_CODES",
    "FailureCode",
    "LazyModel",
    "McpServerRef",
    "ModelRef",
    "OutputMismatchError",
    "OutputPresenter",
    "ToolBody",
    "ToolCaller",
    "ToolDefinition",
    "ToolInvocation",
    "ToolResult",
    "Workspace",
    "load_model",
]

_M = TypeVar("_M", bound="BaseModel")

FailureCode: TypeAlias = Literal[
    "UNKNOWN_TOOL",
    "INVALID_ARGS",
    "DENIED",
    "ABORTED_BEFORE_DISPATCH",
    "ABORTED",
    "TOOL_ERROR",
    "MALFORMED_RESULT",
    "LISTENER_ERROR",
    # Not a tool body's to give (so not in FAILURE_CODES): a pre-execute deferral.
    "DEFERRED",
]
FAILURE_CODES: tuple[FailureCode, ...] = (
    "UNKNOWN_TOOL",
    "INVALID_ARGS",
    "DENIED",
    "ABORTED_BEFORE_DISPATCH",
    "ABORTED",
    "TOOL_ERROR",
    "MALFORMED_RESULT",
    "LISTENER_ERROR",
)


@final
@frozen
class McpServerRef:
    """The MCP server a tool comes from: its name and where it was declared (Claude Code's
    ``mcp_server`` in a tool hook's payload: ``{"name": ..., "source": ...}``)."""

    name: str
    source: str


@final
@frozen
class ToolResult:
    """What a tool call produced.

    ``content`` is what the model sees; ``output`` is structured JSON (what
    Claude Code hooks receive as ``tool_response``); ``code`` names a failure
    and ``info`` carries its details. Codes and info never enter ``content``.
    """

    content: Content
    output: Any = None
    is_error: bool = False
    code: FailureCode | None = None
    info: Any = None

    @classmethod
    def ok(cls, content: Content, output: Any = None) -> ToolResult:
        return cls(content=content, output=output)

    @classmethod
    def error(
        cls,
        reason: str,
        *,
        code: FailureCode = "TOOL_ERROR",
        output: Any = None,
        info: Any = None,
    ) -> ToolResult:
        """A failure whose model-visible content is ``reason``, verbatim."""
        return cls(content=reason, output=output, is_error=True, code=code, info=info)

    @property
    def text(self) -> str:
        return content_text(self.content)


@slotted
class Workspace:
    """Per-session state the tools share: the current directory and the environment.

    The Bash tool's ``cd`` and ``export`` persist here across calls; Claude
    Code hooks run in ``cwd`` too. ``env_scripts`` are shell files the Bash
    tool sources before each command (one that does not exist yet is
    skipped): how a session adds environment for its commands alone, without
    touching the process's own (Claude Code's ``CLAUDE_ENV_FILE``). ``env`` starts as
    the environment policy gives it (default: ``EnvironmentPolicy()``, dsh's own, which
    leaves out dsh's model keys and names with ``KEY``, ``SECRET``, ``TOKEN``,
    ``PASSWORD`` or ``CREDENTIAL``): every process the model drives is spawned with it.
    """

    cwd: Path
    env: dict[str, str] = field(default_factory=lambda: EnvironmentPolicy().environment())
    project_dir: Path | None = None
    env_scripts: list[Path] = field(default_factory=list)
    tool_results_dir: Path | None = None
    """Where a result too large for the model is saved (``None``: nowhere, shown whole)."""
    sandbox: SandboxPolicy | None = None
    """The sandbox of every process the model drives (``None``: none, full access)."""
    session_state: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What the session's tools keep between calls (the task list), by a key each tool owns."""
    _cleanups: list[Callable[[], None]] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.cwd = Path(self.cwd).resolve()
        if self.project_dir is None:
            self.project_dir = self.cwd

    def on_close(self, cleanup: Callable[[], None]) -> Callable[[], None]:
        """Run ``cleanup`` when the session ends (``close``); returns its remover.

        What a tool leaves running past its call (a background shell) is
        ended here, so nothing a session started outlives it.
        """
        self._cleanups.append(cleanup)

        def remove() -> None:
            if cleanup in self._cleanups:
                self._cleanups.remove(cleanup)

        return remove

    def close(self) -> None:
        """Run the cleanups, last registered first; each runs even if another raises.

        The agent calls it when its session ends (``Agent.close``). Calling it
        again runs only what was registered since.
        """
        cleanups, self._cleanups = self._cleanups, []
        for cleanup in reversed(cleanups):
            try:
                cleanup()
            except Exception:
                _logger.exception("workspace cleanup %r failed", cleanup)

    def add_env_script(self, path: Path) -> None:
        """Source ``path`` before every later Bash command (once, however often added)."""
        if path not in self.env_scripts:
            self.env_scripts.append(path)

    def resolve(self, path: str) -> Path:
        """``path`` made absolute against ``cwd`` (``~`` expanded)."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.cwd / p


class ToolCaller(Protocol):
    """What the registry, the tool bodies and the tool seams may read of a call's caller.

    ``dsh.agent.Agent`` is one; ``dsh.agent.calling_agent(caller)`` gives a
    seam the ``Agent`` itself when the caller is one.
    """

    @property
    def session_id(self) -> str:
        """The caller's session: what approval requests and remembered answers are keyed by."""
        ...

    @property
    def workspace(self) -> Workspace:
        """The workspace the call runs in unless the caller of ``run`` gives one."""
        ...

    def cancel(self, cause: AbortCause | str, when: Literal["now", "after_step"] = "now") -> None:
        """End the caller's turn (an approval ``deny(interrupt=True)`` asks for ``after_step``)."""
        ...


@final
@frozen
class ToolInvocation:
    """What a tool body receives: the sealed arguments and the call's surroundings."""

    name: str
    arguments: FrozenDict
    workspace: Workspace
    signal: AbortSignal | None = None
    agent: ToolCaller | None = None
    token: CallToken | None = None
    ctx: Context | None = None
    """The registry's context: where a tool fires seams of its own (``TASK_CREATED``)."""


ToolBody: TypeAlias = Callable[[ToolInvocation], Awaitable[ToolResult]]


@final
class LazyModel(Generic[_M]):
    """A pydantic model named by its module and class name, imported at its first use.

    A tool definition can name its input and output models this way, so
    declaring (and registering) the tool imports no pydantic: the model's
    module is imported when a call is first validated or an output replaced.
    Equal when they name the same class.

    ``schema``, for an input model that checks nothing its JSON schema does not
    say (no validator of its own, every default in the schema): arguments the
    schema's fast predicate certifies are then valid for the model, and a body's
    ``parse_arguments`` reads them without importing it (the built-in tools;
    ``tests/tools/builtin`` checks it on generated arguments).
    """

    __slots__ = ("_model", "module", "name", "schema")

    def __init__(self, module: str, name: str, *, schema: Mapping[str, Any] | None = None) -> None:
        self.module = module
        self.name = name
        self.schema = schema
        self._model: type[_M] | None = None

    def load(self) -> type[_M]:
        """The model class (its module imported on the first call)."""
        model = self._model
        if model is None:
            model = getattr(importlib.import_module(self.module), self.name)
            self._model = model
        return model

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LazyModel):
            return NotImplemented
        return (self.module, self.name) == (other.module, other.name)

    def __hash__(self) -> int:
        return hash((self.module, self.name))

    def __repr__(self) -> str:
        return f"LazyModel({self.module!r}, {self.name!r})"


ModelRef: TypeAlias = "type[BaseModel] | LazyModel[Any]"
"""A tool's input or output model: the class itself, or a ``LazyModel`` naming it."""


def load_model(ref: ModelRef | None) -> type[BaseModel] | None:
    """The model class ``ref`` stands for (a ``LazyModel`` imported now)."""
    return ref.load() if isinstance(ref, LazyModel) else ref


OutputPresenter: TypeAlias = Callable[[Any], Content]
"""Renders a successful call's structured ``output`` as its model-visible content."""


class OutputMismatchError(DshError, ValueError):
    """A replacement output that does not match its tool's ``output_model``."""


@final
@frozen
class ToolDefinition:
    """A tool: name, description, input JSON schema, body and flags.

    Build one from a pydantic model with ``ToolDefinition.from_model`` (the
    schema comes from the model and the arguments are validated by it), or
    give a JSON schema directly (validated with ``jsonschema``). Either model
    may be a ``LazyModel`` (with the schema given precomputed), so that
    declaring the tool imports no pydantic; ``load_input_model()`` and
    ``load_output_model()`` give the classes.

    ``output_model`` and ``present`` describe a successful call's ``output``:
    the shape it has, and how it becomes the model-visible content (for every
    success, ``present(result.output) == result.content``). With them, a
    post-execute decision can replace the output (Claude Code's
    ``updatedToolOutput``) and the model sees the replacement rendered as the
    tool renders its own.

    ``deferred``: the model is offered the tool only once a ToolSearch result has
    loaded it (a ``tool_reference`` naming it in the history), as Claude Code
    defers its rarer tools; a call made before that still runs it.

    ``shell_command`` marks a tool that runs a shell command line: the name of
    the input field holding it (``Bash``'s ``command``, Codex's
    ``exec_command``'s ``cmd``). A policy that knows shell calls (the Claude
    Code bridge's permission rules) treats any such call as one, whatever the
    tool's name, without knowing the tool.

    ``max_result_chars``: the most of a successful result the model sees inline (capped
    for every tool at 50,000, Claude Code's ``maxResultSizeChars``); a larger one is
    saved to a file and the model sees a preview (``dsh.tools._persist``). ``None``: a
    tool that bounds its own output (Read, as Claude Code's).

    ``mcp_server``: the MCP server whose tool this is (``dsh.mcp``), or ``None``.

    ``max_error_chars``: the most of a failure's text the model sees; a longer one is cut
    in the middle with a note of how much was left out, as Claude Code formats an error a
    tool raised. ``None``: a tool that frames and bounds its failures itself (Codex's
    ``exec_command``).
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    run: ToolBody
    read_only: bool = False
    concurrency_safe: bool = False
    input_model: ModelRef | None = None
    output_model: ModelRef | None = None
    present: OutputPresenter | None = None
    deferred: bool = False
    shell_command: str | None = None
    max_result_chars: int | None = 50_000
    max_error_chars: int | None = 10_000
    mcp_server: McpServerRef | None = None

    def load_input_model(self) -> type[BaseModel] | None:
        """``input_model`` as a class (a ``LazyModel`` imported now)."""
        return load_model(self.input_model)

    def load_output_model(self) -> type[BaseModel] | None:
        """``output_model`` as a class (a ``LazyModel`` imported now)."""
        return load_model(self.output_model)

    @classmethod
    def from_model(
        cls,
        name: str,
        description: str,
        model: type[BaseModel],
        run: ToolBody,
        *,
        read_only: bool = False,
        concurrency_safe: bool = False,
        output_model: ModelRef | None = None,
        present: OutputPresenter | None = None,
        deferred: bool = False,
    ) -> ToolDefinition:
        return cls(
            name=name,
            description=description,
            input_schema=model.model_json_schema(),
            run=run,
            read_only=read_only,
            concurrency_safe=concurrency_safe,
            input_model=model,
            output_model=output_model,
            present=present,
            deferred=deferred,
        )

    def present_output(self, output: Any) -> Content:
        """What the model sees when a successful call of this tool outputs ``output``.

        ``output`` (JSON) must match ``output_model``, else ``OutputMismatchError``
        names each mismatch. Without ``present``, a string is shown as is and
        other JSON as its text.
        """
        from dsh.tools._decisions import check_content  # _decisions stands on this module

        plain = thaw_json(output)
        output_model = self.load_output_model()
        if output_model is not None:
            from pydantic import ValidationError  # only a replaced output needs it

            try:
                output_model.model_validate(plain)
            except ValidationError as exc:
                errors = "; ".join(
                    f"{'.'.join(str(p) for p in e['loc']) or '(output)'}: {e['msg']}"
                    for e in exc.errors()
                )
                raise OutputMismatchError(
                    f"the replacement output of {self.name} does not match its output model"
                    f" ({output_model.__name__}): {errors}"
                ) from None
        if self.present is None:
            return plain if isinstance(plain, str) else json.dumps(plain, ensure_ascii=False)
        return check_content(self.present(plain))
