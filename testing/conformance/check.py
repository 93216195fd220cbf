"""One conversation through one adapter: the request it builds, where each item of the
conversation went, and the rules any adapter must meet.

The request is built as :func:`promptwire.build_request` builds it: the prompt rendered in the
``conversation`` format, the adapter's ``build_request`` with the prompt's generation options and
the model :data:`MODEL`, the render's warnings first among the notes. (``calls.generate``'s
``with_render_notes`` does the last step for a run; this helper may import only the core.)

Where an item went is found by changing it alone (:mod:`.items`) and building again:

* **kept**: the body changes, and no note names the item;
* **converted**: the body changes, and a note names it (the note says how);
* **left out**: the body does not change, and a note names it;
* **dropped silently**: neither: the rule below is broken.

A note names an item when it names its place, ``messages[i]`` (the whole message) or
``messages[i].content[j]`` (its part), in the rendered messages, or ``history[t]...`` in the prompt,
as :mod:`promptwire.adapters.turns` words them; or when it names a prompt-wide item's path
(``cache.key``); or when the note is there for the item and goes with it (a note that disappears or
changes when the item is changed: one quoting a tool-call id, one about a breakpoint taken off).
An item inside another that is left out (a breakpoint's TTL, a part's breakpoint) is left out with
it: the notes that name the outer one name it.

The rules (:func:`invariant_problems`):

1. **Nothing silent**: every item is kept, converted or left out, never dropped silently; and
   changing one never makes the adapter fail where the conversation did not.
2. **No reasoning as text**: reasoning whose ``provider`` is not the adapter's name does not reach
   the body: its text and summary appear in no string of the body, and changing its text, summary,
   signature, encrypted content or id changes nothing in the body.
3. **Calls and results stay paired**: each tool-call id of the conversation, as the body has it
   (itself, or what a note in :class:`~promptwire.adapters.turns.ToolIds`' words says it was sent
   as), is a whole string of the body either nowhere (the call and its result left out) or at
   least twice, its call first; an id whose call or result the conversation lacks is nowhere; and
   in document order, the ids' first appearances follow the calls' order, their last appearances
   (the results) too, and every result comes before the calls of a later turn.
4. **A refusal names the turn**: an adapter that will not send a conversation raises
   :class:`~promptwire.core.errors.BadRequestError` whose message starts with the turn,
   ``messages[i]: ...`` (``turns.turn_error``) or its part, ``messages[i].content[j]: ...``: the
   turn the conversation's ``refused`` names, when it names one.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import re
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ...core.errors import BadRequestError, UnsupportedFieldsWarning
from ...core.prompt import Prompt
from ...core.rendered import warning_lines
from ...core.validation import validate_model
from .corpus import Conversation
from .items import Item, changed, items

__all__ = ["MODEL", "Built", "Outcome", "Trace", "build", "invariant_problems", "run"]

MODEL = "conformance-model"
"""The model every request of the corpus asks for."""

_PLACE = re.compile(r"(messages|history)\[(\d+)\](\.content\[(\d+)\])?")
_SENT_AS = re.compile(
    r"tool call id ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") sent as ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
)


@dataclass(frozen=True)
class Built:
    """A request as data: its body (JSON values) and notes, or the error that refused it."""

    body: Any = None
    notes: tuple[str, ...] = ()
    error: Exception | None = None


@dataclass(frozen=True)
class Trace:
    """Where one item went: into the body or not, the notes that name it, and whether changing it
    made the adapter fail."""

    item: Item
    in_body: bool
    notes: tuple[str, ...]
    error: Exception | None = None
    foreign: bool = False
    """The item is reasoning from another provider than the adapter's (rule 2)."""

    @property
    def outcome(self) -> str:
        if self.in_body:
            if self.foreign:
                return "sent to another provider"
            return "converted" if self.notes else "kept"
        return "left out" if self.notes else "dropped silently"


