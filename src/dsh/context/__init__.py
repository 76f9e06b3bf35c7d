"""The plugin host: scopes, typed channels of four kinds, and services.

Every seam of dsh is a channel constant owned by the package that fires it; a
plugin is a function that receives a ``Context`` and subscribes to channels.
"""

from dsh.context._channels import (
    Channel,
    ChannelKind,
    Next,
    NotifyChannel,
    SerialChannel,
    SyncNotifyChannel,
    WaterfallChannel,
)
from dsh.context._context import (
    ChannelError,
    Context,
    Disposer,
    NextCalledTwiceError,
    Plugin,
    ScopeDisposedError,
    ServiceKey,
    ServiceNotFoundError,
    describe,
)

__all__ = [
    "Channel",
    "ChannelError",
    "ChannelKind",
    "Context",
    "Disposer",
    "Next",
    "NextCalledTwiceError",
    "NotifyChannel",
    "Plugin",
    "ScopeDisposedError",
    "SerialChannel",
    "ServiceKey",
    "ServiceNotFoundError",
    "SyncNotifyChannel",
    "WaterfallChannel",
    "describe",
]
