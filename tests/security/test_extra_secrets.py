"""``extra_secrets``: values masked inside its block only, however the block ends."""

from __future__ import annotations

import contextvars

import pytest

from promptwire.adapters.base import Endpoint
from promptwire.adapters.bedrock import BedrockAdapter
from promptwire.core.errors import ProviderConnectionError
from promptwire.core.secrets import configured_secrets, extra_secrets, mask

KEY = "sk-extra-0123456789"
OTHER = "sk-other-0123456789"


def test_values_are_masked_inside_the_block_and_nested_blocks_add_to_them() -> None:
    assert mask(KEY) == KEY
    with extra_secrets(KEY, None, ""):
        assert mask(f"a {KEY} b {OTHER}") == f"a *** b {OTHER}"
        with extra_secrets(OTHER):
            assert mask(f"a {KEY} b {OTHER}") == "a *** b ***"
        assert mask(OTHER) == OTHER
    assert mask(KEY) == KEY


def test_a_block_with_nothing_to_add_changes_nothing() -> None:
    before = configured_secrets()
    with extra_secrets(KEY):
        with extra_secrets(None, ""):
            assert KEY in configured_secrets()
        with extra_secrets():
            assert KEY in configured_secrets()
        assert KEY in configured_secrets()
    assert configured_secrets() == before


def test_the_masks_go_when_the_block_ends_in_an_exception() -> None:
    with pytest.raises(KeyError), extra_secrets(KEY):
        raise KeyError("x")
    assert mask(KEY) == KEY


def test_a_block_ended_in_another_context_puts_the_masks_back_as_they_were() -> None:
    """A generator's block closed by a loop's finaliser ends in another context than it began."""
    block = extra_secrets(KEY)
    began = contextvars.copy_context()
    began.run(block.__enter__)
    assert began.run(mask, KEY) == "***"
    elsewhere = began.copy()
    elsewhere.run(block.__exit__, None, None, None)
    assert elsewhere.run(mask, KEY) == KEY
    assert mask(KEY) == KEY


class _Failing(BedrockAdapter):
    def failure(self, exc: Exception, endpoint: Endpoint, seconds: float) -> ProviderConnectionError | None:
        if isinstance(exc, ConnectionError):
            return ProviderConnectionError(f"failed: {exc} (masked: {mask(str(exc))})")
        return None


def test_an_adapters_block_tells_failures_inside_the_masks_and_lets_the_rest_through() -> None:
    adapter = _Failing(base_url="https://user:pw-0123456789@127.0.0.1:9")
    endpoint = Endpoint("https://user:pw-0123456789@127.0.0.1:9", KEY)
    with pytest.raises(ProviderConnectionError) as told, adapter._told(endpoint, 5.0):
        raise ConnectionError(f"refused with {KEY}")
    message = str(told.value)
    assert "(masked: refused with ***)" in message
    assert "pw-0123456789" not in message and "https://***@127.0.0.1:9" in message  # where it tried
    assert told.value.__suppress_context__
    with pytest.raises(ValueError, match="a bug"), adapter._told(endpoint, 5.0):
        raise ValueError("a bug")  # failure() says None: not a provider's failure
    with pytest.raises(GeneratorExit), adapter._told(endpoint, 5.0):
        raise GeneratorExit  # a closed stream: not told at all
    assert mask(KEY) == KEY
