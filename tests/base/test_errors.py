"""Every error family dsh exports derives from the one root, ``DshError``."""

from __future__ import annotations

import importlib
import pkgutil

import dsh
from dsh.base import DshError


def _exported_exceptions() -> list[tuple[str, str, type[BaseException]]]:
    found = []
    for info in pkgutil.walk_packages(dsh.__path__, "dsh."):
        if not info.ispkg:
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, BaseException):
                found.append((info.name, name, value))
    return found


def test_every_exported_exception_is_a_dsh_error() -> None:
    found = _exported_exceptions()
    # The walk reaches the packages the families live in (not a vacuous pass).
    assert {"dsh.session", "dsh.tools", "dsh.context", "dsh.models"} <= {p for p, _, _ in found}
    assert len(found) >= 15
    strays = [f"{p}.{n}" for p, n, cls in found if not issubclass(cls, DshError)]
    assert strays == []


def test_each_family_keeps_its_builtin_base() -> None:
    from dsh.base import NotJSONError
    from dsh.context import ChannelError, ScopeDisposedError, ServiceNotFoundError
    from dsh.hooks.claude.settings._matcher import MatcherError
    from dsh.models import ScriptError
    from dsh.session import SessionNotFoundError
    from dsh.session._codec_values import EventDecodeError
    from dsh.tools import OutputMismatchError, ToolRegistrationError

    assert issubclass(ToolRegistrationError, ValueError)
    assert issubclass(OutputMismatchError, ValueError)
    assert issubclass(EventDecodeError, ValueError)
    assert issubclass(ScriptError, ValueError)
    assert issubclass(MatcherError, ValueError)
    assert issubclass(NotJSONError, TypeError)
    assert issubclass(SessionNotFoundError, LookupError)
    assert issubclass(ServiceNotFoundError, LookupError)
    assert issubclass(ChannelError, RuntimeError)
    assert issubclass(ScopeDisposedError, RuntimeError)
