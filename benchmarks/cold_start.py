"""Cold start of ``asrender`` commands against the floor of any pydantic command.

The floor is ``python -c "from pydantic import BaseModel"`` plus one model class. Every command runs
as a whole process, alternating with the floor, after a warm-up; the medians of wall-clock and CPU
time (user and system, which other load on a shared machine changes less) and each command's
difference from the floor are printed. The README's example (offline, and with ``--format
messages``) should start within 1.2x the floor's time (issue 41; :func:`measure` is the row of
benchmarks/run.py); ``check`` and ``parse`` import no pydantic at all, so they may come in under it.

Every command runs as an installed package does: with its bytecode compiled (pip compiles a wheel's
modules when it installs them). The environment's ``PYTHONDONTWRITEBYTECODE`` is dropped for the runs
and the package is compiled first, or each run would compile promptwire's sources anew while the
floor's pydantic loads from bytecode (that doubled the difference: +143 ms against +72 ms, on
2026-11-25). Installed plugins load as in any run; the header names them (the README's install has
none, a development install has the example plugin). An editable install (``pip install -e``) puts
its finder in front of every import of the package, which a user's install does not: for the
figure users get, run this with the Python of a plain ``pip install .`` in a fresh venv (the header
says which kind it measured).

Run from the repository root: ``python benchmarks/cold_start.py [RUNS]``.
"""

from __future__ import annotations

import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FLOOR = [sys.executable, "-c", "from pydantic import BaseModel\nclass M(BaseModel):\n    x: int\n"]
_SCRIPT = Path(sys.executable).with_name("asrender")
ASRENDER = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "promptwire"]
"""The ``asrender`` script beside this Python, as the README runs it (``python -m promptwire`` without one)."""
RUN = ["evidence-qa.as", "--input-file", "evidence-qa.input.json", "--responses", "evidence-qa.responses.json"]
COMMANDS = {
    "check": ["check", "evidence-qa.as"],
    "parse": ["parse", "evidence-qa.as"],
    "offline run": RUN,
    "--format messages": [*RUN, "--format", "messages"],
    "dry run (openai)": [*RUN, "--provider", "openai", "--dry-run"],
}


ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def _once(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user and system) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=EXAMPLES, env=ENVIRONMENT, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _compile_package() -> None:
    """Bytecode for every module of the package, as ``pip install`` leaves it."""
    for module in ROOT.glob("*.py"):
        compileall.compile_file(module, quiet=1)
    for package in ROOT.glob("*/__init__.py"):
        if package.parent.name != "tests":
            compileall.compile_dir(package.parent, quiet=1)


def _plugins() -> str:
    names = sorted(entry_point.name for entry_point in metadata.entry_points(group="promptwire"))
    chosen = os.environ.get("PROMPTWIRE_PLUGINS")
    loaded = names if chosen is None else [name for name in names if name in chosen.split(",")]
    return ", ".join(loaded) or "none"


README_EXAMPLE = "--format messages"
"""The command issue 41's start-up target names: the README's example shown as chat messages."""

TARGET_RATIO = 1.2
"""The README's example within 1.2x the floor's wall-clock time (issue 41)."""


def measure(runs: int, name: str = README_EXAMPLE) -> tuple[float, float]:
    """Median wall-clock seconds of ``asrender`` running the command ``name`` and of the floor,
    alternating, after a warm-up of each (benchmarks/run.py's start-up row)."""
    command = ASRENDER + COMMANDS[name]
    _compile_package()
    _once(FLOOR), _once(command)
    ours: list[float] = []
    floor: list[float] = []
    for _ in range(runs):
        floor.append(_once(FLOOR)[0])
        ours.append(_once(command)[0])
    return statistics.median(ours), statistics.median(floor)


def install_kind() -> str:
    """``"editable"`` when the runs import promptwire from this source folder (``pip install -e``:
    each import of the package goes through the editable finder, which a user's install does not
    have), else ``"installed"``."""
    where = subprocess.run(
        [sys.executable, "-c", "import promptwire; print(promptwire.__file__)"],
        cwd=EXAMPLES,
        env=ENVIRONMENT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return "editable" if Path(where).resolve().parent == ROOT else "installed"


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    commands = {name: ASRENDER + args for name, args in COMMANDS.items()}
    _compile_package()
    print(f"promptwire {install_kind()}; plugins loaded by a run: {_plugins()}; load average {os.getloadavg()[0]:.2f}")
    for command in [FLOOR, *commands.values()]:  # warm-up: caches, bytecode
        _once(command)
    floor: list[tuple[float, float]] = []
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            floor.append(_once(FLOOR))
            times[name].append(_once(command))
    floor_wall, floor_cpu = (statistics.median(run[i] for run in floor) for i in (0, 1))
    print(f"{'':30} {'wall':>8} {'beyond floor':>13}   {'CPU':>8} {'beyond floor':>13}")
    print(f"{'floor (pydantic + one model)':30} {1000 * floor_wall:5.1f} ms {'':13}   {1000 * floor_cpu:5.1f} ms")
    for name, measured in times.items():
        wall, cpu = (statistics.median(run[i] for run in measured) for i in (0, 1))
        print(
            f"{'asrender ' + name:30} {1000 * wall:5.1f} ms {1000 * (wall - floor_wall):+10.1f} ms"
            f"   {1000 * cpu:5.1f} ms {1000 * (cpu - floor_cpu):+10.1f} ms"
        )


if __name__ == "__main__":
    main()
