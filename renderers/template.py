"""``template``: a user's Jinja2 template renders the prompt, in a sandbox, with no Python to write.

The template is a file (``-o template=PATH``, relative to the working directory) or, from Python
or with ``-o source=TEXT``, its text; giving both or neither is an error. It receives the whole
prompt as plain data, ``prompt`` (``prompt.instruction``, ``prompt.context[0].value`` ...: the
model's field names, the shape ``Prompt.model_dump()`` gives), and says which text goes where
with two blocks::

    {% macro heading(text) %}## {{ text }}{% endmacro %}
    {% block system %}You are {{ prompt.identity.role }}.{% endblock %}
    {% block user %}{{ heading("Task") }}
    {{ prompt.instruction }}{% endblock %}

``user`` is required; ``system`` is optional, and a system text that renders empty is left out;
both are stripped of surrounding whitespace. Top-level ``set`` and ``macro`` are visible inside the
blocks; any other text or output outside them would go into no message, so it is an error (write
notes as ``{# comments #}``). As everywhere in Jinja, ``value.name`` finds a dictionary's method
before its key: ``value["items"]`` is the key. Two filters besides Jinja's own:

- ``tojson``: JSON as a model should read it (characters as they are, ``indent`` optional; Jinja's
  own escapes ``<`` and ``&`` for HTML);
- ``fit(budget, indent=2)``: a value's text (a string as it is, anything else as ``tojson``) cut to a
  context budget by the rule every format shares (:mod:`promptwire.core.fitting`), counted in code
  points: ``{{ item.value | fit(item.budget) }}`` shows what the prompt's author allowed.

The template runs in Jinja2's ``ImmutableSandboxedEnvironment`` with ``StrictUndefined``: attribute
walks to ``__class__``, ``__globals__`` or ``__subclasses__``, ``str.format`` tricks, changing the
prompt's lists and dictionaries and the like raise a security error; a name the template does not
have is an error naming it; there is no loader, so ``include``, ``import`` and ``extends`` reach
no file. Every error names the template, its line and the reason.

The sandbox bounds what a template can reach, not all it can compute: it is trusted with time and
memory as the user's own code is (a loop can run for ever; ``join``, ``replace``, ``center`` or a
format width can build a large string in one call). Against the accidents that are one
token long, ``*`` and ``**`` refuse results beyond ``MAX_REPEAT`` items or digits, ``range`` stops
at Jinja's ``MAX_RANGE``, and the text of a block (or of a ``set`` block, a macro call) beyond
``MAX_OUTPUT`` characters is refused as it is written.

Nothing is computed when a template is compiled: Jinja folds constant expressions then, calling
their filters outside the sandbox's bounds and the template's frames (``"x"|center(10**9)`` built
its gigabyte, wrote it into Python source and failed there with a MemoryError and no line). Every
expression runs when the template renders, where an error names its line.

Unlike the other formats this one reads a file (its template), and it expresses every field: the
template can read all of them, so none is reported as left out.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from pydantic import ValidationError

from ..core.budget import Budget
from ..core.errors import FieldError, PromptwireError
from ..core.fitting import TextForm, fit
from ..core.nesting import nesting_room
from ..core.prompt import SUB_FIELDS, Prompt
from ..core.rendered import Message, RenderedPrompt
from .base import unexpressed_fields

__all__ = ["MAX_OUTPUT", "MAX_REPEAT", "TemplateError", "TemplateRenderer", "renderer"]

MAX_REPEAT: Final = 1_000_000
"""The longest string or list ``*`` may build, and so the bound on ``**`` results' size in digits."""

MAX_OUTPUT: Final = 100_000_000
"""The most characters one block (or one ``set`` block or macro call inside it) may write."""


class TemplateError(PromptwireError):
    """A template that cannot render: ``name:line: reason``."""

    def __init__(self, name: str, line: int | None, reason: str) -> None:
        self.name = name
        self.line = line
        self.reason = reason
        super().__init__(f"{name}:{line}: {reason}" if line else f"{name}: {reason}")


