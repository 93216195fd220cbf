"""The bound on a provider's reply (promptwire.adapters.reply_size), through every built-in
adapter's real SDK over real HTTP against the fake provider: a reply past it, whole or streamed
(many events, or one line), is a ReplyTooLargeError saying the bound and how to raise it, never a
connection error or a traceback; a reply within it is read as before. The bound is lowered through
its setting, so no test sends more than a few hundred KiB."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.ollama import OllamaAdapter
from promptwire.adapters.openai import OpenAIAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.adapters.reply_size import (
    DEFAULT_MAX_REPLY_BYTES,
    SETTING,
    ReplySizeSettingError,
    max_reply_bytes,
    refused_reply,
    shown_size,
)
from promptwire.calls.generate import agenerate, generate
from promptwire.core.errors import MalformedResponseError, ProviderConnectionError, ReplyTooLargeError
from promptwire.renderers.agentscript import renderer
from promptwire.testing.provider_servers import FakeProvider, fake_provider

ADAPTERS: dict[str, Callable[[str], Any]] = {
    "openai": lambda root: OpenAIAdapter(api_key="sk-test", base_url=f"{root}/v1"),
    "openai-responses": lambda root: OpenAIResponsesAdapter(api_key="sk-test", base_url=f"{root}/v1"),
    "anthropic": lambda root: AnthropicAdapter(api_key="sk-test", base_url=root),
    "ollama": lambda root: OllamaAdapter(host=root),
}
PATHS = ["sync", "stream", "async", "astream"]
PROMPT = Prompt(identity={"role": "Checker", "description": "Check."}, instruction="Check.")


@pytest.fixture(scope="module")
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


@pytest.fixture
def bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SETTING, "64K")


def _generate(path: str, adapter: Any, model: str) -> Any:
    options: dict[str, Any] = {"on_text": lambda text: None} if path.endswith("stream") else {}
    if path.startswith("a"):
        return asyncio.run(agenerate(PROMPT, render=renderer.render, adapter=adapter, model=model, **options))
    return generate(PROMPT, render=renderer.render, adapter=adapter, model=model, **options)


@pytest.mark.usefixtures("bound")
@pytest.mark.parametrize("model", ["huge200", "hugeline200"])
@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", PATHS)
def test_a_reply_past_the_bound_is_refused_saying_the_bound_and_the_setting(
    server: FakeProvider, path: str, name: str, model: str
) -> None:
    """huge200: 200 KiB of text in words of 1 KiB, sent whole without a Content-Length, or streamed
    an event a word; hugeline200: one word of 200 KiB, streamed as one event (one line)."""
    asked = len(server.requests)
    with pytest.raises(ReplyTooLargeError) as caught:
        _generate(path, ADAPTERS[name](server.root), model)
    assert str(caught.value) == (
        "LLM provider reply is larger than 64 KiB, the bound on a reply; refused "
        "(set PROMPTWIRE_MAX_REPLY_SIZE to raise it, such as PROMPTWIRE_MAX_REPLY_SIZE=256K)"
    )
    assert caught.value.provider == name and not caught.value.retryable
    assert len(server.requests) == asked + 1  # refused, not retried
    assert server.headers[-1]["accept-encoding"] == "identity"


@pytest.mark.usefixtures("bound")
@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", PATHS)
def test_a_reply_within_the_bound_is_read_whole(server: FakeProvider, path: str, name: str) -> None:
    """8 KiB of text: the Responses stream sends it five times over (the pieces, the done text, the
    done part, the done item, the completed response), and every byte of a stream counts."""
    result = _generate(path, ADAPTERS[name](server.root), "huge8")
    assert result.value == ("x" * 1023 + " ") * 8


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_content_length_past_the_bound_is_refused_before_reading(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setenv(SETTING, "100")
    with pytest.raises(ReplyTooLargeError) as caught:
        _generate("sync", ADAPTERS[name](server.root), "ok")
    assert str(caught.value).startswith("LLM provider reply is larger than 100 bytes (its Content-Length says ")
    assert str(caught.value).endswith(
        "(set PROMPTWIRE_MAX_REPLY_SIZE to raise it, such as PROMPTWIRE_MAX_REPLY_SIZE=400)"
    )


@pytest.mark.parametrize("name", ADAPTERS)
@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_compressed_reply_is_refused_as_its_unpacked_size_cannot_be_bounded(
    server: FakeProvider, path: str, name: str
) -> None:
    with pytest.raises(MalformedResponseError) as caught:
        _generate(path, ADAPTERS[name](server.root), "gzipped")
    assert str(caught.value) == (
        "LLM provider sent a reply compressed with 'gzip', though asked for it uncompressed "
        "(its unpacked size cannot be bounded as it is read)"
    )


@pytest.mark.parametrize("text", ["lots", "0", "12Q", "-5", "1.5M", "\x1b[2J"])
def test_a_bad_setting_is_refused_before_anything_is_sent(
    server: FakeProvider, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv(SETTING, text)
    asked = len(server.requests)
    with pytest.raises(ReplySizeSettingError) as caught:
        _generate("sync", ADAPTERS["openai"](server.root), "ok")
    assert str(caught.value).startswith(f"{SETTING}=")
    assert "is not a size in bytes above 0 (such as 1000, 64M or 2G; unset: 64M)" in str(caught.value)
    assert "\x1b" not in str(caught.value)
    assert len(server.requests) == asked


def test_the_setting_reads_sizes_as_max_input_size_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SETTING, raising=False)
    assert max_reply_bytes() == DEFAULT_MAX_REPLY_BYTES == 64 * 2**20
    for text, size in [("1000", 1000), ("64k", 65536), ("256M", 256 * 2**20), ("2G", 2 * 2**30), (" 8M ", 8 * 2**20)]:
        monkeypatch.setenv(SETTING, text)
        assert max_reply_bytes() == size
    assert [shown_size(size) for size in (1000, 65536, 3 * 2**20, 2**30)] == ["1000", "64K", "3M", "1G"]


@given(st.text(max_size=30))
def test_any_setting_is_a_size_or_one_clear_line(given_text: str) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SETTING, given_text.replace("\x00", ""))
        try:
            size = max_reply_bytes()
        except ReplySizeSettingError as exc:
            message = str(exc)
            assert message.startswith(f"{SETTING}=") and message.isprintable()
        else:
            assert size > 0


def test_a_refusal_an_sdk_wrapped_as_a_connection_error_is_found_in_its_cause() -> None:
    """Older SDKs wrap whatever their HTTP client raises as "Connection error.": the refusal is
    found where it was raised from, and a real connection error is left to the adapter."""
    refusal = ReplyTooLargeError("too large")
    try:
        try:
            raise refusal
        except ReplyTooLargeError as exc:
            raise ConnectionError("Connection error.") from exc
    except ConnectionError as wrapped:
        assert refused_reply(wrapped) is refusal
    assert refused_reply(ConnectionError("refused")) is None
    assert refused_reply(ProviderConnectionError("reset")) is None  # the adapter's to tell, as before


def test_the_command_line_says_the_bound_without_a_traceback(server: FakeProvider, tmp_path: Path) -> None:
    program = tmp_path / "big.as"
    program.write_text(
        'import llm M from "openai://huge200"\nmain agent A {\n    model M\n    role "R"\n    description "D"\n'
        '    main func(input) {\n        return generate({ input: "x" })\n    }\n}\n',
        encoding="utf-8",
    )
    env = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-test", SETTING: "64K", "HOME": str(tmp_path)}
    command = [sys.executable, "-m", "promptwire", str(program), "--provider", "openai", "--base-url", server.base_url]
    for streamed in ([], ["--stream"]):
        done = subprocess.run(
            [*command, *streamed],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr + done.stdout
        assert done.stderr.endswith(
            "asrender: ReplyTooLargeError [openai]: LLM provider reply is larger than 64 KiB, the bound on a reply; "
            "refused (set PROMPTWIRE_MAX_REPLY_SIZE to raise it, such as PROMPTWIRE_MAX_REPLY_SIZE=256K)\n"
        ), done.stderr


def test_the_setting_is_read_for_each_reply_however_the_environment_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Read before sending and again when the reply comes, the unset case first asked of
    # os.environ's own mapping: set, changed and removed between calls, it is honoured at once.
    monkeypatch.delenv(SETTING, raising=False)
    assert max_reply_bytes() == DEFAULT_MAX_REPLY_BYTES
    os.environ[SETTING] = "2K"
    try:
        assert max_reply_bytes() == 2048
        with mock.patch.dict(os.environ, {SETTING: "3K"}):
            assert max_reply_bytes() == 3072
        with mock.patch.dict(os.environ, clear=True):
            assert max_reply_bytes() == DEFAULT_MAX_REPLY_BYTES
        assert max_reply_bytes() == 2048
    finally:
        del os.environ[SETTING]
    assert max_reply_bytes() == DEFAULT_MAX_REPLY_BYTES
    monkeypatch.setattr(os, "environ", {SETTING: "5K"})  # a plain mapping in its place (a test harness's)
    assert max_reply_bytes() == 5120
