"""``asrender batch``: one program (or one prompt per row) run over every row of a JSONL file.

Each row runs on its own, as ``asrender PROGRAM --input ROW`` would run it (the same options and
the same permissions), and gives one line of the results file: its id, its status (``ok``;
``failed``, with the error; ``bad``, a line that is no row), its value, and every call (site,
attempt, the rendered prompt or its digest, the request, the reply, its usage, its error).

Rows stream in and results stream out (:mod:`.batch_io`), so memory does not grow with the number
of rows. Offline (the default) rows run here, or with ``--jobs N`` in N processes of a
``ProcessPoolExecutor``, a chunk of rows a task and a few chunks in flight per process. With a
provider, rows run concurrently on one event loop (:func:`.run.arun`, the SDKs' async clients), at
most ``--concurrency`` at once, each call waiting out the provider's rate limits
(:class:`promptwire.calls.rate_limit.WaitOnRateLimits`). A row that fails is written as failed and
reported on stderr with its line number; the batch goes on. The summary ends the batch on stderr.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from ..core.call import Usage
from ..core.errors import PromptwireError
from ..core.json_text import dumps
from ..core.text_files import DEFAULT_MAX_BYTES
from ..frontend.agentscript.diagnostics import CheckError
from .batch_io import BadRow, ResultsFile, Row, id_key, parse_row, read_rows, result_line
from .run import Calls, RunOptions, RunResult, request_dict

if TYPE_CHECKING:
    import asyncio
    from multiprocessing.connection import Connection

    from ..calls.cache_prefix import CachePrefix
    from ..calls.counting import Count
    from ..core.call import ModelCall
    from ..frontend.agentscript.syntax import Program
    from ..plugins.manager import PluginHost

__all__ = ["Batch", "Outcome", "RowRunner", "Summary", "run_batch"]

PromptField = Literal["full", "digest"]

CHUNK_ROWS = 64
"""Rows a process runs per task with ``--jobs``: enough to make the hand-over cheap, few enough that
a killed batch loses little and progress moves."""


@dataclass(frozen=True)
class Batch:
    """What runs on every row (picklable: each process of ``--jobs`` gets a copy)."""

    rows: str
    """The rows' file (for messages)."""
    options: RunOptions
    program: str | None = None
    """A program's source; ``None``: each row is prompt data, read by ``reader``."""
    program_path: str | None = None
    reader: str = "prompt"
    prompt: PromptField = "full"
    """Each call's rendered prompt in full (its ``to_dict()``), or only its digest."""
    max_wait: float = 300.0
    """Seconds one call may wait out rate limits, in all."""
    max_row_bytes: int = DEFAULT_MAX_BYTES
    """The longest row line run (``--max-input-size``): a longer one is a bad row, never read whole."""


@dataclass
class Summary:
    """What a batch did, for its last line on stderr."""

    ok: int = 0
    failed: int = 0
    bad: int = 0
    skipped: int = 0
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    counted: int | None = None
    """The input tokens the provider's count endpoint counted in every row (``--count-tokens``)."""
    not_counted: int = 0
    """The calls whose provider has no count endpoint, which ``counted`` leaves out."""
    rate_waits: int = 0
    started: float = field(default_factory=time.monotonic)

    def add(self, outcome: Outcome) -> None:
        if outcome.status == "ok":
            self.ok += 1
        elif outcome.status == "failed":
            self.failed += 1
        else:
            self.bad += 1
        self.calls += outcome.calls
        self.tokens_in += outcome.tokens_in
        self.tokens_out += outcome.tokens_out
        if outcome.counted is not None:
            self.counted = (self.counted or 0) + outcome.counted
        self.not_counted += outcome.not_counted

    @property
    def rows(self) -> int:
        return self.ok + self.failed + self.bad

    @property
    def complete(self) -> bool:
        """Every row ok, and with ``--count-tokens`` every call counted (exit status 0)."""
        return self.failed == self.bad == self.not_counted == 0

    def line(self) -> str:
        seconds = time.monotonic() - self.started
        rate = f" ({self.rows / seconds:.0f} rows/s)" if seconds > 0 and self.rows else ""
        skipped = f", {self.skipped} done before" if self.skipped else ""
        waits = f", {self.rate_waits} rate-limit waits" if self.rate_waits else ""
        counted = "" if self.counted is None else f", {self.counted} input tokens counted"
        if self.not_counted:
            counted += (
                f" ({self.not_counted} call{'' if self.not_counted == 1 else 's'} not counted: no count endpoint)"
            )
        return (
            f"batch: {self.ok} ok, {self.failed} failed, {self.bad} bad{skipped}; {self.calls} calls, "
            f"tokens {self.tokens_in} in / {self.tokens_out} out{counted}{waits}; {seconds:.1f}s{rate}"
        )


