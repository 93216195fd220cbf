"""YAML read as JSON data, safely: the loader for prompt files and every other YAML someone else wrote.

A YAML document is untrusted input. It is read with a safe loader (no Python tags, no object
construction), by libyaml when PyYAML has it, with the YAML 1.2 core schema (``NO`` stays text,
``010`` is ten, ``1.10`` is read as 1.1 with a warning saying to quote it), and it must stay within
these bounds, checked on the parser's events before anything is built:

* nesting at most :data:`~promptwire.core.nesting.MAX_DEPTH` levels;
* aliases standing for at most :data:`MAX_ALIAS_VALUES` values and :data:`MAX_ALIAS_CHARS`
  characters in all: each alias counts the values and the characters of text (keys included) of
  the node it repeats, which every format prints in full at each alias. A 400-byte "billion
  laughs" file (nine levels of ten aliases) stands for 10**9 values; a 1 MB file whose aliases
  repeat one 1 MiB text stands for gigabytes of text in few values. Both fail at once, at the
  alias that crosses the bound;
* no alias inside the node it names (a value that contains itself).

What it builds is JSON data, as a prompt is: a mapping key is text, the key's scalar as written
(``200: ok`` and ``1.10: x`` give the keys ``"200"`` and ``"1.10"``; a list or a mapping as a key is
refused); an explicit tag JSON has no value for (``!!set``, ``!!binary``, ``!!timestamp``,
``!!omap``, ``!!pairs``) is refused, naming what to write instead; so is a key given twice, an
integer with more digits than Python converts, and text holding half a character (a lone
surrogate, which no YAML reader takes). Every failure is one :class:`YamlDataError` whose message
starts with the document's label and, where known, ``:line:column``.
"""

from __future__ import annotations

import re
import sys
from typing import Any, ClassVar

from .errors import PromptwireError
from .nesting import MAX_DEPTH, MAX_REPEATED_CHARS, MAX_REPEATED_VALUES, nesting_room

__all__ = ["MAX_ALIAS_CHARS", "MAX_ALIAS_VALUES", "TOO_MANY_DIGITS", "YamlDataError", "load_yaml"]

MAX_ALIAS_VALUES = MAX_REPEATED_VALUES
"""How many values the aliases of one document may stand for in all (each alias counts the values
of the node it repeats, keys included): the bound on repeats every prompt has."""

MAX_ALIAS_CHARS = MAX_REPEATED_CHARS
"""How many characters of text (keys included) the aliases of one document may stand for in all."""

TOO_MANY_DIGITS = (
    f"an integer has more than {sys.get_int_max_str_digits()} digits, more than Python converts; "
    "quote it to keep it as text"
)

_NO_JSON_FORM = {
    "tag:yaml.org,2002:set": "!!set has no JSON form: write a list",
    "tag:yaml.org,2002:omap": "!!omap has no JSON form: write a mapping (its order is kept)",
    "tag:yaml.org,2002:pairs": "!!pairs has no JSON form: write a list of mappings",
    "tag:yaml.org,2002:binary": "!!binary has no JSON form: write the base64 text without the tag",
    "tag:yaml.org,2002:timestamp": "!!timestamp has no JSON form: write the date as text without the tag",
}
"""The tags of PyYAML's safe loader that build something JSON has no value for."""

_YAML_12_CORE: list[tuple[str, str, list[str]]] = [
    ("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "tag:yaml.org,2002:float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+0123456789."),
    ),
    ("tag:yaml.org,2002:merge", r"^(?:<<)$", ["<"]),
]

_COLLECTION_KEY = "a mapping key must be text, not a list or a mapping"

_TRAILING_ZERO = re.compile(r"^[-+]?[0-9]*\.[0-9]*[1-9][0-9]*0$")
"""A decimal whose last digit is a zero after other decimals (``1.10``): reading it as a float
drops text the author wrote, the way a version number would be mangled."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


class YamlDataError(PromptwireError):
    """A YAML document that cannot be read as JSON data: the message names the document and,
    where known, the line and column."""


def load_yaml(text: str, label: str, warnings: list[str] | None = None) -> Any:
    """The JSON data of the one YAML document ``text``; ``label`` names it in messages.

    ``warnings`` receives one line per surprise a reader should know of (a number that loses
    digits of its text, such as a version ``1.10`` read as 1.1)."""
    import yaml

    half = _LONE_SURROGATE.search(text)
    if half is not None:
        line = text.count("\n", 0, half.start()) + 1
        column = half.start() - text.rfind("\n", 0, half.start())
        raise YamlDataError(
            f"{label}:{line}:{column}: half a character (\\u{ord(half.group()):04x}) is not text YAML can hold"
        )
    loader_class = _loader_class()
    try:
        _check_events(loader_class(text), label)
        loader = loader_class(text)
        loader.notes = []
        try:
            with nesting_room():
                return loader.get_single_data()
        finally:
            if warnings is not None:
                warnings.extend(f"{label}:{note}" for note in loader.notes)
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        if problem == _LIBYAML_TOO_DEEP:
            # libyaml (PyYAML >= 6.0.4 bundles it) stops at the same depth as we do, one step earlier.
            raise YamlDataError(f"{label}{where}: nested deeper than {MAX_DEPTH} levels") from None
        if problem in _OWN_PROBLEMS:
            raise YamlDataError(f"{label}{where}: {problem}") from None
        raise YamlDataError(f"{label}{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise YamlDataError(f"{label}: invalid YAML: {_one_line(str(exc))}") from None


_OWN_PROBLEMS = frozenset({TOO_MANY_DIGITS, _COLLECTION_KEY, *_NO_JSON_FORM.values()})
"""Problems this loader finds itself, told without the "invalid YAML" of the parser's own."""


