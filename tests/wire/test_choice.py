"""Which provider a run talks to, and the reason ``dsh config show`` gives."""

from __future__ import annotations

import pytest

from dsh.models._choice import choose_provider


@pytest.mark.parametrize(
    ("spec", "env", "provider", "model"),
    [
        ("scripted:x.json", {}, "scripted", "scripted:x.json"),
        ("anthropic:my-model", {}, "anthropic", "my-model"),
        ("responses:gpt-x", {}, "responses", "gpt-x"),
        ("chat:claude-x", {}, "chat", "claude-x"),
        ("", {"ANTHROPIC_API_KEY": "k"}, "anthropic", "claude-opus-5-5"),
        ("", {"ANTHROPIC_AUTH_TOKEN": "t"}, "anthropic", "claude-opus-5-5"),
        ("", {"ANTHROPIC_MODEL": "claude-y"}, "anthropic", "claude-y"),
        ("sonnet", {}, "anthropic", "sonnet"),
        ("claude-sonnet-5-5", {}, "anthropic", "claude-sonnet-5-5"),
        ("gpt-4o-mini", {"ANTHROPIC_API_KEY": "k"}, "chat", "gpt-4o-mini"),
        ("claude-x", {"DSH_BASE_URL": "http://h/v1"}, "chat", "claude-x"),
        ("claude-x", {"OPENAI_BASE_URL": "http://gw/v1"}, "chat", "claude-x"),
        (
            "claude-x",
            {"OPENAI_BASE_URL": "http://gw/v1", "ANTHROPIC_API_KEY": "k"},
            "anthropic",
            "claude-x",
        ),
    ],
)
def test_the_provider_follows_the_name_and_the_environment(
    spec: str, env: dict[str, str], provider: str, model: str
) -> None:
    choice = choose_provider(spec, env=env)
    assert choice is not None
    assert (choice.provider, choice.model) == (provider, model)
    assert choice.reason


def test_no_model_and_no_set_up_is_no_choice() -> None:
    assert choose_provider("", env={}) is None
    # An Anthropic key beside a dsh or OpenAI key: which was meant is not guessed.
    assert choose_provider("", env={"ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "o"}) is None


def test_the_provider_setting_wins_and_a_bad_one_is_refused() -> None:
    choice = choose_provider("claude-x", provider="chat", env={})
    assert choice is not None
    assert choice.provider == "chat"
    assert choice.reason == "the provider setting (chat)"
    with pytest.raises(ValueError, match="provider must be one of anthropic, responses, chat"):
        choose_provider("m", provider="bedrock", env={})
