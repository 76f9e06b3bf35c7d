"""A listener with the wrong signature for its channel is a type error."""

from __future__ import annotations

from dsh.context import (
    Context,
    Next,
    NotifyChannel,
    SerialChannel,
    ServiceKey,
    SyncNotifyChannel,
    WaterfallChannel,
)

NOTIFY: NotifyChannel[int, str] = NotifyChannel("typing/notify")
SYNC: SyncNotifyChannel[int] = SyncNotifyChannel("typing/sync")
SERIAL: SerialChannel[str, int] = SerialChannel("typing/serial")
WATERFALL: WaterfallChannel[bool, str] = WaterfallChannel(
    "typing/waterfall", default=lambda s: True
)
NUMBER: ServiceKey[int] = ServiceKey("typing/number")

ctx = Context()


# -- accepted -----------------------------------------------------------------


async def notify_ok(n: int, s: str) -> None: ...


def sync_ok(n: int) -> None: ...


async def serial_ok(n: int) -> str | None:
    return None


async def waterfall_ok(s: str, next: Next[bool]) -> bool:
    return await next()


ctx.on(NOTIFY, notify_ok)
ctx.on(SYNC, sync_ok)
ctx.on(SERIAL, serial_ok)
ctx.on(WATERFALL, waterfall_ok, prepend=True)


@ctx.on(WATERFALL)
async def decorated_ok(s: str, next: Next[bool]) -> bool:
    return False


def service_ok() -> int:
    return ctx.require(NUMBER) + (ctx.get(NUMBER) or 0)


async def dispatch_ok() -> bool:
    await ctx.emit(NOTIFY, 1, "a")
    ctx.emit_sync(SYNC, 1)
    answer: str | None = await ctx.serial(SERIAL, 1)
    return await ctx.waterfall(WATERFALL, "call") and answer is None


# -- rejected -----------------------------------------------------------------


async def notify_wrong_argument(n: str, s: str) -> None: ...


async def notify_too_few(n: int) -> None: ...


def notify_not_async(n: int, s: str) -> None: ...


async def sync_is_async(n: int) -> None: ...


async def serial_wrong_answer(n: int) -> int | None:
    return None


async def waterfall_no_next(s: str) -> bool:
    return True


async def waterfall_wrong_decision(s: str, next: Next[bool]) -> str:
    return "yes"


async def waterfall_wrong_next(s: str, next: Next[str]) -> bool:
    return True


ctx.on(NOTIFY, notify_wrong_argument)  # type: ignore[misc]
ctx.on(NOTIFY, notify_too_few)  # type: ignore[misc]
ctx.on(NOTIFY, notify_not_async)  # type: ignore[misc]
ctx.on(SYNC, sync_is_async)  # type: ignore[misc]
ctx.on(SERIAL, serial_wrong_answer)  # type: ignore[misc]
ctx.on(WATERFALL, waterfall_no_next)  # type: ignore[misc]
ctx.on(WATERFALL, waterfall_wrong_decision)  # type: ignore[misc]
ctx.on(WATERFALL, waterfall_wrong_next)  # type: ignore[misc]


@ctx.on(WATERFALL)  # type: ignore[arg-type]
async def decorated_wrong(s: int, next: Next[bool]) -> bool:
    return True


def service_wrong() -> str:
    return ctx.require(NUMBER)  # type: ignore[return-value]


async def dispatch_wrong() -> None:
    await ctx.emit(NOTIFY, "not an int", "a")  # type: ignore[misc]
    ctx.emit_sync(SYNC)  # type: ignore[misc]
    await ctx.waterfall(WATERFALL, 3)  # type: ignore[misc]