@dataclass(frozen=True)
class Outcome:
    """One conversation through one adapter: the request, and every item's trace (none when refused)."""

    conversation: Conversation
    adapter: str
    built: Built
    traces: tuple[Trace, ...] = field(default=())


def run(adapter: Any, conversation: Conversation) -> Outcome:
    """``conversation`` through ``adapter``, every item traced."""
    built = build(adapter, conversation.prompt)
    if built.error is not None:
        return Outcome(conversation, adapter.name, built)
    leading = sum(conversation.prompt.get(name) is not None for name in ("system", "developer"))
    traced: dict[str, Trace] = {}
    for item in items(conversation):  # an item comes after the one it is inside
        trace = _trace(adapter, conversation, built, item, leading)
        outer = _outer(item.path, traced)
        if trace.outcome == "dropped silently" and outer is not None and outer.outcome == "left out":
            trace = dataclasses.replace(trace, notes=outer.notes)  # left out with what holds it
        traced[item.path] = trace
    return Outcome(conversation, adapter.name, built, tuple(traced.values()))


def _outer(path: str, traced: Mapping[str, Trace]) -> Trace | None:
    """The trace of the nearest item ``path`` is inside (``cache.tools`` for ``cache.tools.ttl``)."""
    while "." in path:
        path = path.rsplit(".", 1)[0]
        if path in traced:
            return traced[path]
    return None


