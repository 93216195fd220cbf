"""Golden snapshots of AgentlyPrompt on a corpus covering every section, format, branch and quirk.

Each snapshot under ``snapshots/test_agently_snapshots/`` is the raw output (a prompt reads as
itself; message lists as ``=== role ===`` blocks). The same corpus is rendered by the real
agently 4.1.4.10 in ``test_agently_conformance.py::test_snapshot_corpus_matches_agently``, which is
how these bytes were checked before they were stored.
"""

from __future__ import annotations

import datetime
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any, Literal, Optional

import pytest
from pydantic import BaseModel, Field
from syrupy.assertion import SnapshotAssertion

from promptwire.renderers.agently import AgentlyPrompt

CLOCK = "2024-01-01 00:00:00 Monday"


class Status(Enum):
    OPEN = "open"
    CLOSED = "closed"


class Priority(IntEnum):
    LOW = 1
    HIGH = 2


class Step(BaseModel):
    # Agently prints a model inside a generic (``list[Step]``) with its module, and pytest names this
    # module after its path: a fixed name keeps the pinned text where the file moves.
    __module__ = "tests.test_agently_snapshots"

    name: str = Field(min_length=2, description="step name")
    done: bool


class Plan(BaseModel):
    title: str = Field(max_length=30, description="plan title")
    steps: list[Step] = Field(min_length=1)
    owner: str | None = None


REPLY = {"thinking": (str, "describe how will you plan to reply?"), "reply": (str, "your final reply")}
MIXED = {
    "summary": (str, "one paragraph", True),
    "score": (int, "0 to 10", "not_null"),
    "tags": [(str, "a tag")],
    "meta": {"lang": (str,), "ok": (bool, "")},
}
HISTORY = [
    {"role": "assistant", "content": "Hi, how can I help you today?"},
    {"role": "assistant", "content": [{"type": "text", "text": "Ask me anything."}]},
    {
        "role": "user",
        "content": [{"type": "text", "text": "Weather?"}, {"type": "image_url", "image_url": "http://x/a.png"}],
    },
    {"role": "tool", "content": "sunny"},
]
ATTACHMENTS = [{"type": "text", "text": "see ${input}"}, {"type": "image_url", "image_url": {"url": "http://x/b.png"}}]


@dataclass(frozen=True)
class Case:
    data: dict[str, Any]
    calls: tuple[str, ...] = ("text", "messages")
    settings: dict[str, Any] | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