class TemplateRenderer:
    name = "template"
    description = "a Jinja2 template of yours (-o template=PATH), sandboxed: blocks system and user"

    @property
    def fields(self) -> frozenset[str]:
        every = frozenset(name for name in Prompt.model_fields if name != "config") | frozenset(SUB_FIELDS)
        return every | {"native.agens"}

    def render(
        self, prompt: Prompt, *, template: str | Path | None = None, source: str | None = None, strict: bool = False
    ) -> RenderedPrompt:
        name, text = _template_text(template, source)
        expressible = self.fields | {f"native.{dialect}" for dialect in prompt.native}
        warnings = unexpressed_fields(prompt, self.name, expressible, strict=strict)
        # Python mode, not JSON mode: pydantic's JSON mode refuses values nested some 250 levels
        # deep, and a prompt may nest up to MAX_DEPTH. Validated prompt data is plain data already.
        system, user = _render_blocks(name, text, prompt.model_dump())
        messages = ((Message("system", system),) if system else ()) + (Message("user", user),)
        return RenderedPrompt(
            format=self.name,
            messages=messages,
            text=None if system else user,
            warnings=warnings,
            tools=tuple(prompt.tools),
            output=prompt.output,
        )


def _template_text(template: str | Path | None, source: str | None) -> tuple[str, str]:
    if (template is None) == (source is None):
        raise FieldError(
            "template", "the template format needs a template: -o template=PATH (a Jinja2 file), or source=TEXT"
        )
    if source is not None:
        if not isinstance(source, str):
            raise FieldError("source", f"must be the template's text, got {type(source).__name__}")
        return "<template>", source
    if not isinstance(template, str | Path):
        raise FieldError("template", f"must be a path to a Jinja2 file, got {type(template).__name__}")
    path = Path(template)
    try:
        return str(template), path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FieldError("template", f"no such file: {template}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FieldError("template", f"cannot read {template}: {getattr(exc, 'strerror', None) or exc}") from None


def _render_blocks(name: str, text: str, data: dict[str, Any]) -> tuple[str, str]:
    import jinja2

    compiled = _compile(name, text)
    context = compiled.new_context({"prompt": data})
    try:
        with nesting_room():  # tojson and printing walk values as deep as the prompt's
            _run_top_level(compiled, context)
            system = _joined(compiled.blocks["system"](context)) if "system" in compiled.blocks else ""
            user = _joined(compiled.blocks["user"](context))
    except jinja2.exceptions.SecurityError as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"refused by the sandbox: {exc}") from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"undefined: {exc.message}") from None
    except jinja2.TemplateError as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), str(exc) or type(exc).__name__) from None
    except MemoryError as exc:  # a width or a repeat too large to build ("x"|center(10**12))
        reason = "a value too large to build in memory (MemoryError)"
        raise TemplateError(name, _line(exc.__traceback__, compiled), reason) from None
    except (TypeError, ValueError, ArithmeticError, LookupError, RecursionError) as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"{type(exc).__name__}: {exc}") from None
    return system.strip(), user.strip()


@functools.lru_cache(maxsize=16)
def _compile(name: str, text: str) -> Any:
    """The template, checked: one file, a ``user`` block, no output outside the blocks.

    Cached, since a program renders with the same template at each ``generate``; a compiled
    template keeps no state between renders (each gets a new context).
    """
    import jinja2
    import jinja2.nodes as nodes

    environment = _environment()
    try:
        tree = environment.parse(text, name, name)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(name, exc.lineno, exc.message or "syntax error") from None
    except ValueError:  # the lexer's int() of a literal longer than Python converts
        raise _long_number(name, environment, text) from None
    for node in tree.find_all((nodes.Extends, nodes.Include, nodes.Import, nodes.FromImport)):
        raise TemplateError(name, node.lineno, "include, import and extends are not available: a template is one file")
    if not any(block.name == "user" for block in tree.find_all(nodes.Block)):
        raise TemplateError(name, None, "defines no {% block user %}: it says what the user message holds")
    for line in _output_outside_the_blocks(tree):
        raise TemplateError(name, line, "text outside {% block system %} and {% block user %} goes into no message")
    try:
        # Compiled under the template's name, so frames (and so our line numbers) point into it.
        code = environment.compile(tree, name, name)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(name, exc.lineno, exc.message or "syntax error") from None
    except ValueError:  # a literal (0x...) that Python reads but cannot write back as digits
        raise _long_number(name, environment, text) from None
    return environment.template_class.from_code(environment, code, environment.make_globals(None))


def _long_number(name: str, environment: Any, text: str) -> TemplateError:
    """The error for an integer literal of more digits than Python reads or writes
    (``sys.get_int_max_str_digits()``), at its line: the lexer's raw tokens are not converted to
    values, so reading them cannot fail the same way."""
    limit = sys.get_int_max_str_digits()
    found = None
    for line, kind, value in environment.lex(text):
        if kind == "integer" and _too_many_digits(value, limit):
            found = int(line)
            break
    return TemplateError(name, found, f"a number of more than {limit} digits, more than Python reads")