@dataclass(frozen=True, slots=True)
class Outcome:
    """One row's result line, and what the summary and the terminal need of it."""

    line: bytes
    status: str
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    report: str | None = None
    """The line for stderr, for a row that failed or is bad."""
    counted: int | None = None
    """The row's input tokens as the provider's count endpoint counted them (``--count-tokens``)."""
    not_counted: int = 0
    """The row's calls whose provider has no count endpoint."""


def run_batch(
    batch: Batch,
    out: str,
    *,
    jobs: int = 1,
    concurrency: int = 8,
    report: Callable[[str], None],
    host: PluginHost | None = None,
    resume_anyway: bool = False,
    summary: Summary | None = None,
) -> Summary:
    """Run ``batch`` over its rows into ``out`` (resuming it), offline or live as its options say;
    ``report`` gets each failed or bad row's line as it comes. Rows sharing an id, or results of
    another batch in ``out``, are refused before any row runs (:mod:`.batch_binding`; the latter
    kept as done with ``resume_anyway``). The count goes into ``summary`` when given, so a caller
    still has it when the batch is interrupted (``KeyboardInterrupt``): every result written by
    then is in ``out``, and running the batch again resumes it."""
    from ..plugins.manager import default_host
    from .batch_binding import check_rows, run_digest

    summary = Summary() if summary is None else summary
    results, done = ResultsFile.open(out)
    with results, Progress(batch.rows, summary, report) as progress:
        check_rows(
            batch.rows,
            done,
            run_digest(batch.program, batch.reader, batch.options),
            out,
            anyway=resume_anyway,
            limit=batch.max_row_bytes,
        )

        def take(outcomes: Iterable[Outcome]) -> None:
            outcomes = list(outcomes)
            results.write(outcome.line for outcome in outcomes)
            for outcome in outcomes:  # counted as written, before anything a Ctrl-C can stop
                summary.add(outcome)
            for outcome in outcomes:
                if outcome.report is not None:
                    progress.write(outcome.report)
            progress.update(len(outcomes))

        rows = rows_to_run(batch.rows, done, summary, progress, batch.max_row_bytes)
        if batch.options.adapter != "offline" and not batch.options.dry_run and jobs > 1:
            from .batch_workers import run_in_workers, shares

            def waited(count: int) -> None:
                summary.rate_waits += count

            run_in_workers(rows, shares(concurrency, jobs), _live_worker, batch, take, waited)
        elif batch.options.adapter != "offline" and not batch.options.dry_run:
            import asyncio

            asyncio.run(_live(batch, rows, concurrency, take, summary, host or default_host()))
        elif jobs > 1:
            _in_processes(batch, rows, jobs, take)
        else:
            runner = RowRunner(batch, host or default_host())
            for chunk in chunks(rows, CHUNK_ROWS):
                take(runner.run_chunk(chunk))
    return summary


def rows_to_run(
    path: str, done: Container[str], summary: Summary, progress: Progress, limit: int = DEFAULT_MAX_BYTES
) -> Iterator[tuple[int, str]]:
    """The rows of ``path`` not done yet (a line longer than ``limit`` bytes is not kept: see
    :func:`.batch_io.read_rows`). Telling which are done means reading each line's id, so a first
    run (nothing done) leaves every line to be read where it runs."""
    for number, text in read_rows(path, limit):
        if done:
            row = parse_row(path, number, text)
            if id_key(row.id) in done:
                summary.skipped += 1
                progress.update(1)
                continue
        yield number, text


def rows_in(path: str, limit: int = DEFAULT_MAX_BYTES) -> int:
    """How many rows ``path`` holds (its non-blank lines, as :func:`.batch_io.read_rows` gives them)."""
    return sum(1 for _ in read_rows(path, limit))


