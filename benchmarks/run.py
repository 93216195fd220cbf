"""Every speed target of issues 28 and 41 in one run, as one table: what, promptwire, the yardstick, the
ratio, the target, pass or fail.

* chat messages from data against a compiled Jinja2 template (``chat_render.py``);
* ``generate`` with the ``messages`` format against a bare SDK call to the local fake provider, for
  each SDK adapter (``adapters.py``);
* the four big inputs in every built-in format against ``json.dumps(value, indent=2)``: time at the
  issue's size, growth of the time per item from the smallest size to the largest (the same figure
  for ``json.dumps`` is the yardstick: linear code grows as it does), and peak memory against the
  size of the output (``render_scaling.py``);
* big prompts given as data (issue 41): ``render`` in every built-in format, ``build_request`` and
  ``generate`` from plain data (validation included) against ``json.dumps(value, indent=2)``, for
  tools, context rows, history turns and a conversation with tool calls, Agently's tools from a
  prebuilt prompt, and the growth from 10k items to 1M (100k with ``--quick``) (``data_scaling.py``);
* parse + check of a 2 MB program against the standard library's pure-Python ``tokenize`` of the
  same text (``as_parse.py``);
* a hundred concurrent ``agenerate`` calls against one server delay, the delays' sum and the bare
  SDK's async client, and streamed text per chunk against the SDK's own stream iteration, with
  promptwire's own cost per chunk (``async_stream.py``);
* start-up: the README's example (``asrender evidence-qa.as --format messages``, the script users
  call, as a whole process) against the floor of any pydantic command, a bare import and one model
  class, alternating in the same run (``cold_start.py``; run this with the Python of a plain
  ``pip install .`` for the installed figure: the row says when the install is editable).
* a live ``asrender batch --provider openai --concurrency 128`` against a plain ``AsyncOpenAI``
  script over the same rows, both whole processes against a local server that answers at once, and
  the same batch with ``--jobs 2`` against one job (``live_batch.py``).

Each script also runs alone, with more detail. The machine's load average is printed before and
after: on a shared machine every figure moves, the ratios (both sides timed in the same run) much
less. Generate's rows for the SDKs other than OpenAI's (which the target names) are shown and
marked, and do not count towards the exit status; every other row counts. The exit status is 1 when
a counted row misses its target.

Run from the repository root: ``python benchmarks/run.py [--quick]`` (``--quick``: no 1M-row sizes,
fewer calls; a few minutes less).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from dataclasses import dataclass

import as_parse
import async_stream
import chat_render
import cold_start
import data_scaling
import live_batch
import render_scaling

import adapters
from promptwire import PluginHost


@dataclass
class Row:
    what: str
    ours: str
    yardstick: str
    ratio: float
    target: str
    passed: bool
    counted: bool = True

    def line(self) -> str:
        result = ("pass" if self.passed else "FAIL") if self.counted else ("pass" if self.passed else "fail") + " *"
        return f"{self.what:<56} {self.ours:>11} {self.yardstick:>16} {self.ratio:>7.2f} {self.target:>8}  {result}"


def _time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.1f} us"


def chat_rows(calls: int) -> list[Row]:
    ours, theirs = chat_render.measure(calls)
    ratio = ours / theirs
    return [Row("chat messages, 12 from data", _time(ours), f"Jinja2 {_time(theirs)}", ratio, "<= 1.50", ratio <= 1.5)]


def generate_rows(calls: int) -> list[Row]:
    rows = []
    for row in adapters.measure("messages", calls):
        ratio = row["promptwire"] / row["bare"]
        rows.append(
            Row(
                f"generate(format=messages), {row['adapter']}",
                _time(row["promptwire"]),
                f"SDK {_time(row['bare'])}",
                ratio,
                "<= 1.10",
                ratio <= 1.1,
                row["adapter"] == GENERATE_COUNTED,
            )
        )
    return rows


_MEASURABLE = 0.01
"""Seconds at the largest size below which a growth figure is timer noise (the messages format hands
tools over as they are: microseconds at every size)."""

GENERATE_COUNTED = "openai"
"""The issue's target is against a bare OpenAI SDK call (where it measured 1.05x with the agentscript
format); the others are shown for comparison."""


def big_rows(scales: list[float]) -> list[Row]:
    host = PluginHost(entry_points=False)
    formats = render_scaling.FORMATS
    rows = []
    for case in render_scaling.CASES:
        timings = [row for scale in scales for row in render_scaling.time_case(case, scale, formats, host)]
        for timing in (t for t in timings if t.items == case.items):
            ratio = timing.seconds / timing.yardstick
            left_out = "" if timing.expressed else " (left out)"
            rows.append(
                Row(
                    f"{case.name} {case.items:,}: {timing.format}{left_out}",
                    _time(timing.seconds),
                    f"json {_time(timing.yardstick)}",
                    ratio,
                    "<= 2.00",
                    ratio <= 2,
                )
            )
        if len(scales) > 1:
            smallest = min(t.items for t in timings)
            largest = max(t.items for t in timings)
            for name in formats:
                mine = [t for t in timings if t.format == name]
                if not mine[0].expressed or max(t.seconds for t in mine) < _MEASURABLE:
                    continue
                ours, theirs = render_scaling.growth(mine)
                rows.append(
                    Row(
                        f"{case.name} growth {smallest:,}->{largest:,}: {name}",
                        f"{ours:.2f}x",
                        f"json {theirs:.2f}x",
                        ours / theirs,
                        "<= 1.50",
                        ours / theirs <= 1.5,
                    )
                )
        for memory in render_scaling.memory_case(case, formats, host):
            if not memory.expressed:
                continue
            multiple = memory.peak / memory.output
            rows.append(
                Row(
                    f"{case.name} peak memory / output: {memory.format}",
                    f"{memory.peak / 1e6:.1f} MB",
                    f"out {memory.output / 1e6:.1f} MB",
                    multiple,
                    "<= 8.00",
                    multiple <= 8,
                )
            )
    return rows


DATA_GROWTH_SIZES = (10_000, 1_000_000)
"""Items at which the growth of ``render(data, "messages")`` is measured, for each case of data."""


def data_rows(quick: bool) -> list[Row]:
    host = PluginHost(entry_points=False)
    rows = []
    for case in data_scaling.CASES:
        for timing in data_scaling.time_case(case, 1.0, host):
            ratio = timing.seconds / timing.yardstick
            rows.append(
                Row(
                    f"data {case.name} {case.items:,}: {timing.what}",
                    _time(timing.seconds),
                    f"json {_time(timing.yardstick)}",
                    ratio,
                    "<= 2.00",
                    ratio <= 2,
                )
            )
        smallest, largest = DATA_GROWTH_SIZES[0], DATA_GROWTH_SIZES[1] // (10 if quick else 1)
        small, large = (
            data_scaling.time_case(case, size / case.items, host, only=("render messages",))[0]
            for size in (smallest, largest)
        )
        ours, theirs = data_scaling.growth(small, large)
        rows.append(
            Row(
                f"data {case.name} growth {small.items:,}->{large.items:,}: messages",
                f"{ours:.2f}x",
                f"json {theirs:.2f}x",
                ours / theirs,
                "<= 1.50",
                ours / theirs <= 1.5,
            )
        )
    return rows


def parse_rows(runs: int) -> list[Row]:
    megabytes, ours, theirs = as_parse.measure(2.0, runs)
    ratio = theirs / ours  # a speed ratio: higher is faster
    target = as_parse.TARGET_RATIO
    return [
        Row(
            "parse + check, 2 MB program (speed ratio)",
            f"{megabytes / ours:.2f} MB/s",
            f"tokenize {megabytes / theirs:.2f} MB/s",
            ratio,
            f">= {target:.2f}",
            ratio >= target,
        )
    ]


def async_stream_rows(quick: bool) -> list[Row]:
    return [
        Row(row["what"], _time(row["promptwire"]), _time(row["yardstick"]), row["ratio"], row["target"], row["pass"])
        for row in async_stream.rows(quick)
    ]


def start_up_rows(runs: int) -> list[Row]:
    ours, floor = cold_start.measure(runs)
    ratio = ours / floor
    target = cold_start.TARGET_RATIO
    kind = cold_start.install_kind()
    return [
        Row(
            f"start-up, README example --format messages ({kind})",
            _time(ours),
            f"pydantic {_time(floor)}",
            ratio,
            f"<= {target:.2f}",
            ratio <= target,
        )
    ]


LIVE_BATCH_ROWS = (2000, 4000)
"""Rows of the live batch with ``--quick`` and without: each ``--jobs 2`` worker starts a process and
imports promptwire (about 0.4 s), a fixed cost that 1,000 rows (three seconds at two jobs) made a
tenth of the run it divides."""


def live_batch_rows(quick: bool) -> list[Row]:
    best = live_batch.measure(LIVE_BATCH_ROWS[0] if quick else LIVE_BATCH_ROWS[1], jobs=(2,))
    bare, ours, two = best["bare"], best["asrender"], best["jobs 2"]
    ratio, scaling = ours.rate / bare.rate, two.rate / ours.rate  # speed ratios: higher is faster
    return [
        Row(
            "live batch, concurrency 128 (speed ratio)",
            f"{ours.rate:.0f} rows/s",
            f"AsyncOpenAI {bare.rate:.0f}/s",
            ratio,
            ">= 0.90",
            ratio >= 0.9,
        ),
        Row(
            "live batch --jobs 2 over one job (speed ratio)",
            f"{two.rate:.0f} rows/s",
            f"1 job {ours.rate:.0f}/s",
            scaling,
            ">= 1.70",
            scaling >= 1.7,
        ),
    ]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="skip the 1M-row sizes and take fewer calls")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # formats that leave a field out say so; the table says it too
    print(f"before: {_load()}")
    print(f"{'what':<56} {'promptwire':>11} {'yardstick':>16} {'ratio':>7} {'target':>8}  result")
    rows: list[Row] = []
    sections = [
        lambda: chat_rows(500 if args.quick else 2000),
        lambda: generate_rows(200 if args.quick else 1000),
        lambda: big_rows([0.1, 1.0] if args.quick else [0.1, 1.0, 10.0]),
        lambda: data_rows(args.quick),
        lambda: parse_rows(3 if args.quick else 5),
        lambda: async_stream_rows(args.quick),
        lambda: start_up_rows(10 if args.quick else 30),
        lambda: live_batch_rows(args.quick),
    ]
    for section in sections:
        for row in section():
            print(row.line(), flush=True)
            rows.append(row)
    print(f"after: {_load()}")
    print(
        "* shown, not counted: generate through the Anthropic and Ollama SDKs (the target is against the"
        " OpenAI SDK's call).\nGrowth and memory"
        " rows are left out for formats that leave the case's field out (they do no work for it), and growth"
        f" rows where the largest size renders in under {_MEASURABLE * 1000:.0f} ms."
    )
    counted = [row for row in rows if row.counted]
    failed = [row for row in counted if not row.passed]
    print(f"{len(counted) - len(failed)} of {len(counted)} counted rows within target")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
