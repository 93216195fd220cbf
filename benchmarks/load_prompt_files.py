"""Loading a large prompt file: promptwire's reader against PyYAML's pure-Python safe_load.

Run: ``python benchmarks/load_prompt_files.py [MB]``. Prints the best of three runs of each, side by
side in one process, and the ratios. The same data is loaded as YAML (libyaml when PyYAML has it,
YAML 1.2 core schema, duplicate-key and alias checks) and as JSON (Python's own parser).
"""

from __future__ import annotations

import json
import sys
import timeit
from collections.abc import Callable

import yaml

from promptwire.runs.inputs import parse_data


def _best(run: Callable[[], object]) -> float:
    """Best of three single runs (the garbage collector paused, as timeit does for both sides)."""
    return min(timeit.repeat(run, number=1, repeat=3))


def main() -> None:
    megabytes = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    items = int(megabytes * 9000)
    data = {
        "instruction": "Summarise the tickets.",
        "context": [
            {"label": f"ticket {i}", "value": {"id": i, "title": "x" * 20, "tags": ["a", "b"], "open": True}}
            for i in range(items)
        ],
    }
    yaml_text = yaml.safe_dump(data)
    json_text = json.dumps(data, indent=2)
    print(f"YAML {len(yaml_text) / 1e6:.1f} MB, JSON {len(json_text) / 1e6:.1f} MB, libyaml: {yaml.__with_libyaml__}")
    pure = _best(lambda: yaml.load(yaml_text, Loader=yaml.SafeLoader))
    ours_yaml = _best(lambda: parse_data(yaml_text, "bench.yaml"))
    ours_json = _best(lambda: parse_data(json_text, "bench.json"))
    print(f"PyYAML SafeLoader (pure Python) {pure:8.3f} s   1.00")
    print(f"promptwire YAML                 {ours_yaml:8.3f} s   {ours_yaml / pure:.2f}")
    print(f"promptwire JSON                 {ours_json:8.3f} s   {ours_json / pure:.2f}")


if __name__ == "__main__":
    main()
