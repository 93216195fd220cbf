"""What a framework embedding promptwire needs (issue 38 item 10): promptwire's output check for a
reply the framework's model got (``check_output``), and an adapter object handed to ``generate``
and ``run`` (``adapter=``, ``FunctionAdapter``) with no plugin and no ``PluginHost``."""

from __future__ import annotations

import asyncio
import types
from typing import Any

import pytest

import promptwire
from promptwire import FunctionAdapter, ModelOutputError, OutputContract, Prompt, check_output
from promptwire.calls.generate import NotJsonError
from promptwire.core.call import ProviderRequest, Reply
from promptwire.core.errors import FieldError, RegistrationError

SCHEMA = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "score": {"type": "number"}},
    "required": ["label", "score"],
    "additionalProperties": False,
}
PROMPT = Prompt(instruction="Classify the ticket.", output={"schema": SCHEMA})


def test_check_output_reads_and_coerces_as_generate_does() -> None:
    fenced = 'Here it is:\n```json\n{"label": "spam", "score": "0.5"}\n```'
    assert check_output(fenced, PROMPT) == {"label": "spam", "score": 0.5}  # the JSON found, "0.5" coerced
    assert check_output({"label": "ham", "score": 1}, OutputContract(json_schema=SCHEMA)) == {
        "label": "ham",
        "score": 1,
    }
    assert check_output("any text", Prompt(instruction="Say hi.")) == "any text"  # no contract: as it is


def test_check_output_refuses_with_the_repair_texts_reason() -> None:
    with pytest.raises(NotJsonError, match=r"^LLM provider did not return JSON: I think it is spam$"):
        check_output("I think it is spam", PROMPT)
    with pytest.raises(ModelOutputError, match=r"^LLM result is missing required field 'score'$"):
        check_output({"label": "spam"}, PROMPT)
    with pytest.raises(ModelOutputError, match="must be a number"):
        check_output({"label": "spam", "score": "high"}, PROMPT)
    with pytest.raises(ModelOutputError, match="must be a number"):
        check_output({"label": "spam", "score": "0.5"}, PROMPT, strict=True)  # strict: no coercion


def test_the_same_reason_generate_sends_back() -> None:
    replies = iter(["I think it is spam", {"label": "spam"}, {"label": "spam", "score": 1}])
    result = promptwire.generate(PROMPT, adapter=FunctionAdapter(lambda messages, schema: next(replies)), attempts=3)
    errors = [call.error for call in result.calls]
    for error, reply in zip(errors[:2], ["I think it is spam", {"label": "spam"}], strict=True):
        with pytest.raises(ModelOutputError) as caught:
            check_output(reply, PROMPT)
        assert str(caught.value) == error


def test_a_function_adapter_sends_each_attempt_with_its_repair_text() -> None:
    seen: list[tuple[list[dict[str, Any]], Any]] = []

    def ask(messages: list[dict[str, Any]], schema: Any) -> Any:
        seen.append((messages, schema))
        return "not json" if len(seen) == 1 else '{"label": "ham", "score": 2}'

    result = promptwire.generate(PROMPT, adapter=FunctionAdapter(ask, name="my-framework"), attempts=2)
    assert result.value == {"label": "ham", "score": 2}
    assert [call.provider for call in result.calls] == ["my-framework", "my-framework"]
    assert seen[0][1] == SCHEMA
    assert "Previous generation failed." not in str(seen[0][0])
    assert "Previous generation failed." in str(seen[1][0]) and "not json" in str(seen[1][0])
    assert seen[0][0] == promptwire.build_request(PROMPT).kwargs["messages"]  # the messages promptwire renders


def test_an_adapter_object_needs_no_plugin_and_no_host() -> None:
    """The object the newcomer first tried (a SimpleNamespace, refused by PluginHost as unhashable)
    works handed to ``adapter=``, on an event loop and for a program too."""
    sender = types.SimpleNamespace(
        name="namespace",
        build_request=lambda rendered, config, contract, model: ProviderRequest({"messages": rendered.messages}),
        send=lambda request, timeout: '{"label": "ok", "score": 0}',
        parse_reply=lambda raw: Reply(text=raw, raw=raw),
    )
    assert promptwire.generate(PROMPT, adapter=sender).value == {"label": "ok", "score": 0}
    assert asyncio.run(promptwire.agenerate(PROMPT, adapter=sender)).value == {"label": "ok", "score": 0}
    program = (
        'import llm Model from "openai://gpt-4o-mini"\n\nmain agent A {\n    model Model\n    role "R"\n'
        '    description "D"\n\n    main func(input) {\n'
        '        return generate({ input: "x" }) -> {\n            label string\n            score number\n        }\n'
        "    }\n}\n"
    )
    assert promptwire.run(program, {}, adapter=sender).value == {"label": "ok", "score": 0}
    with pytest.raises(RegistrationError, match="hand it to generate or run as adapter="):
        promptwire.PluginHost(
            entry_points=False, plugins=[types.SimpleNamespace(register_adapters=lambda register: None)]
        )


def test_an_adapter_handed_over_is_checked() -> None:
    with pytest.raises(FieldError, match="adapter: SimpleNamespace is no model adapter: it lacks send, parse_reply"):
        promptwire.generate(PROMPT, adapter=types.SimpleNamespace(name="x", build_request=print))
    with pytest.raises(FieldError, match="give it without provider or responses"):
        promptwire.generate(PROMPT, provider="openai", adapter=FunctionAdapter(lambda m, s: "{}"))
