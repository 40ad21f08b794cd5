"""The ``formhunter`` command: a thin layer over the library.

Each subcommand lives in ``formhunter.commands.<name>`` and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
Library exceptions become clean messages: exit 2 for usage errors, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import re
import sys

from formhunter import __version__
from formhunter.exceptions import FormhunterError
from formhunter.runtime import interrupt_on_signals

COMMANDS = [
    "demo",
    "crawl",
    "forms",
    "probe",
    "runs",
    "learning",
    "train",
    "evaluate",
    "judge",
    "rejudge",
    "models",
    "serve",
    "domains",
    "simweb",
    "bench",
]


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions of several lines as written (a one-line one is wrapped); every flag's
    default in its help."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" not in text.strip():
            return argparse.HelpFormatter._fill_text(self, text, width, indent)
        return super()._fill_text(text, width, indent)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        d = action.default
        if (d is None or d is False or d is argparse.SUPPRESS or "default" in text
                or not action.option_strings):  # fmt: skip
            return text
        return f"{text} (default: %(default)s)"


_LITERAL = re.compile(r"``([^`]+)``|`([^`]+)`")


def plain(text: str | None) -> str | None:
    """reStructuredText literals (````x````, ```x```) as plain text ('x')."""
    if not text:
        return text
    return _LITERAL.sub(lambda m: f"'{m.group(1) or m.group(2)}'", text)


def _finish(parser: argparse.ArgumentParser, top: bool) -> None:
    """Every (sub)command: plain-text help with defaults; ``-v`` after it too."""
    parser.formatter_class = HelpFormatter
    parser.description, parser.epilog = plain(parser.description), plain(parser.epilog)
    if not top and "--verbose" not in parser._option_string_actions:
        parser.add_argument("-v", "--verbose", action="count", default=argparse.SUPPRESS,
                            help="more logging (also before the command)")  # fmt: skip
    for action in parser._actions:
        action.help = plain(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action.choices.values():
                _finish(choice, top=False)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``command`` alone (one of ``COMMANDS``): each
    command module is imported to register it, and some import seconds of libraries
    (DuckDB, pyarrow, aiohttp) that another command never uses."""
    parser = argparse.ArgumentParser(
        prog="formhunter",
        description="Find the searchable forms in front of online databases.",
    )
    parser.add_argument("--version", action="version", version=f"formhunter {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [command] if command in COMMANDS else COMMANDS:
        importlib.import_module(f"formhunter.commands.{name}").register(sub)
    _finish(parser, top=True)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word not an option: the top-level options
    take no value), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    interrupt_on_signals()  # a stop during start-up unwinds too (exit 130)
    try:
        argv = sys.argv[1:] if argv is None else argv
        # only the named command's module is imported (all of them when none is named,
        # for the top-level help and for an unknown command's message)
        parser = build_parser(command_of(argv))
        args = parser.parse_args(argv)
        logging.basicConfig(
            level=logging.WARNING - 10 * min(args.verbose, 2),
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except FormhunterError as exc:
        print(f"formhunter: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("formhunter: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
