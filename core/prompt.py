"""The renderer-neutral prompt model: one tree every front end maps into and every renderer reads.

It knows no format, no provider and no syntax (the pandoc idea: readers -> one tree -> writers).
Pydantic validates it at the edge, where user data comes in; renderers then read plain attributes.
Fields a format cannot express are reported by that format's renderer, not refused here.
"""

import functools
import itertools
import operator
from collections.abc import Callable
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictInt,
    model_serializer,
    model_validator,
)

from .budget import Budget
from .contract import OutputContract
from .errors import FieldError
from .json_text import check_json_values, json_object
from .nesting import EmptyMappings, check_values
from .references import OUTPUT_PATH, Context, OutputPathError, resolve_arguments, write_output

__all__ = [
    "PART_CLASSES",
    "AudioPart",
    "CacheMark",
    "ChatTurn",
    "ContentPart",
    "ContextItem",
    "FilePart",
    "GenerateConfig",
    "Identity",
    "ImagePart",
    "Prompt",
    "PromptCache",
    "ReasoningPart",
    "Resource",
    "Retry",
    "Section",
    "TextPart",
    "ThinkSetting",
    "ToolCall",
    "ToolCallPart",
    "ToolDefinition",
    "ToolResult",
    "ToolResultPart",
    "TurnPart",
]

_STRICT = ConfigDict(extra="forbid", defer_build=True, hide_input_in_errors=True)
"""Unknown fields are errors. Validators are built on first use, not at import: start-up time is
part of the product, and a run builds only the models it validates (about 30 ms less per command).
For the same reason empty lists and maps come from :func:`_no_items` and :func:`_no_entries`.
A ``ValidationError`` does not quote the input: pydantic would ``repr`` all of it, and a value whose
parts are shared (``a = [x, x]; b = [a, a]``... forty times) has a repr that never ends."""

ThinkSetting = StrictBool | Literal["auto", "low", "medium", "high"]


def _no_items() -> list[Any]:
    """A new empty list, for a field's ``default_factory``. Not ``list``: building the model,
    pydantic reads the factory's signature, and a builtin's is parsed from text with ``tokenize``
    (2 ms of every run). Not ``[]`` either: pydantic deep-copies a mutable default for every
    instance (7 us more per prompt validated)."""
    return []


_NO_MARK: Any = Field(default=None, exclude_if=lambda mark: mark is None)
"""A part's or turn's cache breakpoint, left out of a dump when there is none: a part dumps as it
did before breakpoints existed (``{"type": "text", "text": ...}``), as users and tests compare it."""


_NO_ITEM: Any = Field(default=None, exclude_if=lambda item: item is None)
"""The id of the provider's output item that carried a part of a reply (OpenAI Responses'
``msg_...`` for a message's text, ``fc_...`` for a function call): that provider wants it back with
the reasoning before it; no other provider has a use for it. Left out of a dump when there is none."""


def _no_entries() -> dict[str, Any]:
    """A new empty mapping, for a field's ``default_factory`` (see :func:`_no_items`)."""
    return {}


class Identity(BaseModel):
    """Who the model is asked to be (AgentScript's ``role`` and ``description``)."""

    model_config = _STRICT

    role: str
    description: str = ""


class ContextItem(BaseModel):
    """One selected piece of context: the value, how it was selected (``source``), its label and budget.

    The rendered text and its clipping are computed by the renderers (they depend on the format's
    text form of a value), so nothing derived is stored here.
    """

    model_config = _STRICT

    value: Any = None
    label: str | None = None
    source: str | None = None
    budget: Budget | None = None


class CacheMark(BaseModel):
    """A cache breakpoint: the provider may cache the request up to and including what carries it
    (a part, a turn, the tools, the system text). ``ttl`` is how long, where a provider offers a
    choice (Anthropic: ``5m``, the default, or ``1h``); a provider without breakpoints is told of
    none, and the request's notes say so."""

    model_config = _STRICT

    ttl: Literal["5m", "1h"] | None = None