def results_in(out: str) -> int:
    """How many results ``out`` holds: its complete lines (a batch writes one a row, only whole
    lines; an unfinished last one is not a result)."""
    with open(out, "rb") as stream:
        return sum(block.count(b"\n") for block in iter(lambda: stream.read(1 << 20), b""))


def chunks(rows: Iterator[tuple[int, str]], size: int) -> Iterator[list[tuple[int, str]]]:
    chunk: list[tuple[int, str]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


# --- offline, in processes -------------------------------------------------------------------------


def _in_processes(
    batch: Batch, rows: Iterator[tuple[int, str]], jobs: int, take: Callable[[Iterable[Outcome]], None]
) -> None:
    """Chunks of rows run by ``jobs`` processes, at most two chunks a process in flight (so the
    rows are read as they are needed), each chunk's results written as it comes back. Ctrl-C is
    this process's to handle (the workers ignore it, so none prints a traceback): the chunks not
    started are dropped, and the batch stops with what it wrote."""
    import concurrent.futures as futures
    import multiprocessing

    # "spawn" does not copy this process (its threads, its open results file) into the workers.
    context = multiprocessing.get_context("spawn")
    with futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker, initargs=(batch,)) as pool:
        pending: set[futures.Future[list[Outcome]]] = set()
        try:
            for chunk in chunks(rows, CHUNK_ROWS):
                if len(pending) >= 2 * jobs:
                    finished, pending = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
                    for future in finished:
                        take(future.result())
                pending.add(pool.submit(_run_chunk, chunk))
            for future in futures.as_completed(pending):
                take(future.result())
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


_worker: RowRunner | None = None


def _start_worker(batch: Batch) -> None:
    global _worker
    import signal

    from ..plugins.manager import default_host

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent stops the batch

    _worker = RowRunner(batch, default_host())


def _run_chunk(chunk: list[tuple[int, str]]) -> list[Outcome]:
    assert _worker is not None, "the pool's initializer makes the runner"
    return _worker.run_chunk(chunk)


# --- live --------------------------------------------------------------------------------------------


async def _live(
    batch: Batch,
    rows: Iterator[tuple[int, str]],
    concurrency: int,
    take: Callable[[Iterable[Outcome]], None],
    summary: Summary,
    host: PluginHost,
) -> None:
    """Rows run as tasks on this loop, ``concurrency`` at most at once, their calls sharing the
    adapter (and its async clients' connections)."""
    import asyncio

    from ..calls.rate_limit import WaitOnRateLimits
    from .run import aclose_clients, calls_for

    def waited(seconds: float) -> None:
        summary.rate_waits += 1

    provider = calls_for(host, batch.options)
    calls = provider.around(WaitOnRateLimits(batch.max_wait, on_wait=waited))
    runner = RowRunner(batch, host)
    pending: set[asyncio.Task[Outcome]] = set()
    try:
        for number, text in rows:
            if len(pending) >= concurrency:
                finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                take(task.result() for task in finished)
            pending.add(asyncio.create_task(runner.arun_row(number, text, calls)))
        while pending:
            finished, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            take(task.result() for task in finished)
    finally:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await aclose_clients(provider)


async def _live_worker(batch: Batch, share: int, connection: Connection) -> None:
    """A worker process of a live ``--jobs`` batch (:mod:`.batch_workers`): as :func:`_live`, its
    rows coming from the batch's process through ``connection`` and its outcomes going back there,
    at most ``share`` rows at once."""
    import asyncio
    from collections import deque

    from ..calls.rate_limit import WaitOnRateLimits
    from ..plugins.manager import default_host
    from .batch_workers import inbox, send_outcomes
    from .run import aclose_clients, calls_for

    waits = 0

    def waited(seconds: float) -> None:
        nonlocal waits
        waits += 1

    host = default_host()
    provider = calls_for(host, batch.options)
    calls = provider.around(WaitOnRateLimits(batch.max_wait, on_wait=waited))
    runner = RowRunner(batch, host)
    rows = inbox(connection)
    waiting: deque[tuple[int, str]] = deque()
    pending: set[asyncio.Future[Any]] = set()
    receiving: asyncio.Future[Any] | None = asyncio.ensure_future(rows.get())
    try:
        while receiving is not None or waiting or pending:
            while waiting and len(pending) < share:
                number, text = waiting.popleft()
                pending.add(asyncio.ensure_future(runner.arun_row(number, text, calls)))
            watched = pending if receiving is None else pending | {receiving}
            finished, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            if receiving in finished:
                chunk = receiving.result()
                waiting.extend(chunk or ())
                receiving = None if chunk is None else asyncio.ensure_future(rows.get())
            done = [task for task in finished if task in pending]
            if done:
                pending.difference_update(done)
                send_outcomes(connection, [task.result() for task in done], waits)
                waits = 0
    finally:
        if receiving is not None:
            receiving.cancel()
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await aclose_clients(provider)


