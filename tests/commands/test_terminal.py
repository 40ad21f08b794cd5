"""The terminal (issue 26): help in plain text with every default, common flags after the
subcommand, tables that fit 80 columns, and ache as the default strategy."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from formhunter.cli import build_parser
from formhunter.commands._common import Column, fitted_table
from formhunter.config import Settings


def _parsers(p: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    out = [p]
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            for choice in a.choices.values():
                out += _parsers(choice)
    return out


def test_every_help_is_plain_text_and_takes_v_after_the_command() -> None:
    parser = build_parser()
    for p in _parsers(parser):
        text = p.format_help()
        assert "``" not in text, p.prog
        assert "-v, --verbose" in text, p.prog
    args = parser.parse_args(["forms", "--db", "x.duckdb", "-v", "-v"])
    assert args.verbose == 2
    assert parser.parse_args(["-v", "runs", "--db", "x"]).verbose == 1
    assert parser.parse_args(["runs", "--db", "x"]).verbose == 0


def test_crawl_help_shows_each_settings_default() -> None:
    text = build_parser()._subparsers._group_actions[0].choices["crawl"].format_help()  # type: ignore[union-attr]
    flat = " ".join(text.split())
    d = Settings()
    assert f"(default: {d.crawl.strategy}; [crawl] strategy)" in flat
    assert f"(default: {d.crawl.max_pages}; [crawl] max_pages)" in flat
    assert f"(default: {d.fetch.min_delay}; [fetch] min_delay)" in flat
    assert "(default: none; [warc] dir)" in flat
    assert d.crawl.strategy == "ache"  # the strategy the benchmarks put first


def test_a_table_fits_80_columns_keeping_what_matters() -> None:
    cols = (Column("id", "id", 4, 10, right=True), Column("url", "page", 40, 5, fold=True),
            Column("method", "method", 4, 8), Column("action", "action", 40, 2, fold=True),
            Column("domain", "domain", 7, 9), Column("when", "found at", 30, 1))  # fmt: skip
    rows = [["1", "http://" + "x" * 70, "GET", "http://" + "y" * 70, "auto", "2026-01-01"]]
    from rich.console import Console

    table, left_out = fitted_table("t", cols, rows, 80)
    console = Console(width=80, record=True)
    console.print(table)
    lines = console.export_text().splitlines()
    assert max(map(len, lines)) <= 80
    assert left_out == ["found at"]
    assert "method" in lines[2] and "domain" in lines[2] and "page" in lines[2]


@pytest.mark.parametrize("width", [80, 120])
def test_forms_and_runs_at_a_terminal_width(tmp_path: Path, width: int) -> None:
    from formhunter.catalogue import Catalogue

    db = tmp_path / "c.duckdb"
    with Catalogue(db) as cat:
        cat.new_run(domain="book", strategy="ache", max_pages=10, config={}, seeds=[])
        cat.commit()
    env = {"COLUMNS": str(width), "PATH": "/usr/bin:/bin"}
    for cmd in (["runs", "--db", str(db)], ["forms", "--db", str(db)]):
        out = subprocess.run([sys.executable, "-m", "formhunter.cli", *cmd], capture_output=True,
                             text=True, env=env, timeout=60, check=False)  # fmt: skip
        assert out.returncode == 0, out.stderr
        assert max(map(len, out.stdout.splitlines())) <= width, out.stdout
        assert "domain" in out.stdout
