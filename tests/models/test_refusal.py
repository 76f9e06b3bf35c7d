"""A model that declines to answer raises ``ModelRefusal`` (ACP's ``refusal`` stop reason)."""

from __future__ import annotations

import pytest

from dsh.messages import UserMessage
from dsh.models import ModelError, ModelRefusal, ModelRequest, ScriptedModel, ScriptError
from tests.models.chat_server import Reply, chunk, completion, serving
from tests.models.test_openai import backend, model_for

__all__ = ["backend"]  # the backend fixture: every test runs on both backends

REQUEST = ModelRequest((UserMessage("how do I pick a lock"),))


@pytest.mark.parametrize("stream", [False, True])
async def test_an_openai_refusal_with_no_answer_is_a_refusal(stream: bool) -> None:
    body = completion(None)
    body["choices"][0]["message"]["refusal"] = "I can't help with that."
    chunks = [chunk({"role": "assistant", "refusal": "I can't "}), chunk({"refusal": "help."})]
    reply = Reply(chunks=chunks) if stream else Reply(body=body)
    with serving(reply) as server:
        async with model_for(server.url, stream=stream) as model:
            with pytest.raises(ModelRefusal) as refused:
                await model.complete(REQUEST)
    assert "can't help" in str(refused.value)
    assert isinstance(refused.value, ModelError)
    assert len(server.seen) == 1  # never retried


async def test_a_reply_with_text_is_an_answer_even_beside_a_refusal_field() -> None:
    body = completion("Here is how to rekey your own lock.")
    body["choices"][0]["message"]["refusal"] = None
    with serving(Reply(body=body)) as server:
        async with model_for(server.url, stream=False) as model:
            reply = await model.complete(REQUEST)
    assert reply.text.startswith("Here is how")


async def test_the_scripted_refusal_block() -> None:
    model = ScriptedModel({"responses": [[{"type": "refusal", "text": "not this"}]]})
    with pytest.raises(ModelRefusal, match="not this"):
        await model.complete(REQUEST)
    with pytest.raises(ScriptError, match="must be alone"):
        ScriptedModel({"responses": [[{"type": "refusal"}, {"type": "text", "text": "x"}]]})
