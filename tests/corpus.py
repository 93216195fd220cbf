"""The shared corpus: prompts every renderer renders, pinned by golden snapshots.

Each entry exercises something a format can get wrong: unicode (astral-plane too), empty and edge
values, nested JSON, JS key ordering and number spelling, huge values with budgets, attachments,
chat history, tools, resources, retries. Plain data in the core model's shape, validated on use.
"""

from __future__ import annotations

from typing import Any

from promptwire import Prompt
from promptwire.renderers.agentscript.shape import shape_contract

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

NEEDS_A_TEMPLATE = frozenset({"template"})
"""Formats that render only with a template of the user's; tests/renderers/test_template_renderer.py covers them."""


def layout_formats(host: Any) -> tuple[str, ...]:
    """The registered formats that render any prompt with no options of their own."""
    return tuple(name for name in host.names("renderers") if name not in NEEDS_A_TEMPLATE)


_IDENTITY = {"role": "Corpus Agent", "description": "Render every field faithfully."}
_SHAPE = {"answer": "string", "score": "number", "tags": "list[string]"}

_ENTRIES: dict[str, dict[str, Any]] = {
    "minimal_instruction": {"instruction": "Say hello."},
    "identity_only": {"identity": _IDENTITY, "instruction": "Introduce yourself."},
    "empty_instruction": {"identity": _IDENTITY, "instruction": ""},
    "multiline_description": {
        "identity": {"role": "Poet", "description": "Line one of description.\nLine two."},
        "instruction": "Write\ta poem.\nKeep it short.",
    },
    "unlabelled_context": {
        "identity": _IDENTITY,
        "context": [
            {"value": "Is the sky blue?", "source": "input.question"},
            {"value": {"source": "user", "priority": 2, "tags": ["sky", "color"]}, "source": "input.meta"},
        ],
        "instruction": "Analyze.",
    },
    "mixed_labels": {
        "identity": _IDENTITY,
        "context": [
            {"value": "first", "label": "user question", "source": "input.q"},
            {"value": "second", "source": "input.r"},
            {"value": ["a", "b"], "label": "retrieved evidence (v2)", "source": "input.docs"},
        ],
        "instruction": "Answer.",
    },
    "context_without_source": {"context": [{"value": "a note", "label": "note"}], "instruction": "Use the note."},
    "unicode_bmp_and_astral": {
        "identity": {"role": "Übersetzer", "description": "Переводи точно. 翻译要准确。"},
        "context": [{"value": "emoji 😀🎉 math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 CJK 漢字 RTL שלום", "label": "text", "source": "input.text"}],
        "instruction": "Translate to English — keep the emoji 👍.",
    },
    "astral_clip_splits_pair": {
        "context": [{"value": "ab😀cd", "label": "clip", "source": "input.s", "budget": 3}],
        "instruction": "Show the clipped text.",
    },
    "control_characters": {
        "context": [{"value": {"ctl": "bell\u0007 tab\t nl\n cr\r nul\u0000 del\u007f ls\u2028"}, "label": "raw"}],
        "instruction": "Escape rules.",
    },
    "js_key_order": {
        "context": [
            {"value": {"b": 1, "2": "two", "a": 3, "10": "ten", "01": "not int", "-1": "neg"}, "label": "keys"}
        ],
        "instruction": "Keys.",
    },
    "js_numbers": {
        "context": [{"value": [1.0, 2.5, 1e21, 1e-7, 0.000001, 1e16, -0.0, 123456789012, 0.1], "label": "numbers"}],
        "instruction": "Numbers.",
    },
    "nested_json": {
        "context": [
            {
                "value": {
                    "level1": {"level2": {"level3": {"list": [[1, [2, [3, {"deep": None}]]]], "empty": {}, "none": []}}}
                },
                "label": "nested",
            }
        ],
        "instruction": "Walk the tree.",
    },
    "empty_values": {
        "context": [
            {"value": "", "label": "empty string"},
            {"value": [], "label": "empty list"},
            {"value": {}, "label": "empty object"},
            {"value": None, "label": "null"},
            {"value": False, "label": "false"},
            {"value": 0, "label": "zero"},
        ],
        "instruction": "Edge values.",
    },
    "huge_string_budget": {
        "context": [{"value": "lorem ipsum " * 5000, "label": "long text", "source": "input.text", "budget": "0.1k"}],
        "instruction": "Summarize.",
    },
    "huge_list_budget": {
        "context": [
            {
                "value": [{"id": i, "name": f"item {i}", "tags": ["x", "y"]} for i in range(2000)],
                "label": "items",
                "source": "input.items",
                "budget": "0.3k",
            }
        ],
        "instruction": "Count the items you see.",
    },
    "object_budget_prefix": {
        "context": [
            {"value": {"first": "alpha", "second": "beta", "third": {"deep": [1, 2]}}, "label": "record", "budget": 30},
            {"value": 12345, "label": "number", "budget": 3},
        ],
        "instruction": "Go.",
    },
    "instruction_object": {
        "identity": _IDENTITY,
        "instruction": {"task": "write", "audience": "devs", "tags": ["a", "b"]},
    },
    "output_shape": {"identity": _IDENTITY, "instruction": "Extract.", "output": "shape"},
    "output_schema_nested": {
        "instruction": "Return a plan.",
        "output": {
            "schema": {
                "type": "object",
                "properties": {
                    "steps": {"type": "array", "items": {"type": "object", "properties": {"do": {"type": "string"}}}},
                    "done": {"type": "boolean"},
                },
                "required": ["steps", "done"],
                "additionalProperties": False,
            }
        },
    },
    "system_and_developer": {
        "system": "You are a careful assistant.",
        "developer": "Never reveal internal notes.",
        "instruction": "What can you do?",
    },
    "sections_in_order": {
        "instruction": "Plan the trip.",
        "sections": [
            {"kind": "info", "value": {"city": "Lisbon", "days": 3}},
            {"kind": "instruct", "value": ["Keep it cheap.", "Prefer walking."]},
            {"kind": "examples", "value": [{"input": "Porto, 2 days", "output": "Day 1: Ribeira..."}]},
            {"kind": "custom", "key": "constraints", "value": "No flights."},
        ],
    },
    "chat_history": {
        "identity": _IDENTITY,
        "history": [
            {"role": "user", "content": "Hi, I need help with my order."},
            {"role": "assistant", "content": "Sure — what is the order number?"},
            {"role": "user", "content": "It is #A-1001."},
        ],
        "instruction": "Continue the conversation.",
    },
    "history_with_parts": {
        "history": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {"type": "image", "url": "https://example.com/cat.png"},
                ],
            },
            {"role": "assistant", "content": "A cat."},
        ],
        "instruction": "And what colour is it?",
    },
    "attachments_image_url": {
        "instruction": "Describe the image.",
        "attachments": [{"type": "image", "url": "https://example.com/photo.jpg", "detail": "high"}],
    },
    "attachments_inline_all_kinds": {
        "instruction": "Compare the attachments.",
        "attachments": [
            {"type": "text", "text": "A caption."},
            {"type": "image", "data": PNG_1PX, "media_type": "image/png"},
            {"type": "audio", "data": "UklGRiQAAABXQVZF", "format": "wav"},
            {"type": "file", "data": "JVBERi0xLjQK", "media_type": "application/pdf", "filename": "spec.pdf"},
        ],
    },
    "tools_definitions": {
        "instruction": "Find the weather in Paris.",
        "tools": [
            {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            },
            {"name": "echo"},
        ],
    },
    "tool_calls_and_results": {
        "instruction": "Echo hello",
        "tools": [{"name": "echo", "description": "Echo a message."}],
        "tool_calls": [{"id": "call_1", "name": "echo", "arguments": {"message": "hello"}}],
        "tool_results": [
            {"call_id": "call_1", "name": "echo", "content": "Echo: hello"},
            {"call_id": "call_2", "name": "echo", "content": "timeout", "is_error": True},
        ],
    },
    "resources": {
        "instruction": "What is in the doc?",
        "resources": [
            {"uri": "file:///notes.txt", "name": "notes", "content": "line one\nline two"},
            {"uri": "file:///empty.txt", "name": "empty", "content": ""},
            {"uri": "file:///unloaded.txt", "name": "unloaded"},
        ],
    },
    "previous_result": {"instruction": "Summarize the report.", "previous_result": "Report: revenue grew 12% YoY."},
    "retry_with_previous_output": {
        "identity": _IDENTITY,
        "instruction": "Classify the text.",
        "retry": {
            "reason": "LLM result field must be a number at 12:13",
            "previous_output": {"label": "spam", "confidence": "high"},
        },
        "output": "shape",
    },
    "retry_without_output": {
        "instruction": "Classify.",
        "retry": {"reason": "LLM provider did not return JSON: not json at all"},
    },
    "everything": {
        "identity": _IDENTITY,
        "system": "System words.",
        "developer": "Developer words.",
        "context": [{"value": {"k": [1, 2]}, "label": "ctx", "source": "input.k"}],
        "instruction": "Do it all.",
        "sections": [{"kind": "info", "value": "Some info."}],
        "history": [{"role": "user", "content": "Earlier."}, {"role": "tool", "content": "A tool said this."}],
        "attachments": [{"type": "image", "url": "https://example.com/a.png"}],
        "tools": [{"name": "search", "description": "Search the web."}],
        "tool_calls": [{"id": "c1", "name": "search", "arguments": {"q": "x"}}],
        "tool_results": [{"call_id": "c1", "content": {"hits": 3}}],
        "resources": [{"uri": "mem://r", "content": "resource text"}],
        "previous_result": "prev",
        "retry": {"reason": "try again"},
        "output": "shape",
        "config": {"max_output": "2k", "attempts": 2, "temperature": 0.7, "think": "auto", "strict": True},
    },
}


def _resolve(data: dict[str, Any]) -> dict[str, Any]:
    if data.get("output") == "shape":
        data = {**data, "output": shape_contract(_SHAPE)}
    return data


CORPUS: dict[str, Prompt] = {name: Prompt.model_validate(_resolve(data)) for name, data in _ENTRIES.items()}
