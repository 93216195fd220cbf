"""Batches beyond one machine: a program (or a prompt per row) over a Ray Data dataset.

``asrender batch`` runs rows on one machine; a dataset that outgrows it runs on a Ray cluster with
the same rows giving the same result lines. :class:`RunRows` is a callable class for
``Dataset.map_batches``: each Ray actor builds the runner once (the plugin host, the program) and
runs the rows of each batch it is handed exactly as ``asrender batch`` runs them, offline or, with
a provider, concurrently on the actor's event loop with promptwire's async adapters (rate limits
waited out). :func:`ray_map` is the one call that wires it up. Each output row holds the row's
``id``, ``status`` and ``result``: the result line ``asrender batch`` writes for the row, as JSON
text, without its ``line``. Rows need an ``id`` column (a dataset has no line numbers to name them
by). A dataset is a table: a field some rows lack is null in those rows, and the program sees it so.

For ``ray.data.llm``'s processors (its HTTP request stage, or an engine such as vLLM on the
cluster's GPUs), :class:`BuildRequest` is the preprocess (each row's request, as ``payload`` for the
HTTP stage and ``messages`` for an engine) and :class:`CheckReply` the postprocess (the reply,
``http_response`` or ``generated_text``, checked against the call's output contract, and the
row's result line, or the repair call when the check failed with attempts left). Both are the
first round of ``asrender batch --batch-file``: a row whose program makes more calls comes back
``waiting``, with its next request, for another pass.

Needs ``pip install 'promptwire[ray]'`` (Ray Data); nothing here imports Ray until it is used.

    import ray
    from promptwire.batch import ray_map

    rows = ray.data.read_json("rows.jsonl")            # each row an object with an "id"
    results = ray_map(rows, "classify.as", provider="openai", concurrency=16, actors=4)
    results.write_json("results/")
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .runs.batch import Batch, Outcome, PromptField, RowRunner
from .runs.options import RunOptions

__all__ = ["BuildRequest", "CheckReply", "RunRows", "ray_map", "result_lines"]


class RunRows:
    """A callable class for ``Dataset.map_batches(RunRows, fn_constructor_kwargs=..., batch_format="pyarrow")``:
    see the module docstring. ``program`` is a ``.as`` file (its folder is its workspace, as for
    ``asrender``), or ``None`` to read each row as prompt data with ``reader``; the rest are the
    options of ``asrender batch`` (``options`` a :class:`RunOptions`, or made from ``provider``,
    ``model``, ``format`` and ``responses``)."""

    def __init__(
        self,
        program: str | None = None,
        *,
        provider: str = "offline",
        model: str | None = None,
        format: str = "agentscript",
        responses: Sequence[Any] = (),
        options: RunOptions | None = None,
        reader: str = "prompt",
        prompt: PromptField = "full",
        concurrency: int = 8,
        max_wait: float = 300.0,
    ) -> None:
        from .plugins.manager import default_host

        options = options or RunOptions(adapter=provider, model=model, format=format, responses=tuple(responses))
        source = Path(program).read_text(encoding="utf-8") if program is not None else None
        self.batch = Batch(
            rows="<dataset>",
            options=replace(options, debug=None, on_text=None),
            program=source,
            program_path=program,
            reader=reader,
            prompt=prompt,
            max_wait=max_wait,
        )
        self.concurrency = concurrency
        self.runner = RowRunner(self.batch, default_host())

    def __call__(self, rows: Any) -> dict[str, list[Any]]:
        """One batch of rows (a pyarrow Table) to its ``id``, ``status`` and ``result`` columns."""
        if "id" not in rows.column_names:
            raise ValueError("promptwire.batch: every row needs an 'id' column (a dataset has no line numbers)")
        given = rows.to_pylist()
        texts = [row_text(row) for row in given]
        numbered = [(number, text) for number, text in enumerate(texts, 1) if not isinstance(text, _NotJson)]
        if self.batch.options.adapter == "offline" or self.batch.options.dry_run:
            outcomes = iter(self.runner.run_chunk(numbered))
        else:
            import asyncio

            outcomes = iter(asyncio.run(self._live(numbered)))
        results = [
            {"id": row["id"], "status": "bad", "error": text.reason}
            if isinstance(text, _NotJson)
            else {**_without_line(next(outcomes)), "id": row["id"]}  # its own id, whatever it is
            for row, text in zip(given, texts, strict=True)
        ]
        return {
            "id": [result["id"] for result in results],
            "status": [result["status"] for result in results],
            "result": [json.dumps(result, ensure_ascii=False) for result in results],
        }

    async def _live(self, rows: list[tuple[int, str]]) -> list[Outcome]:
        import asyncio

        from .calls.rate_limit import WaitOnRateLimits
        from .runs.run import aclose_clients, calls_for

        provider = calls_for(self.runner.host, self.batch.options)
        calls = provider.around(WaitOnRateLimits(self.batch.max_wait))
        gate = asyncio.Semaphore(self.concurrency)

        async def one(number: int, text: str) -> Outcome:
            async with gate:
                return await self.runner.arun_row(number, text, calls)

        try:
            return list(await asyncio.gather(*(one(number, text) for number, text in rows)))
        finally:
            await aclose_clients(provider)


class _OneCall:
    """What :class:`BuildRequest` and :class:`CheckReply` share: a row replayed against the
    replies given, its runner made on the worker the first time a row comes (and not pickled)."""

    def __init__(
        self,
        program: str | None = None,
        *,
        provider: str = "openai",
        model: str | None = None,
        format: str = "agentscript",
        reader: str = "prompt",
        prompt: PromptField = "full",
    ) -> None:
        self.program = program
        self.model = model
        self.settings: dict[str, Any] = {"provider": provider, "model": model, "format": format, "reader": reader}
        self.prompt: PromptField = prompt
        self._runner: RunRows | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_runner": None}

    def replay(self, row: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
        """The row run with ``answers`` (``custom_id`` to :class:`Answer`): its result line's data
        (``done``), or ``waiting`` with the request of its first call without an answer."""
        from .runs.batch_rounds import replay_row

        if self._runner is None:
            self._runner = RunRows(self.program, prompt=self.prompt, **self.settings)
        data = {key: value for key, value in row.items() if key not in _OUR_COLUMNS}
        text = row_text(data)
        if isinstance(text, _NotJson):
            return {"status": "done", "result": {"id": data.get("id"), "status": "bad", "error": text.reason}}
        done = replay_row(self._runner.runner, 1, text, answers)
        if done["status"] == "done":
            result = {key: value for key, value in done["result"].items() if key not in ("line", "source")}
            done["result"] = {**result, "id": data.get("id")}  # its own id, whatever it is
        return done


_OUR_COLUMNS = frozenset({"payload", "messages", "promptwire", "http_response", "generated_text"})
"""The columns the two steps add (and the processors between them): not the row's input."""