def _too_many_digits(literal: str, limit: int) -> bool:
    try:
        number = int(literal.replace("_", ""), 0)
    except ValueError:
        return True
    return abs(number).bit_length() * 0.30103 > limit - 1


def _output_outside_the_blocks(tree: Any) -> Iterator[int]:
    """The lines where something is written outside the blocks and macros (whitespace aside)."""
    import jinja2.nodes as nodes

    pending = list(tree.iter_child_nodes())[::-1]  # a stack, so the first in the file comes first
    while pending:
        node = pending.pop()
        if isinstance(node, nodes.Block | nodes.Macro | nodes.AssignBlock):
            continue
        if isinstance(node, nodes.CallBlock):
            yield node.lineno
        elif isinstance(node, nodes.Output):
            for part in node.nodes:
                if not isinstance(part, nodes.TemplateData):
                    yield part.lineno
                elif part.data.strip():
                    yield part.lineno + part.data[: len(part.data) - len(part.data.lstrip())].count("\n")
        else:
            pending.extend(list(node.iter_child_nodes())[::-1])


def _run_top_level(compiled: Any, context: Any) -> None:
    """Run the template outside its blocks, so its top-level ``set`` and ``macro`` are defined."""
    blocks = context.blocks
    context.blocks = {block: [_nothing] for block in blocks}
    try:
        for _ in compiled.root_render_func(context):
            pass
    finally:
        context.blocks = blocks


def _nothing(context: Any) -> Iterator[str]:
    return iter(())


def _joined(chunks: Iterable[str]) -> str:
    kept = []
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > MAX_OUTPUT:
            from jinja2.exceptions import SecurityError

            raise SecurityError(f"the text would be longer than {MAX_OUTPUT} characters")
        kept.append(chunk)
    return "".join(kept)


def _line(trace: TracebackType | None, compiled: Any) -> int | None:
    """The template line of the innermost frame that runs the template's compiled code."""
    line = None
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == compiled.filename:
            line = compiled.get_corresponding_lineno(trace.tb_lineno)
        trace = trace.tb_next
    return line


_ENVIRONMENT: Any = None


def _environment() -> Any:
    """One sandboxed environment, built on first use (importing Jinja2 costs start-up time)."""
    global _ENVIRONMENT
    if _ENVIRONMENT is None:
        import jinja2
        import jinja2.sandbox

        class BoundedSandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
            intercepted_binops = frozenset({"*", "**"})
            concat = staticmethod(_joined)  # the text of set blocks, macro and block calls

            def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
                if operator == "*" and any(
                    isinstance(seq, str | list | tuple) and isinstance(times, int) and len(seq) * times > MAX_REPEAT
                    for seq, times in ((left, right), (right, left))
                ):
                    raise jinja2.exceptions.SecurityError(f"'*' would build more than {MAX_REPEAT} items")
                if (
                    operator == "**"
                    and isinstance(left, int)
                    and isinstance(right, int)
                    and right > 0
                    and abs(left) > 1
                    and right * abs(left).bit_length() > MAX_REPEAT * 3
                ):
                    raise jinja2.exceptions.SecurityError(f"'**' would build a number of more than {MAX_REPEAT} digits")
                return super().call_binop(context, operator, left, right)

        # Nothing is computed when the template is compiled: Jinja would otherwise fold constant
        # expressions (``"x"|center(10**9)``) by calling the filter then, outside the sandbox's
        # bounds and the template's frames, and write the value into Python source to compile, a
        # MemoryError with no line. Unoptimized, with a finalize that needs the context (which no
        # output can be folded through), every expression runs when the template renders.
        environment = BoundedSandbox(
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            loader=None,
            optimized=False,
            finalize=jinja2.pass_context(_shown),
        )
        environment.filters["tojson"] = _tojson
        environment.filters["fit"] = _fit
        _ENVIRONMENT = environment
    return _ENVIRONMENT


def _shown(context: Any, value: Any) -> Any:
    """What an expression's output shows: its value, as Jinja shows it (see :func:`_environment`)."""
    return value


def _tojson(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _fit(value: Any, budget: Any = None, indent: int | None = 2) -> str:
    """The value's text (a string as it is, anything else as ``tojson``) fitted to a context budget."""
    try:
        limit = None if budget is None else Budget.model_validate(budget).context_limit
    except ValidationError:
        raise ValueError(f"fit takes a budget (like 500, '2k' or an item's budget), got {budget!r}") from None
    form = TextForm(text=lambda kept: kept if isinstance(kept, str) else _tojson(kept, indent))
    return fit(value, limit, form).text


renderer = TemplateRenderer()