CORPUS: dict[str, Case] = {
    "every_section": Case(
        {
            "system": "You are terse.",
            "developer": {"rules": ["no emojis", "cite sources"]},
            "chat_history": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
            "tools": [
                {
                    "name": "search",
                    "desc": "web search for ${input}",
                    "kwargs": {"query": (str, "what to search"), "limit": (int,)},
                    "returns": [{"url": (str, "page url")}],
                }
            ],
            "action_results": {"search": ["result one", "result two"]},
            "info": {"user": "Ada", "plan": ["pro", 3]},
            "persona": "a custom section",
            "instruct": ["be brief", "be kind"],
            "examples": [{"q": "2+2", "a": "4"}],
            "input": "What is new?",
            "output": REPLY,
        },
        calls=("text", "messages", "messages(rich)", "json", "yaml"),
    ),
    "titles_and_roles": Case(
        {"chat_history": HISTORY, "info": ["fact one", "fact two"], "input": "go", "output": REPLY},
        calls=("text", "text(roles)", "messages", "messages(rich)"),
        settings={
            "prompt.prompt_title_mapping": {"input": "QUESTION", "chat_history": "EARLIER", "output": "ANSWER"},
            "prompt.role_mapping": {"user": "human", "_": "other"},
        },
        note="role mapping merged over the default, `_` fallback replaced, titles overridden",
    ),
    "role_fallback_default": Case(
        {
            "chat_history": [{"role": "tool", "content": "42"}, {"role": "custom", "content": "x"}],
            "input": "y",
            "info": "z",
        },
        calls=("text", "messages", "messages(not strict)"),
        note="unknown roles become `assistant` through the default `_` entry",
    ),
    "role_mapping_not_a_dict": Case(
        {"chat_history": [{"role": "tool", "content": "42"}], "input": "y", "info": "z"},
        calls=("text", "messages"),
        settings={"prompt.role_mapping": "none"},
        note="a non-dict role mapping counts as {}: unknown roles keep their name",
    ),
    "slot_references": Case(
        {
            "input": {"customer": "Acme", "ticket": "T-42"},
            "info": {"policy": "see ${INPUT.customer}"},
            "instruct": "Use ${input.customer}, ${ Output_Requirement .a.b }, ${instructions}, ${attachment}, ${foo}.",
            "output": {"reply": (str, "Answer using ${INSTRUCT} and ${INPUT.ticket}")},
            "chat_history": [{"role": "user", "content": "about ${input}"}],
        },
        calls=("text", "messages"),
        settings={"prompt.prompt_title_mapping": {"input": "IN"}},
        note="replaced in to_text history, not in to_messages history",
    ),
    "current_time": Case(
        {"input": "what time is it?", "instruct": "answer"},
        calls=("text", "messages", "messages(rich)"),
        settings={"prompt.add_current_time": True},
    ),
    "current_time_input_only_dict": Case(
        {"input": {"q": "time?"}},
        calls=("messages",),
        settings={"prompt.add_current_time": True},
        note="input-only content becomes an f-string of the Python repr",
    ),
    "input_only": Case(
        {"input": {"b": 1, "a": [1, 2]}, "system": "sys", "examples": ["dropped"]},
        calls=("text", "messages", "messages(rich)"),
        note="the input value itself is the content, even with rich_content",
    ),
    "attachment_only": Case(
        {"attachment": ATTACHMENTS},
        calls=("text", "messages", "messages(rich)", "messages(rich=None)"),
    ),
    "attachment_only_time": Case(
        {"attachment": [{"type": "image_url", "image_url": "http://x/c.png"}, "plain text"]},
        calls=("messages", "messages(rich)"),
        settings={"prompt.add_current_time": True},
    ),
    "general_with_attachments": Case(
        {"input": "describe", "attachment": ATTACHMENTS, "chat_history": HISTORY},
        calls=(
            "messages",
            "messages(rich)",
            "messages(rich=None)",
            "messages(not strict)",
            "messages(rich, not strict)",
        ),
    ),
    "strict_fillers_with_mapped_roles": Case(
        {"chat_history": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "input": "c"},
        calls=("messages", "messages(roles)"),
        settings={"prompt.role_mapping": {"user": "human", "assistant": "ai"}},
        note="fillers compare mapped roles against literal user/assistant",
    ),
    "json_quirks": Case(
        {
            "input": "x",
            "output": {
                "a": ({"x": (str, "xd"), "y": (int,)}, "a desc"),
                "b": (str, None),
                "c": (str, ""),
                "d": [(int, "item")],
                'we"ird': (Optional[int], "optional"),  # noqa: UP045
                "e": (Literal["a", 1],),
                "f": (),
                "g": "plain description",
                "h": {"nested": [{"deep": (bool, "flag", True)}]},
                5: (float,),
            },
        },
        calls=("text",),
        note="over-indented containers inside tuples, bare ` //`, comma on every list item",
    ),
    "format_markdown": Case(
        {"input": "x", "output": "a free text answer", "output_format": "markdown"}, calls=("text",)
    ),
    "format_text_and_unknown": Case({"input": "x", "output": REPLY, "output_format": "text"}, calls=("text",)),
    "format_unknown": Case({"input": "x", "output": REPLY, "output_format": "yaml"}, calls=("text",)),
    "format_flat_markdown": Case(
        {"input": "x", "output": MIXED, "output_format": "flat_markdown", "ensure_all_keys": True}, calls=("text",)
    ),
    "format_hybrid": Case({"input": "x", "output": MIXED, "output_format": "hybrid"}, calls=("text",)),
    "format_xml_field": Case({"input": "x", "output": MIXED, "output_format": "xml_field"}, calls=("text",)),
    "format_yaml_literal": Case(
        {
            "input": "x",
            "output": {**MIXED, "rows": [{"k": (str,), "v": (float,)}]},
            "output_format": "yaml_literal",
            "ensure_all_keys": True,
        },
        calls=("text",),
    ),
    "format_json_strict": Case({"input": "x", "output": MIXED, "ensure_all_keys": True}, calls=("text",)),
    "format_auto_xml": Case({"input": "x", "output": REPLY, "output_format": "auto"}, calls=("text",)),
    "format_auto_hybrid": Case({"input": "x", "output": MIXED, "output_format": "auto"}, calls=("text",)),
    "format_auto_json": Case({"input": "x", "output": {"n": (int,)}, "output_format": "auto"}, calls=("text",)),
    "format_fallback_warning": Case({"input": "x", "output": [(str,)], "output_format": "hybrid"}, calls=("text",)),
    "output_str_class": Case({"input": "x", "output": str}, calls=("text",), note="json string hint"),
    "output_class_no_default_format": Case(
        {"input": "x", "output": int}, calls=("text",), settings={"prompt.default_output_format": None}
    ),
    "output_pydantic_model": Case({"input": "plan it", "output": Plan}, calls=("text",)),
    "output_pydantic_hybrid": Case({"input": "plan it", "output": Plan, "output_format": "hybrid"}, calls=("text",)),
    "output_long_content": Case(
        {"input": "essay", "output": {"title": (str,), "body": ("long_content", "the essay", True)}},
        calls=("text", "json"),
    ),
    "yaml_blocks": Case(
        {
            "input": {
                "zeta": "sorted last",
                "alpha": "a long line " * 12,
                "yes": "yes",
                "multi": "line one\nline two",
                "nums": [1, 2.5, None, True],
                "empty": {},
                "none": [],
                "when": datetime.date(2024, 5, 6),
                "tags": {"b", "a"},
            },
            "instruct": 42,
            "extra_empty": None,
        },
        calls=("text",),
        note="sorted keys, width-80 folding, quoting, two blank lines after YAML bodies, one after scalars",
    ),
    "values_of_every_kind": Case(
        {
            "info": {
                "type": str,
                "generic": list[int],
                "optional": Optional[str],  # noqa: UP045
                "union": int | None,
                "enum": Status,
                "member": Status.OPEN,
                "intenum": Priority.HIGH,
                "model": Step,
                "tuple": ("t", 1),
                "when": datetime.datetime(2024, 1, 2, 3, 4, 5),
                "time": datetime.time(1, 2),
            },
            "input": [Priority, Literal["x", 2], tuple[int, ...], dict[str, float]],
        },
        calls=("text", "json"),
    ),
    "serialization": Case(
        {
            "input": "x",
            "output": {
                "ready": (bool, "whether ready", True),
                "questions": (list, "if needed", "not_null"),
                "status": (Status, "ticket status"),
                "nested": ({"n": (int, "inner")}, "outer"),
                "items": [(str, "tag")],
                "empty": (),
                "one": (int,),
                "plan": Plan,
            },
            "options": {"temperature": 0.2},
        },
        calls=("json", "yaml", "serializable"),
    ),
    "output_model_fields": Case(
        {
            "output": {
                "thinking": [(str, "plan")],
                "reply": (Literal[1, 2, 3], "reply"),
                "number": int,
                "status": (Status,),
            }
        },
        calls=("output_model", "output_model(strict)"),
    ),
    "output_model_root_list": Case({"output": [(int,)]}, calls=("output_model", "output_model(strict)")),
    "output_model_nested": Case(
        {
            "output": {"groups": [{"title": (str, "", True), "options": [{"name": (str,), "on": (bool,)}]}]},
            "ensure_all_keys": True,
        },
        calls=("output_model",),
    ),
}


