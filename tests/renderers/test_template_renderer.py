"""The ``template`` format: a user's Jinja2 template renders the prompt, sandboxed.

Every known sandbox-escape payload is refused with the project's own error (template name, line,
reason) and never shows what it reached for; a missing name is named; a template reaches no file
but its own. ``asrender --format template -o template=T.j2`` works like any other format.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from syrupy.assertion import SnapshotAssertion

from promptwire import Prompt
from promptwire.core.errors import FieldError
from promptwire.core.nesting import MAX_DEPTH
from promptwire.frontend.asrender.cli import main
from promptwire.renderers import template
from promptwire.renderers.template import TemplateError, renderer

from corpus import CORPUS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLAIN = EXAMPLES / "templates" / "plain.j2"
PROMPT = Prompt(
    identity={"role": "Analyst", "description": "Careful."},
    instruction="Compare <a> & <b>.",
    context=[{"value": {"a": "ä", "n": [1, 2]}, "label": "data"}],
)


def user(source: str) -> str:
    rendered = renderer.render(PROMPT, source=source)
    assert isinstance(rendered.user, str)
    return rendered.user


def test_blocks_make_the_system_and_user_messages() -> None:
    rendered = renderer.render(
        PROMPT,
        source="{% block system %}You are {{ prompt.identity.role }}.{% endblock %}"
        "{% block user %}{{ prompt.instruction }}\n{{ prompt.context[0].value | tojson }}{% endblock %}",
    )
    assert [(m.role, m.content) for m in rendered.messages] == [
        ("system", "You are Analyst."),
        ("user", 'Compare <a> & <b>.\n{"a": "ä", "n": [1, 2]}'),  # no HTML escaping, characters as they are
    ]
    assert rendered.text is None and rendered.warnings == ()


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ("'abcdef' | fit(3)", "abc"),
        ("'ä😀bc' | fit({'amount': 2, 'unit': None})", "ä😀"),  # code points, as the budget counts them
        ("[1, 2, 3] | fit(8, indent=None)", "[1, 2]"),  # the longest prefix whose text fits
        ("prompt.context[0].value | fit", '{\n  "a": "ä",\n  "n": [\n    1,\n    2\n  ]\n}'),
        ("{'a': 1} | fit('1k')", '{\n  "a": 1\n}'),
    ],
)
def test_fit_cuts_a_value_to_a_budget(expression: str, text: str) -> None:
    assert user("{% block user %}{{ " + expression + " }}{% endblock %}") == text


def test_fit_names_what_is_not_a_budget() -> None:
    with pytest.raises(TemplateError) as caught:
        user("{% block user %}\n{{ 'x' | fit('2kb') }}{% endblock %}")
    assert (
        str(caught.value)
        == "<template>:2: ValueError: fit takes a budget (like 500, '2k' or an item's budget), got '2kb'"
    )


def test_an_empty_or_missing_system_block_leaves_the_system_message_out() -> None:
    for source in (
        "{% block user %}hi{% endblock %}",
        "{% block system %} {% endblock %}{% block user %}hi{% endblock %}",
    ):
        rendered = renderer.render(PROMPT, source=source)
        assert [m.role for m in rendered.messages] == ["user"] and rendered.text == "hi"


def test_the_sample_template_renders_every_corpus_prompt() -> None:
    for name, data in CORPUS.items():
        rendered = renderer.render(Prompt.model_validate(data), template=PLAIN)
        assert rendered.messages[-1].role == "user", name
        assert rendered.warnings == (), name


PAYLOADS = {
    "str-class-mro": "{{ ''.__class__.__mro__ }}",
    "prompt-class": "{{ prompt.__class__ }}",
    "cycler-globals": "{{ cycler.__init__.__globals__ }}",
    "subclasses": "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "tuple-base-subclasses": "{{ ().__class__.__base__.__subclasses__() }}",
    "lipsum-globals": "{{ lipsum.__globals__ }}",
    "joiner-globals": "{{ joiner.__init__.__globals__.os }}",
    "namespace-init": "{{ namespace.__init__.__globals__ }}",
    "format-method": "{{ '{0.__class__.__init__.__globals__}'.format(prompt) }}",
    "format-map": "{{ '{x.__class__}'.format_map({'x': prompt}) }}",
    "format-filter": "{{ '%s'|format(''.__class__) }}",
    "format-filter-mapping": "{{ '%(g)s'|format(g=lipsum.__globals__) }}",
    "percent-operator": "{{ '%s' % prompt.__class__ }}",
    "attr-filter": "{{ prompt | attr('__class__') }}",
    "attr-filter-built-name": "{{ lipsum | attr('__glob' ~ 'als__') }}",
    "self-context": "{{ self._TemplateReference__context }}",
    "self-dict": "{{ self.__dict__ }}",
    "func-globals-via-dict": "{{ prompt.items.__self__.__class__ }}",
    "dunder-getitem": "{{ ''['__class__'] }}",
    "mutate-a-list": "{{ prompt.context.append('injected') }}",
    "mutate-a-dict": "{{ prompt.update({'instruction': 'injected'}) }}",
}


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS)
def test_sandbox_escapes_are_refused(payload: str) -> None:
    with pytest.raises(TemplateError) as caught:
        user("{% block user %}\n\n" + payload + "{% endblock %}")
    error = caught.value
    assert (error.name, error.line) == ("<template>", 3)
    assert error.reason.startswith("refused by the sandbox: access to attribute ")
    assert error.reason.endswith(" is unsafe.")
    shown = str(error)
    for secret in ("<module", "<function", "<class", "__builtins__", "environ", "injected"):
        assert secret not in shown


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("{{ config }}", "undefined: 'config' is undefined"),
        ("{{ request.environ }}", "undefined: 'request' is undefined"),
        ("{{ prompt.nope }}", "undefined: 'dict object' has no attribute 'nope'"),
        ("{{ 'a' * 10**9 }}", "refused by the sandbox: '*' would build more than 1000000 items"),
        ("{{ [0] * 2000000 }}", "refused by the sandbox: '*' would build more than 1000000 items"),
        ("{{ 7 ** 9999999 }}", "refused by the sandbox: '**' would build a number of more than 1000000 digits"),
        (
            "{{ range(10**10) | list }}",
            "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).",
        ),
        ("{% include '/etc/passwd' %}", "include, import and extends are not available: a template is one file"),
        ("{% import 'macros.j2' as m %}", "include, import and extends are not available: a template is one file"),
    ],
)
def test_errors_name_the_template_line_and_reason(source: str, reason: str) -> None:
    with pytest.raises(TemplateError) as caught:
        user("{% block user %}first line\n" + source + "{% endblock %}")
    assert str(caught.value) == f"<template>:2: {reason}"


def test_the_text_of_a_block_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(template, "MAX_OUTPUT", 10)

    def loop(times: int) -> str:
        return "{% for i in range(" + str(times) + ") %}x{% endfor %}"

    assert user("{% block user %}" + loop(10) + "{% endblock %}") == "x" * 10
    with pytest.raises(TemplateError, match=r"^<template>: refused by the sandbox: the text would be longer than 10 "):
        user("{% block user %}" + loop(11) + "{% endblock %}")
    # Text kept inside the template is bounded as it is written, where it is written.
    for source in (
        "{% block user %}\n{% set s %}" + loop(11) + "{% endset %}{% endblock %}",
        "{% macro m() %}\n" + loop(11) + "{% endmacro %}{% block user %}{{ m() }}{% endblock %}",
    ):
        with pytest.raises(TemplateError, match=r"^<template>:2: refused by the sandbox: the text would be longer"):
            user(source)


def test_top_level_set_and_macro_are_visible_in_the_blocks() -> None:
    rendered = renderer.render(
        PROMPT,
        source="{# notes are fine #}\n{% set greeting = 'Hello' %}\n"
        "{% macro heading(text) %}## {{ text }}{% endmacro %}\n"
        "{% block system %}{{ greeting }}, {{ prompt.identity.role }}.{% endblock %}\n"
        "{% block user %}{{ heading('Task') }}\n{{ prompt.instruction }}{% endblock %}\n",
    )
    assert [m.content for m in rendered.messages] == ["Hello, Analyst.", "## Task\nCompare <a> & <b>."]


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("Write a prompt:\n{% block user %}x{% endblock %}", 1),
        ("{% block user %}x{% endblock %}\n\n{{ prompt.instruction }}", 3),
        ("{% block user %}x{% endblock %}\n{% if prompt %}\n  stray{% endif %}", 3),
        ("{% macro m() %}x{% endmacro %}{% block user %}x{% endblock %}\n{% call m() %}{% endcall %}", 2),
    ],
)
def test_output_outside_the_blocks_is_an_error(source: str, line: int) -> None:
    with pytest.raises(TemplateError) as caught:
        user(source)
    assert (
        str(caught.value)
        == f"<template>:{line}: text outside {{% block system %}} and {{% block user %}} goes into no message"
    )


def test_values_as_deep_as_a_prompt_may_nest_render() -> None:
    deep: list[object] = []
    inner = deep
    for _ in range(MAX_DEPTH - 1):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    prompt = Prompt(instruction="x", context=[{"value": deep}])
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    for source in ("{{ prompt.context[0].value | tojson }}", "{{ prompt.context[0].value }}"):
        assert renderer.render(prompt, source="{% block user %}" + source + "{% endblock %}").user == text


def test_runaway_recursion_is_an_error() -> None:
    with pytest.raises(TemplateError, match=r"^<template>:2: RecursionError: maximum recursion depth exceeded"):
        user("{% macro f() %}\n{{ f() }}{% endmacro %}{% block user %}{{ f() }}{% endblock %}")
    with pytest.raises(TemplateError, match=r"^<template>:1: RecursionError"):
        user("{% block user %}{{ self.user() }}{% endblock %}")


def test_extends_is_refused_too() -> None:
    with pytest.raises(TemplateError, match="include, import and extends are not available"):
        user("{% extends '/etc/passwd' %}{% block user %}x{% endblock %}")
    with pytest.raises(TemplateError, match=r"^<template>:2: include, import and extends"):
        user("{% block user %}x\n{% from 'm.j2' import f %}{% endblock %}")


def test_syntax_errors_and_missing_blocks() -> None:
    with pytest.raises(TemplateError, match=r"^<template>:2: Expected an expression"):
        user("{% block user %}\n{{ x }}}{% endblock %}" + "{{ }}")
    with pytest.raises(TemplateError, match=r"^<template>: defines no \{% block user %\}"):
        user("just text")


def test_a_file_template_is_named_in_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "mine.j2"
    path.write_text("{% block user %}\n{{ missing }}{% endblock %}", encoding="utf-8")
    with pytest.raises(TemplateError, match=rf"^{path}:2: undefined: 'missing' is undefined$"):
        renderer.render(PROMPT, template=str(path))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "template: the template format needs a template: -o template=PATH"),
        ({"template": "a.j2", "source": "x"}, "template: the template format needs a template"),
        ({"template": "/no/such.j2"}, "template: no such file: /no/such.j2"),
        ({"template": 3}, "template: must be a path to a Jinja2 file, got int"),
        ({"source": ["x"]}, "source: must be the template's text, got list"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(FieldError) as caught:
        renderer.render(PROMPT, **options)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_asrender_renders_a_prompt_file_and_a_program_with_a_template(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, snapshot: SnapshotAssertion
) -> None:
    monkeypatch.chdir(EXAMPLES)
    assert main(["support-ticket.yaml", "--format", "template", "-o", "template=templates/plain.j2"]) == 0
    prompt_file, err = capsys.readouterr()
    assert err == ""
    argv = ["evidence-qa.as", "--input-file", "evidence-qa.input.json", "--responses", "evidence-qa.responses.json"]
    assert main([*argv, "--format", "template", "-o", "template=templates/plain.j2"]) == 0
    program, err = capsys.readouterr()
    assert err == ""
    assert prompt_file + "\n" + program == snapshot


def test_asrender_takes_a_template_as_text_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(EXAMPLES)
    source = "source={% block user %}{{ prompt.instruction }}{% endblock %}"
    assert main(["support-ticket.yaml", "--format", "template", "-o", source]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == (
        "--- user ---\nClassify the ticket and draft a short, friendly reply in the customer's language.\n",
        "",
    )


def test_asrender_reports_a_template_error_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bad.j2").write_text("{% block user %}{{ ''.__class__ }}{% endblock %}", encoding="utf-8")
    monkeypatch.chdir(EXAMPLES)
    code = main(["support-ticket.yaml", "--format", "template", "-o", f"template={tmp_path / 'bad.j2'}"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == (
        f"asrender: {tmp_path / 'bad.j2'}:1: refused by the sandbox: "
        "access to attribute '__class__' of 'str' object is unsafe.\n"
    )


def test_jinja2_is_imported_only_when_a_template_renders() -> None:
    code = (
        "import sys\n"
        "from promptwire.frontend.asrender.cli import main\n"
        "main(['examples/support-ticket.yaml', '--format', 'agentscript'])\n"
        "print('jinja2' in sys.modules, file=sys.stderr)\n"
    )
    root = EXAMPLES.parent
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60)
    assert result.stderr.strip().splitlines()[-1] == "False"


def test_the_example_template_sends_the_repair_of_a_retried_attempt() -> None:
    """examples/templates/plain.j2 is the template users copy: a retried attempt must carry why the
    previous one was rejected and what it returned, as every built-in format sends them."""
    retry = {"reason": "LLM result is missing required field 'label'", "previous_output": {"x": 1}}
    retried = Prompt.model_validate({**PROMPT.model_dump(), "retry": retry})
    user = renderer.render(retried, template=PLAIN).messages[-1].content
    assert "## Previous attempt\nIt was rejected: LLM result is missing required field 'label'\n" in user
    assert user.endswith('It returned:\n{\n  "x": 1\n}')
    assert "Previous attempt" not in renderer.render(PROMPT, template=PLAIN).messages[-1].content


def test_nothing_is_computed_when_a_template_is_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Jinja folds constant expressions at compile time by calling their filters then: outside the
    sandbox's bounds and the template's frames, with the value written into Python source (a huge
    ``center`` width was ``internal error: MemoryError``). Here a filter runs when the template renders."""
    calls: list[tuple[object, ...]] = []
    environment = template._environment()
    center = environment.filters["center"]
    monkeypatch.setitem(environment.filters, "center", lambda *args: calls.append(args) or center(*args))
    template._compile.cache_clear()
    source = '{% block user %}{% set s = "x"|center(3) %}{{ s }}{{ "y"|center(3) }}{{ 1 + 2 }}{% endblock %}'
    template._compile("<template>", source)
    assert calls == []
    assert user(source) == "x  y 3"
    assert calls == [("x", 3), ("y", 3)]
    template._compile.cache_clear()