class BuildRequest(_OneCall):
    """The preprocess of a ``ray.data.llm`` processor: each row with its first call's request, as
    ``payload`` (the provider's request body, for the HTTP request stage) and ``messages`` (its
    messages, for an engine stage), and ``promptwire`` (the call's id, for :class:`CheckReply`).
    A row that makes no call, or fails before, has no request: its ``promptwire`` says so."""

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        step = self.replay(row, {})
        request = step.pop("request", None)
        body = dict(request.kwargs) if request is not None else {}
        return {**row, "payload": body, "messages": body.get("messages", []), "promptwire": json.dumps(step)}


class CheckReply(_OneCall):
    """The postprocess: the row's reply (``http_response``, the provider's JSON, or
    ``generated_text``, an engine's text) read as the live call's reply would be and checked
    against its output contract; the row comes back with ``status`` and ``result`` (the result line
    ``asrender batch`` writes, as JSON text), or ``waiting`` with the next request in ``payload``
    (a repair call, or the program's next call)."""

    def __call__(self, row: dict[str, Any]) -> dict[str, Any]:
        from .adapters.batch_files import Answer

        asked = json.loads(row["promptwire"])
        if asked["status"] == "waiting":
            body = row.get("http_response")
            if body is None:
                body = _chat_completion(row.get("generated_text") or "", self.model)
            answer = Answer(body=body) if isinstance(body, dict) else Answer(failure=_not_a_reply(body))
            asked = self.replay(row, {asked["custom_id"]: answer})
        request = asked.pop("request", None)
        result = asked.get("result")
        status = result["status"] if result is not None else "waiting"
        payload = dict(request.kwargs) if request is not None else {}
        return {**row, "status": status, "result": json.dumps(result), "payload": payload}


