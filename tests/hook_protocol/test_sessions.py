"""SessionStates and hook_environment: a bridge's per-session state and its hooks' environment."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass, field

from dsh.hook_protocol import SessionStates, hook_environment
from dsh.hook_protocol._executor import run_hook
from dsh.hook_protocol._sessions import root_session
from tests.hook_protocol.support import command, script


class Session:
    """A toy session: it may run inside another one, like a subagent."""

    def __init__(self, parent: Session | None = None) -> None:
        self._parent = parent

    @property
    def parent(self) -> Session | None:
        return self._parent


@dataclass
class Bookkeeping:
    """A toy bridge's state type."""

    prompt_id: str | None = None
    started: dict[str, float] = field(default_factory=dict)


def test_a_subagent_shares_its_root_sessions_state() -> None:
    states: SessionStates[Session, Bookkeeping] = SessionStates(Bookkeeping)
    root = Session()
    child = Session(root)
    grandchild = Session(child)
    states(grandchild).prompt_id = "p1"
    assert root_session(grandchild) is root
    assert states(root) is states(child) is states(grandchild)
    assert states(root).prompt_id == "p1"
    assert states(Session()).prompt_id is None  # another session, its own state


def test_the_state_goes_with_its_session() -> None:
    states: SessionStates[Session, Bookkeeping] = SessionStates(Bookkeeping)
    session = Session()
    child = Session(session)
    states(child).prompt_id = "old"
    gone_session, gone_state = weakref.ref(session), weakref.ref(states(session))
    del session, child
    gc.collect()
    # Held weakly: the state does not keep its session alive, nor outlive it.
    assert gone_session() is None
    assert gone_state() is None
    assert states(Session()).prompt_id is None


async def test_the_bridges_variables_win_over_the_declarations_own() -> None:
    env = hook_environment({"HOOK_VAR": "declared", "OTHER": "1"}, {"HOOK_VAR": "session"})
    assert env == {"HOOK_VAR": "session", "OTHER": "1"}
    run = await run_hook(command(script("env_cwd.sh"), env=env), b"")
    assert run.stdout.splitlines()[:2] == ["var=session", "path=inherited"]
    assert hook_environment(None, None) == {}
    assert hook_environment({"HOOK_VAR": "declared"}, None) == {"HOOK_VAR": "declared"}
