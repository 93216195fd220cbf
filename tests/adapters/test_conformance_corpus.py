"""The conversation corpus (promptwire.testing.conformance): the built-in adapters against their
expected files and the rules, and the rules themselves, each shown to catch the adapter that breaks it."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import promptwire
from promptwire.adapters.turns import turn_error
from promptwire.core.call import ProviderRequest
from promptwire.core.errors import BadRequestError
from promptwire.testing import conformance
from promptwire.testing.conformance import (
    BUILTIN_ADAPTERS,
    EXPECTED,
    check_adapter,
    conversations,
    expected_problems,
    invariant_problems,
    run,
    write_expected,
)
from promptwire.testing.conformance.__main__ import main
from promptwire.testing.conformance.check import _names
from promptwire.testing.conformance.corpus import load
from promptwire.testing.conformance.items import Item, changed, items

HOST = promptwire.PluginHost(entry_points=False)
CORPUS = {conversation.name: conversation for conversation in conversations()}

KNOWN_DEFECTS: set[tuple[str, str]] = set()
"""What the corpus finds a built-in adapter dropping without a word, as (adapter, conversation):
none today (a turn's speaker name on Responses and Anthropic, and an image's detail level on
Anthropic, were, and are now noted). Strict: an adapter that starts to note or send it fails
here, to be taken off the list."""


def _cases() -> list[Any]:
    return [
        pytest.param(
            adapter,
            name,
            marks=[pytest.mark.xfail(strict=True, reason="a known defect of the adapter: see KNOWN_DEFECTS")]
            if (adapter, name) in KNOWN_DEFECTS
            else [],
            id=f"{adapter}-{name}",
        )
        for adapter in BUILTIN_ADAPTERS
        for name in CORPUS
    ]


@pytest.mark.parametrize("adapter", BUILTIN_ADAPTERS)
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_each_builtin_request_is_its_expected_file(adapter: str, name: str) -> None:
    outcome = run(HOST.adapter(adapter), CORPUS[name])
    assert expected_problems(outcome, EXPECTED / adapter) == [], (
        "run python -m promptwire.testing.conformance --write and read the diff"
    )


@pytest.mark.parametrize(("adapter", "name"), _cases())
def test_each_builtin_adapter_meets_the_rules(adapter: str, name: str) -> None:
    assert invariant_problems(run(HOST.adapter(adapter), CORPUS[name])) == []


def test_the_expected_files_and_the_table_are_fresh(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0, capsys.readouterr().err


def test_a_plugins_files_are_written_and_checked_by_the_command(tmp_path: Path, capsys: Any) -> None:
    arguments = ["--adapter", "echo", "--expected", str(tmp_path / "echo")]
    assert main([*arguments, "--check"]) == 1
    assert f"stale: {tmp_path / 'echo' / 'audio.json'}" in capsys.readouterr().err
    assert main([*arguments, "--write"]) == 0
    assert main([*arguments, "--check"]) == 0
    (tmp_path / "echo" / "gone.json").write_text("{}", encoding="utf-8")
    assert main([*arguments, "--check"]) == 1
    assert (
        f"no such conversation in the corpus, remove it: {tmp_path / 'echo' / 'gone.json'}" in capsys.readouterr().err
    )
    (tmp_path / "echo" / "gone.json").unlink()
    assert sorted(path.stem for path in (tmp_path / "echo").iterdir()) == sorted(CORPUS)
    shipped = Path(__file__).parents[2] / "examples/plugins/promptwire-echo/tests/conformance"
    assert (tmp_path / "echo" / "tool-call.json").read_text() == (shipped / "tool-call.json").read_text()


def test_the_corpus_holds_what_the_issue_asks_for() -> None:
    features = {feature for conversation in CORPUS.values() for feature in conversation.features}
    assert {
        "parallel tool calls",
        "a tool result with an image",
        "a tool result that is an error",
        "reasoning with a signature (Anthropic)",
        "encrypted reasoning (OpenAI Responses)",
        "redacted reasoning (Anthropic)",
        "reasoning from another provider",
        "reasoning without a signature (Ollama thinking)",
        "cache breakpoint on a part",
        "cache breakpoint on a turn",
        "cache breakpoint after the system text",
        "cache breakpoint after the tools",
        "cache breakpoint for 1 hour",
        "prompt cache key (OpenAI)",
        "image by URL",
        "image by bytes",
        "file by bytes",
        "audio",
        "developer text",
        "tool call ids Anthropic refuses",
        "a tool result with no call",
        "tool call arguments that are not JSON",
    } <= features
    history = CORPUS["long-history"].prompt["history"]
    assert len(history) == 300
    assert history[299] == {"role": "assistant", "content": "City 75: 75C."}
    assert CORPUS["tool-result-without-call"].refused == "messages[2]"


def test_a_generated_history_is_checked_in_its_first_and_last_rounds() -> None:
    paths = [item.path for item in items(CORPUS["long-history"])]
    turns = sorted({int(path.split("[")[1].split("]")[0]) for path in paths if path.startswith("history")})
    assert turns == [0, 1, 2, 3, 296, 297, 298, 299]


def test_a_changed_call_id_is_renamed_in_its_results_too() -> None:
    conversation = CORPUS["tool-call"]
    (item,) = [item for item in items(conversation) if item.how == "id"]
    data = changed(conversation.prompt, item)
    assert data["history"][1]["content"][0]["id"] == data["history"][2]["content"][0]["call_id"] == "call_1_changed"
    assert conversation.prompt["history"][1]["content"][0]["id"] == "call_1"  # the corpus is not changed


def test_a_note_names_a_part_its_message_or_a_prompt_path() -> None:
    part = Item("history[0].content[1]", "part", message=1, part=1)
    assert _names("messages[1].content[1]: left out", part, leading=1)
    assert _names("messages[1]: only its text goes", part, leading=1)  # the whole message
    assert _names("format 'conversation': history[0].content[1]: shown as text", part, leading=1)
    assert not _names("messages[1].content[10]: left out", part, leading=1)
    assert not _names("messages[10]: left out", part, leading=1)
    assert not _names("messages[1].content[0]: left out", part, leading=1)
    assert not _names("messages[0]: left out", part, leading=1)
    turn_mark = Item("history[0].cache", "off", message=1)
    assert not _names("messages[1].content[0]: left out", turn_mark, leading=1)  # a part is not its message
    key = Item("cache.key", "off")
    assert _names("cache.key: no cache key here; left out", key, leading=1)
    assert not _names("prompt_cache_key sent", key, leading=1)
    assert not _names("cache.keys", key, leading=1)


def test_a_corpus_file_of_the_wrong_shape_names_its_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"prompt": {"history": [{"role": "user", "content": 3}]}}', encoding="utf-8")
    with pytest.raises(promptwire.FieldError, match=r"bad.json: prompt.history\[0\].content"):
        load(bad)
    bad.write_text('{"prompt": {}, "feature": {}}', encoding="utf-8")
    with pytest.raises(promptwire.FieldError, match=r"bad\.json: feature: unknown key"):
        load(bad)


# --- the rules catch the adapter that breaks them ---------------------------------------------------


class PassThrough:
    """An adapter that sends the rendered messages as they are, minus what a test takes out."""

    name = "pass-through"

    def build_request(self, rendered: Any, config: Any, contract: Any, model: Any) -> ProviderRequest:
        return ProviderRequest({"model": model, "messages": [self.message(m.to_dict()) for m in rendered.messages]})

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        return message


def test_the_rules_catch_reasoning_sent_to_another_provider() -> None:
    problems = invariant_problems(run(PassThrough(), CORPUS["reasoning-foreign"]))
    assert problems == [
        "history[1].content[0]: reasoning from mistral is in the body as text",
        "history[3].content[0]: reasoning of unknown origin is in the body as text",
    ]
    redacted = invariant_problems(run(PassThrough(), CORPUS["reasoning-anthropic-redacted"]))
    assert redacted == ["history[1].content[0]: reasoning from anthropic reaches the body"]


def test_the_rules_catch_a_part_dropped_without_a_note() -> None:
    class NoImages(PassThrough):
        def message(self, message: dict[str, Any]) -> dict[str, Any]:
            if isinstance(message["content"], list):
                message["content"] = [p for p in message["content"] if p["type"] != "image_url"]
            return message

    problems = invariant_problems(run(NoImages(), CORPUS["images"]))
    assert problems == [
        "history[0].content[1]: dropped silently (neither the body nor a note changes with it, and no note names it)",
        "history[0].content[1].detail: dropped silently (neither the body nor a note changes with it, and no note names it)",
        "history[0].content[2]: dropped silently (neither the body nor a note changes with it, and no note names it)",
    ]


def test_a_note_naming_the_part_accounts_for_it() -> None:
    class NoImagesNoted(PassThrough):
        def build_request(self, rendered: Any, config: Any, contract: Any, model: Any) -> ProviderRequest:
            messages, notes = [], []
            for m, message in enumerate(rendered.messages):
                data = message.to_dict()
                if isinstance(data["content"], list):
                    kept = []
                    for p, part in enumerate(data["content"]):
                        if part["type"] == "image_url":
                            notes.append(f"messages[{m}].content[{p}]: no images here; left out")
                        else:
                            kept.append(part)
                    data["content"] = kept
                messages.append(data)
            return ProviderRequest({"model": model, "messages": messages}, tuple(notes))

    outcome = run(NoImagesNoted(), CORPUS["images"])
    assert invariant_problems(outcome) == []
    fidelity = conformance.record(outcome)["fidelity"]
    assert fidelity["image by URL"] == {
        "outcome": "left out",
        "notes": ["messages[1].content[1]: no images here; left out"],
    }
    assert fidelity["image by bytes"]["outcome"] == "left out"


def test_the_rules_catch_calls_and_results_unpaired() -> None:
    class NoResults(PassThrough):
        def message(self, message: dict[str, Any]) -> dict[str, Any]:
            if message["role"] == "tool":
                message["content"] = [{"type": "text", "text": "a result"}]
            return message

    problems = invariant_problems(run(NoResults(), CORPUS["tool-call"]))
    assert "tool call id 'call_1': in the body once; its call and its result are not both there" in problems
    orphan = invariant_problems(run(PassThrough(), CORPUS["tool-result-without-call"]))
    assert orphan == ["tool call id 'call_missing': a result with no call, sent unpaired"]


def test_the_rules_catch_results_out_of_order() -> None:
    class Reversed(PassThrough):
        def build_request(self, rendered: Any, config: Any, contract: Any, model: Any) -> ProviderRequest:
            messages = [m.to_dict() for m in rendered.messages]
            messages[3], messages[4] = messages[4], messages[3]  # the two results, swapped
            return ProviderRequest({"model": model, "messages": messages})

    problems = invariant_problems(run(Reversed(), CORPUS["parallel-tool-calls"]))
    assert problems == ["tool calls and results: not in the conversation's order in the body"]


def test_a_refusal_must_name_the_turn() -> None:
    class Refusing(PassThrough):
        def __init__(self, error: Exception) -> None:
            self.error = error

        def build_request(self, rendered: Any, config: Any, contract: Any, model: Any) -> ProviderRequest:
            raise self.error

    conversation = CORPUS["tool-result-without-call"]
    assert invariant_problems(run(Refusing(turn_error(2, "a result with no call")), conversation)) == []
    part_refused = BadRequestError("messages[2].content[0]: a result with no call")
    assert invariant_problems(run(Refusing(part_refused), conversation)) == []  # its part names the turn too
    assert invariant_problems(run(Refusing(turn_error(1, "a result with no call")), conversation)) == [
        "refused naming another turn than messages[2]: BadRequestError: messages[1]: a result with no call"
    ]
    assert invariant_problems(run(Refusing(KeyError("call_missing")), conversation)) == [
        "refused without naming a turn (a BadRequestError 'messages[i]: ...' is expected): KeyError: 'call_missing'"
    ]
    refused = conformance.record(run(Refusing(turn_error(2, "a result with no call")), conversation))
    assert refused == {
        "fidelity": {
            "a tool result with no call": {
                "outcome": "refused",
                "notes": ["BadRequestError: messages[2]: a result with no call"],
            }
        },
        "error": "BadRequestError: messages[2]: a result with no call",
    }


def test_check_adapter_lists_differences_and_broken_rules(tmp_path: Path) -> None:
    corpus = [CORPUS["reasoning-foreign"], CORPUS["plain-text"]]
    assert write_expected(PassThrough(), tmp_path, corpus) == [
        "reasoning-foreign: history[1].content[0]: reasoning from mistral is in the body as text",
        "reasoning-foreign: history[3].content[0]: reasoning of unknown origin is in the body as text",
    ]
    check_adapter(PassThrough(), tmp_path, names=["plain-text"])  # its file, no rule broken
    stored = conformance.read_expected(tmp_path, "plain-text")
    edited = copy.deepcopy(stored)
    edited["body"]["messages"][1]["content"] = "Hi."
    (tmp_path / "plain-text.json").write_text(conformance.file_text(edited), encoding="utf-8")
    with pytest.raises(AssertionError) as caught:
        check_adapter(PassThrough(), tmp_path, names=["plain-text", "reasoning-foreign", "audio"])
    with pytest.raises(ValueError, match="no conversation 'plain' in the corpus"):
        check_adapter(PassThrough(), tmp_path, names=["plain"])
    assert str(caught.value).splitlines() == [
        "adapter 'pass-through' against the conversation corpus:",
        "audio: no expected file " + str(tmp_path / "audio.json"),
        'plain-text: body.messages[1].content: expected "Hi.", got "Hello."',
        "reasoning-foreign: rule broken: history[1].content[0]: reasoning from mistral is in the body as text",
        "reasoning-foreign: rule broken: history[3].content[0]: reasoning of unknown origin is in the body as text",
    ]
