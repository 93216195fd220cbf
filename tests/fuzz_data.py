"""Hypothesis strategies for untrusted data, shared by the fuzz targets: JSON-ish values with the
hostile cases in them (half characters, controls, 5000-digit integers, NaN, deep nesting, shared
sub-values), JSON Schemas, and near-valid prompts in each dialect built from its own field names,
so that most examples get past validation and reach the renderers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hypothesis import strategies as st

from promptwire import Prompt
from promptwire.renderers.agens.message import IGNORED_MESSAGE_FIELDS, AgensMessage

__all__ = ["AGENS", "AGENTLY", "JSONISH", "PROMPT", "SCHEMAS", "TEXT", "Made", "made", "one_in", "usually"]

WORDS = [
    "", "x", "user", "assistant", "system", "tool", "developer", "json", "text", "k", "2k", "input.q",
    "${input.q}", "†input.q", "{{ prompt }}", "{% raw %}", "<script>", "a: b", "- x", "#", "'", '"', "\\",
    "string", "number", "object", "array", "boolean", "null", "integer", "list[string]", "agens", "agently",
]  # fmt: skip
NASTY = [
    "\x1b[2J\nasrender: forged", "\u202e\u2066", "\x85\r\u2028", "\x00", "😀" * 3, "\ud800", "\udc80x",
    "1.10", "NO", "0x1F", "~", "null", "1e999",
]  # fmt: skip
LONG = st.sampled_from([("x", 3000), ("é", 40), ("\n", 50)]).map(lambda repeated: repeated[0] * repeated[1])
"""Long texts, built by a map (Hypothesis shows a strategy's listed values in its statistics)."""
TEXT = st.one_of(st.sampled_from(WORDS), st.text(max_size=12), st.sampled_from(NASTY), LONG)
"""Text a field may hold: plausible words, anything, and the hostile spellings (a lone surrogate
among them: Python callers can pass one, and JSON's ``\\ud800`` escape builds one)."""


class Made:
    """A value too big or too deep to print, drawn as the recipe that makes it, so that Hypothesis
    can show a failing example (``repr`` of a 5000-digit integer raises, of 2^45 shared lists never
    ends); :func:`made` makes the value."""

    def __init__(self, kind: str, size: int, inner: Any = None) -> None:
        self.kind, self.size, self.inner = kind, size, inner

    def __repr__(self) -> str:
        return f"Made({self.kind!r}, {self.size}, {self.inner!r})"

    def make(self, shared: bool) -> Any:
        if self.kind == "digits":
            return 10 ** abs(self.size) * (1 if self.size > 0 else -1)
        value = made(self.inner, shared)
        if self.kind == "deep":
            for _ in range(self.size):
                value = [value]
        elif shared:  # a = [x, x]; b = [a, a]... size times: small as written, huge as printed
            for _ in range(self.size):
                value = [value, value]
        return value


def made(data: Any, shared: bool = True) -> Any:
    """``data`` with each :class:`Made` recipe made (without ``shared``, a shared value is its
    innermost part alone: a JSON file can only write it out in full)."""
    if isinstance(data, Made):
        return data.make(shared)
    if isinstance(data, dict):
        return {made(key, shared): made(value, shared) for key, value in data.items()}
    if isinstance(data, list):
        return [made(value, shared) for value in data]
    return data


NUMBERS = st.one_of(
    st.integers(-3, 3),
    st.integers(),
    st.floats(),
    st.sampled_from([2**63, 1e308, float("nan"), float("inf"), 0.1, -0.0]),
    st.sampled_from([5000, -5000, 400]).map(lambda digits: Made("digits", digits)),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT)
JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=16,
)
"""Any data a JSON or YAML file (or a Python caller) can hand over (its :class:`Made` recipes made
by :func:`made`)."""
DEEP = st.builds(Made, st.just("deep"), st.sampled_from([999, 1000, 1001, 5000]), SCALARS)
SHARED = st.builds(Made, st.just("shared"), st.integers(1, 18), TEXT)
"""Shared lists up to 2^18 prints: deeper, an exception pydantic-core ignores inside validation has
pytest's unraisable hook print the value (its repr never ends; not investigated yet)."""


