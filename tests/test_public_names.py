"""One import path per name: each public name is exported once, by the package that owns it.

A package's ``__all__`` lists only names its own private modules define (no re-export of
another package's names), no object is in two packages' ``__all__``, and every import of a
dsh name in src, tests, benchmarks and typing_tests takes it from its one path: from a
package, only what its ``__all__`` lists; from a private module, only what that module
defines, and never a name a package exports to a module outside that package. Checked on
the source (the ``ast``), so names loaded lazily and imports only type checkers see count.
"""

from __future__ import annotations

import ast
import importlib
import pickle
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dsh.session import SessionEvent
from dsh.tools import PreToolDecision, PreToolDeny

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
SCANNED = ("src", "tests", "benchmarks", "typing_tests")


@dataclass
class _Module:
    name: str
    is_package: bool
    defined: set[str] = field(default_factory=set)
    imported: dict[str, str] = field(default_factory=dict)  # local name -> source module
    all: list[str] = field(default_factory=list)


def _bind(target: ast.expr, out: set[str]) -> None:
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            _bind(element, out)


def _scan(module: _Module, body: list[ast.stmt]) -> None:
    for stmt in body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            module.defined.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                _bind(target, module.defined)
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
                module.all = list(ast.literal_eval(stmt.value))
        elif isinstance(stmt, ast.AnnAssign):
            _bind(stmt.target, module.defined)
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
            for alias in stmt.names:
                if stmt.module.partition(".")[0] == "dsh":
                    module.imported[alias.asname or alias.name] = stmt.module
                else:  # an outside name (pydantic's ValidationError) is dsh's from here
                    module.defined.add(alias.asname or alias.name)
        elif isinstance(stmt, ast.If | ast.Try):
            _scan(module, [*stmt.body, *stmt.orelse])


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _index() -> dict[str, _Module]:
    modules = {}
    for path in sorted(SRC.glob("dsh/**/*.py")):
        module = _Module(_module_name(path), path.name == "__init__.py")
        _scan(module, ast.parse(path.read_text()).body)
        modules[module.name] = module
    return modules


MODULES = _index()
PACKAGES = {name: m for name, m in MODULES.items() if m.is_package}
# Each public name's package, keyed by (defining module, name).
HOMES = {
    (m.imported.get(name, package), name): package
    for package, m in PACKAGES.items()
    for name in m.all
}


def test_a_package_exports_only_what_its_own_modules_define() -> None:
    wrong = []
    for package, m in PACKAGES.items():
        for name in m.all:
            source = m.imported.get(name, package)
            owner = MODULES.get(source)
            if not source.startswith(f"{package}.") and source != package:
                wrong.append(f"{package}.{name} re-exports {source}'s")
            elif owner is None or name not in owner.defined:
                wrong.append(f"{package}.{name}: {source} does not define it")
    assert wrong == []


def test_no_object_is_exported_by_two_packages() -> None:
    seen: dict[tuple[str, int], str] = {}
    twice = []
    for package, m in PACKAGES.items():
        loaded = importlib.import_module(package)
        for name in m.all:
            value = getattr(loaded, name)
            key = (name, hash(value) if isinstance(value, str | int) else id(value))
            if key in seen:
                twice.append(f"{name}: {seen[key]} and {package}")
            seen[key] = package
    assert twice == []


def _inside(importer: str, package: str) -> bool:
    return importer == package or importer.startswith(f"{package}.")


def _problems(path: Path, importer: str) -> list[str]:
    problems = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        source = MODULES.get(node.module)
        if source is None:
            continue
        for alias in node.names:
            name, where = alias.name, f"{path.relative_to(ROOT)}:{node.lineno}"
            if f"{node.module}.{name}" in MODULES:
                continue  # a submodule
            if source.is_package and name not in source.all and name not in source.defined:
                problems.append(f"{where}: {node.module} does not export {name}")
            elif not source.is_package and name not in source.defined:
                problems.append(f"{where}: {node.module} does not define {name}")
            home = HOMES.get((node.module, name))
            if home is not None and home != node.module and not _inside(importer, home):
                problems.append(f"{where}: {name} is imported from {home}")
    return problems


def test_every_import_of_a_dsh_name_takes_its_one_path() -> None:
    problems = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            importer = _module_name(path) if top == "src" else f"{top}.{path.stem}"
            problems += _problems(path, importer)
    assert problems == []


def test_a_public_class_or_function_says_its_package() -> None:
    shown = []
    for package, m in PACKAGES.items():
        loaded = importlib.import_module(package)
        for name in m.all:
            value = getattr(loaded, name)
            if isinstance(value, type | types.FunctionType) and value.__module__ != package:
                shown.append(f"{package}.{name} says {value.__module__}")
    assert shown == []
    assert repr(type(PreToolDecision.deny("no"))) == "<class 'dsh.tools.PreToolDeny'>"


def test_a_published_value_pickles_and_its_annotations_resolve_where_written() -> None:
    decision = PreToolDecision.deny("no", {"rule": "x"})
    assert pickle.loads(pickle.dumps(decision)) == decision
    # Written as strings in dsh.tools._decisions and dsh.session._event_base, whose imports
    # dsh.tools and dsh.session do not re-export.
    assert typing.get_type_hints(PreToolDeny)["reason"] is str
    assert typing.get_type_hints(SessionEvent)["type"] == typing.ClassVar[str]


def test_a_lazy_name_loads_on_first_use_and_an_unknown_one_is_an_attribute_error() -> None:
    import dsh.models

    assert dsh.models.OpenAICompatibleModel.__module__ == "dsh.models"
    assert "OpenAICompatibleModel" in vars(dsh.models)  # kept: the next access is a lookup
    with pytest.raises(AttributeError, match="has no attribute 'Nothing'"):
        _ = dsh.models.Nothing