class TextPart(BaseModel):
    model_config = _STRICT

    type: Literal["text"] = "text"
    text: str
    cache: CacheMark | None = _NO_MARK
    item_id: str | None = _NO_ITEM


class _Located(BaseModel):
    """A part that is either at a URL or inline as base64 data, never both."""

    model_config = _STRICT

    url: str | None = None
    data: str | None = None
    media_type: str | None = None
    cache: CacheMark | None = _NO_MARK

    @model_validator(mode="after")
    def _one_source(self) -> "_Located":
        if (self.url is None) == (self.data is None):
            raise ValueError("give exactly one of 'url' or 'data' (base64)")
        return self

    @property
    def data_url(self) -> str:
        """The part as a URL: its own URL, or a ``data:`` URL built from the inline bytes."""
        if self.url is not None:
            return self.url
        return f"data:{self.media_type or 'application/octet-stream'};base64,{self.data}"


class ImagePart(_Located):
    type: Literal["image"] = "image"
    detail: Literal["auto", "low", "high"] | None = None


class AudioPart(BaseModel):
    model_config = _STRICT

    type: Literal["audio"] = "audio"
    data: str
    format: str = Field(description="audio container, e.g. 'wav' or 'mp3'")
    cache: CacheMark | None = _NO_MARK


class FilePart(_Located):
    type: Literal["file"] = "file"
    filename: str | None = None


ContentPart = Annotated[TextPart | ImagePart | AudioPart | FilePart, Field(discriminator="type")]
"""What a message shows: text and media (the prompt's attachments, a tool result's content)."""


class ToolCallPart(BaseModel):
    """A tool call the model made in an assistant turn. ``arguments`` is the call's JSON object;
    ``arguments_text`` the provider's own text of it where the provider sent text (OpenAI's JSON
    string, kept so the turn goes back to that provider byte for byte). ``arguments`` is ``None``
    only when that text is not a JSON object (a model's broken JSON): a provider that wants an
    object cannot take the call, and says so."""

    model_config = _STRICT

    type: Literal["tool_call"] = "tool_call"
    id: str | None = None
    name: str
    arguments: dict[str, Any] | None = Field(default_factory=_no_entries)
    arguments_text: str | None = None
    cache: CacheMark | None = _NO_MARK
    item_id: str | None = _NO_ITEM


class ToolResultPart(BaseModel):
    """What a tool returned to the call ``call_id`` names: text, or parts (text, images, files);
    ``is_error`` when the tool failed."""

    model_config = _STRICT

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    content: str | list[ContentPart]
    name: str | None = None
    is_error: StrictBool = False
    cache: CacheMark | None = _NO_MARK


class ReasoningPart(BaseModel):
    """A model's reasoning, as the provider that produced it returned it: its ``text`` (or the
    ``summary`` the provider gave instead), the ``signature`` that vouches for it or its
    ``encrypted`` content (Anthropic's redacted thinking, OpenAI's ``encrypted_content``), whether it
    is ``redacted``, and the item ``id`` a provider names it by. Only ``provider`` may take it back:
    sent anywhere else it is left out with a note, never as text the model would imitate."""

    model_config = _STRICT

    type: Literal["reasoning"] = "reasoning"
    text: str | None = None
    summary: list[str] | None = None
    signature: str | None = None
    encrypted: str | None = None
    redacted: StrictBool = False
    provider: str | None = None
    id: str | None = None


TurnPart = Annotated[
    TextPart | ImagePart | AudioPart | FilePart | ToolCallPart | ToolResultPart | ReasoningPart,
    Field(discriminator="type"),
]
"""One part of a conversation turn: what a message shows, a tool call, a tool result, reasoning."""

PART_CLASSES = frozenset({TextPart, ImagePart, AudioPart, FilePart, ToolCallPart, ToolResultPart, ReasoningPart})
"""The classes of :data:`TurnPart`, none a subclass of another: a part of one of them is of another
kind only by its exact class. ``isinstance`` against a model class that does not match goes through
the ABC machinery of pydantic's metaclass (about 0.3 us, for each part of a history)."""