def _loader_class() -> type:
    """A safe loader with YAML 1.2 core-schema scalars, text keys, duplicate-key checks and no
    value JSON lacks (libyaml if present)."""
    import yaml

    base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class JsonDataLoader(base):  # type: ignore[misc]
        yaml_implicit_resolvers: ClassVar[dict[str, list[tuple[str, re.Pattern[str]]]]] = {}

        def construct_yaml_int(self, node: Any) -> int:
            text = self.construct_scalar(node)
            if text.startswith("0o"):
                return int(text[2:], 8)
            if text.startswith("0x"):
                return int(text[2:], 16)
            try:
                return int(text, 10)
            except ValueError:  # more digits than Python converts
                raise yaml.constructor.ConstructorError(None, None, TOO_MANY_DIGITS, node.start_mark) from None

        def construct_yaml_float(self, node: Any) -> float:
            text = self.construct_scalar(node)
            number: float = super().construct_yaml_float(node)
            if _TRAILING_ZERO.match(text):
                mark = node.start_mark
                self.notes.append(
                    f"{mark.line + 1}:{mark.column + 1}: {text} is read as the number {number!r}; "
                    "quote it to keep the text"
                )
            return number

        def construct_no_json(self, node: Any) -> Any:
            raise yaml.constructor.ConstructorError(None, None, _NO_JSON_FORM[node.tag], node.start_mark)

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            written: set[str] = set()
            for key_node, _ in node.value:  # the keys written here: merged ones may be overridden
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = _key_text(key_node)
                if key in written:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
                written.add(key)
            self.flatten_mapping(node)  # merge keys (<<) in, before the keys written here, as PyYAML does
            return {_key_text(key): self.construct_object(value, deep=deep) for key, value in node.value}

    for tag, pattern, first in _YAML_12_CORE:
        JsonDataLoader.add_implicit_resolver(tag, re.compile(pattern), first)
    JsonDataLoader.add_constructor("tag:yaml.org,2002:int", JsonDataLoader.construct_yaml_int)
    JsonDataLoader.add_constructor("tag:yaml.org,2002:float", JsonDataLoader.construct_yaml_float)
    for tag in _NO_JSON_FORM:
        JsonDataLoader.add_constructor(tag, JsonDataLoader.construct_no_json)
    return JsonDataLoader


def _key_text(node: Any) -> str:
    """A mapping key as JSON has it: the text of the scalar as written (``200``, ``1.10``, ``true``)."""
    import yaml

    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(None, None, _COLLECTION_KEY, node.start_mark)
    text: str = node.value
    return text


def _check_events(loader: Any, label: str) -> None:
    """One pass over the parser's events (no recursion, no nodes built): refuse nesting deeper than
    MAX_DEPTH, an alias inside the node it names (a value containing itself), and aliases that stand
    for more than MAX_ALIAS_VALUES values or MAX_ALIAS_CHARS characters in all. Sizes are summed
    per anchor, so the pass stays linear however the aliases multiply."""
    import yaml

    sizes: dict[str, tuple[int, int]] = {}  # anchor -> values and characters of its node, aliases expanded
    open_nodes: list[list[Any]] = []  # [anchor, values, characters] of each collection being read
    by_aliases = [0, 0]

    def where(event: Any) -> str:
        return f"{label}:{event.start_mark.line + 1}:{event.start_mark.column + 1}"

    def close(anchor: str | None, values: int, chars: int) -> None:
        if anchor is not None:
            sizes[anchor] = (values, chars)
        if open_nodes:
            open_nodes[-1][1] += values
            open_nodes[-1][2] += chars

    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                open_nodes.append([event.anchor, 1, 0])
                if len(open_nodes) > MAX_DEPTH:
                    raise YamlDataError(f"{where(event)}: nested deeper than {MAX_DEPTH} levels")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, values, chars = open_nodes.pop()
                close(anchor, values, chars)
            elif isinstance(event, yaml.ScalarEvent):
                close(event.anchor, 1, len(event.value))
            elif isinstance(event, yaml.AliasEvent):
                values, chars = sizes.get(event.anchor or "", (0, 0))
                if not values and any(node[0] == event.anchor for node in open_nodes):
                    raise YamlDataError(f"{where(event)}: the value of &{event.anchor} contains itself")
                by_aliases[0] += values  # an undefined alias adds 0: the composer reports it
                by_aliases[1] += chars
                if by_aliases[0] > MAX_ALIAS_VALUES:
                    raise YamlDataError(
                        f"{where(event)}: YAML aliases stand for more than {MAX_ALIAS_VALUES} values "
                        "(a prompt file may not be an alias bomb)"
                    )
                if by_aliases[1] > MAX_ALIAS_CHARS:
                    raise YamlDataError(
                        f"{where(event)}: YAML aliases stand for more than {MAX_ALIAS_CHARS} characters "
                        "(a prompt file may not be an alias bomb)"
                    )
                close(None, values, chars)
    finally:
        loader.dispose()


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())
