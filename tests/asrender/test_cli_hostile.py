"""asrender against hostile and careless input: bounded memory and time, nothing silent, nothing
forged on the terminal. Each hostile input is built here, in the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from promptwire.core.yaml_data import MAX_ALIAS_VALUES as MAX_EXPANDED_NODES
from promptwire.frontend.asrender.cli import main
from promptwire.frontend.asrender.terminal import json_text, one_line
from promptwire.runs.inputs import PromptFileError, parse_data

from hypothesis_profile import examples

CONTROL = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)]}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _write(tmp_path: Path, name: str, content: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


def _billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels):
        refs = ",".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def _subprocess(args: list[str], *, stdin: bytes = b"", memory: int = 400 * 2**20, **kwargs: Any) -> Any:
    """asrender in its own process under an address-space limit (Linux) and a time limit."""
    limit = (
        "import resource, runpy, sys;"
        f"resource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}));"
        "sys.argv = ['asrender', *sys.argv[1:]];"
        "runpy.run_module('promptwire', run_name='__main__')"
    )
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.run([sys.executable, "-c", limit, *args], input=stdin, timeout=60, **kwargs)


# --- memory and time stay bounded --------------------------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is a Linux limit")
def test_a_yaml_alias_bomb_fails_fast_and_small(tmp_path: Path) -> None:
    bomb = _write(tmp_path, "bomb.yaml", _billion_laughs())
    assert len(Path(bomb).read_bytes()) < 500
    done = _subprocess(["render", bomb])
    assert done.returncode == 1
    err = done.stderr.decode()
    assert err.count("\n") == 1
    assert f"bomb.yaml:7:10: YAML aliases stand for more than {MAX_EXPANDED_NODES} values" in err


def test_aliases_within_the_limit_still_load() -> None:
    data = parse_data("base: &b {role: analyst}\nfirst: *b\nsecond: *b\n", "f.yaml")
    assert data["first"] == data["second"] == {"role": "analyst"}


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(PromptFileError, match=r"f.yaml:1:8: the value of &a contains itself"):
        parse_data("a: &a [*a]\n", "f.yaml")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/zero")
def test_an_endless_input_is_refused_at_the_size_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "render", "/dev/zero", "--max-input-size", "64K")
    assert code == 1
    assert err == "asrender: /dev/zero: larger than the input limit of 65536 bytes (raise it with --max-input-size)\n"


def test_the_size_limit_takes_suffixes_and_refuses_nonsense(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "p.yaml", "instruction: " + "x" * 2000 + "\n")
    assert _run(capsys, "render", path, "--max-input-size", "1K")[0] == 1
    assert _run(capsys, "render", path, "--max-input-size", "1M")[0] == 0
    with pytest.raises(SystemExit) as exit_info:
        main(["render", path, "--max-input-size", "lots"])
    assert exit_info.value.code == 2


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_json_nested_past_the_limit_is_one_clear_error(opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    with pytest.raises(PromptFileError, match="nested deeper than 1000 levels"):
        parse_data(opener * 5000 + "1" + closer * 5000, "deep.json", json_by_name=True)


def test_yaml_nested_past_the_limit_is_refused_before_it_is_built() -> None:
    # libyaml's composer recurses in C: far deeper input would crash the process, not raise.
    with pytest.raises(PromptFileError, match=r"deep.yaml:1:1003: nested deeper than 1000 levels"):
        parse_data("v: " + "[" * 100_000 + "]" * 100_000, "deep.yaml")


def test_nesting_at_the_limit_loads() -> None:
    assert parse_data("[" * 999 + "]" * 999, "ok.json") is not None
    assert parse_data("v: " + "[" * 999 + "]" * 999, "ok.yaml") is not None


# --- nothing silent --------------------------------------------------------------------------


def test_a_duplicate_yaml_key_is_refused_with_the_line_of_the_second() -> None:
    with pytest.raises(PromptFileError, match=r"^p.yaml:3:1: invalid YAML: duplicate key 'instruction'$"):
        parse_data("instruction: first\ncontext: []\ninstruction: second\n", "p.yaml")


def test_a_duplicate_json_key_is_refused_with_the_line_of_the_second() -> None:
    with pytest.raises(PromptFileError, match=r"^p.json:3: duplicate key 'instruction'$"):
        parse_data('{"instruction": "first",\n "context": [],\n "instruction": "second"}', "p.json")


def test_merge_keys_are_not_duplicates() -> None:
    data = parse_data("base: &b {role: a, goal: b}\nagent:\n  <<: *b\n  role: c\n", "f.yaml")
    assert data["agent"] == {"role": "c", "goal": "b"}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("NO", "NO"),
        ("yes", "yes"),
        ("on", "on"),
        ("true", True),
        ("null", None),
        ("~", None),
        ("010", 10),
        ("0o10", 8),
        ("0x1f", 31),
        ("1_000", "1_000"),
        ("2026-11-01", "2026-11-01"),
        ("12:30", "12:30"),
        ("1.5", 1.5),
        (".inf", float("inf")),
    ],
)
def test_yaml_scalars_follow_the_yaml_1_2_core_schema(text: str, value: Any) -> None:
    assert parse_data(f"v: {text}\n", "f.yaml") == {"v": value}


def test_a_number_that_drops_digits_of_its_text_is_reported() -> None:
    notes: list[str] = []
    assert parse_data("version: 1.10\nprice: 2.5\n", "f.yaml", warnings=notes) == {"version": 1.1, "price": 2.5}
    assert notes == ["f.yaml:1:10: 1.10 is read as the number 1.1; quote it to keep the text"]


def test_json_is_recognised_by_content_even_tab_indented(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "prompt", '{\n\t"instruction": "tabbed"\n}')
    code, out, err = _run(capsys, "render", path)
    assert (code, err) == (0, "")
    assert "tabbed" in out


def test_a_yaml_flow_mapping_is_still_yaml() -> None:
    assert parse_data("{instruction: hi}", "f.yaml") == {"instruction": "hi"}


def test_invalid_utf8_names_the_byte(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", b"instruction: caf\xc3 ok")
    code, _, err = _run(capsys, "render", path)
    assert (code, err) == (1, f"asrender: {path}: not UTF-8 text at byte 16\n")


def test_yaml_errors_are_one_line_with_line_and_column(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.yaml", "instruction: [unclosed\nnext: 1\n")
    code, _, err = _run(capsys, "render", path)
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith(f"asrender: {path}:2:")


def test_a_clock_cannot_come_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "p.yaml", "instruction: hi\n")
    with pytest.raises(SystemExit) as exit_info:
        main(["render", path, "-f", "agently", "-o", "clock=1"])
    assert exit_info.value.code == 2
    assert "'clock' takes a Python value" in capsys.readouterr().err


# --- nothing forged on the terminal ------------------------------------------------------------


def test_a_forged_line_in_a_field_name_is_escaped(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _write(tmp_path, "p.json", json.dumps({"instruction": "x", "evil\nasrender: all good\x1b[2J": 1}))
    code, _, err = _run(capsys, "render", path)
    assert code == 1
    assert err.count("\n") == 1
    assert "\x1b" not in err
    assert "evil\\x0aasrender: all good\\x1b[2J" in err


def test_one_line_escapes_every_kind_of_control() -> None:
    assert one_line("a\nb\tc\x1b\x9b\x7f\u202e\u2028\udc80") == "a\\x0ab\\x09c\\x1b\\x9b\\x7f\\u202e\\u2028\\udc80"


def test_json_output_escapes_what_a_terminal_or_an_encoder_would_act_on() -> None:
    text = json_text({"k": "\x9b\u2028\udc80 ok"})
    assert json.loads(text) == {"k": "\x9b\u2028\udc80 ok"}
    assert text.encode("utf-8")  # a lone surrogate left raw would not encode
    assert "\\u009b" in text and "\\u2028" in text and "\\udc80" in text


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_reported_as_such(tmp_path: Path) -> None:
    path = _write(tmp_path, "p.yaml", "instruction: hi\n")
    with open("/dev/full", "wb") as full:
        done = _subprocess(["render", path], stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 1
    assert done.stderr.decode() == "asrender: cannot write output: No space left on device\n"


@pytest.mark.skipif(os.name != "posix", reason="closing a descriptor for the child is POSIX")
def test_a_closed_stdout_is_reported_as_such(tmp_path: Path) -> None:
    path = _write(tmp_path, "p.yaml", "instruction: hi\n")
    done = subprocess.run(
        ["/bin/sh", "-c", f'"{sys.executable}" -m promptwire render "{path}" >&-'],
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.decode() == "asrender: cannot write output: standard output is closed\n"


_KEYS = st.text(st.characters(codec="utf-8"), max_size=12) | st.text(
    st.sampled_from("\n\x1b\x9b\u202e:[]{}"), max_size=6
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=examples(1.5), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(_KEYS | st.sampled_from(["instruction", "context", "system"]), _JSON, max_size=4))
def test_stderr_is_plain_lines_and_the_exit_code_is_known(
    data: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "p.json", json.dumps(data))
    for fmt in ("agentscript", "messages", "agently", "agens"):
        code, _, err = _run(capsys, "render", path, "-f", fmt)
        assert code in (0, 1)
        assert "internal error" not in err
        for line in err.splitlines():
            assert line.startswith("asrender: ")
            assert not CONTROL & set(line)


@pytest.mark.parametrize("fmt", ["agentscript", "messages", "agently", "agens"])
def test_a_value_600_deep_with_a_budget_renders_in_every_format(
    fmt: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    value = "[" * 600 + "]" * 600
    path = _write(tmp_path, "p.json", f'{{"instruction": "x", "context": [{{"value": {value}, "budget": "1k"}}]}}')
    code, _, err = _run(capsys, "render", path, "-f", fmt)
    assert (code, err) == (0, "")


@pytest.mark.parametrize(("name", "content"), [("p.yaml", "instruction: {}\n"), ("p.json", '{{"instruction": {}}}')])
def test_an_integer_too_long_to_convert_is_one_clear_error(
    name: str, content: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = _write(tmp_path, name, content.format("9" * 5000))
    code, _, err = _run(capsys, "render", path)
    assert code == 1
    assert err.count("\n") == 1
    assert "an integer has more than 4300 digits" in err
    assert "internal error" not in err


def _deep_schema_file(tmp_path: Path) -> str:
    """A prompt file whose output schema nests as deep as a prompt file may (997 of its 1000 levels:
    two per object level, and the file's own object, ``output`` and ``schema``)."""
    schema = '{"type": "string"}'
    for _ in range(497):
        schema = f'{{"type": "object", "properties": {{"a": {schema}}}, "required": ["a"]}}'
    return _write(tmp_path, "p.json", f'{{"instruction": "x", "output": {{"schema": {schema}}}}}')


@pytest.mark.parametrize(
    "flags",
    [
        ["-O", "json"],
        ["-f", "messages", "-O", "json"],
        ["-f", "agens", "-O", "json"],
        ["-O", "trace"],
        ["--provider", "openai", "--model", "m", "--dry-run", "-O", "json"],
        ["--provider", "openai-responses", "--model", "m", "--dry-run"],
        ["--provider", "anthropic", "--model", "m", "--dry-run"],
        ["--provider", "ollama", "--model", "m", "--dry-run", "-O", "json"],
    ],
)
def test_a_schema_as_deep_as_a_prompt_may_nest_renders_and_builds_requests(
    flags: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """pydantic's JSON mode refuses values past ~250 levels, json's indenting encoder and the
    offline mock recurse per level: each said "internal error" or "nested too deeply" here."""
    code, out, err = _run(capsys, "render", _deep_schema_file(tmp_path), *flags)
    assert (code, err) == (0, "")
    assert out.count('"a"') >= 497


def test_a_schema_too_deep_for_an_sdk_to_send_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptwire.testing.provider_servers import fake_provider

    with fake_provider() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        code, out, err = _run(capsys, "render", _deep_schema_file(tmp_path), "--provider", "openai", "--model", "ok")
    assert code == 1
    assert out.endswith(
        "--- failed ---\nPromptwireError: openai: the request or its reply is nested too deeply for the SDK to handle\n"
    )
    assert err == "asrender: openai: the request or its reply is nested too deeply for the SDK to handle\n"


_TEXT = st.text(st.characters(codec="utf-8"), max_size=12)
_PROMPTS = st.fixed_dictionaries(
    {"instruction": _TEXT},
    optional={
        "system": _TEXT,
        "context": st.lists(st.fixed_dictionaries({"value": _JSON}, optional={"label": _TEXT}), max_size=3),
        "history": st.lists(st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": _TEXT})),
        "attachments": st.lists(
            st.one_of(
                st.fixed_dictionaries({"type": st.just("image"), "url": _TEXT}),
                st.fixed_dictionaries(
                    {"type": st.just("image"), "data": st.just("QUJD"), "media_type": st.just("image/png")}
                ),
                st.fixed_dictionaries({"type": st.just("audio"), "data": st.just("QUJD"), "format": _TEXT}),
                st.fixed_dictionaries({"type": st.just("file"), "data": st.just("QUJD"), "filename": _TEXT}),
            ),
            max_size=3,
        ),
        "tools": st.lists(
            st.fixed_dictionaries(
                {"name": _TEXT},
                optional={
                    "description": _TEXT,
                    "parameters": st.dictionaries(_KEYS, _JSON, max_size=3),
                    "returns": _JSON,
                },
            ),
            max_size=2,
        ),
        "tool_calls": st.lists(
            st.fixed_dictionaries(
                {"name": _TEXT}, optional={"id": _TEXT, "arguments": st.dictionaries(_KEYS, _JSON, max_size=3)}
            ),
            max_size=2,
        ),
        "tool_results": st.lists(
            st.fixed_dictionaries({"content": _JSON}, optional={"is_error": st.booleans()}), max_size=2
        ),
        "output": st.fixed_dictionaries(
            {"schema": st.dictionaries(_KEYS | st.sampled_from(["type", "properties", "required"]), _JSON, max_size=3)}
        ),
        "config": st.fixed_dictionaries(
            {},
            optional={
                "temperature": st.floats(min_value=0, max_value=2),
                "max_output": st.integers(min_value=1, max_value=5000),
                "think": st.sampled_from([True, False, "auto", "low", "medium", "high"]),
                "strict": st.booleans(),
            },
        ),
    },
)


@settings(max_examples=examples(0.6), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prompt=_PROMPTS)
@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic", "ollama"])
def test_any_prompt_file_is_a_dry_run_request_or_one_plain_line(
    provider: str, prompt: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Prompt data shaped like a prompt, with any values, through each adapter's build_request: the
    request as JSON (its body and notes), or a clear error; never an internal error."""
    path = _write(tmp_path, "p.json", json.dumps(prompt))
    code, out, err = _run(capsys, "render", path, "--provider", provider, "--model", "m", "--dry-run", "-O", "json")
    assert code in (0, 1), err
    assert "internal error" not in err
    for line in err.splitlines():
        assert line.startswith("asrender: ")
        assert not CONTROL & set(line)
    event("request built" if code == 0 else "refused: " + err.split(": ")[2][:40])  # --hypothesis-show-statistics
    if code == 0:
        (call,) = json.loads(out)
        assert call["provider"] == provider and isinstance(call["body"], dict)