class ChatTurn(BaseModel):
    """One earlier message of the conversation. Roles are free text: dialects map them; the
    conversation roles are ``system``, ``developer``, ``user``, ``assistant`` and ``tool``.

    An assistant turn holds its tool calls and reasoning as parts, a tool (or user) turn its tool
    results. ``cache`` marks a cache breakpoint at the end of the turn. For convenience a turn may
    also be given in the shape chat APIs use (``tool_calls`` on an assistant turn, each
    ``{"id", "name", "arguments"}`` with arguments as an object or JSON text; ``tool_call_id`` and
    ``is_error`` on a ``tool`` turn): it is read into parts, the one form the model keeps.
    """

    model_config = _STRICT

    role: str = "user"
    content: str | list[TurnPart]
    name: str | None = None
    cache: CacheMark | None = _NO_MARK

    @model_validator(mode="before")
    @classmethod
    def _chat_api_shape(cls, data: Any) -> Any:
        if isinstance(data, dict) and ("tool_calls" in data or "tool_call_id" in data):
            return _parts_of_chat_shape(data)
        return data


def _parts_of_chat_shape(data: dict[str, Any]) -> dict[str, Any]:
    """A turn given with ``tool_calls`` / ``tool_call_id`` (see :class:`ChatTurn`) in the model's
    own form: the calls after the turn's text, or the turn's content as one tool result."""
    turn = dict(data)
    calls = turn.pop("tool_calls", None)
    call_id = turn.pop("tool_call_id", None)
    is_error = turn.pop("is_error", False)
    content = turn.get("content")
    if call_id is not None:
        result: dict[str, Any] = {"type": "tool_result", "call_id": call_id, "content": content, "is_error": is_error}
        if turn.get("name") is not None:
            result["name"] = turn.pop("name")
        turn["content"] = [result]
        return turn
    if is_error:
        raise ValueError("'is_error' belongs to a tool turn, which names its call with 'tool_call_id'")
    if not isinstance(calls, list):
        raise ValueError(f"'tool_calls' must be a list of calls, not {type(calls).__name__}")
    if isinstance(content, str):
        parts: list[Any] = [{"type": "text", "text": content}] if content else []
    elif isinstance(content, list):
        parts = [*content]
    elif content is None:
        parts = []
    else:
        raise ValueError(f"'content' must be text or a list of parts, not {type(content).__name__}")
    # Each call as a tool-call part, in this loop rather than a function per call (one per call of
    # a history): arguments given as JSON text are kept as text and read into their object. A call
    # that is no dict is left as it is, for the part's own validation to refuse at its path.
    for call in calls:
        if isinstance(call, dict):
            call = {"type": "tool_call", **call}
            arguments = call.get("arguments")
            if isinstance(arguments, str):
                call["arguments_text"] = arguments
                call["arguments"] = json_object(arguments)
        parts.append(call)
    turn["content"] = parts
    return turn


class Section(BaseModel):
    """A titled block of the prompt body, kept in the order written.

    ``kind`` says what the block is for (Agently's info / instruct / examples, or a custom block);
    ``key`` is the block's own name (a custom block's title, or a sub-name the dialect used).
    """

    model_config = _STRICT

    kind: Literal["info", "instruct", "examples", "custom"]
    key: str | None = None
    value: Any = None


class ToolDefinition(BaseModel):
    """A tool the model may call. ``native`` keeps the dialect's own form (e.g. an opaque Agens string)."""

    model_config = _STRICT

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=_no_entries)
    returns: Any = None
    native: Any = None


