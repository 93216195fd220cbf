"""``environment_value`` is ``os.environ.get``, read as the environment is at each call."""

from __future__ import annotations

import os
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire.core.environment import environment_value

NAME = "PROMPTWIRE_TEST_ENVIRONMENT_VALUE"


def test_a_variable_set_changed_and_removed_between_reads_is_read_as_it_is_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(NAME, raising=False)
    assert environment_value(NAME) is None
    monkeypatch.setenv(NAME, "1")
    assert environment_value(NAME) == "1"
    os.environ[NAME] = ""
    assert environment_value(NAME) == ""
    with mock.patch.dict(os.environ, {NAME: "2"}):
        assert environment_value(NAME) == "2"
    with mock.patch.dict(os.environ, clear=True):
        assert environment_value(NAME) is None
    assert environment_value(NAME) == ""
    del os.environ[NAME]
    assert environment_value(NAME) is None
    monkeypatch.setattr(os, "environ", {NAME: "3"})  # a plain mapping in its place (a test harness's)
    assert environment_value(NAME) == "3"


@given(st.text("ABab_=0 é", min_size=1, max_size=6), st.text("xé ", max_size=3), st.booleans())
def test_it_reads_what_os_environ_get_reads(suffix: str, value: str, present: bool) -> None:
    name = NAME + suffix
    with mock.patch.dict(os.environ):
        os.environ.pop(name, None)
        if present and "=" not in name:
            os.environ[name] = value
        assert environment_value(name) == os.environ.get(name)
