"""``asrender``: see exactly what a prompt looks like in any format.

Every failure a user can cause ends as one line on stderr naming the file, the field and the reason,
with exit status 1 (2 for a bad command line); no traceback reaches the terminal. Heavy modules are
imported only by the sub-command that needs them, because start-up time is part of the product.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from ..core.errors import FieldError, PromptwireError
from ..core.rendered import warning_lines
from ..plugins.manager import default_host

__all__ = ["main"]

OUTPUTS = ("display", "json", "text")


class CliError(Exception):
    """A user-caused failure, already worded for the terminal."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CliError as exc:
        return _fail(str(exc))
    except PromptwireError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a bug of ours must still not show a traceback
        return _fail(f"internal error: {type(exc).__name__}: {exc} (please report this)")


def _fail(message: str) -> int:
    print(f"asrender: {message}", file=sys.stderr)
    return 1


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="asrender", description="Render prompts exactly as a language model receives them."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    plugins = commands.add_parser("plugins", help="list the loaded plugins and what they register")
    plugins.add_argument("--json", action="store_true", help="print JSON instead of text")
    plugins.set_defaults(run=_cmd_plugins)

    render = commands.add_parser("render", help="render a prompt file (JSON or YAML) in a format")
    render.add_argument("file", metavar="PROMPT_FILE", help="the prompt data; '-' reads standard input")
    render.add_argument("--format", "-f", default="agentscript", help="format name (default: agentscript)")
    render.add_argument(
        "--from", dest="reader", default="prompt", metavar="DIALECT", help="input dialect (default: prompt)"
    )
    render.add_argument(
        "--output",
        "-O",
        choices=OUTPUTS,
        default="display",
        help="display: messages as text (default); json: the whole render; text: the single-string form",
    )
    render.add_argument("--strict", action="store_true", help="fail when the format cannot express a field")
    render.add_argument(
        "--option",
        "-o",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a renderer option; VALUE is read as JSON when it parses, else as text (repeatable)",
    )
    render.set_defaults(run=_cmd_render)
    return parser


def _cmd_plugins(args: argparse.Namespace) -> int:
    infos = default_host().plugins()
    if args.json:
        print(json.dumps([info.to_dict() for info in infos], indent=2))
        return 0
    for info in infos:
        print(f"{info.name} {info.version or '(no version)'}")
        for kind, names in info.registers.items():
            if names:
                print(f"  {kind}: {', '.join(names)}")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    host = default_host()
    label = "<stdin>" if args.file == "-" else args.file
    data = _load_data(args.file, label)
    options = _parse_options(args.option)
    renderer = host.renderer(args.format)
    if args.strict:
        options["strict"] = True
    if "layout" in options:
        options["layout"] = host.renderer(str(options["layout"]))
    try:
        prompt = host.reader(args.reader).read(data)
        rendered = renderer.render(prompt, **options)
    except FieldError as exc:
        raise CliError(f"{label}: {exc}") from None
    except TypeError as exc:
        if "unexpected keyword argument" not in str(exc):
            raise
        raise CliError(f"format {args.format!r} does not take that option: {exc}") from None
    for line in warning_lines(rendered.warnings):
        print(f"asrender: warning: {line}", file=sys.stderr)
    _print_render(rendered, args.output, args.format)
    return 0


def _print_render(rendered: Any, output: str, format_name: str) -> None:
    if output == "json":
        print(json.dumps(rendered.to_dict(), ensure_ascii=False, indent=2))
    elif output == "text":
        if rendered.text is None:
            raise CliError(f"format {format_name!r} has no single-string form; use --output display or json")
        sys.stdout.write(rendered.text)
    else:
        sys.stdout.write(rendered.display())


def _load_data(file: str, label: str) -> Any:
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{label}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{label}: is a directory, not a prompt file") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"{label}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise CliError(f"{label}: cannot read ({exc.strerror})") from None
    if file.endswith(".json"):
        return _parse_json(text, label)
    return _parse_yaml(text, label)


def _parse_json(text: str, label: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(f"{label}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None


def _parse_yaml(text: str, label: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        raise CliError(f"{label}{where}: invalid YAML: {exc.problem or exc}") from None
    except yaml.YAMLError as exc:
        raise CliError(f"{label}: invalid YAML: {exc}") from None


def _parse_options(raw: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in raw:
        key, sep, value = item.partition("=")
        if not sep or not key:
            _usage_error(f"--option takes KEY=VALUE, got {item!r}")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


def _usage_error(message: str) -> NoReturn:
    print(f"asrender: error: {message}", file=sys.stderr)
    raise SystemExit(2)
