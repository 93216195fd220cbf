"""A batch through a provider's batch API, in rounds: ``--batch-file`` writes the calls to ask,
``--batch-results`` reads the provider's answers back.

A program may make many calls, each depending on the replies before it, but a batch API answers
a file of independent requests. The interpreter is deterministic given the input and the replies,
so a batch runs in rounds by replay: round k runs each row again with the replies of rounds
1..k-1 (every results file given), and writes the first call that has no reply yet to the next
batch file; a row is done, and written to ``--out``, when its program returns. A reply that fails
its call's output contract, with attempts left, is simply the next call of the row: its repair
call goes in the next round's file. An errored entry fails its row; an expired or cancelled one is
asked again in the next round.

A call's ``custom_id`` is ``row<LINE>-call<N>-<DIGEST>``: the row's line in the rows file, the
call's place among the row's calls and the request's digest, so an answer is used only for the
request it answers: after the program, the rows or the options change, a changed request is asked
again, never answered by an old reply. The results file is bound to the batch as a live batch's is
(:mod:`.batch_binding`).
Replaying a program runs its tools again, so a program given ``--allow-write`` (tools or memory
that write) is refused unless ``--replay-writes`` says repeating its writes is fine.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..adapters.batch_files import Answer, read_results, reply_object, request_line
from ..calls.links import Answering
from ..core.call import Whole
from ..core.errors import PromptwireError
from ..core.written_files import open_written
from .batch import Batch, Outcome, Progress, RowRunner, Summary, chunks, rows_to_run
from .batch_binding import check_rows
from .batch_io import ResultsFile, Row
from .run import Calls

if TYPE_CHECKING:
    from ..core.call import Call, ProviderRequest
    from ..plugins.manager import PluginHost

__all__ = ["custom_id", "replay_row", "run_round"]


def custom_id(line: int, call: int, request: ProviderRequest, provider: str, path: str) -> str:
    """The id of a row's call in a batch file (at most 64 of ``[A-Za-z0-9_-]``, as Anthropic asks):
    the row's line, the call's place, and the first 32 hex digits of the request's digest as a
    recording keys it (:func:`promptwire.calls.recording.request_digest`), so an answer is taken
    only for the very request it answers."""
    from ..calls.recording import request_digest
    from ..core.json_text import to_bytes

    digest = request_digest(provider, path, to_bytes(request.kwargs)).removeprefix("sha256:")
    return f"row{line}-call{call}-{digest[:32]}"


class _Unanswered(BaseException):
    """A call with no reply yet. A BaseException, so that no ``try`` of the program catches it."""

    def __init__(self, custom_id: str, request: ProviderRequest) -> None:
        super().__init__(custom_id)
        self.custom_id = custom_id
        self.request = request


class _Answered(Answering):
    """One row's calls in a round, answered from the results so far: each request built as a live
    call builds it, the first call without an answer stopping the row."""

    def __init__(self, provider: str, line: int, answers: Mapping[str, Answer]) -> None:
        self.provider = provider
        self.line = line
        self.answers = answers
        self.calls = 0

    def answer(self, call: Call) -> Whole:
        self.calls += 1
        asked = custom_id(self.line, self.calls, call.sent, self.provider, str(getattr(call.adapter, "path", "")))
        answer = self.answers.get(asked)
        if answer is None or answer.unanswered is not None:
            raise _Unanswered(asked, call.sent)
        if answer.failure is not None:
            raise answer.failure
        assert answer.body is not None
        return Whole(reply_object(self.provider, answer.body))


def replay_row(runner: RowRunner, number: int, text: str, answers: Mapping[str, Answer]) -> dict[str, Any]:
    """One row replayed with ``answers``: ``{"status": "done", "result": ...}`` (its result line's
    data, ok or failed), or ``{"status": "waiting", "custom_id", "request"}`` for its first call
    without an answer."""
    import json

    from .run import calls_for

    calls = calls_for(runner.host, runner.batch.options)
    provider = runner.batch.options.adapter

    def replayed(row: Row) -> Calls:
        return calls.around(_Answered(provider, row.line, answers))

    try:
        outcome = runner.run_row(number, text, replayed)
    except _Unanswered as unanswered:
        return {"status": "waiting", "custom_id": unanswered.custom_id, "request": unanswered.request}
    return {"status": "done", "result": json.loads(outcome.line)}


def run_round(
    batch: Batch,
    out: str,
    *,
    kind: str,
    requests: str | None,
    results: Iterable[str],
    report: Callable[[str], None],
    host: PluginHost,
    resume_anyway: bool = False,
    summary: Summary | None = None,
) -> tuple[Summary, int]:
    """One round: every row not done replayed with the answers of ``results`` (later files win);
    done rows written to ``out``, the next call of every other row to ``requests`` (a new file).
    Returns the summary (``summary``, when given: a caller still has it if the round is
    interrupted) and the number of rows waiting for another round."""
    from .run import calls_for

    answers: dict[str, Answer] = {}
    for path in results:
        answers.update(read_results(kind, path))
    provider = batch.options.adapter
    calls = calls_for(host, batch.options)
    runner = RowRunner(batch, host)
    summary = Summary() if summary is None else summary
    waiting = 0
    asked = None
    results_file, done = ResultsFile.open(out)
    try:
        with results_file, Progress(batch.rows, summary, report) as progress:
            check_rows(batch.rows, done, runner.run_digest, out, anyway=resume_anyway, limit=batch.max_row_bytes)
            if requests is not None:  # opened as every file asrender writes by name: no link, FIFO or device
                asked = os.fdopen(open_written(requests, "a batch file", PromptwireError, truncate=True), "wb")
            for chunk in chunks(rows_to_run(batch.rows, done, summary, progress, batch.max_row_bytes), 64):
                outcomes: list[Outcome] = []
                for number, text in chunk:

                    def replayed(row: Row) -> Calls:
                        return calls.around(_Answered(provider, row.line, answers))

                    try:
                        outcomes.append(runner.run_row(number, text, replayed))
                    except _Unanswered as unanswered:
                        waiting += 1
                        if asked is not None:
                            asked.write(request_line(kind, provider, unanswered.custom_id, unanswered.request))
                results_file.write(outcome.line for outcome in outcomes)
                for outcome in outcomes:  # counted as written, before anything a Ctrl-C can stop
                    summary.add(outcome)
                for outcome in outcomes:
                    if outcome.report is not None:
                        progress.write(outcome.report)
                progress.update(len(chunk))
    finally:
        if asked is not None:
            asked.close()
    return summary, waiting