class ToolCall(BaseModel):
    """A call a model made; its arguments may point at data (``"†input.document"``) instead of copying it."""

    model_config = _STRICT

    name: str
    id: str | None = None
    arguments: dict[str, Any] = Field(default_factory=_no_entries)
    native: Any = None

    def resolved(self, context: Context) -> "ToolCall":
        """This call with its ``†`` references replaced by the values they point at in ``context``
        (kind -> JSON value, e.g. ``{"input": ..., "state": ...}``): what the tool should receive.

        Raises :class:`~promptwire.core.references.InvalidReference` or
        :class:`~promptwire.core.references.UnresolvedReference` naming the argument.
        """
        return self.model_copy(update={"arguments": resolve_arguments(self.arguments, context)})

    def write_result(self, result: Any, context: Context, *, branch: int | None = None) -> dict[str, Any]:
        """A new context holding ``result`` at this call's ``_outputPath`` (unchanged without one).

        ``branch`` chooses the outcome of an ``†a || †b`` path, as in
        :func:`~promptwire.core.references.write_output`.
        """
        path = self.arguments.get(OUTPUT_PATH)
        if path is None:
            return dict(context)
        if not isinstance(path, str):
            raise OutputPathError(repr(path), f"{OUTPUT_PATH} must be a string")
        return write_output(path, result, context, branch=branch)


class ToolResult(BaseModel):
    model_config = _STRICT

    content: Any = None
    call_id: str | None = None
    name: str | None = None
    is_error: bool = False


class Resource(BaseModel):
    """A document handed to the model (Agens/MCP resources); ``content`` None means "not loaded"."""

    model_config = _STRICT

    uri: str
    name: str | None = None
    description: str | None = None
    content: str | None = None


class Retry(BaseModel):
    """Why the previous attempt was rejected, and what it returned.

    ``previous_output`` counts as given only when it was set explicitly (``None`` then means the
    model returned JSON ``null``); leave it unset when the previous output was not valid JSON.
    """

    model_config = _STRICT

    reason: str | None = None
    previous_output: Any = None
    attempt: StrictInt | None = Field(default=None, ge=1)

    @property
    def has_previous_output(self) -> bool:
        return "previous_output" in self.model_fields_set

    @model_serializer(mode="wrap")
    def _keep_unset_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        return _without_unset(self, handler(self), ("previous_output",))


class PromptCache(BaseModel):
    """Prompt caching for the whole request: breakpoints after the ``system`` text and after the
    ``tools``, and OpenAI's cache routing ``key`` and ``retention`` (where the provider has them;
    elsewhere the request's notes say they were not sent)."""

    model_config = _STRICT

    system: CacheMark | None = None
    tools: CacheMark | None = None
    key: str | None = None
    retention: Literal["in_memory", "24h"] | None = None


class GenerateConfig(BaseModel):
    """Generation options exactly as the AgentScript seed defines them (frozen: change one by ``model_copy``)."""

    # Frozen: a prompt's model_copy shares its config, so a config changed in place would change every
    # copy's. It also lets every prompt given no config share one default (_NO_CONFIG) instead of
    # building one per validation.
    model_config = ConfigDict(**_STRICT, frozen=True)

    max_output: Budget | None = None
    attempts: StrictInt = Field(default=1, ge=1)
    temperature: float | None = Field(default=None, allow_inf_nan=False)
    think: ThinkSetting = False
    strict: StrictBool = False
    debug: StrictBool = False


_NO_CONFIG = GenerateConfig.model_construct()
"""The config of a prompt given none. pydantic uses a hashable default as it is (an unhashable one
is deep-copied for every instance), and ``model_construct`` builds it without the validator, which
is built on first use (see :data:`_STRICT`)."""


