"""Every built-in format renders every corpus prompt; the bytes are pinned in ``snapshots/``."""

from __future__ import annotations

import warnings

import pytest
from syrupy.assertion import SnapshotAssertion

import promptwire
from promptwire import PluginHost, Prompt
from promptwire.core.errors import (
    PromptwireError,
    PromptwireWarning,
    UnsupportedFieldsError,
    UnsupportedFieldsWarning,
)
from promptwire.core.rendered import UNEXPRESSED, warning_lines

from corpus import CORPUS, layout_formats

HOST = PluginHost(entry_points=False)
FORMATS = layout_formats(HOST)
CASES = [pytest.param(fmt, name, id=f"{fmt}-{name}") for fmt in FORMATS for name in CORPUS]


def _render_quietly(fmt: str, prompt: Prompt) -> str:
    """The display text, or the format's refusal (every format must render every corpus prompt)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PromptwireWarning)  # what a format leaves out is tested below
        try:
            text: str = HOST.renderer(fmt).render(prompt).display()
        except PromptwireError as exc:
            return f"!!! {type(exc).__name__}: {exc}\n"
    return text


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_render(fmt: str, name: str, snapshot: SnapshotAssertion) -> None:
    assert _render_quietly(fmt, CORPUS[name]) == snapshot


LEFT_OUT_PARTS = {("agens", "resources"): ["resources[2]"]}
"""Parts of a field a format expresses that it still leaves out: Agens does not load a resource
without content (the corpus prompt's third)."""


@pytest.mark.parametrize(("fmt", "name"), CASES)
def test_unexpressible_fields_warn_once_or_fail_strict(fmt: str, name: str) -> None:
    prompt = CORPUS[name]
    renderer = HOST.renderer(fmt)
    missing = [field for field in prompt.populated_fields() if field not in renderer.fields]
    missing += LEFT_OUT_PARTS.get((fmt, name), [])
    if not missing:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PromptwireWarning)
            warnings.simplefilter("error", UnsupportedFieldsWarning)
            # A format may still note what its single-string form skips (agently's text drops a
            # history image its messages carry); no field is left out, so strict does not fail.
            notes = renderer.render(prompt, strict=True).warnings
            assert [w for w in notes if w.reason == UNEXPRESSED] == []
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsupportedFieldsWarning)  # a renderer reports, it does not warn
        rendered = renderer.render(prompt)
    left_out = [(w.format, w.field) for w in rendered.warnings if w.reason == UNEXPRESSED or w.field in missing]
    assert left_out == [(fmt, f) for f in missing]
    with pytest.warns(UnsupportedFieldsWarning) as record:
        promptwire.render(prompt, fmt, host=HOST)
    assert [str(w.message) for w in record if w.category is UnsupportedFieldsWarning] == warning_lines(
        rendered.warnings
    )
    assert {w.filename for w in record} == {__file__}  # at the caller's line
    with pytest.raises(UnsupportedFieldsError) as info:
        renderer.render(prompt, strict=True)
    assert list(info.value.fields) == missing


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 30
