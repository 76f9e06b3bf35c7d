"""The JSON form of session events: round trips, the open registry, clear errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dsh.base import FrozenDict
from dsh.messages import TextBlock, ToolUse, Usage
from dsh.session import (
    AbortCause,
    AssistantMessageEvent,
    MemorySessionStore,
    OpaqueEvent,
    SessionEvent,
    TurnEnd,
    TurnEndReason,
    UserMessageEvent,
    register_event_type,
)
from dsh.session._codec import decode_event, encode_event
from dsh.session._codec_compiler import compile_codec, interpret_writer
from dsh.session._codec_values import EventDecodeError
from dsh.session._event_registry import (
    _REGISTRY,
    DECODERS,
    event_type_of,
    plan_every_event_type,
    registered_event_types,
)
from dsh.session._events import CORE_EVENT_TYPES
from tests.session.strategies import events_of


@register_event_type
@dataclass(frozen=True, slots=True, kw_only=True)
class ProbeEvent(SessionEvent):
    """Shaped like what dsh.hook_protocol registers: JSON-native fields and Any."""

    type: ClassVar[str] = "test/probe"

    hook_event: str
    command: tuple[str, ...] = ()
    exit_code: int | None = None
    duration: float = 0.0
    blocked: bool = False
    outcome: Literal["ok", "error"] = "ok"
    payload: Any = None


ALL_TYPES = (*CORE_EVENT_TYPES, ProbeEvent)


@pytest.mark.parametrize("cls", ALL_TYPES, ids=lambda c: c.type)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_event_type_round_trips_through_its_json_form(
    cls: type[SessionEvent], data: st.DataObject
) -> None:
    event = data.draw(events_of(cls))
    line = encode_event(event)
    assert "\n" not in line
    decoded = decode_event(line)
    assert decoded == event
    assert type(decoded) is cls
    # Stable: encoding the decoded event gives the same line.
    assert encode_event(decoded) == line


def test_json_form_puts_type_and_base_fields_first() -> None:
    event = TurnEnd(
        id="e1",
        session_id="s",
        turn_id="t1",
        seq=3,
        time=1.5,
        reason=TurnEndReason.ABORTED,
        cause=AbortCause("hook", "stop"),
    )
    obj = json.loads(encode_event(event))
    assert list(obj) == [
        "type", "id", "session_id", "turn_id", "seq", "time", "reason", "cause", "error"
    ]  # fmt: skip
    assert obj["type"] == "turn/end"
    assert obj["reason"] == "aborted"
    assert obj["cause"] == {"kind": "hook", "reason": "stop"}


def test_content_blocks_and_tool_calls_round_trip_as_their_types() -> None:
    user = UserMessageEvent(content=(TextBlock("look"),))
    back = decode_event(encode_event(user))
    assert isinstance(back, UserMessageEvent)
    assert back.content == (TextBlock("look"),)
    call = ToolUse("c1", "Bash", FrozenDict({"command": "ls", "n": (1, 2)}))
    assistant = AssistantMessageEvent(text="", tool_calls=(call,))
    back_a = decode_event(encode_event(assistant))
    assert isinstance(back_a, AssistantMessageEvent)
    assert back_a.tool_calls == (call,)
    assert isinstance(back_a.tool_calls[0].arguments, FrozenDict)
    with pytest.raises(TypeError):
        back_a.tool_calls[0].arguments["command"] = "rm"


def test_a_lone_surrogate_is_escaped_and_still_round_trips() -> None:
    event = UserMessageEvent(content="bad \ud800 text")
    assert decode_event(encode_event(event)) == event


def test_an_unknown_type_decodes_to_an_opaque_event_kept_byte_for_byte() -> None:
    raw = '{"type": "future/thing",  "id":"x1", "seq": 4, "note": "caf\\u00e9", "n": [1, 2]}'
    event = decode_event(raw)
    assert isinstance(event, OpaqueEvent)
    assert event.type == "future/thing" == event_type_of(event)
    assert (event.id, event.seq) == ("x1", 4)
    assert event.data["n"] == (1, 2)
    assert event.raw == raw.encode()
    assert encode_event(event) == raw


def test_decoding_a_known_type_with_a_bad_field_names_the_field() -> None:
    with pytest.raises(EventDecodeError, match=r"turn/end event, field 'reason': expected one of"):
        decode_event('{"type":"turn/end","reason":"sideways"}')
    with pytest.raises(EventDecodeError, match=r"user/message event, field 'content'"):
        decode_event('{"type":"user/message","content":7}')
    with pytest.raises(EventDecodeError, match=r"notice event, field 'text': expected a string"):
        decode_event('{"type":"notice","text":null}')
    with pytest.raises(EventDecodeError, match=r"compaction/end event, field 'summary'"):
        decode_event('{"type":"compaction/end"}')
    with pytest.raises(EventDecodeError, match="not JSON"):
        decode_event('{"type":')


def test_absent_fields_with_defaults_take_them() -> None:
    event = decode_event('{"type":"notice","text":"hi"}')
    assert event == decode_event(encode_event(event))
    assert isinstance(event, SessionEvent)
    assert (event.turn_id, event.session_id) == (None, "")


def test_register_refuses_classes_that_cannot_be_logged() -> None:
    with pytest.raises(TypeError, match="ClassVar"):

        @register_event_type
        @dataclass(frozen=True, slots=True, kw_only=True)
        class NoTag(SessionEvent):
            x: str

    with pytest.raises(TypeError, match=r"must be a @dataclass\(frozen=True"):

        @register_event_type
        class NotADataclass(SessionEvent):
            type: ClassVar[str] = "test/plain"

    with pytest.raises(TypeError, match=r"must be a @dataclass\(slots=True"):

        @register_event_type
        @dataclass(frozen=True, kw_only=True)
        class NoSlots(SessionEvent):
            type: ClassVar[str] = "test/noslots"

    with pytest.raises(TypeError, match=r"Listy\.items: field type"):

        @register_event_type
        @dataclass(frozen=True, slots=True, kw_only=True)
        class Listy(SessionEvent):
            type: ClassVar[str] = "test/listy"
            items: list[int]

    with pytest.raises(ValueError, match="already registered"):

        @register_event_type
        @dataclass(frozen=True, slots=True, kw_only=True)
        class Clash(SessionEvent):
            type: ClassVar[str] = "turn/start"

    assert registered_event_types()["test/probe"] is ProbeEvent
    assert register_event_type(ProbeEvent) is ProbeEvent  # idempotent


def test_every_event_type_dsh_registers_can_be_logged() -> None:
    # dsh's own types are planned on first use (start-up); a field the codec cannot log
    # would raise here, as any other class's does when it registers.
    import dsh.hook_protocol  # noqa: F401 (registers hook/*)

    plan_every_event_type()
    own = [c for c in registered_event_types().values() if c.__module__.startswith("dsh.")]
    assert len(own) >= len(CORE_EVENT_TYPES) + 2


def test_a_dsh_event_type_with_a_field_the_codec_cannot_log_is_refused_when_planned() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Own(SessionEvent):
        type: ClassVar[str] = "test/own-listy"
        items: list[int]

    Own.__module__ = "dsh.session._events"  # as if declared there: planned on first use
    register_event_type(Own)
    with pytest.raises(TypeError, match=r"Own\.items: field type"):
        plan_every_event_type()
    del _REGISTRY["test/own-listy"], DECODERS["test/own-listy"]


def test_encoding_refuses_unregistered_classes() -> None:
    @dataclass(frozen=True, slots=True, kw_only=True)
    class Stray(SessionEvent):
        type: ClassVar[str] = "test/stray"

    with pytest.raises(TypeError, match="not a registered session event type"):
        encode_event(Stray())


def test_an_assistant_events_usage_round_trips_and_an_older_line_has_none() -> None:
    usage = Usage(input_tokens=20, output_tokens=9, cache_read_input_tokens=100)
    event = AssistantMessageEvent(text="hi", usage=usage)
    obj = json.loads(encode_event(event))
    assert obj["usage"] == {
        "input_tokens": 20,
        "output_tokens": 9,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 0,
    }
    assert decode_event(encode_event(event)) == event
    old = '{"type": "assistant/message", "id": "e1", "seq": 1, "text": "hi", "tool_calls": []}'
    back = decode_event(old)
    assert isinstance(back, AssistantMessageEvent)
    assert back.usage is None
    partial = decode_event(old[:-1] + ', "usage": {"output_tokens": 3}}')
    assert isinstance(partial, AssistantMessageEvent)
    assert partial.usage == Usage(output_tokens=3)


@pytest.mark.parametrize(
    "usage",
    [
        '{"input_tokens": -1}',
        '{"input_tokens": 1.5}',
        '{"tokens": 1}',
        "[1]",
        '{"output_tokens": 1e400}',
    ],
)
def test_a_bad_usage_in_a_log_line_names_the_field(usage: str) -> None:
    line = f'{{"type": "assistant/message", "id": "e1", "seq": 1, "text": "", "usage": {usage}}}'
    with pytest.raises(EventDecodeError, match="field 'usage'"):
        decode_event(line)


@pytest.mark.parametrize("count", [-1, 10**13, True])
def test_a_usage_that_cannot_be_logged_is_refused(count: int) -> None:
    with MemorySessionStore().create() as log:
        log.append(AssistantMessageEvent(text="", usage=Usage(output_tokens=5)))
        with pytest.raises(TypeError, match="field 'usage'"):
            log.append(AssistantMessageEvent(text="", usage=Usage(input_tokens=count)))


_ODD_VALUES: tuple[Any, ...] = (None, True, 1, 1.5, "x", "done", [], ["a"], ("a",), {"a": 1})


def _outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except Exception as exc:  # the same refusal, worded the same, from both writers
        return (type(exc), str(exc))


@pytest.mark.parametrize("cls", ALL_TYPES, ids=lambda c: c.type)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_types_first_writes_read_its_plan_as_its_compiled_writer_does(
    cls: type[SessionEvent], data: st.DataObject
) -> None:
    entry = _REGISTRY[cls.type]
    encode, restamp = interpret_writer(cls, cls.type, entry.plan)
    compiled = compile_codec(cls, cls.type, entry.plan, reader=False)
    event = data.draw(events_of(cls))
    # Any field may hold a value of the wrong shape (a caller's bug): refused alike.
    name = data.draw(st.sampled_from([f.name for f, _ in entry.plan]))
    if data.draw(st.booleans()):
        object.__setattr__(event, name, data.draw(st.sampled_from(_ODD_VALUES)))
    assert _outcome(encode, event, "s", 3) == _outcome(compiled["encode"], event, "s", 3)
    assert _outcome(restamp, event, "s", 3) == _outcome(compiled["restamp"], event, "s", 3)