@pytest.mark.parametrize(
    "expression",
    [
        '"x"|center(1000000000000)',  # a constant: once folded at compile time
        '"x"|center(10**12)',
        '"x"|indent(1000000000000, true)',
        '"%*d"|format(1000000000000, 1)',
        '"{:>1000000000000}".format(1)',
    ],
)
def test_a_value_too_large_to_build_names_its_line(expression: str) -> None:
    with pytest.raises(TemplateError) as caught:
        user("{% block user %}first line\n{{ " + expression + " }}{% endblock %}")
    assert str(caught.value) == "<template>:2: a value too large to build in memory (MemoryError)"


@pytest.mark.parametrize("literal", ["1" * 5000, "0x" + "f" * 5000, "1_" * 5000 + "1"])
def test_a_number_longer_than_python_reads_names_its_line(literal: str) -> None:
    limit = sys.get_int_max_str_digits()
    with pytest.raises(TemplateError) as caught:
        user("{% block user %}first line\n{{ 1 }}\n{{ " + literal + " }}{% endblock %}")
    assert str(caught.value) == f"<template>:3: a number of more than {limit} digits, more than Python reads"


def test_asrender_reports_a_constant_too_large_at_its_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for text, reason in [
        ('{% block user %}\n{{ "x"|center(1000000000000) }}{% endblock %}', "a value too large to build in memory"),
        ("{% block user %}\n{{ " + "9" * 5000 + " }}{% endblock %}", "a number of more than 4300 digits"),
    ]:
        (tmp_path / "big.j2").write_text(text, encoding="utf-8")
        monkeypatch.chdir(EXAMPLES)
        code = main(["support-ticket.yaml", "--format", "template", "-o", f"template={tmp_path / 'big.j2'}"])
        out, err = capsys.readouterr()
        assert code == 1 and out == ""
        assert err.startswith(f"asrender: {tmp_path / 'big.j2'}:2: {reason}") and err.count("\n") == 1
