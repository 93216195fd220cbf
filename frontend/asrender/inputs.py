"""What a run reads besides a program: prompt data files, a program's input, canned model replies.

Each is a file someone else wrote, read without letting it take the machine. A prompt file is
untrusted input: its size is bounded before it is read, its nesting before it is
built, and YAML aliases before they are expanded (a 400-byte "billion laughs" file would otherwise
grow to gigabytes). JSON is read by JSON's own parser (recognised by content as well as by name);
YAML by libyaml when it is installed, with the YAML 1.2 core schema, so ``NO`` stays a string and
``1.10`` stays 1.10 instead of PyYAML's YAML 1.1 guesses. A key given twice is refused, not
silently overwritten. Every failure is a :class:`PromptFileError` with the file and, where known,
the line and column. A program's input and its canned replies are read the same way, with their
numbers as the reference's ``JSON.parse`` gives them (:func:`program_input`, :func:`canned_responses`).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, ClassVar

from ...core.errors import PromptwireError
from ...core.nesting import MAX_DEPTH, nesting_room
from ...core.text_files import DEFAULT_MAX_BYTES, read_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "MAX_EXPANDED_CHARACTERS",
    "MAX_EXPANDED_NODES",
    "PromptFileError",
    "canned_responses",
    "parse_data",
    "program_input",
]

MAX_EXPANDED_NODES = 1_000_000
"""How many values the aliases of one YAML document may stand for in all (each alias counts the
values of the node it repeats). Aliases let a few bytes stand for an exponential tree that every
renderer would print; what is written out is bounded by the file size instead."""

MAX_EXPANDED_CHARACTERS = 16 * 2**20
"""How many characters of text the aliases of one YAML document may stand for in all (each alias
counts the characters of every scalar, key or value, in the node it repeats). Counting values alone
let a 1.6 MB file repeat one 512 KiB scalar 100,000 times: 50 GB of text to render (20 GiB of
memory in two minutes before it was stopped)."""


TOO_MANY_DIGITS = (
    f"an integer has more than {sys.get_int_max_str_digits()} digits, more than Python converts; "
    "quote it to keep it as text"
)


class PromptFileError(PromptwireError):
    """A prompt file that cannot be read: the message names the file and, where known, line:col."""


def program_input(inline: str | None, file: str | None, max_bytes: int, *, text: str | None = None) -> dict[str, Any]:
    """The program's input: the ``--input`` text, else the file's, else ``{}``; a JSON object.
    ``text`` is the file's text when the caller read it already (through a run's permissions)."""
    from ...renderers.agentscript.jsjson import js_numbers  # a program's rule: a prompt file needs none of it

    if inline is not None:
        text, label = inline, "--input"
    elif file is not None:
        text, label = read_text(file, file, max_bytes) if text is None else text, file
    else:
        return {}
    value = js_numbers(parse_data(text, label, json_by_name=True))
    if not isinstance(value, dict):
        raise PromptFileError(f"{label} must be a JSON object")
    return value


def canned_responses(file: str | None, max_bytes: int, *, text: str | None = None) -> tuple[Any, ...]:
    """The replies the offline adapter gives in order, from a JSON array; none without a file.
    ``text`` is the file's text when the caller read it already (through a run's permissions)."""
    from ...renderers.agentscript.jsjson import js_numbers

    if file is None:
        return ()
    responses = parse_data(read_text(file, file, max_bytes) if text is None else text, file, json_by_name=True)
    if not isinstance(responses, list):
        raise PromptFileError(f"{file}: canned responses must be a JSON array")
    return tuple(js_numbers(responses))


def parse_data(text: str, label: str, *, json_by_name: bool = False, warnings: list[str] | None = None) -> Any:
    """The data in ``text``: JSON when named so or when it starts like JSON and parses, else YAML.

    ``warnings`` receives one line per surprise a reader should know of (a YAML number that loses
    digits of its text, such as a version ``1.10`` read as 1.1).
    """
    half = _SURROGATE.search(text)
    if half is not None:  # only bytes that are not UTF-8 (an argument, say) decode to one
        raise PromptFileError(f"{label}: not UTF-8 text at character {half.start()} (an undecodable byte)")
    if json_by_name:
        return _parse_json(text, label)
    if text.lstrip(" \t\r\n")[:1] in ("{", "["):
        try:
            return _parse_json(text, label)
        except _NotJson:
            pass  # a YAML flow collection such as ``{a: 1}``: let YAML read it
    return _parse_yaml(text, label, [] if warnings is None else warnings)


_SURROGATE = re.compile("[\ud800-\udfff]")


# --- JSON ----------------------------------------------------------------------------------------


class _NotJson(PromptFileError):
    """Text that JSON's parser refuses (raised only to fall back to YAML for a file not named .json)."""


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _parse_json(text: str, label: str) -> Any:
    _check_json_depth(text, label)
    try:
        with nesting_room():
            return json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as exc:
        raise _NotJson(f"{label}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except ValueError:  # Python's limit on the digits of an integer it converts
        raise PromptFileError(f"{label}: {TOO_MANY_DIGITS}") from None
    except _DuplicateKey as exc:
        raise PromptFileError(f"{label}{_second_key_line(text, exc.key)}: duplicate key {exc.key!r}") from None


def _second_key_line(text: str, key: str) -> str:
    """``:LINE`` of the key's second appearance as an object key (JSON's parser gives no position)."""
    pattern = re.compile(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:")
    matches = pattern.finditer(text)
    next(matches, None)
    second = next(matches, None)
    return "" if second is None else f":{text.count(chr(10), 0, second.start()) + 1}"


_JSON_OPENERS = re.compile(r'[\[{]|"(?:[^"\\]|\\.)*"|[\]}]')


def _check_json_depth(text: str, label: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before JSON's recursive decoder meets it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for match in _JSON_OPENERS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise PromptFileError(f"{label}:{line}: nested deeper than {MAX_DEPTH} levels")
        elif token in "]}":
            depth -= 1


# --- YAML ----------------------------------------------------------------------------------------

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


def _loader_class() -> type:
    """A safe loader with YAML 1.2 core-schema scalars and duplicate-key checks (libyaml if present)."""
    import yaml

    base: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class PromptLoader(base):  # type: ignore[misc]
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

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[Any, Any]:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"duplicate key {key!r}", key_node.start_mark
                        )
                    seen.add(key)
                except TypeError:  # an unhashable key: the base class says so
                    break
            result: dict[Any, Any] = super().construct_mapping(node, deep)
            return result

    for tag, pattern, first in _YAML_12_CORE:
        PromptLoader.add_implicit_resolver(tag, re.compile(pattern), first)
    PromptLoader.add_constructor("tag:yaml.org,2002:int", PromptLoader.construct_yaml_int)
    PromptLoader.add_constructor("tag:yaml.org,2002:float", PromptLoader.construct_yaml_float)
    return PromptLoader


_TRAILING_ZERO = re.compile(r"^[-+]?[0-9]*\.[0-9]*[1-9][0-9]*0$")
"""A decimal whose last digit is a zero after other decimals (``1.10``): reading it as a float
drops text the author wrote, the way a version number would be mangled."""


_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


def _parse_yaml(text: str, label: str, warnings: list[str]) -> Any:
    import yaml

    loader_class = _loader_class()
    try:
        _check_events(loader_class(text), label)
        loader = loader_class(text)
        loader.notes = []
        try:
            with nesting_room():
                return loader.get_single_data()
        finally:
            warnings.extend(f"{label}:{note}" for note in loader.notes)
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = exc.problem or exc.context or "invalid YAML"
        if problem == _LIBYAML_TOO_DEEP:
            # libyaml (PyYAML >= 6.0.4 bundles it) stops at the same depth as we do, one step earlier.
            raise PromptFileError(f"{label}{where}: nested deeper than {MAX_DEPTH} levels") from None
        raise PromptFileError(f"{label}{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise PromptFileError(f"{label}: invalid YAML: {_first_line(str(exc))}") from None


def _check_events(loader: Any, label: str) -> None:
    """One pass over the parser's events (no recursion, no nodes built): refuse nesting deeper than
    MAX_DEPTH, an alias inside the node it names (a value containing itself), and aliases that stand
    for more than MAX_EXPANDED_NODES values or MAX_EXPANDED_CHARACTERS characters in all. Sizes are
    summed per anchor, so the pass stays linear however the aliases multiply."""
    import yaml

    # anchor -> (values, characters) of the node it names, aliases expanded
    sizes: dict[str, tuple[int, int]] = {}
    open_nodes: list[list[Any]] = []  # [anchor, values so far, characters so far] of each open collection
    nodes_by_aliases = characters_by_aliases = 0

    def where(event: Any) -> str:
        return f"{label}:{event.start_mark.line + 1}:{event.start_mark.column + 1}"

    def close(anchor: str | None, nodes: int, characters: int) -> None:
        if anchor is not None:
            sizes[anchor] = (nodes, characters)
        if open_nodes:
            open_nodes[-1][1] += nodes
            open_nodes[-1][2] += characters

    try:
        while loader.check_event():
            event = loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                open_nodes.append([event.anchor, 1, 0])
                if len(open_nodes) > MAX_DEPTH:
                    raise PromptFileError(f"{where(event)}: nested deeper than {MAX_DEPTH} levels")
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, nodes, characters = open_nodes.pop()
                close(anchor, nodes, characters)
            elif isinstance(event, yaml.ScalarEvent):
                close(event.anchor, 1, len(event.value))
            elif isinstance(event, yaml.AliasEvent):
                nodes, characters = sizes.get(event.anchor or "", (0, 0))
                if not nodes and any(node[0] == event.anchor for node in open_nodes):
                    raise PromptFileError(f"{where(event)}: the value of &{event.anchor} contains itself")
                nodes_by_aliases += nodes  # an undefined alias adds 0: the composer reports it
                characters_by_aliases += characters
                if nodes_by_aliases > MAX_EXPANDED_NODES:
                    raise PromptFileError(
                        f"{where(event)}: YAML aliases stand for more than {MAX_EXPANDED_NODES} values "
                        "(a prompt file may not be an alias bomb)"
                    )
                if characters_by_aliases > MAX_EXPANDED_CHARACTERS:
                    raise PromptFileError(
                        f"{where(event)}: YAML aliases stand for more than {MAX_EXPANDED_CHARACTERS} characters "
                        "(a prompt file may not be an alias bomb)"
                    )
                close(None, nodes, characters)
    finally:
        loader.dispose()


def _first_line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())
