"""dsh.testing: test a plugin or a hook configuration against the real loop and the real bridges.

As httpx ships ``MockTransport``, dsh ships what its own tests use, for plugin
authors and embedders:

- a scripted model written in Python: ``scripted_model(call("Bash", command="ls"),
  say("done"))``, each argument one reply (``dsh.models.ScriptedModel`` underneath);
- ``run_session(prompt, *replies, plugins=..., claude_settings=..., codex_hooks=...,
  files=...)``: one turn through the real loop in a temporary project (a host from
  ``dsh.host``, the bridges mounted as ``dsh run`` mounts them), returning the
  session's events, each tool call and how it ended, the hooks' results and what
  the model was sent (``SessionRun``);
- ``run_hook(event, payload | tool=..., tool_input=..., claude_settings=... |
  codex_hooks=...)``: one payload through a bridge's hooks, as ``dsh hooks test``
  runs it: each run, its decoded answer, and for PreToolUse the decision and the text
  the model reads (``HookTestResult``);
- ``check_fixtures(folder, project=...)``: a folder of hook fixtures (a payload, the
  hook configuration, the expected ``HookEffect``; or a scenario: a prompt and scripted
  replies through the real loop, and the firings, model texts and notices across it)
  checked against the hooks that run today, as ``dsh hooks test --fixtures`` checks them
  (``FixtureCheck``, ``accept_fixture``);
- ``assert_denied``, ``assert_allowed``, ``assert_asked`` on any of those, or on a
  ``PreToolDecision``, with failure messages that say what was decided instead.

Everything runs on asyncio: ``await`` it in an async test, or ``asyncio.run`` it.
``dsh.testing.pytest_plugin`` adds a ``dsh_project`` fixture. docs/testing.md
has a plugin test and a hook test, both run by dsh's own suite.
"""

from dsh._public import publish
from dsh.testing._assertions import Decided, assert_allowed, assert_asked, assert_denied
from dsh.testing._effect import EffectDecision, HookEffect
from dsh.testing._fixtures import FixtureCheck, accept_fixture, check_fixture, check_fixtures
from dsh.testing._hooks import Bridge, HookRunRecord, HookTestResult, run_hook
from dsh.testing._script import Reply, ScriptBlock, call, say, scripted_model
from dsh.testing._session import SessionRun, ToolCallRecord, run_session

__all__ = [
    "Bridge",
    "Decided",
    "EffectDecision",
    "FixtureCheck",
    "HookEffect",
    "HookRunRecord",
    "HookTestResult",
    "Reply",
    "ScriptBlock",
    "SessionRun",
    "ToolCallRecord",
    "accept_fixture",
    "assert_allowed",
    "assert_asked",
    "assert_denied",
    "call",
    "check_fixture",
    "check_fixtures",
    "run_hook",
    "run_session",
    "say",
    "scripted_model",
]

publish(globals())