class Prompt(BaseModel):
    """Everything a model is to be told, independent of any format or provider."""

    model_config = _STRICT

    identity: Identity | None = None
    system: str | None = None
    developer: str | None = None
    context: list[ContextItem] = Field(default_factory=_no_items)
    instruction: Any = None
    sections: list[Section] = Field(default_factory=_no_items)
    history: list[ChatTurn] = Field(default_factory=_no_items)
    attachments: list[ContentPart] = Field(default_factory=_no_items)
    tools: list[ToolDefinition] = Field(default_factory=_no_items)
    tool_calls: list[ToolCall] = Field(default_factory=_no_items)
    tool_results: list[ToolResult] = Field(default_factory=_no_items)
    resources: list[Resource] = Field(default_factory=_no_items)
    previous_result: Any = None
    retry: Retry | None = None
    output: OutputContract | None = None
    cache: PromptCache | None = None
    config: GenerateConfig = _NO_CONFIG
    native: dict[str, Any] = Field(default_factory=_no_entries)
    """What only one dialect can say, under that dialect's name: ``{"agens": {"tool_results": {}}}``
    keeps the empty results map an Agens message carries. The dialect's own renderer reads its entry;
    for every other format it is a field it cannot express (``native.agens``), reported like any other."""

    @model_serializer(mode="wrap")
    def _keep_unset_unset(self, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
        return _without_unset(self, handler(self), ("instruction",))

    @model_validator(mode="after")
    def _printable_nesting(self) -> "Prompt":
        """Every free-form value nests at most ``MAX_DEPTH`` levels and never contains itself, and
        the parts used in several places print within a budget (see :func:`check_values`); the
        fields that are JSON by definition hold JSON data (every format prints them as JSON)."""
        arguments = _turn_arguments(self)  # both checks read them: one pass over the turns
        if not arguments:
            _check_printable(self, [])
            return self
        # A conversation may hold 100,000s of calls: their paths are made only when a check
        # fails, and then both checks run again with them (the checks are pure and walk the
        # values in the same order: they fail at the same value, now named).
        try:
            _check_printable(self, list(zip(itertools.repeat(_SOME_CALL), arguments)))
        except FieldError:
            _check_printable(self, _turn_argument_paths(self))
            raise
        return self

    def populated_fields(self, excluding: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """Names of the content fields that carry something (``config`` is for adapters, not layout).

        Parts that a format may leave out even when it shows their parent are listed as dotted names
        of their own (see ``SUB_FIELDS``), so leaving them out is reported too; so is each dialect's
        entry in ``native`` (``native.agens``). Names in ``excluding`` are not looked at: a renderer
        asks only about what it cannot express, and every render asks.
        """
        values = self.__dict__  # read the fields without pydantic's attribute path
        fields, sub_fields = _fields_outside(type(self), excluding)
        # Given means neither None nor an empty list, by identity and class: ``==`` would run
        # pydantic's model comparison for every nested model, on every render.
        # Plain loops: a comprehension or generator is a function call of its own, on every render,
        # for a handful of names.
        names = []
        for name in fields:
            value = values[name]
            if value is not None and (value.__class__ is not list or value):
                names.append(name)
        for name, parent, present in sub_fields:
            if values[parent] and present(self):  # a parent is a list or an optional model: given if true
                names.append(name)
        native = values["native"]
        if native:
            names.extend(name for dialect in native if (name := f"native.{dialect}") not in excluding)
        return tuple(names)


def assembled_prompt(fields: dict[str, Any]) -> Prompt:
    """A prompt of ``fields`` that already hold their fields' types (models the caller validated,
    JSON values), refused as validation refuses it (the :class:`FieldError` of the prompt's own check)
    but made without pydantic's validator. A program's run validates no other prompt, so it never
    builds that validator, nor the schemas of the turns, parts and tools it leaves empty: a tenth of
    the README example's start-up beyond pydantic's own (20M instructions)."""
    prompt = Prompt.model_construct(**fields)
    prompt._printable_nesting()  # type: ignore[operator]  # pydantic types the validator as its decorator's proxy
    return prompt


@functools.lru_cache(maxsize=64)  # keyed by what each format expresses: a handful of sets
def _fields_outside(
    model: type[Prompt], excluding: frozenset[str]
) -> tuple[tuple[str, ...], tuple[tuple[str, str, Callable[[Prompt], bool]], ...]]:
    """The content fields and the sub-field checks of ``model`` whose names are not in ``excluding``."""
    fields = tuple(name for name in model.model_fields if name not in ("config", "native") and name not in excluding)
    return fields, tuple(check for check in _SUB_FIELD_CHECKS if check[0] not in excluding)


SUB_FIELDS: dict[str, Callable[[Prompt], bool]] = {
    "context.source": lambda prompt: any(item.source for item in prompt.context),
    "history.name": lambda prompt: any(map(_NAME, prompt.history)),
    "retry.previous_output": lambda prompt: prompt.retry is not None and prompt.retry.has_previous_output,
    "tools.returns": lambda prompt: any(tool.returns is not None for tool in prompt.tools),
    "tool_results.is_error": lambda prompt: any(result.is_error for result in prompt.tool_results),
    "history.tool_calls": lambda prompt: _has_part(prompt.history, ToolCallPart),
    "history.tool_results": lambda prompt: _has_part(prompt.history, ToolResultPart),
    "history.reasoning": lambda prompt: _has_part(prompt.history, ReasoningPart),
    "history.cache": lambda prompt: (
        any(map(operator.is_not, map(_CACHE, prompt.history), itertools.repeat(None)))
        or any(
            part.__dict__.get("cache") is not None  # reasoning has none: no getattr's AttributeError
            for turn in prompt.history
            if turn.content.__class__ is list
            for part in turn.content
        )
    ),
    "attachments.cache": lambda prompt: any(part.cache is not None for part in prompt.attachments),
}
"""Parts a format can drop while it shows their parent field, each with how to tell it is given:
``context.source`` (an item names its source expression), ``history.name`` (a turn names its speaker),
``retry.previous_output`` (the rejected output is known), ``tools.returns`` (a tool describes its
result), ``tool_results.is_error`` (a result reports a failure), the conversation's parts in
``history.tool_calls``, ``history.tool_results`` and ``history.reasoning``, and cache breakpoints
on turns and parts (``history.cache``, ``attachments.cache``)."""


_NAME: Callable[[ChatTurn], Any] = operator.attrgetter("name")
_CACHE: Callable[[ChatTurn], Any] = operator.attrgetter("cache")
"""A turn's name and breakpoint, read in C for each turn of a history (a generator per check cost
as much again): every render asks whether any turn has one."""


def _has_part(turns: list[ChatTurn], kind: type[BaseModel]) -> bool:
    """Whether any of ``turns`` holds a part of ``kind``."""
    return any(part.__class__ is kind for turn in turns if turn.content.__class__ is list for part in turn.content)


_SUB_FIELD_CHECKS = tuple((name, name.partition(".")[0], present) for name, present in SUB_FIELDS.items())
"""Each sub-field with its parent field: it is looked for only when the parent is populated."""


_Paths = list[tuple[tuple[str | int, ...], Any]]
"""Values with their paths in the prompt."""


def _free_values(prompt: Prompt, arguments: _Paths) -> _Paths:
    """The user values of a prompt that no model field constrains, each with its path (``arguments``:
    the turns' call arguments, from :func:`_turn_arguments`). A list, each field looked at only when
    given: a generator and an ``enumerate`` per empty list cost more than the check of a usual
    prompt's few values. The fields are read from ``__dict__``: pydantic's ``__getattr__`` hook makes
    each attribute read of a model several times as costly, and this runs on every validation."""
    fields = prompt.__dict__
    found: _Paths = [(("instruction",), fields["instruction"]), (("previous_result",), fields["previous_result"])]
    native = fields["native"]
    if native:  # an empty map holds nothing to refuse
        found.append((("native",), native))
    for index, item in enumerate(fields["context"]):
        found.append((("context", index, "value"), item.__dict__["value"]))
    sections = fields["sections"]
    if sections:
        for index, section in enumerate(sections):
            found.append((("sections", index, "value"), section.value))
    tools = fields["tools"]
    if tools:
        schemas = _bare_tool_schemas(tools)
        if schemas is not None:
            found.append((("tools",), schemas))
        else:
            for index, tool in enumerate(tools):
                if tool.returns is None and tool.native is None and not tool.parameters:
                    # A tool of a name and a description: its empty schema alone is what the tuple
                    # holds that can repeat (the same tool given twice), counted the same way.
                    found.append((("tools", index), tool.parameters))
                else:
                    found.append((("tools", index), (tool.parameters, tool.returns, tool.native)))
    tool_calls = fields["tool_calls"]
    if tool_calls:
        for index, call in enumerate(tool_calls):
            found.append((("tool_calls", index), (call.arguments, call.native)))
    tool_results = fields["tool_results"]
    if tool_results:
        for index, result in enumerate(tool_results):
            found.append((("tool_results", index, "content"), result.content))
    found.extend(arguments)
    retry = fields["retry"]
    if retry is not None:
        found.append((("retry", "previous_output"), retry.previous_output))
    output = fields["output"]
    if output is not None:
        found.append((("output",), (output.json_schema, output.native)))
    return found


def _bare_tool_schemas(tools: list[ToolDefinition]) -> EmptyMappings | None:
    """The empty schemas of ``tools`` when every tool has only a name and a description (the
    usual big list of tools), for the check to take as one value (see :class:`EmptyMappings`);
    ``None`` when any tool has more."""
    schemas = EmptyMappings()
    for tool in tools:
        fields = tool.__dict__
        schema = fields["parameters"]
        if schema or schema.__class__ is not dict or fields["returns"] is not None or fields["native"] is not None:
            return None
        schemas.append(schema)
    return schemas


def _json_values(prompt: Prompt, arguments: _Paths) -> _Paths:
    """The values of a prompt that are JSON by definition: schemas and a call's arguments (``arguments``:
    the turns', from :func:`_turn_arguments`); a list, each field looked at only when given (read
    from ``__dict__``, as :func:`_free_values` reads them)."""
    fields = prompt.__dict__
    found: _Paths = []
    tools = fields["tools"]
    if tools:
        for index, tool in enumerate(tools):
            if tool.parameters:  # an empty schema holds nothing to refuse
                found.append((("tools", index, "parameters"), tool.parameters))
    tool_calls = fields["tool_calls"]
    if tool_calls:
        for index, call in enumerate(tool_calls):
            found.append((("tool_calls", index, "arguments"), call.arguments))
    found.extend(arguments)
    output = fields["output"]
    if output is not None:
        found.append((("output", "schema"), output.json_schema))
    return found


def _check_printable(prompt: Prompt, arguments: _Paths) -> None:
    """:meth:`Prompt._printable_nesting`'s checks, given the turns' call arguments with their paths."""
    check_values(_free_values(prompt, arguments))
    json_values = _json_values(prompt, arguments)
    if json_values:  # the usual chat has none
        check_json_values(json_values)


_SOME_CALL = ("history",)
"""The path the turns' call arguments are checked under first, in place of their own (see
:meth:`Prompt._printable_nesting`)."""


def _turn_arguments(prompt: Prompt) -> list[Any]:
    """The arguments of the tool calls in the conversation's turns, in order, without their paths
    (:func:`_turn_argument_paths` makes those): read in one pass, with a list and a class test per
    turn."""
    found: list[Any] = []
    for turn in prompt.__dict__["history"]:
        content = turn.__dict__["content"]  # without pydantic's attribute hook, for each turn
        if content.__class__ is list:
            for part in content:
                kind = part.__class__
                if kind is ToolCallPart or (kind not in PART_CLASSES and isinstance(part, ToolCallPart)):
                    found.append(part.__dict__["arguments"])
    return found


def _turn_argument_paths(prompt: Prompt) -> _Paths:
    """The arguments of the tool calls in the conversation's turns, each with its path."""
    found: _Paths = []
    for index, turn in enumerate(prompt.history):
        content = turn.content
        if content.__class__ is list:
            for number, part in enumerate(content):
                kind = part.__class__
                if kind is ToolCallPart or (kind not in PART_CLASSES and isinstance(part, ToolCallPart)):
                    found.append(
                        (("history", index, "content", number, "arguments"), cast(ToolCallPart, part).arguments)
                    )
    return found


def _without_unset(model: BaseModel, data: Any, fields: tuple[str, ...]) -> Any:
    """Leave out of a dump the fields whose meaning is "given or not" rather than a value.

    ``instruction=None`` is an instruction of JSON ``null`` (AgentScript's ``input: none``), and
    ``previous_output=None`` a previous output of ``null``; not giving them is something else. A dump
    that wrote the default would turn "not given" into "given as null" when loaded again, and the
    prompt would render different bytes after a save and load.
    """
    if isinstance(data, dict):
        for name in fields:
            if name not in model.model_fields_set:
                data.pop(name, None)
    return data