def _show_messages(messages: list[dict[str, Any]]) -> str:
    blocks = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            body = content
        elif isinstance(content, list):
            body = "(parts)\n" + json.dumps(content, indent=2, ensure_ascii=False)
        else:
            body = f"(python value {type(content).__name__})\n{content!r}"
        blocks.append(f"=== {message['role']} ===\n{body}")
    return "\n".join(blocks)


PROBES: list[Any] = [
    {"thinking": 1, "number": "123"},
    {"status": "OPEN", "reply": 2},
    {"groups": [{"title": "g", "options": [{"name": "a", "on": True}]}]},
    {"groups": [{"options": []}]},
    ["456", 7],
    {"list": ["8"]},
    {"unknown": 1},
]


def _show_model(model: Any) -> str:
    lines = [json.dumps(model.model_json_schema(), indent=2, sort_keys=True)]
    for probe in PROBES:
        try:
            result = repr(model.model_validate(probe).model_dump())
        except Exception as error:
            result = f"{type(error).__name__}: {len(getattr(error, 'errors', list)())} error(s)"
        lines.append(f"{probe!r} -> {result}")
    return "\n".join(lines)


CALLS: dict[str, Callable[[Any], str]] = {
    "text": lambda p: str(p.to_text()),
    "text(roles)": lambda p: str(p.to_text(role_mapping={"assistant": "bot", "tool": "robot"})),
    "messages": lambda p: _show_messages(p.to_messages()),
    "messages(rich)": lambda p: _show_messages(p.to_messages(rich_content=True)),
    "messages(rich=None)": lambda p: _show_messages(p.to_messages(rich_content=None)),
    "messages(not strict)": lambda p: _show_messages(p.to_messages(strict_role_orders=False)),
    "messages(rich, not strict)": lambda p: _show_messages(p.to_messages(rich_content=True, strict_role_orders=False)),
    "messages(roles)": lambda p: _show_messages(p.to_messages(role_mapping={"user": "person"})),
    "json": lambda p: str(p.to_json_prompt()),
    "yaml": lambda p: str(p.to_yaml_prompt()),
    "serializable": lambda p: repr(p.to_serializable_prompt_data()),
    "output_model": lambda p: _show_model(p.to_output_model()),
    "output_model(strict)": lambda p: _show_model(p.to_output_model(strict_output=True)),
}


def render_case(make: Callable[[dict[str, Any], Any], Any], case: Case, call: str) -> str:
    """The snapshot text: the call's output, then any warnings it emitted."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        output = CALLS[call](make(case.data, case.settings))
    if caught:
        output += "\n--- warnings ---\n" + "\n".join(str(warning.message) for warning in caught)
    return output


def promptwire_prompt(data: dict[str, Any], settings: Any) -> AgentlyPrompt:
    return AgentlyPrompt(data, settings, clock=lambda: CLOCK)


CASE_CALLS = [pytest.param(name, call, id=f"{name}-{call}") for name, case in CORPUS.items() for call in case.calls]


@pytest.mark.parametrize(("name", "call"), CASE_CALLS)
def test_corpus(name: str, call: str, snapshot: SnapshotAssertion) -> None:
    assert render_case(promptwire_prompt, CORPUS[name], call) == snapshot
