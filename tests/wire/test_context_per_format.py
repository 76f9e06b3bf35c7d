"""Hook and plugin context in each wire format: where it sits and in what role.

Chat completions: a user turn in Claude Code's ``<system-reminder>`` framing, so no
``system`` message follows the first (local chat templates refuse one mid-conversation),
merged with the user turns beside it (strict-alternation templates refuse two in a row).
Anthropic Messages: Claude Code's ``system`` message where the context arose. Responses:
Codex's ``developer`` message.
"""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.messages import ContextMessage, ModelMessage, UserMessage
from dsh.models import ModelRequest
from dsh.models._anthropic import AnthropicFormat
from dsh.models._chat_request import to_chat_messages
from dsh.models._responses import ResponsesFormat
from tests.models.test_chat_body import messages

HOOK = ContextMessage("hook:claude:UserPromptSubmit", "UserPromptSubmit hook additional context: C")
REQUEST = ModelRequest((UserMessage("hi"), HOOK), system="sys")


@settings(max_examples=200)
@given(st.lists(messages, max_size=10), st.none() | st.just("sys"))
def test_chat_completions_never_send_a_system_message_after_the_first(
    history: list[ModelMessage], system: str | None
) -> None:
    out = to_chat_messages(ModelRequest(tuple(history), system=system))
    assert all(m["role"] != "system" for m in out[1:])
    # Strict alternation's rule: never two user turns in a row.
    roles = [m["role"] for m in out]
    assert all((a, b) != ("user", "user") for a, b in pairwise(roles))


def test_each_format_carries_hook_context_in_its_tools_form() -> None:
    chat = to_chat_messages(REQUEST)
    assert chat[-1] == {  # merged into the prompt's user turn: no two user turns in a row
        "role": "user",
        "content": "hi\n\n<system-reminder>\nUserPromptSubmit hook additional context: C\n"
        "</system-reminder>",
    }
    anthropic = AnthropicFormat("claude-x", api_key="k", auth_token=None).body(REQUEST)
    last = anthropic["messages"][-1]
    assert last["role"] == "system"
    assert last["content"][0]["text"] == HOOK.text
    responses = ResponsesFormat("gpt-x", api_key="k").body(REQUEST)
    assert responses["input"][-1] == {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": HOOK.text}],
    }
