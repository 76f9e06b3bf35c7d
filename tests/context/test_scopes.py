"""Plugin scopes, disposal order and services."""

from __future__ import annotations

import pytest

from dsh.context import (
    Context,
    Next,
    ScopeDisposedError,
    ServiceKey,
    ServiceNotFoundError,
)
from tests.context.channels import NOTIFY, WATERFALL

GREETER: ServiceKey[str] = ServiceKey("test/greeter")


def _recorder(name: str, trail: list[str]) -> object:
    async def cleanup() -> None:
        trail.append(name)

    return cleanup


async def test_disposing_a_scope_removes_its_listeners_only() -> None:
    root = Context()

    async def root_listener(trail: list[str]) -> None:
        trail.append("root")

    def plugin(ctx: Context) -> None:
        async def plugin_listener(trail: list[str]) -> None:
            trail.append("plugin")

        ctx.on(NOTIFY, plugin_listener)

    root.on(NOTIFY, root_listener)
    scope = root.plugin(plugin)
    trail: list[str] = []
    await root.emit(NOTIFY, trail)
    assert trail == ["root", "plugin"]
    await scope.dispose()
    trail.clear()
    await root.emit(NOTIFY, trail)
    assert trail == ["root"]


async def test_nested_scopes_dispose_last_first_children_included() -> None:
    root = Context()
    order: list[str] = []

    def inner(ctx: Context) -> None:
        async def inner_first() -> None:
            order.append("inner-first")

        async def inner_second() -> None:
            order.append("inner-second")

        ctx.add_disposer(inner_first)
        ctx.add_disposer(inner_second)

    def outer(ctx: Context) -> None:
        async def before_child() -> None:
            order.append("outer-before-child")

        async def after_child() -> None:
            order.append("outer-after-child")

        ctx.add_disposer(before_child)
        ctx.plugin(inner)
        ctx.add_disposer(after_child)

    scope = root.plugin(outer)
    await scope.dispose()
    assert order == ["outer-after-child", "inner-second", "inner-first", "outer-before-child"]


async def test_dispose_is_idempotent_and_a_disposed_scope_refuses_new_listeners() -> None:
    root = Context()
    scope = root.plugin(lambda ctx: None)
    await scope.dispose()
    await scope.dispose()

    async def listener(trail: list[str]) -> None:
        trail.append("x")

    with pytest.raises(ScopeDisposedError, match="<lambda>"):
        scope.on(NOTIFY, listener)


async def test_a_plugin_that_raises_is_not_half_mounted() -> None:
    root = Context()

    def half(ctx: Context) -> None:
        async def listener(trail: list[str]) -> None:
            trail.append("half")

        ctx.on(NOTIFY, listener)
        ctx.provide(GREETER, "hello")
        raise RuntimeError("plugin setup failed")

    with pytest.raises(RuntimeError, match="plugin setup failed"):
        root.plugin(half)
    trail: list[str] = []
    await root.emit(NOTIFY, trail)
    assert trail == []
    assert root.get(GREETER) is None


async def test_a_plugin_receives_its_config_and_objects_with_apply_work() -> None:
    root = Context()
    seen: list[object] = []

    def configured(ctx: Context, config: dict[str, int]) -> None:
        seen.append(config)

    class Plugin:
        name = "object-plugin"

        def apply(self, ctx: Context) -> None:
            seen.append(ctx.name)

    root.plugin(configured, {"limit": 3})
    root.plugin(Plugin())
    assert seen == [{"limit": 3}, "object-plugin"]


async def test_services_are_scoped_and_the_newest_provider_wins() -> None:
    root = Context()
    assert root.get(GREETER) is None
    with pytest.raises(ServiceNotFoundError, match="test/greeter"):
        root.require(GREETER)
    root.provide(GREETER, "base")
    scope = root.plugin(lambda ctx: ctx.provide(GREETER, "override") and None)
    assert root.require(GREETER) == "override"
    await scope.dispose()
    assert root.require(GREETER) == "base"


async def test_a_service_key_can_bind_a_view_per_scope() -> None:
    seen: list[str] = []
    key: ServiceKey[str] = ServiceKey("test/bound", bind=lambda impl, ctx: f"{impl}@{ctx.name}")
    root = Context()
    root.provide(key, "svc")

    def plugin(ctx: Context) -> None:
        seen.append(ctx.require(key))

    root.plugin(plugin, name="alpha")
    assert seen == ["svc@alpha"]


async def test_a_disposer_removes_one_listener_and_is_harmless_twice() -> None:
    ctx = Context()

    async def decide(trail: list[str], next: Next[str]) -> str:
        return "listener"

    disposer = ctx.on(WATERFALL, decide)
    assert await ctx.waterfall(WATERFALL, []) == "listener"
    disposer()
    disposer()
    assert disposer.disposed
    assert await ctx.waterfall(WATERFALL, []) == "default"


async def test_every_cleanup_runs_even_when_one_fails() -> None:
    root = Context()
    order: list[str] = []

    def plugin(ctx: Context) -> None:
        async def first() -> None:
            order.append("first")

        async def failing() -> None:
            raise OSError("cleanup failed")

        ctx.add_disposer(first)
        ctx.add_disposer(failing)

    scope = root.plugin(plugin)
    with pytest.raises(OSError, match="cleanup failed"):
        await scope.dispose()
    assert order == ["first"]