def build(adapter: Any, prompt: Mapping[str, Any]) -> Built:
    """The request ``adapter`` builds for ``prompt`` in the ``conversation`` format (see the module)."""
    model = validate_model(Prompt, prompt, root="prompt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedFieldsWarning)
        rendered = _conversation_format().render(model)
    try:
        request = adapter.build_request(rendered, model.config, rendered.output, MODEL)
    except Exception as exc:  # rule 4 says which failures are refusals
        return Built(error=exc)
    body = json.loads(json.dumps(request.kwargs, ensure_ascii=False))  # tuples as lists, as a file holds it
    return Built(body, (*warning_lines(rendered.warnings), *request.notes))


@cache
def _conversation_format() -> Any:
    from promptwire import PluginHost  # the front door, not a floor: see the import rules

    return PluginHost(entry_points=False).renderer("conversation")


def _trace(adapter: Any, conversation: Conversation, built: Built, item: Item, leading: int) -> Trace:
    again = build(adapter, changed(conversation.prompt, item))
    if again.error is not None:
        return Trace(item, True, (), again.error)
    gone = [note for note in built.notes if note not in again.notes]
    naming = [note for note in built.notes if _names(note, item, leading)]
    notes = tuple(dict.fromkeys([*naming, *gone]))
    part = _part_at(conversation.prompt, item) if item.how == "part" else {}
    foreign = part.get("type") == "reasoning" and part.get("provider") != adapter.name
    return Trace(item, again.body != built.body, notes, foreign=foreign)


def _names(note: str, item: Item, leading: int) -> bool:
    """Whether ``note`` names ``item``'s place (see the module docstring)."""
    by_path = item.message is None or item.path.startswith("cache.")
    if by_path and re.search(rf"(?<![\w.]){re.escape(item.path)}(?![\w.\[])", note):
        return True
    if item.message is None:
        return False
    for match in _PLACE.finditer(note):
        message = int(match.group(2)) + (leading if match.group(1) == "history" else 0)
        part = None if match.group(4) is None else int(match.group(4))
        if message == item.message and (part is None or part == item.part):
            return True
    return False


def invariant_problems(outcome: Outcome) -> list[str]:
    """The rules ``outcome`` breaks (see the module docstring), each as a line naming the item."""
    conversation, built = outcome.conversation, outcome.built
    if built.error is not None:
        return _refusal_problems(conversation, built.error)
    problems: list[str] = []
    for trace in outcome.traces:
        path = trace.item.path
        if trace.error is not None:
            problems.append(f"{path}: changed, the conversation makes the adapter fail: {_error_text(trace.error)}")
        elif trace.outcome == "dropped silently":
            problems.append(
                f"{path}: dropped silently (neither the body nor a note changes with it, and no note names it)"
            )
    problems += _reasoning_problems(outcome)
    problems += _pairing_problems(conversation, built)
    return problems


def _refusal_problems(conversation: Conversation, error: Exception) -> list[str]:
    text = _error_text(error)
    if not isinstance(error, BadRequestError) or not re.match(r"messages\[\d+\](\.content\[\d+\])?: ", str(error)):
        return [f"refused without naming a turn (a BadRequestError 'messages[i]: ...' is expected): {text}"]
    if conversation.refused is not None and not re.match(rf"{re.escape(conversation.refused)}[.:]", str(error)):
        return [f"refused naming another turn than {conversation.refused}: {text}"]
    return []


def _error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"


def _reasoning_problems(outcome: Outcome) -> list[str]:
    problems = []
    strings = list(_strings(outcome.built.body))
    for trace in outcome.traces:
        if not trace.foreign:
            continue
        part = _part_at(outcome.conversation.prompt, trace.item)
        origin = f"from {part['provider']}" if part.get("provider") else "of unknown origin"
        said = [text for text in [part.get("text"), *(part.get("summary") or [])] if text]
        if any(text in string for text in said for string in strings):
            problems.append(f"{trace.item.path}: reasoning {origin} is in the body as text")
        elif trace.in_body:
            problems.append(f"{trace.item.path}: reasoning {origin} reaches the body")
    return problems


def _part_at(prompt: Mapping[str, Any], item: Item) -> Mapping[str, Any]:
    from .corpus import parse_path

    value: Any = prompt
    for step in parse_path(item.path):
        value = value[step]
    return value if isinstance(value, Mapping) else {}


def _pairing_problems(conversation: Conversation, built: Built) -> list[str]:
    calls: list[tuple[str, int]] = []  # (id, history turn), in the conversation's order
    results: set[str] = set()
    for t, turn in enumerate(conversation.prompt.get("history", [])):
        for part in turn["content"] if isinstance(turn.get("content"), list) else ():
            if part.get("type") == "tool_call" and part.get("id") is not None:
                calls.append((part["id"], t))
            elif part.get("type") == "tool_result":
                results.add(part["call_id"])
    sent_as = _sent_ids(built.notes)
    places: dict[str, list[int]] = {}
    for position, string in enumerate(_strings(built.body)):
        places.setdefault(string, []).append(position)
    problems = []
    called = {call_id for call_id, _ in calls}
    for call_id in sorted(called ^ results):
        side = "a call with no result" if call_id in called else "a result with no call"
        if places.get(sent_as.get(call_id, call_id)):
            problems.append(f"tool call id {call_id!r}: {side}, sent unpaired")
    paired = [(sent_as.get(call_id, call_id), t) for call_id, t in calls if call_id in results]
    seen = [(found, t) for found, t in paired if places.get(found)]
    for found, _ in seen:
        if len(places[found]) < 2:
            problems.append(f"tool call id {found!r}: in the body once; its call and its result are not both there")
    firsts = [places[found][0] for found, _ in seen]
    lasts = [places[found][-1] for found, _ in seen]
    if firsts != sorted(firsts) or lasts != sorted(lasts):
        problems.append("tool calls and results: not in the conversation's order in the body")
    for (a, turn_a), (b, turn_b) in itertools.pairwise(seen):
        if turn_a < turn_b and places[a][-1] > places[b][0]:
            problems.append(f"tool call id {a!r}: its result comes after the call {b!r} of a later turn")
    return problems


def _sent_ids(notes: Sequence[str]) -> dict[str, str]:
    """The tool-call ids the notes say were sent as others (:class:`ToolIds`' words)."""
    sent = {}
    for note in notes:
        for match in _SENT_AS.finditer(note):
            try:
                sent[ast.literal_eval(match.group(1))] = ast.literal_eval(match.group(2))
            except (ValueError, SyntaxError):
                continue
    return sent


def _strings(value: Any) -> Iterator[str]:
    """The strings of a JSON value, in document order (keys are not values)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