def one_in(draw: st.DrawFn, times: int) -> bool:
    """True about once in ``times`` draws (a middle value: Hypothesis draws the ends of a range
    more often than the rest)."""
    return bool(draw(st.integers(0, times - 1)) == times // 2)


def usually(strategy: st.SearchStrategy[Any], wrong: st.SearchStrategy[Any] = JSONISH) -> st.SearchStrategy[Any]:
    """``strategy``, and about one time in ten ``wrong`` in its place (a value of the wrong kind)."""
    return st.integers(0, 9).flatmap(lambda roll: wrong if roll == 5 else strategy)


# --- JSON Schemas --------------------------------------------------------------------------------

TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"]
SCHEMAS = st.recursive(
    st.one_of(
        st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={"description": TEXT}),
        st.fixed_dictionaries({"enum": st.lists(SCALARS, min_size=1, max_size=3)}),
        st.booleans(),
        st.just({}),
    ),
    lambda inner: st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("object"), "properties": st.dictionaries(TEXT, inner, max_size=4)},
            optional={
                "required": st.lists(TEXT, max_size=3),
                "additionalProperties": st.booleans() | inner,
                "description": TEXT,
            },
        ),
        st.fixed_dictionaries({"type": st.just("array"), "items": inner}),
        st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
        st.fixed_dictionaries({"type": st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)}),
    ),
    max_leaves=10,
)
"""JSON Schemas as a prompt or a model's contract holds them, mostly well formed."""


# --- the core prompt, from its own JSON Schema ---------------------------------------------------

_PROMPT_SCHEMA = Prompt.model_json_schema()
_DEFS = _PROMPT_SCHEMA["$defs"]
_FREE_JSON = {"schema", "parameters", "arguments", "native", "returns"}
"""Fields whose value is free data (a JSON Schema, a tool's arguments): drawn as such."""


@st.composite
def _from_schema(draw: st.DrawFn, schema: Mapping[str, Any], name: str = "", depth: int = 0) -> Any:
    """A value for ``schema`` (pydantic's JSON Schema of the core model): mostly one it accepts,
    now and then a missing required field, an unknown one or a value of the wrong kind."""
    if depth and one_in(draw, 50):
        return draw(st.one_of(JSONISH, DEEP, SHARED))
    if "$ref" in schema:
        schema = _DEFS[schema["$ref"].rsplit("/", 1)[1]]
    if name in _FREE_JSON:
        if name == "native" and depth == 1:  # the prompt's: a dialect's own entries
            return draw(st.dictionaries(st.sampled_from(["agens", "agently", "x"]), JSONISH, max_size=1))
        return draw(SCHEMAS if name in ("schema", "parameters") else JSONISH)
    choices = schema.get("anyOf") or schema.get("oneOf")
    if choices:
        return draw(_from_schema(draw(st.sampled_from(choices)), name, depth))
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    kind = schema.get("type")
    if kind == "object" and "properties" in schema and depth < 4:
        properties = schema["properties"]
        tags = [key for key, value in properties.items() if "const" in value]  # a part's "type"
        required = [key for key in (*schema.get("required", ()), *tags) if not one_in(draw, 30)]
        optional = [key for key in properties if key not in required]
        keys = required + draw(st.lists(st.sampled_from(optional), unique=True, max_size=4)) if optional else required
        value = {key: draw(_from_schema(properties[key], key, depth + 1)) for key in keys}
        if one_in(draw, 30):
            value[draw(TEXT)] = draw(JSONISH)
        return value
    if kind == "array" and depth < 4:
        return draw(st.lists(_from_schema(schema.get("items", {}), name, depth + 1), max_size=3))
    if kind == "string":
        return draw(TEXT)
    if kind == "integer":
        return draw(st.integers(-1, 5) | NUMBERS)
    if kind == "number":
        return draw(st.integers(1, 3000) | NUMBERS)
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "null":
        return None
    return draw(JSONISH)


PROMPT = _from_schema(_PROMPT_SCHEMA)
"""Core prompt data (``promptwire.Prompt``'s fields, as ``--from prompt`` reads them)."""


# --- Agens messages ------------------------------------------------------------------------------