# --- one row -----------------------------------------------------------------------------------------


_ROW_FAILURES = (PromptwireError, CheckError, RecursionError)
"""What a row's run may raise because of the row (or the provider): the row fails, the batch goes on."""


class RowRunner:
    """Runs rows of ``batch`` and makes their result lines."""

    def __init__(self, batch: Batch, host: PluginHost) -> None:
        from .batch_binding import run_digest

        self.batch = batch
        self.host = host
        self.reader = None if batch.program is not None else host.reader(batch.reader)
        self.model_field: str | None = getattr(self.reader, "model_field", None)
        """The field of a row naming its model, when the reader reads a provider's request body
        (``model``, Bedrock's ``modelId``): each row is asked of its own model, as a single body
        is, unless the options replace it (``--model``). ``None``: the rows name no model."""
        self.run_digest = run_digest(batch.program, batch.reader, batch.options)
        """What the rows' results were made by, in each line's ``source`` (:mod:`.batch_binding`)."""
        self._loaded: Program | BaseException | None = None

    def run_chunk(self, chunk: Iterable[tuple[int, str]]) -> list[Outcome]:
        return [self.run_row(number, text) for number, text in chunk]

    def run_row(self, number: int, text: str, calls: Callable[[Row], Calls] | None = None) -> Outcome:
        """Row ``number`` run here (offline, or a dry run; or with the calls ``calls`` makes for
        the row)."""
        from .run import run, run_prompt

        row = parse_row(self.batch.rows, number, text)
        source = self._source(text)
        if isinstance(row, BadRow):
            return self._bad(row, source)
        options = _row_options(self.batch.options)
        given = None if calls is None else calls(row)
        try:
            if self.batch.program is not None:
                input_value = _js(row.data)  # before the program, as a run of the text reads them
                result = run(self._program(), input_value, options, host=self.host, calls=given)
            else:
                prompt, model = self._prompt(row)
                result = run_prompt(
                    prompt, self.batch.rows, options, host=self.host, calls=given, line=row.line, model=model
                )
        except _ROW_FAILURES as exc:
            return self._failed(row, exc, source, options.count)
        return self._ok(row, result, source, options.count)

    async def arun_row(self, number: int, text: str, calls: Calls) -> Outcome:
        """Row ``number`` run on the event loop, its calls made as ``calls`` says, its program on
        the loop's own thread (``on_loop_thread``: see :func:`.run.arun`), as a hundred rows at once
        in threads would hand the interpreter's lock between them at every wait on a socket."""
        from .run import arun, arun_prompt

        row = parse_row(self.batch.rows, number, text)
        source = self._source(text)
        if isinstance(row, BadRow):
            return self._bad(row, source)
        options = _row_options(self.batch.options)
        try:
            if self.batch.program is not None:
                input_value = _js(row.data)
                result = await arun(
                    self._program(), input_value, options, host=self.host, calls=calls, on_loop_thread=True
                )
            else:
                prompt, model = self._prompt(row)
                result = await arun_prompt(
                    prompt, self.batch.rows, options, host=self.host, calls=calls, line=row.line, model=model
                )
        except _ROW_FAILURES as exc:
            return self._failed(row, exc, source, options.count)
        return self._ok(row, result, source, options.count)

    def _program(self) -> Program:
        """The batch's program, loaded (parsed, its imports merged, checked) at the first row and
        kept for every other: loading depends on nothing a row brings. A program that cannot be
        loaded fails every row with the same error, as it would if each row loaded it."""
        from .run import load

        if self._loaded is None:
            assert self.batch.program is not None
            try:
                self._loaded = load(self.batch.program, self.batch.options, self.batch.program_path)
            except _ROW_FAILURES as exc:
                self._loaded = exc
        if isinstance(self._loaded, BaseException):
            raise self._loaded.with_traceback(None)
        return self._loaded

    def _prompt(self, row: Row) -> tuple[Any, str | None]:
        """The row's prompt, and the model its body names (:attr:`model_field`) when the
        options name none. A provider's run needs one: a row naming none fails, saying what to give."""
        assert self.reader is not None
        prompt = self.reader.read(row.data)
        field, options = self.model_field, self.batch.options
        if field is None or options.model is not None:
            return prompt, None
        from .inputs import body_model

        prompt, model = body_model(prompt, self.batch.reader, field)
        if model is None and options.adapter != "offline":
            from ..core.errors import ModelRouteError

            raise ModelRouteError(f"the row names no model (its {field!r}): give --model, or name one in the row")
        return prompt, model

    def _source(self, text: str) -> dict[str, str]:
        """What a row's result was made from: this batch's run, and the row's line."""
        from .batch_binding import row_digest

        return {"run": self.run_digest, "row": row_digest(text)}

    def _ok(self, row: Row, result: RunResult, source: dict[str, str], count: Count | None = None) -> Outcome:
        from ..frontend.agentscript.interpreter import json_of

        value = json_of(result.value) if self.batch.program is not None else result.value
        calls = self._calls(result.calls, result)
        data = {"id": row.id, "line": row.line, "status": "ok", "value": value, "calls": calls, "source": source}
        return self._outcome(_with_counts(data, count), calls)

    def _failed(self, row: Row, error: BaseException, source: dict[str, str], count: Count | None = None) -> Outcome:
        message = _error_text(error)
        made: tuple[ModelCall, ...] = getattr(error, "calls", ())
        calls = self._calls(made, None)
        result = {
            "id": row.id,
            "line": row.line,
            "status": "failed",
            "error": message,
            "calls": calls,
            "source": source,
        }
        first = message.splitlines()[0] if message else type(error).__name__
        report = f"{self.batch.rows}:{row.line}: row {id_key(row.id)} failed: {first}"
        return self._outcome(_with_counts(result, count), calls, report)

    def _bad(self, row: BadRow, source: dict[str, str]) -> Outcome:
        result = {"id": row.id, "line": row.line, "status": "bad", "error": row.reason, "source": source}
        return Outcome(result_line(result), "bad", report=f"{self.batch.rows}:{row.line}: bad row: {row.reason}")

    def _outcome(self, result: dict[str, Any], calls: list[dict[str, Any]], report: str | None = None) -> Outcome:
        counts = [usage for call in calls if (usage := Usage.read(call["usage"])) is not None]
        tokens_in = sum(usage.input or 0 for usage in counts)
        tokens_out = sum(usage.output or 0 for usage in counts)
        token_count = result.get("token_count")
        counted = None if token_count is None else token_count["total"]
        not_counted = 0 if token_count is None else len(token_count["not_counted"])
        line = result_line(result)
        return Outcome(line, result["status"], len(calls), tokens_in, tokens_out, report, counted, not_counted)

    def _calls(self, calls: Sequence[ModelCall], result: RunResult | None) -> list[dict[str, Any]]:
        """A row's calls as its result line holds them. Each one's ``cache_prefix`` compares its
        body with the row's previous call to the same provider and model: a row is a run of its
        own, so its line is the same whichever rows ran before it, in which process (``--jobs``),
        resumed or not."""
        from ..calls.cache_prefix import cache_prefixes

        return [self._call(call, result, prefix) for call, prefix in zip(calls, cache_prefixes(calls), strict=True)]

    def _call(self, call: ModelCall, result: RunResult | None, prefix: CachePrefix | None) -> dict[str, Any]:
        """One call as its result line holds it."""
        reply = call.reply
        request = request_dict(call, self.batch.options.adapter)
        if self.batch.prompt == "digest":  # the body holds the whole prompt again
            request["body"] = _digest(request["body"])
        return {
            "site": request.pop("site"),
            "agent": request.pop("agent"),
            "attempt": request.pop("attempt"),
            "prompt": self._prompt_field(call, result),
            "request": request,
            "reply": None if reply is None else _reply_dict(reply),
            "usage": None if reply is None or reply.usage is None else reply.usage.as_data(),
            "error": call.error,
            "cache_prefix": None if prefix is None else prefix.as_data(),
        }

    def _prompt_field(self, call: ModelCall, result: RunResult | None) -> Any:
        """The call's prompt in the batch's format: as sent when that is the format it was sent in."""
        options = self.batch.options
        sent_as = ("agentscript", {}) if result is None else result.sent_as
        if self.batch.program is None:
            sent_as = (options.format, options.options)
        if (options.format, dict(options.options)) == (sent_as[0], dict(sent_as[1])):
            rendered = call.rendered
        else:
            rendered = self.host.renderer(options.format).render(call.prompt, **options.options)
        data = rendered.to_dict()
        return _digest(data) if self.batch.prompt == "digest" else data


