"""What a run reads besides a program: prompt data files, a program's input, canned model replies.

Each is a file someone else wrote, read without letting it take the machine. A prompt file is
untrusted input: its size is bounded before it is read, its nesting before it is
built, and YAML aliases before they are expanded (a 400-byte "billion laughs" file would otherwise
grow to gigabytes). JSON is read by JSON's own parser (recognised by content as well as by name);
YAML through :mod:`promptwire.core.yaml_data` (libyaml when installed, the YAML 1.2 core schema), so ``NO`` stays a string and
``1.10`` stays 1.10 instead of PyYAML's YAML 1.1 guesses. A key given twice is refused, not
silently overwritten. Every failure is a :class:`PromptFileError` with the file and, where known,
the line and column. A program's input and its canned replies are read the same way, with their
numbers as the reference's ``JSON.parse`` gives them (:func:`program_input`, :func:`canned_responses`);
``--responses`` may also name a recording of a real run (:func:`model_replies`).
"""

from __future__ import annotations

import functools
import json
import re
from typing import TYPE_CHECKING, Any

from ..core.errors import PromptwireError
from ..core.nesting import MAX_DEPTH, nesting_room
from ..core.printable import half_characters
from ..core.text_files import DEFAULT_MAX_BYTES, read_text

if TYPE_CHECKING:
    from ..calls.recording import Recording
    from ..core.prompt import Prompt

__all__ = [
    "DEFAULT_MAX_BYTES",
    "PromptFileError",
    "body_model",
    "canned_responses",
    "model_replies",
    "parse_data",
    "program_input",
    "starts_a_program",
]


class PromptFileError(PromptwireError):
    """A prompt file that cannot be read: the message names the file and, where known, line:col."""


def program_input(inline: str | None, file: str | None, max_bytes: int, *, text: str | None = None) -> dict[str, Any]:
    """The program's input: the ``--input`` text, else the file's, else ``{}``; a JSON object.
    ``text`` is the file's text when the caller read it already (through a run's permissions)."""
    from ..renderers.agentscript.jsjson import js_numbers  # a program's rule: a prompt file needs none of it

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


def body_model(prompt: Prompt, reader: str, field: str) -> tuple[Prompt, str | None]:
    """The model a provider's request body names, read by ``reader`` (``--from openai-chat``...),
    which kept the body's ``field`` under ``native[reader]``: the prompt without it, and the model.
    A run asks for that model as a program's calls ask for their own (``--model`` replaces it; a
    URI naming a server is checked as a program's is); taken out, the format does not report it
    left out (``native.openai-chat``) when it is used. What else the reader kept is still
    reported. A body naming none (or not as text) gives the prompt as it is, and ``None``."""
    kept = prompt.native.get(reader)
    if not isinstance(kept, dict) or not isinstance(kept.get(field), str):
        return prompt, None
    model: str = kept[field]
    native = {name: value for name, value in prompt.native.items() if name != reader}
    rest = {key: value for key, value in kept.items() if key != field}
    if rest:
        native[reader] = rest
    return prompt.model_copy(update={"native": native}), model


def canned_responses(file: str | None, max_bytes: int, *, text: str | None = None) -> tuple[Any, ...]:
    """The replies the offline adapter gives in order, from a JSON array; none without a file.
    ``text`` is the file's text when the caller read it already (through a run's permissions)."""
    from ..renderers.agentscript.jsjson import js_numbers

    if file is None:
        return ()
    responses = parse_data(read_text(file, file, max_bytes) if text is None else text, file, json_by_name=True)
    if not isinstance(responses, list):
        raise PromptFileError(f"{file}: canned responses must be a JSON array")
    return tuple(js_numbers(responses))


def model_replies(
    file: str | None, max_bytes: int, *, text: str | None = None, accept_drift: bool = False
) -> tuple[tuple[Any, ...], Recording | None]:
    """What answers a run's calls offline, from ``--responses FILE``: canned replies (a JSON array,
    :func:`canned_responses`), or a recording of a real run, recognised by its header line
    (:mod:`promptwire.calls.recording`), which ``accept_drift`` lets answer requests that changed."""
    if file is None:
        return (), None
    if text is None:
        text = read_text(file, file, max_bytes)
    if text.lstrip("\ufeff \t\r\n")[:1] == "{":  # canned replies are an array: a run with them imports no more
        from ..calls.recording import Recording, is_recording

        if is_recording(text):
            return (), Recording.parse(text, file, accept_drift=accept_drift)
    return canned_responses(file, max_bytes, text=text), None


def starts_a_program(text: str) -> bool:
    """Whether text on standard input is an AgentScript program rather than prompt data: its first
    word (after blank lines and ``//`` comments, which no JSON or YAML starts with) is ``import``,
    ``main`` or ``agent`` and is not a YAML key (``import:``). Every program starts so; prompt data,
    a JSON value or a YAML mapping of the prompt's keys, never does."""
    return _program_start().match(text) is not None


@functools.cache
def _program_start() -> re.Pattern[str]:
    """How every program starts (see :func:`starts_a_program`); compiled when first asked for: only
    text on standard input is asked."""
    return re.compile(r"\ufeff?(?:\s|//[^\n]*)*(?:import|main|agent)(?=[ \t\r\n{])")


def parse_data(text: str, label: str, *, json_by_name: bool = False, warnings: list[str] | None = None) -> Any:
    """The data in ``text``: JSON when named so or when it starts like JSON and parses, else YAML.

    ``warnings`` receives one line per surprise a reader should know of (a YAML number that loses
    digits of its text, such as a version ``1.10`` read as 1.1).
    """
    half = None if text.isascii() else half_characters().search(text)
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
        from ..core.yaml_data import TOO_MANY_DIGITS  # the YAML reader's words; it is loaded only for YAML

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


@functools.cache
def _json_openers() -> re.Pattern[str]:
    """What opens and closes a JSON container, strings skipped whole; compiled when first asked for
    (only data read from text is measured)."""
    return re.compile(r'[\[{]|"(?:[^"\\]|\\.)*"|[\]}]')


def _check_json_depth(text: str, label: str) -> None:
    """Refuse nesting deeper than MAX_DEPTH before JSON's recursive decoder meets it."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    depth = 0
    for match in _json_openers().finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise PromptFileError(f"{label}:{line}: nested deeper than {MAX_DEPTH} levels")
        elif token in "]}":
            depth -= 1


# --- YAML ----------------------------------------------------------------------------------------


def _parse_yaml(text: str, label: str, warnings: list[str]) -> Any:
    from ..core.yaml_data import YamlDataError, load_yaml

    try:
        return load_yaml(text, label, warnings)
    except YamlDataError as exc:
        raise PromptFileError(str(exc)) from None
