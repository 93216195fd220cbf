"""``template``: a user's Jinja2 template renders the prompt, in a sandbox, with no Python to write.

The template is a file (``-o template=PATH``) or, from Python, text (``source=...``). It receives
the whole prompt as plain JSON data, ``prompt`` (``prompt.instruction``, ``prompt.context[0].value``
...), and says which text goes where with two blocks::

    {% block system %}You are {{ prompt.identity.role }}.{% endblock %}
    {% block user %}{{ prompt.instruction }}{% endblock %}

``user`` is required; ``system`` is optional, and a system text that renders empty is left out.
``tojson`` writes JSON as a model should read it (characters as they are, ``indent`` optional;
Jinja's own escapes ``<`` and ``&`` for HTML).

The template runs in Jinja2's ``SandboxedEnvironment`` with ``StrictUndefined``: attribute walks
to ``__class__``, ``__globals__`` or ``__subclasses__``, ``str.format`` tricks and the like raise a
security error, a name the template does not have is an error naming it, and there is no loader,
so ``include``, ``import`` and ``extends`` reach no file. Repetition (``'a' * n``, ``n ** m``) is
bounded. Every error names the template, its line and the reason. What the sandbox does not bound
is time: a template that loops for ever is trusted as the user's own code is.

Unlike the other formats this one reads a file (its template), and it expresses every field: the
template can read all of them, so none is reported as left out.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from ..core.errors import FieldError, PromptwireError
from ..core.prompt import SUB_FIELDS, Prompt
from ..core.rendered import Message, RenderedPrompt
from .base import unexpressed_fields

__all__ = ["MAX_REPEAT", "TemplateError", "TemplateRenderer", "renderer"]

MAX_REPEAT: Final = 1_000_000
"""The longest string or list ``*`` may build, and so the bound on ``**`` results' size in digits."""


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
        system, user = _render_blocks(name, text, prompt.model_dump(mode="json"))
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
    import jinja2.nodes
    import jinja2.sandbox

    environment = _environment()
    try:
        tree = environment.parse(text, name, name)
        for node in tree.find_all(
            (jinja2.nodes.Extends, jinja2.nodes.Include, jinja2.nodes.Import, jinja2.nodes.FromImport)
        ):
            raise TemplateError(name, node.lineno, _ONE_FILE)
        # Compiled under the template's name, so frames (and so our line numbers) point into it.
        code = environment.compile(tree, name, name)
        compiled = environment.template_class.from_code(environment, code, environment.make_globals(None))
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(name, exc.lineno, exc.message or "syntax error") from None
    if "user" not in compiled.blocks:
        raise TemplateError(name, None, "defines no {% block user %}: it says what the user message holds")
    context = compiled.new_context({"prompt": data})
    try:
        user = "".join(compiled.blocks["user"](context))
        system = "".join(compiled.blocks["system"](context)) if "system" in compiled.blocks else ""
    except jinja2.exceptions.SecurityError as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"refused by the sandbox: {exc}") from None
    except jinja2.UndefinedError as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"undefined: {exc.message}") from None
    except jinja2.TemplateError as exc:  # include/import/extends: there is no loader
        raise TemplateError(name, _line(exc.__traceback__, compiled), str(exc) or type(exc).__name__) from None
    except TypeError as exc:
        reason = f"TypeError: {exc}"
        if "no loader" in str(exc):
            reason = _ONE_FILE
        raise TemplateError(name, _line(exc.__traceback__, compiled), reason) from None
    except (ValueError, ArithmeticError, LookupError, RecursionError) as exc:
        raise TemplateError(name, _line(exc.__traceback__, compiled), f"{type(exc).__name__}: {exc}") from None
    return system.strip(), user.strip()


_ONE_FILE: Final = "include, import and extends are not available: a template is one file"


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

        class BoundedSandbox(jinja2.sandbox.SandboxedEnvironment):
            intercepted_binops = frozenset({"*", "**"})

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

        environment = BoundedSandbox(
            undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=True, loader=None
        )
        environment.filters["tojson"] = _tojson
        _ENVIRONMENT = environment
    return _ENVIRONMENT


def _tojson(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


renderer = TemplateRenderer()
