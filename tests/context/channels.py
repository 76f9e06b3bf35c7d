"""Channels shared by the context tests: one of each kind."""

from __future__ import annotations

from dsh.context import NotifyChannel, SerialChannel, SyncNotifyChannel, WaterfallChannel

NOTIFY: NotifyChannel[list[str]] = NotifyChannel("test/notify")
SYNC: SyncNotifyChannel[list[str]] = SyncNotifyChannel("test/sync")
SERIAL: SerialChannel[str, list[str]] = SerialChannel("test/serial")
WATERFALL: WaterfallChannel[str, list[str]] = WaterfallChannel(
    "test/waterfall", default=lambda trail: "default", returns=str
)
