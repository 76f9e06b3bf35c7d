"""Registering tools and guards, scoped views through TOOLS, and definitions()."""

from __future__ import annotations

from typing import Any

import pytest

from dsh.context import Context, ScopeDisposedError
from dsh.tools import (
    TOOLS,
    GuardDenial,
    ToolCall,
    ToolDefinition,
    ToolInvocation,
    ToolRegistrationError,
    ToolRegistry,
    ToolResult,
)
from tests.tools.support import Host, echo


async def nothing(inv: ToolInvocation) -> ToolResult:
    return ToolResult.ok("")


def tool(name: str, schema: dict[str, Any] | None = None) -> ToolDefinition:
    return ToolDefinition(name, "a tool", schema or {"type": "object"}, nothing)


def test_definitions_are_listed_in_registration_order() -> None:
    registry = ToolRegistry(Context())
    for name in ("B", "A", "C"):
        registry.register(tool(name))
    assert [d.name for d in registry.definitions()] == ["B", "A", "C"]
    assert registry.get("A") is registry.definitions()[1]
    assert registry.get("Z") is None


def test_a_duplicate_name_is_a_clear_error() -> None:
    registry = ToolRegistry(Context())
    registry.register(tool("Read"))
    with pytest.raises(ToolRegistrationError, match="'Read' is already registered"):
        registry.register(tool("Read"))


@pytest.mark.parametrize("name", ["", "has space", "x" * 65, "a/b"])
def test_a_bad_name_is_rejected(name: str) -> None:
    with pytest.raises(ToolRegistrationError, match="1 to 64 letters"):
        ToolRegistry(Context()).register(tool(name))


def test_an_invalid_schema_is_rejected_at_registration() -> None:
    with pytest.raises(
        ToolRegistrationError, match="'Bad': input_schema is not a valid JSON schema"
    ):
        ToolRegistry(Context()).register(tool("Bad", {"type": "no-such-type"}))


def test_register_takes_a_definition() -> None:
    with pytest.raises(ToolRegistrationError, match="takes a ToolDefinition, not dict"):
        ToolRegistry(Context()).register({"name": "X"})  # type: ignore[arg-type]


def test_the_disposer_and_unregister_remove_the_tool() -> None:
    registry = ToolRegistry(Context())
    dispose = registry.register(tool("A"))
    registry.register(tool("B"))
    dispose()
    assert [d.name for d in registry.definitions()] == ["B"]
    registry.unregister("B")
    assert registry.definitions() == ()
    with pytest.raises(KeyError, match="no tool named 'B'"):
        registry.unregister("B")


def test_a_stale_disposer_never_removes_a_newer_tool_of_the_same_name() -> None:
    registry = ToolRegistry(Context())
    dispose = registry.register(tool("A"))
    registry.unregister("A")
    newer = tool("A")
    registry.register(newer)
    dispose()
    assert registry.definitions() == (newer,)


async def test_a_plugins_tools_and_guards_go_with_its_scope() -> None:
    host = Host()
    calls: list[str] = []

    def plugin(ctx: Context) -> None:
        tools = ctx.require(TOOLS)
        tools.register(tool("Extra"))

        def deny_echo(call: ToolCall) -> GuardDenial | None:
            calls.append(call.name)
            return GuardDenial("no echo in this plugin's lifetime")

        tools.guard(deny_echo)

    scope = host.ctx.plugin(plugin)
    assert host.registry.get("Extra") is not None
    denied = await host.registry.execute(echo())
    assert denied.result.code == "DENIED"
    assert denied.result.info["by"] == "guard"

    await scope.dispose()
    assert host.registry.get("Extra") is None
    assert host.registry.guards == ()
    allowed = await host.registry.execute(echo())
    assert allowed.result.is_error is False
    assert calls == ["Echo"]


async def test_a_disposed_scope_cannot_install_a_guard() -> None:
    host = Host()
    scope = host.ctx.plugin(lambda ctx: None)
    view = scope.require(TOOLS)
    await scope.dispose()
    with pytest.raises(ScopeDisposedError):
        view.guard(lambda call: None)


def test_views_share_one_registry() -> None:
    host = Host()
    child = host.ctx.plugin(lambda ctx: None, name="child")
    view = child.require(TOOLS)
    assert view is not host.registry
    assert view.definitions() == host.registry.definitions()
    assert host.ctx.require(TOOLS) is host.registry


def test_a_coroutine_guard_is_refused() -> None:
    async def guard(call: ToolCall) -> None:
        return None

    with pytest.raises(TypeError, match="guards are synchronous"):
        ToolRegistry(Context()).guard(guard)  # type: ignore[arg-type]
