"""Hook fixtures: a folder of expected effects, checked against the hooks that run today.

``check_fixtures(folder, project=...)`` reads every ``*.json`` fixture in
``folder`` (sorted by name; the schema is ``_fixture_schema``), runs each one's
payload through its bridge's hooks with ``run_hook`` (the fixture's own
``hooks`` in a sandbox, or else the project's own hooks, in the project) and
compares the ``HookEffect`` that came out with the fixture's ``expect``; a
scenario fixture is played through the real loop instead (``_scenario``) and
its observed firings, model texts, notices and end compared the same way. A
``FixtureCheck`` per fixture says whether it passed and, if not, a unified
diff of expected against observed. ``accept_fixture`` writes the observed effect into
the fixture as its new ``expect`` (``dsh hooks test --update``).

Paths are written portably: the project's path in an observed text is
``${PROJECT_DIR}``, as in the recorded cases, and a fixture's payload may say
``${PROJECT_DIR}`` and ``${HOME}``.
"""

from __future__ import annotations

import contextlib
import difflib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, final

from dsh._frozen import frozen
from dsh._schema import SchemaRefusal, decode
from dsh.base import read_bounded
from dsh.testing._fixture_schema import ExpectSchema, FixtureSchema, ScenarioExpectSchema
from dsh.testing._hooks import run_hook
from dsh.testing._sandbox import sandbox

__all__ = ["FixtureCheck", "accept_fixture", "check_fixture", "check_fixtures"]

_MAX_FIXTURE_BYTES: Final = 4 << 20
"""A fixture file is read whole: bounded, so a FIFO or device named for one is refused."""
_MAX_STEPS: Final = 500
"""A scenario's turn is bounded: a script that calls tools forever ends."""


@final
@frozen(kw_only=True)
class FixtureCheck:
    """One fixture checked: its ``name`` and ``path``, the ``expected`` and ``observed``
    effects (JSON; ``expected`` is ``None`` when the fixture has none yet), the ``diff``
    lines when they differ and the ``error`` when the fixture could not run."""

    name: str
    path: Path
    observed: Mapping[str, Any] | None
    expected: Mapping[str, Any] | None = None
    diff: tuple[str, ...] = ()
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and not self.diff and self.expected is not None