def _digest(data: Any) -> str:
    """``sha256:HEX`` of ``data``'s compact JSON: what ``--prompt digest`` writes for a prompt and a request body."""
    return "sha256:" + hashlib.sha256(dumps(data, separators=(",", ":")).encode("utf-8")).hexdigest()


def _js(data: dict[str, Any]) -> Any:
    """A row as a program's input: numbers as JavaScript's (as ``--input`` reads them)."""
    from ..renderers.agentscript.jsjson import js_numbers

    return js_numbers(data)


def _reply_dict(reply: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"text": reply.text}
    if reply.has_value:
        data["value"] = reply.value
    if reply.reasoning is not None:
        data["reasoning"] = reply.reasoning
    if reply.finish_reason is not None:
        data["finish_reason"] = reply.finish_reason
    if reply.tool_calls:
        data["tool_calls"] = [call.model_dump(exclude={"native"}) for call in reply.tool_calls]
    return data


def _error_text(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "the row is nested too deeply to process"
    from ..core.errors import ProviderError

    if isinstance(error, ProviderError):
        status = f" {error.status}" if error.status is not None else ""
        return f"{type(error).__name__} [{error.provider or '?'}{status}]: {error}"
    return str(error)


# --- progress ----------------------------------------------------------------------------------------


class Progress:
    """A progress bar on stderr (rows, rate, ETA, failures) while stderr is a terminal; nothing
    otherwise, so a log or a pipe gets only the reports and the summary. tqdm is imported only then."""

    def __init__(self, rows: str, summary: Summary, report: Callable[[str], None]) -> None:
        self.rows = rows
        self.summary = summary
        self.report = report
        self.bar: Any = None

    def __enter__(self) -> Progress:
        import sys

        stream = sys.stderr
        if stream is not None and stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=_count_lines(self.rows), unit="row", file=stream, dynamic_ncols=True, leave=True)
        return self

    def update(self, count: int) -> None:
        if self.bar is not None:
            self.bar.update(count)
            failures = self.summary.failed + self.summary.bad
            if failures:
                self.bar.set_postfix(failed=failures, refresh=False)

    def write(self, line: str) -> None:
        """A report line (above the bar, when there is one)."""
        if self.bar is not None:
            self.bar.clear()
            self.report(line)
            self.bar.refresh()
        else:
            self.report(line)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


def _count_lines(path: str) -> int | None:
    """The rows to come, for the bar's ETA (lines; a blank one is counted too)."""
    try:
        with open(path, "rb") as stream:
            return sum(block.count(b"\n") for block in iter(lambda: stream.read(1 << 20), b""))
    except OSError:
        return None


def _row_options(options: RunOptions) -> RunOptions:
    """A row's own options: with ``--count-tokens``, a count of its own (a :class:`Count` holds the
    counts of the run it is in, and rows run at once)."""
    if options.count is None:
        return options
    from ..calls.counting import Count

    return replace(options, count=Count())


def _with_counts(result: dict[str, Any], count: Count | None) -> dict[str, Any]:
    """A row's result with its calls' token counts (``--count-tokens``), after its calls."""
    if count is None:
        return result
    return {**result, "token_count": count.counts().to_dict()}


def options_for_batch(options: RunOptions) -> RunOptions:
    """A run's options as every row takes them: no debug stream (a thousand rows' debug blocks
    are no one's to read, and a stream does not go to another process)."""
    return replace(options, debug=None, on_text=None, stream=False)
