"""Token counts before sending: the OpenAI Responses and Anthropic count endpoints asked through
their real SDKs over real HTTP, with a body derived from the exact request the call would send
(only what each endpoint takes), against fake endpoints that refuse anything the real ones refuse
and count a body by its length; a provider without an endpoint says so and guesses nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import promptwire
from promptwire import Prompt
from promptwire.adapters.anthropic import AnthropicAdapter
from promptwire.adapters.base import ProviderAdapter
from promptwire.adapters.openai_responses import OpenAIResponsesAdapter
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import (
    AuthenticationError,
    BadRequestError,
    RateLimitedError,
    TokenCountUnavailable,
)
from promptwire.core.json_text import to_bytes
from promptwire.frontend.asrender.cli import main
from promptwire.testing.provider_counts import COUNT_ROUTES, count_answer, fake_count
from promptwire.testing.provider_servers import FakeProvider, fake_provider

PROMPT: dict[str, Any] = {
    "system": "Be exact.",
    "instruction": "What is the weather in Paris?",
    "tools": [{"name": "weather", "description": "The weather.", "parameters": {"type": "object"}}],
    "output": {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}},
    "config": {"max_output": "2k", "temperature": 0.3, "think": "low"},
    "cache": {"key": "user-7", "retention": "24h"},
}
COUNTERS = {
    "openai-responses": (
        lambda root: OpenAIResponsesAdapter(api_key="sk-test", base_url=f"{root}/v1"),
        "/v1/responses/input_tokens",
        # the body's fields as built, then those the count keeps
        [
            *("model", "instructions", "input", "text", "temperature", "reasoning", "max_output_tokens", "tools"),
            *("prompt_cache_key", "prompt_cache_retention"),
        ],
        ["model", "instructions", "input", "text", "reasoning", "tools"],
    ),
    "anthropic": (
        lambda root: AnthropicAdapter(api_key="sk-test", base_url=root),
        "/v1/messages/count_tokens",
        ["model", "max_tokens", "system", "messages", "thinking", "output_config", "tools"],
        ["model", "system", "messages", "thinking", "output_config", "tools"],
    ),
}


@pytest.fixture
def server() -> Iterator[FakeProvider]:
    with fake_provider() as running:
        yield running


def _request(name: str, model: str = "m") -> Any:
    return promptwire.build_request(PROMPT, name, model)


@pytest.mark.parametrize("name", COUNTERS)
def test_the_count_body_is_the_request_with_only_what_the_endpoint_takes(server: FakeProvider, name: str) -> None:
    make, path, built, kept = COUNTERS[name]
    request = _request(name)
    assert list(request.kwargs) == built
    adapter = make(server.root)
    body = adapter.count_body(request)
    assert list(body) == kept
    assert body == {key: request.kwargs[key] for key in kept}  # each kept field as the call sends it
    count = adapter.count_tokens(request)
    assert server.paths == [path]
    assert server.raw_bodies == [to_bytes(body)]
    assert count == fake_count(to_bytes(body)) > 0
    sent = server.headers[0]
    assert "sk-test" in (sent.get("x-api-key"), sent.get("authorization", "").removeprefix("Bearer "))


@pytest.mark.parametrize("name", COUNTERS)
def test_the_fake_endpoint_refuses_the_whole_send_body_as_the_real_one_does(server: FakeProvider, name: str) -> None:
    make, _, _, _ = COUNTERS[name]
    adapter = make(server.root)
    request = _request(name)

    class Unfiltered(type(adapter)):  # type: ignore[misc]
        def count_body(self, request: Any) -> dict[str, Any]:
            return dict(request.kwargs)

    with pytest.raises(BadRequestError) as refused:
        Unfiltered(api_key="sk-test", base_url=adapter.base_url).count_tokens(request)
    field = "temperature" if name == "openai-responses" else "max_tokens"
    assert refused.value.status == 400 and field in str(refused.value)


@pytest.mark.parametrize("name", COUNTERS)
def test_an_async_count_uses_the_async_client(server: FakeProvider, name: str) -> None:
    make, path, _, _ = COUNTERS[name]
    adapter = make(server.root)
    request = _request(name)

    async def counted() -> int:
        count = await adapter.acount_tokens(request)
        await adapter.aclose()
        return count

    assert asyncio.run(counted()) == fake_count(server.raw_bodies[0]) and server.paths == [path]
    assert adapter._clients == {}


@pytest.mark.parametrize("name", COUNTERS)
@pytest.mark.parametrize(("model", "error"), [("e401echo", AuthenticationError), ("e429", RateLimitedError)])
def test_a_failed_count_is_the_error_a_failed_call_is(
    server: FakeProvider, name: str, model: str, error: type[Exception]
) -> None:
    make, _, _, _ = COUNTERS[name]
    with pytest.raises(error) as raised:
        make(server.root).count_tokens(_request(name, model))
    assert "sk-test" not in str(raised.value)


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("openai", "--provider openai-responses"),
        ("ollama", "prompt_eval_count"),
        ("azure", "Azure OpenAI documents no input-token count endpoint"),
        ("azure-responses", "Azure OpenAI documents no input-token count endpoint"),
    ],
)
def test_a_provider_without_a_count_endpoint_says_so(name: str, hint: str) -> None:
    with pytest.raises(TokenCountUnavailable) as raised:
        promptwire.count_tokens(PROMPT, name, "m")
    assert str(raised.value).startswith(f"provider '{name}' has no token-count endpoint") and hint in str(raised.value)
    assert raised.value.provider == name


def test_the_skeletons_default_is_no_count_endpoint() -> None:
    class Plain(ProviderAdapter):
        name = "plain"
        protocol = "plain"

        def build_request(self, *args: Any) -> Any: ...
        def client(self, *args: Any) -> Any: ...
        def post(self, *args: Any) -> Any: ...
        def reply(self, raw: Any) -> Any: ...

    request = _request("anthropic")
    for ask in (Plain().count_body, Plain().count_tokens):
        with pytest.raises(TokenCountUnavailable, match="provider 'plain' has no token-count endpoint"):
            ask(request)
    with pytest.raises(TokenCountUnavailable):
        asyncio.run(Plain().acount_tokens(request))


@pytest.mark.parametrize("name", COUNTERS)
def test_the_public_count_tokens_counts_the_request_build_request_builds(
    server: FakeProvider, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    scheme = "openai" if name == "openai-responses" else "anthropic"
    counts = promptwire.count_tokens(Prompt.model_validate(PROMPT), name, f"{scheme}://m")
    awaited = asyncio.run(promptwire.acount_tokens(PROMPT, name, f"{scheme}://m"))
    _, _, built, kept = COUNTERS[name]
    expected = fake_count(server.raw_bodies[0])
    assert server.raw_bodies[0] == server.raw_bodies[1]
    assert counts.total == awaited.total == expected
    assert counts.to_dict() == {
        "calls": [
            {
                "site": None,
                "agent": None,
                "attempt": 1,
                "provider": name,
                "model": "m",
                "count_endpoint": COUNTERS[name][1].replace("/v1", "POST /v1", 1),
                "input_tokens": expected,
                "left_out": [field for field in built if field not in kept],
            }
        ],
        "total": expected,
        "not_counted": [],
    }


PROGRAM = """import llm M from "anthropic://claude-x"
main agent A {
    model M
    role "Greeter"
    description "Greet people."
    main func(input) {
        generate({ input: "First." }) -> {
            ok boolean
        }
        generate({ input: "Second." })
    }
}
"""


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "greet.as"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_asrender_counts_each_call_of_a_program_with_a_total(
    server: FakeProvider, program: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    code, shown, err = _run(capsys, str(program), "--input", "{}", "--provider", "auto", "--count-tokens")
    assert (code, err) == (0, "")
    first, second = (fake_count(body) for body in server.raw_bodies)
    assert server.paths == ["/v1/messages/count_tokens"] * 2  # counted; nothing sent to /v1/messages
    where = "(anthropic claude-x; POST /v1/messages/count_tokens, without max_tokens)"
    assert shown == (
        f"{program}:7:9 agent A attempt 1: {first} input tokens {where}\n"
        f"{program}:10:9 agent A attempt 1: {second} input tokens {where}\n"
        f"total: {first + second} input tokens in 2 calls\n"
    )
    code, shown, err = _run(
        capsys, str(program), "--input", "{}", "--provider", "anthropic", "--count-tokens", "-O", "json"
    )
    assert (code, err) == (0, "")
    data = json.loads(shown)
    assert [call["input_tokens"] for call in data["calls"]] == [first, second] and data["total"] == first + second
    assert [(call["site"], call["agent"], call["model"]) for call in data["calls"]] == [
        (f"{program}:7:9", "A", "claude-x"),
        (f"{program}:10:9", "A", "claude-x"),
    ]


def test_asrender_counts_a_prompt_file(
    server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    prompt = tmp_path / "ask.json"
    prompt.write_text(json.dumps(PROMPT), encoding="utf-8")
    argv = (str(prompt), "--provider", "openai-responses", "--model", "gpt-5", "--count-tokens", "-O", "json")
    code, shown, err = _run(capsys, *argv)
    assert (code, err) == (0, "")
    assert json.loads(shown)["total"] == fake_count(server.raw_bodies[0])
    assert server.paths == ["/v1/responses/input_tokens"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--provider", "ollama"), "asrender: provider 'ollama' has no token-count endpoint"),
        (("--provider", "openai"), "asrender: provider 'openai' has no token-count endpoint"),
    ],
)
def test_asrender_says_a_provider_has_no_count_endpoint_without_a_traceback(
    program: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    code, shown, err = _run(capsys, str(program), "--input", "{}", *argv, "--count-tokens")
    assert code == 1 and shown == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_asrender_under_auto_says_which_call_cannot_be_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "local.as"
    path.write_text(PROGRAM.replace("anthropic://claude-x", "ollama://llama3"), encoding="utf-8")
    code, shown, err = _run(capsys, str(path), "--input", "{}", "--provider", "auto", "--count-tokens")
    assert code == 1 and shown == ""
    assert "provider 'ollama' has no token-count endpoint" in err and "Traceback" not in err


MIXED_PROGRAM = """import llm Claude from "anthropic://claude-x"
import llm Local from "ollama://llama3"
agent Checker {
    model Local
    role "Checker"
    description "Checks a greeting."
    func check(greeting) {
        return generate({ input: greeting })
    }
}
main agent A {
    model Claude
    role "Greeter"
    description "Greet people."
    main func(input) {
        greeting = generate({ input: "First." })
        Checker.check(greeting)
        generate({ input: "Second." })
    }
}
"""


def test_asrender_under_auto_counts_what_can_be_counted_and_names_the_rest(
    server: FakeProvider, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call routed to a provider without a count endpoint does not end the count: the others are
    counted, it is named with why, and the exit status says the total is not the whole."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    path = tmp_path / "mixed.as"
    path.write_text(MIXED_PROGRAM, encoding="utf-8")
    code, shown, err = _run(capsys, str(path), "--input", "{}", "--provider", "auto", "--count-tokens")
    first, second = (fake_count(body) for body in server.raw_bodies)
    where = "(anthropic claude-x; POST /v1/messages/count_tokens, without max_tokens)"
    assert shown == (
        f"{path}:16:20 agent A attempt 1: {first} input tokens {where}\n"
        f"{path}:18:9 agent A attempt 1: {second} input tokens {where}\n"
        f"{path}:8:16 agent Checker attempt 1: not counted (ollama llama3: no token-count endpoint)\n"
        f"total: {first + second} input tokens in 2 calls; 1 call not counted\n"
    )
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("asrender: 1 call not counted, so the total leaves it out: provider 'ollama' has no")
    code, shown, err = _run(capsys, str(path), "--input", "{}", "--provider", "auto", "--count-tokens", "-O", "json")
    data = json.loads(shown)
    assert code == 1 and data["total"] == first + second and len(data["calls"]) == 2
    [uncounted] = data["not_counted"]
    assert (uncounted["site"], uncounted["agent"], uncounted["provider"], uncounted["model"]) == (
        f"{path}:8:16",
        "Checker",
        "ollama",
        "llama3",
    )
    assert uncounted["reason"].startswith("provider 'ollama' has no token-count endpoint")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "--count-tokens needs --provider"),
        (("--provider", "anthropic", "-O", "trace"), "--count-tokens prints the counts as display or json"),
        (("--provider", "anthropic", "--stream"), "--count-tokens sends nothing but the counts: it takes no --stream"),
        (("--provider", "anthropic", "--timeout", "5"), "it takes no --timeout"),
    ],
)
def test_asrender_refuses_what_a_count_cannot_do(
    program: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], message: str
) -> None:
    with pytest.raises(SystemExit) as exit:
        main([str(program), "--input", "{}", *argv, "--count-tokens"])
    assert exit.value.code == 2 and message in capsys.readouterr().err


def test_a_program_run_on_an_event_loop_counts_through_the_async_clients(
    server: FakeProvider, program: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire.calls.counting import Count
    from promptwire.runs.options import RunOptions
    from promptwire.runs.run import arun

    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    count = Count()
    asyncio.run(arun(program, {}, RunOptions(adapter="auto", dry_run=True, count=count)))
    counts = count.counts()
    assert [call.input_tokens for call in counts.calls] == [fake_count(body) for body in server.raw_bodies]
    assert counts.total == sum(fake_count(body) for body in server.raw_bodies) and len(counts.calls) == 2
    assert all(headers["x-stainless-async"].startswith("async") for headers in server.headers)


FIELDS = st.sampled_from(
    sorted(
        {field for accepted, _ in COUNT_ROUTES.values() for field in accepted}
        | {"max_tokens", "max_output_tokens", "stream", "temperature", "metadata", "store", "prompt_cache_key"}
    )
)


@pytest.mark.parametrize("name", COUNTERS)
@given(body=st.dictionaries(FIELDS | st.text(min_size=1, max_size=8), st.integers(), max_size=12))
def test_any_request_gives_a_count_body_the_endpoint_accepts(name: str, body: dict[str, Any]) -> None:
    """Whatever a request holds, its count body keeps exactly the fields the endpoint takes, in
    the request's order, and the fake endpoint (written from the reference, not from the adapter)
    refuses none of them."""
    make, path, _, _ = COUNTERS[name]
    adapter = make("http://unused")
    kept = adapter.count_body(ProviderRequest(body))
    accepted, required = COUNT_ROUTES[path]
    assert list(kept) == [field for field in body if field in accepted]
    status, answer = count_answer(path, {**dict.fromkeys(required, 0), **kept}, b"{}")
    assert status == 200, answer


def test_what_a_count_leaves_out_is_said_by_the_adapter() -> None:
    """Fields outside ``count_fields`` by default; a count body of another form (the request
    wrapped, as Bedrock's) sets none and says for itself, so its wrapped fields are not reported
    as left out."""
    request = _request("anthropic")

    class Wrapped(AnthropicAdapter):
        count_fields = frozenset()

        def count_body(self, request: Any) -> dict[str, Any]:
            return {"input": dict(request.kwargs)}

    assert AnthropicAdapter().count_left_out(request) == ("max_tokens",)
    assert Wrapped().count_left_out(request) == ()
