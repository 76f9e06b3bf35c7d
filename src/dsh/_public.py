"""A package's public surface: its names shown under the package, and names loaded on first use.

Every public package ends its ``__init__`` with ``publish(globals())``: each class and
function of its ``__all__`` defined in one of its private modules (or in a private module
of one of its sub-packages) says the package as its ``__module__`` (a repr, ``help()`` and
a pickle name ``dsh.tools.PreToolDeny``, not ``dsh.tools._decisions.PreToolDeny``).

A package whose names cost an import it would rather not pay at start-up (pydantic, the
openai client) binds ``__getattr__ = lazy(globals(), {module: names})``: a name's module
is imported when the name is first asked for, and the value is published and kept in the
package, so a second access is a plain lookup. Type checkers see those names through the
package's ``if TYPE_CHECKING:`` imports.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, ForwardRef

if TYPE_CHECKING:
    from _collections_abc import dict_items

__all__ = ["lazy", "publish"]


class _Annotations(dict[str, Any]):
    """A published class's own annotations, written as strings (``from __future__ import
    annotations``) in a module whose imports the package does not re-export: read as items
    (what ``typing.get_type_hints`` reads), each string becomes a ``ForwardRef`` to that
    module, so it resolves where it was written, as before the class moved its name.
    Converted on first read: publishing a package compiles nothing."""

    __slots__ = ("_module",)

    def __init__(self, annotations: dict[str, Any], module: str) -> None:
        super().__init__(annotations)
        self._module: str | None = module

    def items(self) -> dict_items[str, Any]:
        if self._module is not None:
            for name, value in list(super().items()):
                if isinstance(value, str):
                    self[name] = ForwardRef(
                        value, is_argument=False, is_class=True, module=self._module
                    )
            self._module = None
        return super().items()


_PUBLISHED_KINDS = (type, types.FunctionType)


def _show_under(package: str, value: object) -> None:
    if not isinstance(value, _PUBLISHED_KINDS):
        return
    module = value.__module__
    # Defined in a private module of the package, or of one of its rooms (a sub-package
    # whose names it exports: dsh.hooks.claude.permissions._plugin).
    if not module.startswith(package) or f".{module[len(package) + 1 :]}".find("._") < 0:
        return
    if isinstance(value, type):
        own = vars(value).get("__annotations__")  # its own, not a base's
        if own:
            for annotation in own.values():
                if isinstance(annotation, str):
                    value.__annotations__ = _Annotations(own, module)
                    break
    value.__module__ = package


def publish(namespace: dict[str, Any]) -> None:
    """Show the loaded names of the package's ``__all__`` under the package's own name."""
    package = namespace["__name__"]
    for name in namespace["__all__"]:
        if name in namespace:
            _show_under(package, namespace[name])


def lazy(namespace: dict[str, Any], names: Mapping[str, tuple[str, ...]]) -> Callable[[str], Any]:
    """The package's module ``__getattr__``, for the ``names`` of each module (by full name)."""
    package = namespace["__name__"]
    modules = {name: module for module, these in names.items() for name in these}

    def __getattr__(name: str) -> Any:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        _show_under(package, value)
        namespace[name] = value
        return value

    return __getattr__
