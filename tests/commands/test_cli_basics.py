"""The command line answers, and every registered command has help text."""

from __future__ import annotations

import pytest

from formhunter.cli import build_parser, main
from formhunter.model import form_signature


def test_every_command_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, subparser in sub.choices.items():  # type: ignore[union-attr]
        assert subparser.description or subparser.format_help(), name
        assert sub._choices_actions, "subcommands carry a help line"


def test_every_listed_command_is_registered() -> None:
    from formhunter.cli import COMMANDS

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert sorted(sub.choices) == sorted(COMMANDS)  # type: ignore[arg-type]


def test_a_command_parses_alike_with_its_parser_alone() -> None:
    """main builds the parser of the command named only (module doc of formhunter.cli):
    the same arguments as with every command registered."""
    from formhunter.cli import command_of

    for argv in (["judge", "a.html", "--domain", "book", "--jobs", "2"],
                 ["-v", "judge", "-v", "p"], ["bench", "judge", "--pages", "9"],
                 ["models", "list"]):  # fmt: skip
        assert vars(build_parser(command_of(argv)).parse_args(argv)) == vars(
            build_parser().parse_args(argv))  # fmt: skip
    assert command_of(["-v", "--verbose"]) is None


def test_judge_starts_without_the_other_commands_libraries() -> None:
    """`formhunter judge` imports judge's module only: not the catalogue's DuckDB and
    pyarrow, nor the simulated web's aiohttp (~0.9 CPU s before judge's workers start)."""
    import subprocess
    import sys

    code = ("import sys; from formhunter.cli import build_parser, command_of; "
            "build_parser(command_of(['judge', 'x.html'])); "
            "print(sorted(m for m in ('duckdb', 'pyarrow', 'aiohttp', 'rich', 'sklearn') "
            "if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"


def test_no_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2


def test_form_signature_ignores_query_order_and_hidden() -> None:
    a = form_signature("http://A.example/s?x=1#f", "get", [("q", "text"), ("t", "hidden")])
    b = form_signature("http://a.example/s", "GET", [("q", "text"), ("sid", "hidden")])
    assert a == b
    assert a != form_signature("http://a.example/s", "POST", [("q", "text")])
