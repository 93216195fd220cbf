"""A live batch on every core: ``asrender batch --provider P --jobs N``.

One event loop runs at most a core's worth of rows, so a live batch against a fast server is
bound by one core's work (building each request, the SDK's, checking each reply). With ``--jobs
N`` the rows run in N worker processes, each with its own event loop, adapter and async clients,
each running its share of ``--concurrency`` at once (128 over 2 jobs: 64 each; the first ones take
what does not divide). This process stays the only one that reads the rows and writes the results
file: it hands each worker rows through a pipe, keeping about twice its share waiting there, and
writes each worker's results as they come back, a whole number of lines a write. So the lines are
never interleaved, the results file and resuming are exactly a one-process batch's, and the rows
finished in a worker but not yet written when the batch stops are simply run again on resume.

This module is the processes and the pipes, whatever runs in them: the worker's event loop is
``runs.batch``'s (``_live_worker``), handed over by reference, so that nothing here imports it.

Ctrl-C is this process's: the workers ignore it (it reaches the whole process group), and are
ended with the batch; the rows they were running are not written. A worker that fails (an error
that is no row's, or a process killed from outside) ends the batch with that error: the results
written so far stay, and the same command resumes the batch.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..core.errors import PromptwireError

if TYPE_CHECKING:
    import asyncio
    from multiprocessing.connection import Connection

__all__ = ["BatchWorkerError", "inbox", "run_in_workers", "send_outcomes", "shares"]

Job = TypeVar("Job")
"""What every worker is given to run its rows with (a batch: its program and options)."""
Outcome = TypeVar("Outcome")
"""What a worker sends back for each row (a row's result line and its counts)."""
RowsOnLoop = Callable[[Job, int, "Connection"], Coroutine[Any, Any, None]]
"""A worker's event loop: rows read with :func:`inbox`, at most its share (the ``int``) at once,
each one's outcome sent back with :func:`send_outcomes` as it finishes."""


class BatchWorkerError(PromptwireError):
    """A worker process of a live ``--jobs`` batch ended without finishing its rows."""


def shares(concurrency: int, jobs: int) -> list[int]:
    """``concurrency`` split between ``jobs`` workers, the first ones taking what does not divide;
    never a worker with nothing to run (``--concurrency 1 --jobs 2``: one worker)."""
    workers = min(jobs, concurrency)
    return [concurrency // workers + (1 if index < concurrency % workers else 0) for index in range(workers)]


def run_in_workers(
    rows: Iterator[tuple[int, str]],
    split: list[int],
    rows_on_loop: RowsOnLoop[Job],
    job: Job,
    take: Callable[[list[Outcome]], None],
    waited: Callable[[int], None],
) -> None:
    """Run ``rows`` in a worker process per share of ``split`` (see the module docstring), each
    running ``rows_on_loop(job, share, connection)`` on an event loop of its own; each worker's
    outcomes go to ``take`` as they come, and the rate-limit waits they counted to ``waited``."""
    import multiprocessing
    from multiprocessing.connection import wait

    # "spawn" does not copy this process (its threads, its open results file) into the workers.
    context = multiprocessing.get_context("spawn")
    workers: list[_Worker[Outcome]] = []
    try:
        for share in split:
            ours, theirs = context.Pipe()
            process = context.Process(target=_work, args=(rows_on_loop, job, share, theirs), daemon=True)
            process.start()
            theirs.close()
            workers.append(_Worker(len(workers) + 1, share, process, ours))
        supply = _Supply(rows)
        running = list(workers)
        while running:
            for worker in running:  # every worker is told at once when the rows run out
                supply.top_up(worker)
            ready = set(wait([handle for worker in running for handle in (worker.connection, worker.process.sentinel)]))
            for worker in [worker for worker in running if {worker.connection, worker.process.sentinel} & ready]:
                if worker.read(take, waited):
                    running.remove(worker)
    finally:
        for worker in workers:
            worker.stop()


class _Worker(Generic[Outcome]):
    """A worker process as this process sees it: its pipe and the rows it holds and has not answered."""

    def __init__(self, number: int, share: int, process: Any, connection: Connection) -> None:
        self.number = number
        self.share = share
        self.process = process
        self.connection = connection
        self.holding = 0
        self.told_end = False

    def read(self, take: Callable[[list[Outcome]], None], waited: Callable[[int], None]) -> bool:
        """Every message the worker has sent, taken; whether it has finished its rows."""
        while self.connection.poll():
            try:
                kind, payload = self.connection.recv()
            except EOFError:  # its process ended without saying it was done
                break
            if kind == "outcomes":
                outcomes, waits = payload
                waited(waits)
                take(outcomes)
                self.holding -= len(outcomes)
            elif kind == "done":
                return True
            else:  # "failed": what the worker raised, raised here as a one-process batch raises it
                raise payload
        if self.process.is_alive():
            return False
        self.process.join()
        raise BatchWorkerError(
            f"batch: worker process {self.number} ended (exit code {self.process.exitcode}) before its rows were"
            f" done: {self.holding} rows were not written; the same command resumes the batch"
        )

    def stop(self) -> None:
        """End the process (at once, when it has not ended itself) and close its pipe."""
        if self.process.is_alive():
            self.process.terminate()
        self.process.join()
        self.connection.close()


class _Supply:
    """The rows not handed out yet, given to the workers a few at a time."""

    def __init__(self, rows: Iterator[tuple[int, str]]) -> None:
        self.rows = rows
        self.left = True

    def top_up(self, worker: _Worker[Any]) -> None:
        """Give ``worker`` rows up to twice its share (so that it has rows to start while its
        results travel back), or tell it there are no more."""
        if worker.told_end:
            return
        wanted = 2 * worker.share - worker.holding
        if self.left and (worker.holding == 0 or wanted >= max(1, worker.share // 2)):  # not a handful at a time
            chunk = list(itertools.islice(self.rows, wanted))
            self.left = len(chunk) == wanted
            if chunk:
                worker.connection.send(chunk)
                worker.holding += len(chunk)
        if not self.left:
            worker.connection.send(None)
            worker.told_end = True


# --- in the worker ----------------------------------------------------------------------------------


def _work(rows_on_loop: RowsOnLoop[Job], job: Job, share: int, connection: Connection) -> None:
    """A worker process: ``rows_on_loop`` run on an event loop of its own; then it says it is done,
    or hands over what it raised."""
    import asyncio
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent stops the batch
    try:
        asyncio.run(rows_on_loop(job, share, connection))
    except BaseException as exc:  # handed to the parent, which raises it
        connection.send(("failed", _picklable(exc)))
    else:
        connection.send(("done", None))
    finally:
        connection.close()


def send_outcomes(connection: Connection, outcomes: list[Any], waits: int) -> None:
    """Hand finished rows' outcomes (and the rate-limit waits since the last ones) to the parent."""
    connection.send(("outcomes", (outcomes, waits)))


def inbox(connection: Connection) -> asyncio.Queue[Any]:
    """The rows the parent sends on ``connection``, a list of ``(line, text)`` at a time, put on a
    queue of the running loop by a thread of its own (a daemon: a worker that stops early does not
    wait for it); ``None`` says there are no more."""
    import asyncio
    import threading

    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[Any] = asyncio.Queue()

    def receive() -> None:
        chunk: Any = ()
        while chunk is not None:
            try:
                chunk = connection.recv()
            except (EOFError, OSError):  # the parent is gone: no more rows
                chunk = None
            try:
                loop.call_soon_threadsafe(inbox.put_nowait, chunk)
            except RuntimeError:  # the loop has closed: the worker is stopping
                return

    threading.Thread(target=receive, name="promptwire batch rows", daemon=True).start()
    return inbox


def _picklable(exc: BaseException) -> BaseException:
    """``exc`` if it crosses a pipe, else a :class:`BatchWorkerError` saying what it was."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # any exception that does not survive the trip
        return BatchWorkerError(f"batch: a worker failed: {type(exc).__name__}: {exc}")
    return exc
