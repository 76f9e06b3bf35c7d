"""The plugin host: scopes, typed channels of four kinds, and services.

Every seam of dsh is a channel constant owned by the package that fires it; a
plugin is a function that receives a ``Context`` and subscribes to channels.
"""

from dsh._public import publish
from dsh.context._chain import ChannelError, ListenerError, NextCalledTwiceError
from dsh.context._channels import (
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
    "ChannelError",
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
]

publish(globals())