def _not_a_reply(body: Any) -> Any:
    """The failure of a reply that is no JSON object (a list, text, a number): the row fails with
    it, as a live call's would, quoting what came."""
    from .adapters.status import missing_part

    return missing_part("LLM provider response is not a JSON object", body if isinstance(body, str) else repr(body))


class _NotJson:
    """A row that is no JSON data: the reason, for its ``bad`` result."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def row_text(row: Mapping[str, Any]) -> str | _NotJson:
    """A dataset's row as the JSON line ``asrender batch`` would read, or why it cannot be one: a
    value JSON has no form for (Ray Data reads a date-like text as a timestamp, a binary column as
    bytes, a decimal column as ``Decimal``) fails that row only."""
    try:
        found = _not_json(row, "")
    except RecursionError:
        return _NotJson("the row is nested too deeply to process")
    if found is not None:
        where, value = found
        hint = " (Ray Data reads date-like text as a timestamp: cast the column to text)" if _is_date(value) else ""
        return _NotJson(f"{where or 'the row'}: a {type(value).__name__} is no JSON value{hint}")
    return json.dumps(row, ensure_ascii=False)


def _not_json(value: Any, where: str) -> tuple[str, Any] | None:
    """The first place in ``value`` holding what JSON cannot, and what it holds."""
    if value is None or isinstance(value, str | bool | int | float):
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{where}.{key!r}".lstrip("."), key
            found = _not_json(item, f"{where}.{key}".lstrip("."))
            if found is not None:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _not_json(item, f"{where}[{index}]")
            if found is not None:
                return found
        return None
    return where, value


def _is_date(value: Any) -> bool:
    import datetime

    return isinstance(value, datetime.date | datetime.time | datetime.timedelta)


def _chat_completion(text: str, model: str | None) -> dict[str, Any]:
    """An engine's generated text as the Chat Completions reply the openai adapter reads."""
    message = {"role": "assistant", "content": text}
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return {"id": "engine", "object": "chat.completion", "created": 0, "model": model, "choices": [choice]}


def _without_line(outcome: Outcome) -> dict[str, Any]:
    """The row's result line as data, without ``line`` (its place in a batch of the dataset, which
    says nothing: the ``id`` names the row) and ``source`` (what binds a results file of ``asrender
    batch`` to its batch, to resume it; a dataset is not resumed)."""
    result: dict[str, Any] = json.loads(outcome.line)
    result.pop("line", None)
    result.pop("source", None)
    return result


def ray_map(
    dataset: Any,
    program: str | None = None,
    *,
    actors: int = 2,
    batch_size: int = 256,
    num_cpus: float = 1,
    **options: Any,
) -> Any:
    """``dataset`` (a ``ray.data.Dataset`` of rows, each with an ``id``) with each row run by
    ``program`` (or read as a prompt) on a pool of ``actors`` Ray actors, ``batch_size`` rows a
    batch; ``options`` are :class:`RunRows`'s. Lazy, as Ray Data is: nothing runs until the result
    is read or written."""
    return dataset.map_batches(
        RunRows,
        fn_constructor_args=(program,),
        fn_constructor_kwargs=options,
        batch_format="pyarrow",
        batch_size=batch_size,
        concurrency=actors,
        num_cpus=num_cpus,
    )


def result_lines(results: Any) -> Mapping[Any, dict[str, Any]]:
    """A small result dataset read back as ``{id: result}`` (for tests and checks; a large one is
    written with ``write_json`` instead)."""
    return {row["id"]: json.loads(row["result"]) for row in results.iter_rows()}
