"""The provider readers on untrusted data: any JSON or YAML value, and each provider's realistic body
with one value somewhere replaced by any other, reads into a prompt or raises a FieldError, never
anything else, within the fuzz targets' time bound; and a prompt read renders in format
conversation."""

from __future__ import annotations

import contextlib
import copy
import warnings
from typing import Any

import pytest
from fuzz_data import JSONISH, made
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reader_bodies import BODIES

import promptwire
from promptwire.core.errors import FieldError

from fuzzing import SECONDS, within
from hypothesis_profile import fuzz_examples

READERS = sorted(BODIES)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in ``value`` a value sits at (the root included)."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*path, index))
    return found


def _replaced(body: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(body)
    holder = changed
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return changed


@st.composite
def near_valid(draw: st.DrawFn, reader: str) -> Any:
    """``reader``'s realistic body (or its bare list of turns) with one value replaced, or dropped."""
    body = BODIES[reader]
    path = draw(st.sampled_from(_paths(body)))
    if path and draw(st.booleans()) and isinstance(path[-1], str):
        changed = copy.deepcopy(body)
        holder = changed
        for step in path[:-1]:
            holder = holder[step]
        del holder[path[-1]]
        return changed
    return _replaced(body, path, made(draw(JSONISH)))


def _read_or_refused(data: Any, reader: str) -> None:
    with within(SECONDS, reader):
        try:
            prompt = promptwire.read(data, reader)
        except FieldError:
            return
        assert isinstance(prompt, promptwire.Prompt)
        with warnings.catch_warnings(), contextlib.suppress(FieldError):
            warnings.simplefilter("ignore")
            promptwire.render(prompt, "conversation")


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=fuzz_examples(0.5), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_value_reads_or_is_refused_with_a_field_error(reader: str, data: st.DataObject) -> None:
    _read_or_refused(made(data.draw(JSONISH)), reader)


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=fuzz_examples(1), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_body_with_any_value_changed_reads_or_is_refused_with_a_field_error(reader: str, data: st.DataObject) -> None:
    _read_or_refused(data.draw(near_valid(reader)), reader)