_AGENS_TEXT = st.one_of(TEXT, st.lists(TEXT, max_size=3), st.dictionaries(TEXT, JSONISH, max_size=3), st.none())
_AGENS_RESOURCE = st.fixed_dictionaries(
    {"uri": usually(TEXT | st.none()), "name": usually(TEXT)},
    optional={"description": TEXT, "content": usually(TEXT | st.none())},
)
_AGENS_TOOL_CALL = st.fixed_dictionaries(
    {},
    optional={
        "name": usually(TEXT),
        "id": usually(TEXT),
        "arguments": usually(st.lists(st.fixed_dictionaries({"key": TEXT, "value": JSONISH}), max_size=3)),
        "type": st.just("function"),
    },
)
_AGENS_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "node_objective": _AGENS_TEXT,
    "job_description": _AGENS_TEXT,
    "previous_result": TEXT | st.none(),
    "resources": st.lists(usually(_AGENS_RESOURCE, st.none()), max_size=3),
    "tool_defs": st.lists(
        TEXT | st.fixed_dictionaries({"name": TEXT}) | st.none() | st.just('{"name": "t"}'), max_size=3
    ),
    "tool_calls": st.lists(_AGENS_TOOL_CALL | st.none(), max_size=3),
    "tool_results": st.dictionaries(TEXT, JSONISH, max_size=3),
    "retries": st.integers(-1, 3),
    "retry_reason": _AGENS_TEXT,
    "context": TEXT | st.none(),
}
assert set(_AGENS_FIELDS) - {"context"} <= set(AgensMessage.model_fields), "the Agens fields moved"
AGENS = st.fixed_dictionaries(
    {"input": usually(_AGENS_TEXT)},
    optional={
        **{key: usually(value) for key, value in _AGENS_FIELDS.items()},
        **{key: JSONISH for key in sorted(IGNORED_MESSAGE_FIELDS)[:3]},
    },
).flatmap(lambda message: usually(st.just(message), st.just({**message, "bogus": 1})))
"""Agens messages (``--from agens``): its fields, an ignored one or two, now and then an unknown one."""


# --- Agently prompt dicts ------------------------------------------------------------------------

_AGENTLY_OUTPUT = st.recursive(
    st.fixed_dictionaries(
        {"$type": st.sampled_from(["str", "int", "float", "bool", "list", "dict", "nope"]) | TEXT},
        optional={"$desc": TEXT, "$ensure": st.booleans() | JSONISH},
    )
    | TEXT,
    lambda inner: st.dictionaries(TEXT, inner, min_size=1, max_size=3) | st.lists(inner, min_size=1, max_size=2),
    max_leaves=6,
)
_AGENTLY_PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": usually(TEXT)}),
    st.fixed_dictionaries(
        {
            "type": st.just("image_url"),
            "image_url": TEXT | st.fixed_dictionaries({"url": TEXT}, optional={"detail": TEXT}),
        }
    ),
    st.fixed_dictionaries(
        {"type": st.just("input_audio"), "input_audio": st.fixed_dictionaries({"data": TEXT, "format": TEXT})}
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("file"),
            "file": st.fixed_dictionaries(
                {},
                optional={
                    "file_data": TEXT | st.just("data:text/plain;base64,eA=="),
                    "file_url": TEXT,
                    "filename": TEXT,
                },
            ),
        }
    ),
    st.fixed_dictionaries({"type": TEXT}),
)
_AGENTLY_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "system": JSONISH,
    "developer": JSONISH,
    "info": st.dictionaries(TEXT, JSONISH, max_size=3) | JSONISH,
    "instruct": JSONISH,
    "examples": JSONISH,
    "chat_history": st.lists(
        st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "tool", "system"]) | TEXT,
                "content": TEXT | st.lists(_AGENTLY_PART, max_size=2),
            },
        ),
        max_size=3,
    ),
    "attachment": st.lists(_AGENTLY_PART, max_size=2),
    "tools": st.lists(
        st.fixed_dictionaries(
            {"name": TEXT, "desc": TEXT, "kwargs": st.dictionaries(TEXT, _AGENTLY_OUTPUT, max_size=2)},
            optional={"returns": JSONISH},
        ),
        max_size=2,
    ),
    "action_results": st.dictionaries(TEXT, JSONISH, max_size=3) | JSONISH,
    "output": _AGENTLY_OUTPUT,
    "ensure_all_keys": st.booleans(),
    "output_format": st.sampled_from(["json", "markdown", "text", "auto", "hybrid", "xml_field", "nope"]),
    "options": st.fixed_dictionaries({}, optional={"temperature": NUMBERS | TEXT}),
    "my custom block": JSONISH,
}
AGENTLY = st.fixed_dictionaries(
    {"input": usually(JSONISH)},
    optional={key: usually(value) for key, value in _AGENTLY_FIELDS.items()},
)
"""Agently prompt dicts (``--from agently``, its ``$type``/``$desc``/``$ensure`` export of outputs)."""