def _read(path: Path) -> tuple[dict[str, Any], FixtureSchema]:
    """The fixture at ``path``, raw and validated; ``ValueError`` in words if it is not one."""
    try:
        raw = json.loads(read_bounded(path, _MAX_FIXTURE_BYTES, "hook fixture").decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ValueError(f"cannot read it as JSON: {exc}") from exc
    fixture = _decoded(raw, FixtureSchema, "")
    if fixture.expect is not None:
        kind = ScenarioExpectSchema if fixture.scenario is not None else ExpectSchema
        _decoded(fixture.expect, kind, "expect.")
    if fixture.scenario is None and fixture.event is None:
        raise ValueError("the fixture: it needs an event (or a scenario)")
    if fixture.scenario is not None:
        given = [
            k for k in ("event", "payload", "tool", "input", "prompt") if raw.get(k) is not None
        ]
        if given:
            raise ValueError(f"{given[0]}: a scenario fixture has no {given[0]} of its own")
        if not 1 <= fixture.scenario.max_steps <= _MAX_STEPS:
            raise ValueError(f"scenario.max_steps: from 1 to {_MAX_STEPS}")
    return raw, fixture


def _decoded(raw: Any, schema: type[Any], prefix: str) -> Any:
    try:
        return decode(raw, schema)
    except SchemaRefusal as exc:
        where = ".".join(str(part) for part in exc.errors[0].loc)
        raise ValueError(
            f"{prefix + where if where else 'the fixture'}: {exc.errors[0].msg}"
        ) from exc


def _inside(relative: str) -> bool:
    """A ``files`` key names a place in the sandboxed project: relative, no ``..``."""
    parts = Path(relative).parts
    return bool(parts) and not Path(relative).is_absolute() and ".." not in parts


def _substituted(value: Any, project: Path) -> Any:
    text = json.dumps(value).replace("${PROJECT_DIR}", str(project))
    return json.loads(text.replace("${HOME}", str(Path.home())))


def _portable(effect: Mapping[str, Any], project: Path) -> dict[str, Any]:
    text = json.dumps(effect, ensure_ascii=False).replace(str(project), "${PROJECT_DIR}")
    portable: dict[str, Any] = json.loads(text)
    return portable


async def check_fixture(path: Path, *, project: Path) -> FixtureCheck:
    """Run the fixture at ``path`` (against ``project``'s own hooks if it declares none)."""
    try:
        raw, fixture = _read(path)
    except ValueError as exc:
        return FixtureCheck(name=path.stem, path=path, observed=None, error=str(exc))
    own = fixture.hooks is None
    if own and fixture.files and fixture.scenario is None:
        error = "files: given without hooks (they would be written into the project)"
        return FixtureCheck(name=path.stem, path=path, observed=None, error=error)
    outside = next((f for f in fixture.files if not _inside(f)), None)
    if outside is not None:
        error = f"files: {outside!r} is not a relative path inside the project"
        return FixtureCheck(name=path.stem, path=path, observed=None, error=error)
    if fixture.scenario is not None:
        observed = await _observe_scenario(fixture, project)
    else:
        observed = await _observe_payload(fixture, project)
    if isinstance(observed, str):
        return FixtureCheck(name=path.stem, path=path, observed=None, error=observed)
    expected = raw.get("expect")
    if expected is None:
        return FixtureCheck(name=path.stem, path=path, observed=observed)
    complete = _complete_scenario if fixture.scenario is not None else _complete
    diff = _diff(complete(expected), observed, path.name)
    return FixtureCheck(name=path.stem, path=path, observed=observed, expected=expected, diff=diff)


async def _observe_scenario(fixture: FixtureSchema, project: Path) -> dict[str, Any] | str:
    """The scenario's observed JSON, or why it could not run."""
    from dsh.testing._scenario import run_scenario

    scenario = fixture.scenario
    assert scenario is not None
    try:
        observed, where = await run_scenario(
            scenario.prompt,
            scenario.replies,
            bridge=fixture.bridge,
            hooks=fixture.hooks,
            files=fixture.files,
            project=project,
            max_steps=scenario.max_steps,
        )
    except (ValueError, OSError) as exc:
        return f"the scenario could not run: {exc}"
    return _portable(observed, where)


async def _observe_payload(fixture: FixtureSchema, project: Path) -> dict[str, Any] | str:
    """The payload's observed effect, or why it could not run."""
    own = fixture.hooks is None
    assert fixture.event is not None
    with contextlib.ExitStack() as stack:
        where = project if own else stack.enter_context(sandbox()).project
        try:
            result = await run_hook(
                fixture.event,
                _substituted(fixture.payload, where) if fixture.payload is not None else None,
                tool=fixture.tool,
                tool_input=fixture.input,
                prompt=fixture.prompt,
                claude_settings=fixture.hooks if fixture.bridge == "claude" else None,
                codex_hooks=fixture.hooks if fixture.bridge == "codex" else None,
                files=fixture.files or None,
                project=where,
                bridge=fixture.bridge,
            )
        except ValueError as exc:
            return str(exc)
        return _portable(result.effect.to_json(), where)


def _complete(expected: Mapping[str, Any]) -> dict[str, Any]:
    """An ``expect`` with the fields it leaves out at their defaults, in ``HookEffect``'s order."""
    defaults: dict[str, Any] = {"model_text": [], "exit_codes": [], "notices": []}
    return {
        "decision": expected.get("decision"),
        **{k: expected.get(k, v) for k, v in defaults.items()},
    }


def _complete_scenario(expected: Mapping[str, Any]) -> dict[str, Any]:
    """A scenario's ``expect`` with its defaults filled in, in ``observe_scenario``'s order."""
    firings = []
    for firing in expected.get("firings", []):
        tool = {"tool": firing["tool"]} if firing.get("tool") is not None else {}
        firings.append(
            {
                "event": firing["event"],
                **tool,
                "decision": firing.get("decision", "none"),
                "exit_codes": firing.get("exit_codes", []),
            }
        )
    return {
        "firings": firings,
        "model_text": expected.get("model_text", []),
        "notices": expected.get("notices", []),
        "end": expected.get("end", "completed"),
    }


def _diff(expected: Mapping[str, Any], observed: Mapping[str, Any], name: str) -> tuple[str, ...]:
    if expected == observed:
        return ()
    before = json.dumps(expected, indent=2, ensure_ascii=False).splitlines()
    after = json.dumps(observed, indent=2, ensure_ascii=False).splitlines()
    lines = difflib.unified_diff(
        before, after, f"{name} (expected)", f"{name} (observed)", lineterm=""
    )
    return tuple(lines)


async def check_fixtures(folder: Path, *, project: Path) -> tuple[FixtureCheck, ...]:
    """Every ``*.json`` fixture of ``folder``, in name order, checked one after another."""
    paths = sorted(folder.glob("*.json"))  # noqa: ASYNC240 (a listing, before anything runs)
    return tuple([await check_fixture(p, project=project) for p in paths])


def accept_fixture(check: FixtureCheck) -> None:
    """Write ``check``'s observed effect into its fixture file as the new ``expect``."""
    if check.observed is None:
        raise ValueError(f"{check.path}: nothing observed to accept ({check.error})")
    raw, _ = _read(check.path)
    raw["expect"] = dict(check.observed)
    check.path.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
