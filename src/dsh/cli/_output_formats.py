"""``dsh run --output-format text|json|stream-json``: Claude Code's ``-p`` output shapes.

``stream-json`` writes one JSON object a line as the session goes (``StreamJson``,
``_stream_json``: which objects, in 2.1.332's order; ``_stream_objects``: their shapes).
``json`` is the last ``result`` object alone; ``text`` its ``result`` text alone. What the
profiles diagnosed goes to stderr: stdout carries only the format.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any, Literal, TextIO

from dsh.agent import TurnResult
from dsh.cli._render import for_stream, json_line
from dsh.cli._run import ExitCode, RunOptions, _run_prompts, prepared_host_options
from dsh.cli._stream_json import StreamJson
from dsh.host import open_host

__all__ = ["MACHINE_FORMATS", "OutputFormat", "run_machine"]

OutputFormat = Literal["text", "json", "stream-json"]
MACHINE_FORMATS: tuple[OutputFormat, ...] = ("text", "json", "stream-json")


def _write_line(out: TextIO) -> Callable[[dict[str, Any]], None]:
    def write(obj: dict[str, Any]) -> None:
        out.write(json_line(obj, separators=(",", ":")) + "\n")
        out.flush()

    return write


async def run_machine(
    options: RunOptions, output_format: OutputFormat, out: TextIO | None = None
) -> ExitCode:
    """Run ``options`` as ``dsh run`` does, writing Claude Code's ``-p`` output to ``out``.

    What the profiles diagnosed goes to stderr: stdout carries only the format.
    """
    stream = out if out is not None else sys.stdout
    write = _write_line(stream)
    streaming = output_format == "stream-json"
    results: list[tuple[TurnResult, dict[str, Any]]] = []
    holder: list[Any] = []

    def tools() -> list[str]:
        return [d.name for d in holder[0].registry.definitions()] if holder else []

    def mcp_servers() -> list[dict[str, str]]:
        servers = holder[0].assembly.mcp if holder else None
        return servers.statuses() if servers is not None else []

    converter = StreamJson(
        write if streaming else _ignore,
        cwd=str(options.host.project),
        model=options.host.model.name,
        permission_mode=options.hooks.permission_mode or "default",
        start_source="resume" if options.host.resume is not None else "startup",
        tools=tools,
        mcp_servers=mcp_servers,
        budget_usd=options.max_budget_usd,
    )

    def on_result(turn: TurnResult) -> None:
        status = converter.api_error(turn)
        obj = converter.result(turn, error_status=status)
        results.append((turn, obj))
        if streaming:
            converter.ensure_init()
            write(obj)

    def warn(line: str) -> None:
        print(for_stream(f"dsh: {line}", sys.stderr), file=sys.stderr)

    base = prepared_host_options(options, warn)
    async with open_host(dataclasses.replace(base, on_event=converter.feed)) as host:
        holder.append(host)
        converter.session_id = host.session.id
        if options.host.resume is not None:
            converter.seed(host.session.events)
        for diagnostic in host.diagnostics:
            warn(str(diagnostic))
        code = await _run_prompts(host.agent, options, None, on_result=on_result)
    if streaming:
        converter.ensure_init()
    elif results:
        last = results[-1][1]
        if output_format == "json":
            write(last)
        else:
            # At a terminal the answer is shown, never obeyed (no title, clear or bidi trick).
            stream.write(for_stream(str(last["result"]), stream) + "\n")
            stream.flush()
    return code


def _ignore(obj: dict[str, Any]) -> None:
    del obj
