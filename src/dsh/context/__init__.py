"""The plugin host: scopes, typed channels of four kinds, and services.

Every seam of dsh is a channel constant owned by the package that fires it; a
plugin is a function that receives a ``Context`` and subscribes to channels.
"""

from dsh.context._chain import (
    ChannelError,
    ListenerError,
    NextCalledTwiceError,
    describe,
    run_waterfall,
)
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
    Context,
    Disposer,
    Plugin,
    ScopeDisposedError,
    ServiceKey,
    ServiceNotFoundError,
)

__all__ = [
    "Channel",
    "ChannelError",
    "ChannelKind",
    "Context",
    "Disposer",
    "ListenerError",
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
    "run_waterfall",
]
