"""The ``agentscript`` renderer is byte-exact on every generate call of the AgentScript 0.1.5
reference programs ported here (tc01-tc20 and the use-context example).

The prompts are built directly as core ``Prompt`` values (what the interpreter will build at each
``generate``); the expected system and user texts are the reference's own bytes, ported below.
The reference's worked examples are the same calls as tc02, tc07 and tc09 (identical bytes), plus
``examples/use-context.as``. tc15, tc16 and tc20 render nothing (errors / no generate).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import promptwire
from promptwire.core import ContextItem, Identity, OutputContract, Prompt, Retry
from promptwire.core.errors import FieldError, UnsupportedFieldsError, UnsupportedFieldsWarning
from promptwire.renderers.agentscript import (
    context_clips,
    instruction_value,
    renderer,
    repair_message,
    system_text,
    user_text,
)
from promptwire.renderers.agentscript.shape import shape_contract

# The system and user texts of every generate call of the reference programs (and use-context), copied
# verbatim as the JSON strings printed there, one prompt line per source line.
EXPECTED: dict[str, tuple[str, str]] = {
    "tc01_minimal/0": (
        r'"You are Helpful Assistant.\nAnswer briefly."',
        (
            r'"Instruction:\n'
            r'Say hello."'
        ),
    ),
    "tc02_unlabeled/0": (
        r'"You are Analyst.\nAnalyze inputs."',
        (
            r'"Context:\n'
            r"[0]\n"
            r"source: input.question\n"
            r"Is the sky blue?\n"
            r"[1]\n"
            r"source: input.meta\n"
            r"{\n"
            r"  \"source\": \"user\",\n"
            r"  \"priority\": 2,\n"
            r"  \"tags\": [\n"
            r"    \"sky\",\n"
            r"    \"color\"\n"
            r"  ]\n"
            r"}\n"
            r"Instruction:\n"
            r"Analyze.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"verdict\": {\n"
            r"      \"type\": \"string\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"verdict\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc03_labels/0": (
        r'"You are Researcher.\nFind facts."',
        (
            r'"Context:\n'
            r"[user]\n"
            r"source: input.q\n"
            r"What is AgentScript?\n"
            r"[user question]\n"
            r"source: input.q\n"
            r"What is AgentScript?\n"
            r"[quoted label]\n"
            r"source: input.q\n"
            r"What is AgentScript?\n"
            r"[retrieved evidence (v2)]\n"
            r"source: input.docs\n"
            r"[\n"
            r"  \"doc one\",\n"
            r"  \"doc two\"\n"
            r"]\n"
            r"Instruction:\n"
            r"Answer.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"answer\": {\n"
            r"      \"type\": \"string\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"answer\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc04_clip_string/0": (
        r'"You are Summarizer.\nSummarize text."',
        (
            r'"Context:\n'
            r"[excerpt]\n"
            r"source: input.text\n"
            r"abcdefghij\n"
            r"[full]\n"
            r"source: input.text\n"
            r"abcdefghijklmnopqrstuvwxyz\n"
            r"[tiny]\n"
            r"source: input.text\n"
            r"abcde\n"
            r"Instruction:\n"
            r"Summarize.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"summary\": {\n"
            r"      \"type\": \"string\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"summary\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc05_clip_list/0": (
        r'"You are Summarizer.\nSummarize items."',
        (
            r'"Context:\n'
            r"[items]\n"
            r"source: items\n"
            r"[\n"
            r"  \"alpha\",\n"
            r"  \"beta\"\n"
            r"]\n"
            r"[record]\n"
            r"source: record\n"
            r"{\n"
            r"  \"first\": \"alpha\"\n"
            r"}\n"
            r"[number]\n"
            r"source: 12345\n"
            r"12345\n"
            r"Instruction:\n"
            r"Go.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"ok\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc06_shape_types/0": (
        r'"You are Extractor.\nExtract structure."',
        (
            r'"Instruction:\n'
            r"Extract.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"title\": {\n"
            r"      \"type\": \"string\"\n"
            r"    },\n"
            r"    \"score\": {\n"
            r"      \"type\": \"number\"\n"
            r"    },\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    },\n"
            r"    \"meta\": {},\n"
            r"    \"raw\": {\n"
            r"      \"type\": \"array\"\n"
            r"    },\n"
            r"    \"tags\": {\n"
            r"      \"type\": \"array\",\n"
            r"      \"items\": {\n"
            r"        \"type\": \"string\"\n"
            r"      }\n"
            r"    },\n"
            r"    \"rows\": {\n"
            r"      \"type\": \"array\",\n"
            r"      \"items\": {}\n"
            r"    },\n"
            r"    \"grid\": {\n"
            r"      \"type\": \"array\",\n"
            r"      \"items\": {\n"
            r"        \"type\": \"array\",\n"
            r"        \"items\": {\n"
            r"          \"type\": \"number\"\n"
            r"        }\n"
            r"      }\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"title\",\n"
            r"    \"score\",\n"
            r"    \"ok\",\n"
            r"    \"meta\",\n"
            r"    \"raw\",\n"
            r"    \"tags\",\n"
            r"    \"rows\",\n"
            r"    \"grid\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc07_config/0": (
        r'"You are Planner.\nPlan work."',
        (
            r'"Instruction:\n'
            r"Plan.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"steps\": {\n"
            r"      \"type\": \"array\",\n"
            r"      \"items\": {\n"
            r"        \"type\": \"string\"\n"
            r"      }\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"steps\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc08_think_auto/0": (
        r'"You are Thinker.\nThink."',
        (
            r'"Instruction:\n'
            r'One."'
        ),
    ),
    "tc08_think_auto/1": (
        r'"You are Thinker.\nThink."',
        (
            r'"Instruction:\n'
            r'Two."'
        ),
    ),
    "tc08_think_auto/2": (
        r'"You are Thinker.\nThink."',
        (
            r'"Instruction:\n'
            r'Three."'
        ),
    ),
    "tc09_retry/0": (
        r'"You are Classifier.\nClassify."',
        (
            r'"Context:\n'
            r"[text]\n"
            r"source: input.text\n"
            r"Buy now!!!\n"
            r"Instruction:\n"
            r"Classify the text.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"label\": {\n"
            r"      \"type\": \"string\"\n"
            r"    },\n"
            r"    \"confidence\": {\n"
            r"      \"type\": \"number\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"label\",\n"
            r"    \"confidence\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc09_retry/1": (
        r'"You are Classifier.\nClassify."',
        (
            r'"Context:\n'
            r"[text]\n"
            r"source: input.text\n"
            r"Buy now!!!\n"
            r"Instruction:\n"
            r"Classify the text.\n"
            r"\n"
            r"Previous generation failed.\n"
            r"\n"
            r"Error:\n"
            r"LLM provider did not return JSON: not json at all\n"
            r"\n"
            r"Return corrected JSON matching the requested schema only.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"label\": {\n"
            r"      \"type\": \"string\"\n"
            r"    },\n"
            r"    \"confidence\": {\n"
            r"      \"type\": \"number\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"label\",\n"
            r"    \"confidence\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc09_retry/2": (
        r'"You are Classifier.\nClassify."',
        (
            r'"Context:\n'
            r"[text]\n"
            r"source: input.text\n"
            r"Buy now!!!\n"
            r"Instruction:\n"
            r"Classify the text.\n"
            r"\n"
            r"Previous generation failed.\n"
            r"\n"
            r"Previous output:\n"
            r"{\n"
            r"  \"label\": \"spam\",\n"
            r"  \"confidence\": \"high\"\n"
            r"}\n"
            r"\n"
            r"Error:\n"
            r"LLM result field must be a number at 12:13\n"
            r"\n"
            r"Return corrected JSON matching the requested schema only.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"label\": {\n"
            r"      \"type\": \"string\"\n"
            r"    },\n"
            r"    \"confidence\": {\n"
            r"      \"type\": \"number\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"label\",\n"
            r"    \"confidence\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc10_scopes/0": (
        r'"You are Coordinator.\nCoordinate."',
        (
            r'"Context:\n'
            r"[goal]\n"
            r"source: input.goal\n"
            r"ship it\n"
            r"[detail]\n"
            r"source: input.detail\n"
            r"only inside\n"
            r"Instruction:\n"
            r'Inner."'
        ),
    ),
    "tc10_scopes/1": (
        r'"You are Coordinator.\nCoordinate."',
        (
            r'"Context:\n'
            r"[helper goal]\n"
            r"source: g\n"
            r"ship it\n"
            r"Instruction:\n"
            r'Helper."'
        ),
    ),
    "tc10_scopes/2": (
        r'"You are Specialist Worker.\nDo the work."',
        (
            r'"Context:\n'
            r"[0]\n"
            r"source: task\n"
            r"ship it\n"
            r"Instruction:\n"
            r'Work."'
        ),
    ),
    "tc10_scopes/3": (
        r'"You are Coordinator.\nCoordinate."',
        (
            r'"Context:\n'
            r"[goal]\n"
            r"source: input.goal\n"
            r"ship it\n"
            r"Instruction:\n"
            r'Outer."'
        ),
    ),
    "tc11_lazy/0": (
        r'"You are Observer.\nObserve."',
        (
            r'"Context:\n'
            r"[observations]\n"
            r"source: scratch.summary\n"
            r"[\n"
            r"  {\n"
            r"    \"fact\": \"A\"\n"
            r"  },\n"
            r"  {\n"
            r"    \"fact\": \"B\",\n"
            r"    \"n\": 2\n"
            r"  }\n"
            r"]\n"
            r"[count]\n"
            r"source: scratch.length\n"
            r"2\n"
            r"Instruction:\n"
            r'Report."'
        ),
    ),
    "tc12_instruction_object/0": (
        r'"You are Writer.\nWrite."',
        (
            r'"Instruction:\n'
            r"{\n"
            r"  \"task\": \"write\",\n"
            r"  \"audience\": \"devs\",\n"
            r"  \"tags\": [\n"
            r"    \"a\",\n"
            r"    \"b\"\n"
            r"  ]\n"
            r"}\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"text\": {\n"
            r"      \"type\": \"string\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"text\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc13_sources/0": (
        r'"You are Formatter.\nShow sources."',
        (
            r'"Context:\n'
            r"[0]\n"
            r"source: items[1]\n"
            r"20\n"
            r"[1]\n"
            r"source: \"literal \\\"quoted\\\"\\ttab\"\n"
            r"literal \"quoted\"\ttab\n"
            r"[2]\n"
            r"source: 2.50\n"
            r"2.5\n"
            r"[3]\n"
            r"source: input.a == input.b\n"
            r"true\n"
            r"[4]\n"
            r"source: not input.flag\n"
            r"true\n"
            r"[5]\n"
            r"source: { k: items.length, list: [1, none, true] }\n"
            r"{\n"
            r"  \"k\": 3,\n"
            r"  \"list\": [\n"
            r"    1,\n"
            r"    null,\n"
            r"    true\n"
            r"  ]\n"
            r"}\n"
            r"[6]\n"
            r"source: none\n"
            r"null\n"
            r"[7]\n"
            r"source: 3 < 4\n"
            r"true\n"
            r"Instruction:\n"
            r'Show."'
        ),
    ),
    "tc14_file_import/0": (
        r'"You are Reader.\nRead files."',
        (
            r'"Context:\n'
            r"[notes]\n"
            r"source: Notes\n"
            r"Line one.\n"
            r"Line \n"
            r"[config]\n"
            r"source: Config\n"
            r"{\n"
            r"  \"name\": \"cfg\",\n"
            r"  \"values\": [\n"
            r"    1,\n"
            r"    2,\n"
            r"    3\n"
            r"  ],\n"
            r"  \"nested\": {\n"
            r"    \"on\": true\n"
            r"  }\n"
            r"}\n"
            r"Instruction:\n"
            r"Read.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"ok\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc17_debug/0": (
        r'"You are Debugger.\nDebug."',
        (
            r'"Context:\n'
            r"[x]\n"
            r"source: input.x\n"
            r"value\n"
            r"Instruction:\n"
            r"Debug me.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"ok\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc18_multiline/0": (
        r'"You are Poet.\nLine one of description.\nLine two."',
        (
            r'"Context:\n'
            r"[multi line]\n"
            r"source: \"first\\n"
            r"second\"\n"
            r"first\n"
            r"second\n"
            r"Instruction:\n"
            r"Write\ta poem.\n"
            r'Keep it short."'
        ),
    ),
    "tc19_strict/0": (
        r'"You are Strict.\nBe strict."',
        (
            r'"Instruction:\n'
            r"Answer.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    },\n"
            r"    \"count\": {\n"
            r"      \"type\": \"number\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"ok\",\n"
            r"    \"count\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "tc19_strict/1": (
        r'"You are Strict.\nBe strict."',
        (
            r'"Instruction:\n'
            r"Answer.\n"
            r"\n"
            r"Previous generation failed.\n"
            r"\n"
            r"Previous output:\n"
            r"{\n"
            r"  \"ok\": \"true\",\n"
            r"  \"count\": 3\n"
            r"}\n"
            r"\n"
            r"Error:\n"
            r"LLM result field must be a boolean at 10:13\n"
            r"\n"
            r"Return corrected JSON matching the requested schema only.\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"ok\": {\n"
            r"      \"type\": \"boolean\"\n"
            r"    },\n"
            r"    \"count\": {\n"
            r"      \"type\": \"number\"\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"ok\",\n"
            r"    \"count\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
    "11.2_use_context/0": (
        r'"You are Answerer.\nAnswer using only explicitly selected context."',
        (
            r'"Context:\n'
            r"[user question]\n"
            r"source: input.question\n"
            r"What is AgentScript?\n"
            r"[evidence]\n"
            r"source: input.docs.summary\n"
            r"AgentScript makes prompt context explicit.\n"
            r"Instruction:\n"
            r"Answer from the selected evidence\n"
            r"Return JSON matching this schema:\n"
            r"{\n"
            r"  \"type\": \"object\",\n"
            r"  \"properties\": {\n"
            r"    \"answer\": {\n"
            r"      \"type\": \"string\"\n"
            r"    },\n"
            r"    \"citations\": {\n"
            r"      \"type\": \"array\",\n"
            r"      \"items\": {\n"
            r"        \"type\": \"string\"\n"
            r"      }\n"
            r"    }\n"
            r"  },\n"
            r"  \"required\": [\n"
            r"    \"answer\",\n"
            r"    \"citations\"\n"
            r"  ],\n"
            r"  \"additionalProperties\": false\n"
            r'}"'
        ),
    ),
}


# --------------------------------------------------------------------------------------------
# The prompts of those calls, as the interpreter would build them


def use(value: Any, source: str, label: str | None = None, budget: str | int | None = None) -> ContextItem:
    return ContextItem.model_validate({"value": value, "source": source, "label": label, "budget": budget})


def prompt(
    role: str,
    description: str,
    instruction: Any,
    *context: ContextItem,
    shape: dict[str, str] | None = None,
    retry: Retry | None = None,
) -> Prompt:
    return Prompt(
        identity=Identity(role=role, description=description),
        context=list(context),
        instruction=instruction,
        output=shape_contract(shape) if shape is not None else None,
        retry=retry,
    )


QUESTION = "What is AgentScript?"
TC09_SHAPE = {"label": "string", "confidence": "number"}
TC09_TEXT = use("Buy now!!!", "input.text", "text")
TC19_SHAPE = {"ok": "boolean", "count": "number"}
NOTES = 'Line one.\nLine two has "quotes".\n'
CONFIG_JSON = '{"name": "cfg", "values": [1, 2, 3], "nested": {"on": true}}\n'
SUMMARY = [{"fact": "A"}, {"fact": "B", "n": 2}]

PROMPTS: dict[str, Callable[[], Prompt]] = {
    "tc01_minimal/0": lambda: prompt("Helpful Assistant", "Answer briefly.", "Say hello."),
    "tc02_unlabeled/0": lambda: prompt(
        "Analyst",
        "Analyze inputs.",
        "Analyze.",
        use("Is the sky blue?", "input.question"),
        use({"source": "user", "priority": 2, "tags": ["sky", "color"]}, "input.meta"),
        shape={"verdict": "string"},
    ),
    "tc03_labels/0": lambda: prompt(
        "Researcher",
        "Find facts.",
        "Answer.",
        use(QUESTION, "input.q", "user"),
        use(QUESTION, "input.q", "user question"),
        use(QUESTION, "input.q", "quoted label"),
        use(["doc one", "doc two"], "input.docs", "retrieved evidence (v2)", "2k"),
        shape={"answer": "string"},
    ),
    "tc04_clip_string/0": lambda: prompt(
        "Summarizer",
        "Summarize text.",
        "Summarize.",
        use("abcdefghijklmnopqrstuvwxyz", "input.text", "excerpt", 10),
        use("abcdefghijklmnopqrstuvwxyz", "input.text", "full", "1k"),
        use("abcdefghijklmnopqrstuvwxyz", "input.text", "tiny", "0.005k"),
        shape={"summary": "string"},
    ),
    "tc05_clip_list/0": lambda: prompt(
        "Summarizer",
        "Summarize items.",
        "Go.",
        use(["alpha", "beta", "gamma"], "items", "items", 25),
        use({"first": "alpha", "second": "beta", "third": {"deep": [1, 2]}}, "record", "record", 30),
        use(12345, "12345", "number", 3),
        shape={"ok": "boolean"},
    ),
    "tc06_shape_types/0": lambda: prompt(
        "Extractor",
        "Extract structure.",
        "Extract.",
        shape={
            "title": "string",
            "score": "number",
            "ok": "boolean",
            "meta": "json",
            "raw": "list",
            "tags": "list[string]",
            "rows": "list[json]",
            "grid": "list[list[number]]",
        },
    ),
    "tc07_config/0": lambda: prompt("Planner", "Plan work.", "Plan.", shape={"steps": "list[string]"}),
    "tc08_think_auto/0": lambda: prompt("Thinker", "Think.", "One."),
    "tc08_think_auto/1": lambda: prompt("Thinker", "Think.", "Two."),
    "tc08_think_auto/2": lambda: prompt("Thinker", "Think.", "Three."),
    "tc09_retry/0": lambda: prompt("Classifier", "Classify.", "Classify the text.", TC09_TEXT, shape=TC09_SHAPE),
    "tc09_retry/1": lambda: prompt(
        "Classifier",
        "Classify.",
        "Classify the text.",
        TC09_TEXT,
        shape=TC09_SHAPE,
        retry=Retry(reason="LLM provider did not return JSON: not json at all", attempt=2),
    ),
    "tc09_retry/2": lambda: prompt(
        "Classifier",
        "Classify.",
        "Classify the text.",
        TC09_TEXT,
        shape=TC09_SHAPE,
        retry=Retry(
            reason="LLM result field must be a number at 12:13",
            previous_output={"label": "spam", "confidence": "high"},
            attempt=3,
        ),
    ),
    "tc10_scopes/0": lambda: prompt(
        "Coordinator",
        "Coordinate.",
        "Inner.",
        use("ship it", "input.goal", "goal"),
        use("only inside", "input.detail", "detail"),
    ),
    "tc10_scopes/1": lambda: prompt("Coordinator", "Coordinate.", "Helper.", use("ship it", "g", "helper goal")),
    "tc10_scopes/2": lambda: prompt("Specialist Worker", "Do the work.", "Work.", use("ship it", "task")),
    "tc10_scopes/3": lambda: prompt("Coordinator", "Coordinate.", "Outer.", use("ship it", "input.goal", "goal")),
    "tc11_lazy/0": lambda: prompt(
        "Observer",
        "Observe.",
        "Report.",
        use(SUMMARY, "scratch.summary", "observations", "2k"),
        use(2, "scratch.length", "count"),
    ),
    "tc12_instruction_object/0": lambda: prompt(
        "Writer", "Write.", {"task": "write", "audience": "devs", "tags": ["a", "b"]}, shape={"text": "string"}
    ),
    "tc13_sources/0": lambda: prompt(
        "Formatter",
        "Show sources.",
        "Show.",
        use(20, "items[1]"),
        use('literal "quoted"\ttab', '"literal \\"quoted\\"\\ttab"'),
        use(2.5, "2.50"),
        use(True, "input.a == input.b"),
        use(True, "not input.flag"),
        use({"k": 3, "list": [1, None, True]}, "{ k: items.length, list: [1, none, true] }"),
        use(None, "none"),
        use(True, "3 < 4"),
    ),
    "tc14_file_import/0": lambda: prompt(
        "Reader",
        "Read files.",
        "Read.",
        use(NOTES, "Notes", "notes", 15),  # a .md file is its text
        use(json.loads(CONFIG_JSON), "Config", "config"),  # a .json file is parsed
        shape={"ok": "boolean"},
    ),
    "tc17_debug/0": lambda: prompt(
        "Debugger", "Debug.", "Debug me.", use("value", "input.x", "x"), shape={"ok": "boolean"}
    ),
    "tc18_multiline/0": lambda: prompt(
        "Poet",
        "Line one of description.\nLine two.",
        "Write\ta poem.\nKeep it short.",
        use("first\nsecond", '"first\\nsecond"', "multi line"),
    ),
    "tc19_strict/0": lambda: prompt("Strict", "Be strict.", "Answer.", shape=TC19_SHAPE),
    "tc19_strict/1": lambda: prompt(
        "Strict",
        "Be strict.",
        "Answer.",
        shape=TC19_SHAPE,
        retry=Retry(reason="LLM result field must be a boolean at 10:13", previous_output={"ok": "true", "count": 3}),
    ),
    "11.2_use_context/0": lambda: prompt(
        "Answerer",
        "Answer using only explicitly selected context.",
        "Answer from the selected evidence",
        use(QUESTION, "input.question", "user question"),
        use("AgentScript makes prompt context explicit.", "input.docs.summary", "evidence", "2k"),
        shape={"answer": "string", "citations": "list[string]"},
    ),
}


def test_every_reference_call_has_a_prompt() -> None:
    assert set(PROMPTS) == set(EXPECTED)
    assert len(EXPECTED) == 26


@pytest.mark.parametrize("call", list(EXPECTED))
def test_reference_call_is_byte_exact(call: str) -> None:
    system, user = (json.loads(text) for text in EXPECTED[call])
    rendered = renderer.render(PROMPTS[call]())
    assert rendered.system == system
    assert rendered.user == user
    assert [m.role for m in rendered.messages] == ["system", "user"]
    assert rendered.warnings == ()


def test_through_the_plugin_host() -> None:
    system, user = (json.loads(text) for text in EXPECTED["tc02_unlabeled/0"])
    rendered = promptwire.render(PROMPTS["tc02_unlabeled/0"](), "agentscript")
    assert (rendered.format, rendered.system, rendered.user) == ("agentscript", system, user)


def test_clipping_records_match_the_reference_trace() -> None:
    # tc14: notes clipped 33 -> 15, config 92 characters and not clipped; use-context: sizes 20 and 42.
    notes, config = context_clips(PROMPTS["tc14_file_import/0"]())
    assert (notes.clipped, notes.original_size, notes.clipped_size) == (True, 33, 15)
    assert (config.clipped, config.original_size, config.clipped_size) == (False, 92, 92)
    question, evidence = context_clips(PROMPTS["11.2_use_context/0"]())
    assert (question.clipped, question.original_size, evidence.original_size) == (False, 20, 42)


# --------------------------------------------------------------------------------------------
# Rules of AgentScript's prompt layout beyond the worked examples


def test_unlabelled_items_get_their_global_index() -> None:
    p = Prompt(
        context=[use("a", "x", "first"), use("b", "y"), use("c", "z", "third"), use("d", "w")],
        instruction="Go.",
    )
    assert user_text(p) == (
        "Context:\n[first]\nsource: x\na\n[1]\nsource: y\nb\n[third]\nsource: z\nc\n[3]\nsource: w\nd\nInstruction:\nGo."
    )


def test_shape_to_schema_rules() -> None:
    p = Prompt(instruction="x", output=shape_contract({"a": "list[list[json]]", "b": "list"}))
    assert user_text(p).split("Return JSON matching this schema:\n")[1] == (
        '{\n  "type": "object",\n  "properties": {\n    "a": {\n      "type": "array",\n      "items": {\n'
        '        "type": "array",\n        "items": {}\n      }\n    },\n    "b": {\n      "type": "array"\n    }\n'
        '  },\n  "required": [\n    "a",\n    "b"\n  ],\n  "additionalProperties": false\n}'
    )


def test_schema_prints_with_js_rules() -> None:
    schema = {"type": "object", "properties": {"10": {"maximum": 1.0}, "2": {"minimum": 1e21}}}
    p = Prompt(instruction="x", output=OutputContract(json_schema=schema))
    assert user_text(p).endswith(
        '"properties": {\n    "2": {\n      "minimum": 1e+21\n    },\n    "10": {\n      "maximum": 1\n    }\n  }\n}'
    )


def test_object_and_other_instructions_on_retry() -> None:
    retry = Retry(reason="bad", previous_output=None)
    message = "Previous generation failed.\n\nPrevious output:\nnull\n\nError:\nbad\n\n" + (
        "Return corrected JSON matching the requested schema only."
    )
    assert repair_message(retry) == message
    as_object = Prompt(instruction={"repair": "old", "task": "t", "1": "one"}, retry=retry)
    assert instruction_value(as_object) == {"1": "one", "repair": message, "task": "t"}
    assert list(instruction_value(as_object)) == ["1", "repair", "task"]  # spread keeps the key's place
    assert instruction_value(Prompt(instruction=["a"], retry=retry)) == {"input": ["a"], "repair": message}
    assert instruction_value(Prompt(instruction=7, retry=retry)) == {"input": 7, "repair": message}
    assert user_text(Prompt(instruction=7, retry=Retry())) == (
        'Instruction:\n{\n  "input": 7,\n  "repair": "Previous generation failed.\\n\\n'
        'Return corrected JSON matching the requested schema only."\n}'
    )


def test_instruction_section_only_when_given() -> None:
    assert user_text(Prompt(context=[use("a", "x")])) == "Context:\n[0]\nsource: x\na"
    assert user_text(Prompt(instruction=None)) == "Instruction:\nnull"  # AgentScript's `input: none`
    assert user_text(Prompt()) == ""


def test_item_without_source_has_no_source_line() -> None:
    p = Prompt(context=[ContextItem(value={"b": 1, "2": [1.0, -0.0]}, label="note")], instruction="Use it.")
    assert user_text(p) == 'Context:\n[note]\n{\n  "2": [\n    1,\n    0\n  ],\n  "b": 1\n}\nInstruction:\nUse it.'


def test_system_message_choices() -> None:
    identity = Identity(role="Bot", description="Be brief.")
    assert system_text(Prompt(identity=identity)) == "You are Bot.\nBe brief."
    assert system_text(Prompt(identity=Identity(role="Bot"))) == "You are Bot.\n"
    assert system_text(Prompt(identity=identity, system="Extra.")) == "You are Bot.\nBe brief.\nExtra."
    assert system_text(Prompt(system="Only this.")) == "Only this."
    rendered = renderer.render(Prompt(instruction="Say hello."))
    assert [m.role for m in rendered.messages] == ["user"]
    assert rendered.system is None


def test_sections_name_each_part() -> None:
    rendered = renderer.render(PROMPTS["tc09_retry/2"]())
    assert [(s.role, s.key, s.title, s.detail) for s in rendered.sections] == [
        ("system", "identity", "", None),
        ("user", "context[0]", "[text]", "source: input.text"),
        ("user", "instruction", "Instruction:", None),
        ("user", "output", "Return JSON matching this schema:", None),
    ]
    assert rendered.sections[1].body == "Buy now!!!"
    assert rendered.text is None


def test_clipping_in_the_prompt_can_split_a_surrogate_pair() -> None:
    p = Prompt(context=[use("ab😀cd", "s", "clip", 3)], instruction="x")
    assert user_text(p) == "Context:\n[clip]\nsource: s\nab\ud83d\nInstruction:\nx"


def test_unexpressible_fields_warn_once_or_fail_when_strict() -> None:
    p = Prompt(instruction="x", history=[{"role": "user", "content": "hi"}], previous_result="r")
    with pytest.warns(UnsupportedFieldsWarning, match="history, previous_result") as record:
        rendered = promptwire.render(p, "agentscript")
    assert len(record) == 1
    assert record[0].filename == __file__
    assert renderer.render(p).warnings == rendered.warnings
    assert rendered.user == "Instruction:\nx"
    with pytest.raises(UnsupportedFieldsError):
        renderer.render(p, strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        renderer.render(PROMPTS["tc09_retry/2"](), strict=True)


def test_bad_values_name_the_field() -> None:
    p = Prompt(context=[use("ok", "a"), ContextItem(value={"s": {1, 2}})], instruction="x")
    with pytest.raises(FieldError, match=r"^context\[1\]\.value: set is not JSON serializable"):
        renderer.render(p)
    with pytest.raises(FieldError, match=r"^instruction: "):
        renderer.render(Prompt(instruction=[object()]))


def test_unknown_options_are_refused() -> None:
    with pytest.raises(TypeError):
        renderer.render(Prompt(instruction="x"), colour="red")  # type: ignore[call-arg]
