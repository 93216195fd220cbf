"""``prompt_snapshot``: a pytest fixture that pins a user's prompt as the raw text a model reads.

::

    def test_greeting_prompt(prompt_snapshot):
        prompt_snapshot.assert_match(promptwire.render(my_prompt, "agentscript"))

The first run (or ``pytest --snapshot-update``) stores the text in
``__snapshots__/<test file>/<test name>.txt`` beside the test; later runs compare byte for byte and
fail with a line diff. A reviewer reads the prompt itself in the stored file and in the change.

pytest loads this module in every run of a project where promptwire is installed (entry point
``pytest11``: ``promptwire``; ``-p no:promptwire`` turns it off), so it imports nothing but pytest
and the standard library: syrupy, which stores and compares the files, loads when a test asks for
the fixture.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

__all__ = ["PromptSnapshot", "prompt_snapshot", "prompt_text"]


def prompt_text(value: Any) -> str:
    """What a snapshot stores: text as it is; a ``RenderedPrompt`` as its ``display()`` (each message
    verbatim under a ``--- role ---`` line); a ``ProviderRequest`` as indented JSON of its body and
    notes (keys in the order sent)."""
    if isinstance(value, str):
        return value
    display = getattr(value, "display", None)
    if callable(display):
        text: str = display()
        return text
    kwargs = getattr(value, "kwargs", None)
    if isinstance(kwargs, Mapping):
        from ..core.json_text import dumps  # a test that asks no snapshot imports no more

        request = {"body": dict(kwargs), "notes": list(getattr(value, "notes", ()))}
        return dumps(request, indent=2) + "\n"
    raise TypeError(
        f"prompt_snapshot stores text, a RenderedPrompt or a ProviderRequest, not {type(value).__name__}"
        " (render a Prompt first: promptwire.render(prompt, format))"
    )


class PromptSnapshot:
    """The fixture's value: ``assert_match`` once per prompt; ``name=`` tells several apart."""

    def __init__(self, snapshot: Any, config: pytest.Config) -> None:
        self._snapshot = snapshot
        self._config = config

    def assert_match(self, value: Any, *, name: str | None = None) -> None:
        text = prompt_text(value)
        snapshot = self._snapshot if name is None else self._snapshot(name=name)
        if snapshot != text:  # syrupy records the comparison; under --snapshot-update it writes
            pytest.fail(self._diff(snapshot), pytrace=False)

    def _diff(self, snapshot: Any) -> str:
        """syrupy's line diff, in colour only where pytest uses colour (a terminal, no
        ``--color=no``) and syrupy's ``--snapshot-no-colors`` is not given: CI logs stay plain."""
        from syrupy.terminal import disable_color

        plain = getattr(self._config.option, "no_colors", False) or not self._config.get_terminal_writer().hasmarkup
        with disable_color() if plain else contextlib.nullcontext():
            return "\n".join(snapshot.get_assert_diff())


@pytest.fixture
def prompt_snapshot(request: pytest.FixtureRequest) -> PromptSnapshot:
    """Pin prompts as raw text under ``__snapshots__/`` beside the test (syrupy underneath)."""
    if not request.config.pluginmanager.hasplugin("syrupy"):
        pytest.fail(_without_syrupy(), pytrace=False)
    snapshot = request.getfixturevalue("snapshot")
    return PromptSnapshot(snapshot.use_extension(_extension()), request.config)


def _without_syrupy() -> str:
    """Why syrupy's ``snapshot`` fixture is missing: not installed, or switched off."""
    import importlib.util

    if importlib.util.find_spec("syrupy") is None:
        return (
            "prompt_snapshot keeps its files with syrupy, which is not installed: pip install 'promptwire[snapshots]'"
        )
    return "prompt_snapshot keeps its files with syrupy, whose pytest plugin is switched off (-p no:syrupy)"


@functools.cache
def _extension() -> type[Any]:
    from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

    class PromptTextExtension(SingleFileSnapshotExtension):
        """One ``.txt`` per snapshot, written as bytes: text mode would turn a prompt's ``\\r\\n`` into
        ``\\n``, and a prompt is pinned byte for byte."""

        file_extension = "txt"
        _write_mode = WriteMode.BINARY

        def serialize(self, data: Any, **kwargs: Any) -> bytes:
            return str(data).encode("utf-8", "surrogatepass")  # a budget may split a surrogate pair

        def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
            yield from super().diff_lines(_decoded(serialized_data), _decoded(snapshot_data))

    return PromptTextExtension


def _decoded(data: Any) -> Any:
    return data.decode("utf-8", "surrogatepass") if isinstance(data, bytes) else data
