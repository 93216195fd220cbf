"""The generate runtime: attempts, the repair text, coercion and validation, and the offline adapter.

The retry case is AgentScript's reference program tc09 (a classifier given three canned replies:
not JSON, a wrong type, then fenced JSON with a number written as text); every attempt's user
message is compared byte for byte with the reference's.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from promptwire import PluginHost, Prompt
from promptwire.adapters.offline import OfflineAdapter, mock_value
from promptwire.calls.generate import NotJsonError, generate, read_json
from promptwire.core.call import Reply, Site
from promptwire.core.coercion import ResultError, check_result
from promptwire.core.errors import ProviderConnectionError
from promptwire.frontend.agentscript.trace import DebugText
from promptwire.renderers.agentscript import renderer, shape_contract

HOST = PluginHost(entry_points=False)

SCHEMA_TEXT = """Return JSON matching this schema:
{
  "type": "object",
  "properties": {
    "label": {
      "type": "string"
    },
    "confidence": {
      "type": "number"
    }
  },
  "required": [
    "label",
    "confidence"
  ],
  "additionalProperties": false
}"""
HEAD = "Context:\n[text]\nsource: input.text\nBuy now!!!\nInstruction:\nClassify the text."
TC09_USER = [
    f"{HEAD}\n{SCHEMA_TEXT}",
    f"{HEAD}\n\nPrevious generation failed.\n\nError:\nLLM provider did not return JSON: not json at all\n\n"
    f"Return corrected JSON matching the requested schema only.\n{SCHEMA_TEXT}",
    f'{HEAD}\n\nPrevious generation failed.\n\nPrevious output:\n{{\n  "label": "spam",\n  "confidence": "high"\n}}\n\n'
    f"Error:\nLLM result field must be a number at 12:13\n\n"
    f"Return corrected JSON matching the requested schema only.\n{SCHEMA_TEXT}",
]
TC09_REPLIES = [
    "not json at all",
    '{"label":"spam","confidence":"high"}',
    'Here you go:\n```json\n{"label": "spam", "confidence": "0.9"}\n```',
]


def _tc09(attempts: int = 3) -> Prompt:
    return Prompt(
        identity={"role": "Classifier", "description": "Classify."},
        context=[{"value": "Buy now!!!", "label": "text", "source": "input.text"}],
        instruction="Classify the text.",
        output=shape_contract({"label": "string", "confidence": "number"}),
        config={"attempts": attempts},
    )


LOCATIONS = {"label": "11:13", "confidence": "12:13"}


def test_tc09_retries_with_the_exact_repair_text() -> None:
    result = generate(
        _tc09(),
        render=renderer.render,
        adapter=OfflineAdapter(TC09_REPLIES),
        locations=LOCATIONS,
    )
    assert result.value == {"label": "spam", "confidence": 0.9}
    assert result.attempts == 3
    assert [call.rendered.user for call in result.calls] == TC09_USER
    assert [call.rendered.system for call in result.calls] == ["You are Classifier.\nClassify."] * 3
    assert [call.error for call in result.calls] == [
        "LLM provider did not return JSON: not json at all",
        "LLM result field must be a number at 12:13",
        None,
    ]
    assert result.calls[2].prompt.instruction == "Classify the text."  # the repair is never cumulative


def test_the_last_failure_is_raised_when_attempts_run_out() -> None:
    with pytest.raises(ResultError, match="LLM result field must be a number at 12:13"):
        generate(_tc09(2), render=renderer.render, adapter=OfflineAdapter(TC09_REPLIES), locations=LOCATIONS)
    with pytest.raises(NotJsonError, match="not json at all"):
        generate(_tc09(1), render=renderer.render, adapter=OfflineAdapter(TC09_REPLIES))


def test_a_failed_generate_hands_back_its_attempts_on_the_error() -> None:
    with pytest.raises(ResultError) as caught:
        generate(_tc09(2), render=renderer.render, adapter=OfflineAdapter(TC09_REPLIES), locations=LOCATIONS)
    assert [(call.attempt, call.error) for call in caught.value.calls] == [
        (1, "LLM provider did not return JSON: not json at all"),
        (2, "LLM result field must be a number at 12:13"),
    ]

    class Refusing(OfflineAdapter):
        def send(self, request: Any, timeout: float | None) -> Any:
            raise ProviderConnectionError("refused", provider="offline")

    with pytest.raises(ProviderConnectionError) as refused:
        generate(_tc09(), render=renderer.render, adapter=Refusing())
    assert refused.value.calls == ()  # the attempt that failed never came back


def test_errors_that_are_not_about_the_reply_are_not_retried() -> None:
    class Broken(OfflineAdapter):
        def send(self, request: Any, timeout: float | None) -> Any:
            self.sent = getattr(self, "sent", 0) + 1
            raise ConnectionError("refused")

    broken = Broken()
    with pytest.raises(ConnectionError):
        generate(_tc09(), render=renderer.render, adapter=broken)
    assert broken.sent == 1


def test_offline_mock_values_are_the_shape_defaults() -> None:
    contract = shape_contract(
        {"s": "string", "n": "number", "b": "boolean", "j": "json", "l": "list", "t": "list[string]"}
    )
    assert mock_value(contract.json_schema) == {"s": "", "n": 0, "b": True, "j": {}, "l": [], "t": [""]}
    result = generate(Prompt(instruction="x", output=contract), render=renderer.render, adapter=HOST.adapter("offline"))
    assert result.value == {"s": "", "n": 0, "b": True, "j": {}, "l": [], "t": [""]}
    assert generate(Prompt(instruction="x"), render=renderer.render, adapter=OfflineAdapter()).value is None
    assert generate(Prompt(instruction="x"), render=renderer.render, adapter=OfflineAdapter(["hi"])).value == "hi"
    assert generate(Prompt(instruction="x"), render=renderer.render, adapter=OfflineAdapter([{"a": 1}])).value == {
        "a": 1
    }


def test_canned_values_other_than_text_are_that_json() -> None:
    contract = shape_contract({"n": "number"})
    adapter = OfflineAdapter([{"n": "7"}])
    assert generate(Prompt(instruction="x", output=contract), render=renderer.render, adapter=adapter).value == {"n": 7}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("[1, 2]", [1, 2]),
        ('text\n```json\n{"a": 2}\n```\nmore', {"a": 2}),
        ('```\n{"a": 3}\n```', {"a": 3}),
        ('```json\nnot json\n```\n```\n{"a": 4}\n```', {"a": 4}),
        ('Sure! {"a": "}{", "b": {"c": 5}} trailing }', {"a": "}{", "b": {"c": 5}}),
    ],
)
def test_json_is_read_from_the_text_fences_or_the_first_object(text: str, value: Any) -> None:
    assert read_json(text) == value


def test_text_without_json_quotes_its_start() -> None:
    with pytest.raises(NotJsonError) as caught:
        read_json("  many\n\nwords   " + "x" * 300)
    assert str(caught.value) == "LLM provider did not return JSON: many words " + "x" * 146 + "..."


SHAPE = shape_contract({"name": "string", "n": "number", "ok": "boolean", "tags": "list[number]", "any": "json"})


@pytest.mark.parametrize(
    ("value", "strict", "result"),
    [
        (
            {"name": "a", "n": " 2.5 ", "ok": "TRUE", "tags": ["1", 2], "any": None},
            False,
            {"name": "a", "n": 2.5, "ok": True, "tags": [1, 2], "any": None},
        ),
        (
            {"name": "a", "n": 1, "ok": False, "tags": [], "any": {}, "extra": 1},
            False,
            {"name": "a", "n": 1, "ok": False, "tags": [], "any": {}, "extra": 1},
        ),
    ],
)
def test_lenient_coercion(value: Any, strict: bool, result: Any) -> None:
    assert check_result(value, SHAPE.json_schema, strict=strict) == result


@pytest.mark.parametrize(
    ("value", "strict", "message"),
    [
        ([], False, "LLM result must be an object matching the generate return shape"),
        ({"n": 1}, False, "LLM result is missing required field 'name' at 1:1"),
        ({"name": 1, "n": 1, "ok": True, "tags": [], "any": 1}, False, "LLM result field must be a string at 1:1"),
        ({"name": "a", "n": "01", "ok": True, "tags": [], "any": 1}, False, "LLM result field must be a number at 2:2"),
        ({"name": "a", "n": 1, "ok": "yes", "tags": [], "any": 1}, False, "LLM result field must be a boolean at 3:3"),
        # A list's wrong item is named by the item's type, as AgentScript checks lists item by item.
        ({"name": "a", "n": 1, "ok": True, "tags": ["x"], "any": 1}, False, "LLM result field must be a number at 4:4"),
        ({"name": "a", "n": 1, "ok": True, "tags": "x", "any": 1}, False, "LLM result field must be a list at 4:4"),
        ({"name": "a", "n": "2", "ok": True, "tags": [], "any": 1}, True, "LLM result field must be a number at 2:2"),
        (
            {"name": "a", "n": 2, "ok": True, "tags": [], "any": 1, "x": 0},
            True,
            "LLM result contains unexpected field 'x'",
        ),
    ],
)
def test_validation_messages(value: Any, strict: bool, message: str) -> None:
    locations = {"name": "1:1", "n": "2:2", "ok": "3:3", "tags": "4:4", "any": "5:5"}
    with pytest.raises(ResultError) as caught:
        check_result(value, SHAPE.json_schema, strict=strict, locations=locations)
    assert str(caught.value) == message


def test_the_debug_text_writes_each_attempt_before_the_call() -> None:
    stream = io.StringIO()
    prompt = _tc09(2).model_copy(update={"config": _tc09(2).config.model_copy(update={"debug": True})})
    generate(
        prompt,
        render=renderer.render,
        adapter=OfflineAdapter(TC09_REPLIES[:1]),
        watchers=[DebugText(stream)],
        site=Site("t.as", 1, 1, "A"),
    )
    blocks = stream.getvalue().split("--- end AgentScript generate debug ---\n")
    assert blocks[0].startswith(
        "--- AgentScript generate debug: A attempt 1 ---\nSystem:\nYou are Classifier.\nClassify.\n"
    )
    assert "Final user message:\n" + TC09_USER[0] + '\nReturn schema:\n{\n  "type": "object"' in blocks[0]
    assert blocks[1].startswith("--- AgentScript generate debug: A attempt 2 ---")


def test_a_reply_with_a_value_skips_text_parsing() -> None:
    assert Reply(text=None, value=[1], has_value=True).value == [1]


def test_the_python_api_generates_and_builds_requests() -> None:
    import promptwire

    prompt = {"instruction": "Classify.", "output": shape_contract({"label": "string"})}
    result = promptwire.generate(prompt, responses=["nope", '{"label": "ok"}'], attempts=2, host=HOST)
    assert (result.value, result.attempts) == ({"label": "ok"}, 2)
    request = promptwire.build_request(prompt, "openai", "gpt-4o", host=HOST)
    assert list(request.kwargs) == ["model", "messages", "response_format"]
    rendered = promptwire.render(prompt, "messages", host=HOST)
    assert rendered.output is not None
    assert (
        promptwire.build_request(rendered, "ollama", "llama3", host=HOST).kwargs["format"]
        == rendered.output.json_schema
    )
    with pytest.raises(promptwire.FieldError, match=r"config\.attempts"):
        promptwire.generate(prompt, attempts=0, host=HOST)


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "ollama"])
@pytest.mark.parametrize("fmt", ["agentscript", "agens", "agently", "messages"])
def test_a_render_carries_the_contract_so_its_request_is_the_prompts(fmt: str, provider: str) -> None:
    """Every format hands the adapter the output contract (text formats also print it), so the
    request built from a render is the one built from the prompt: the schema is sent natively."""
    import promptwire

    prompt = {"instruction": "Classify.", "output": shape_contract({"label": "string"})}
    rendered = promptwire.render(prompt, fmt, host=HOST)
    assert rendered.output is not None
    from_render = promptwire.build_request(rendered, provider, "m", host=HOST)
    from_prompt = promptwire.build_request(prompt, provider, "m", format=fmt, host=HOST)
    assert (from_render.kwargs, from_render.notes) == (from_prompt.kwargs, from_prompt.notes)
