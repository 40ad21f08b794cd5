"""Helpers shared by the commands that read a catalogue (``forms``, ``runs``, ``learning``).

Not a command itself (``formhunter.cli.COMMANDS`` does not list it).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
from rich.console import Console
from rich.table import Table

from formhunter.catalogue import Catalogue
from formhunter.critics import describe_models as describe_models  # the commands' import
from formhunter.exceptions import UsageError
from formhunter.reads import open_catalogue as open_catalogue  # the commands' import


def run_ids(cat: Catalogue) -> list[int]:
    """The ids of the catalogue's runs, in order."""
    rows = cat.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()
    return [int(r[0]) for r in rows]


def resolve_run(cat: Catalogue, run_id: int | None) -> int:
    """``run_id`` if the catalogue has it, else the latest run; UsageError when there is none."""
    ids = run_ids(cat)
    if not ids:
        raise UsageError(f"{cat.path} holds no run yet (start one with `formhunter crawl`)")
    if run_id is None:
        return ids[-1]
    if run_id not in ids:
        known = ", ".join(map(str, ids[-20:]))
        more = f" (the last 20 of {len(ids)})" if len(ids) > 20 else ""
        raise UsageError(f"no run {run_id} in {cat.path}; its runs{more}: {known}")
    return run_id


@contextmanager
def quiet_broken_pipe() -> Iterator[None]:
    """Stop quietly when stdout is closed early (e.g. ``| head``)."""
    try:
        yield
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def write_csv(data: pa.Table) -> None:
    """``data`` as CSV with a header line on stdout."""
    sys.stdout.flush()
    pacsv.write_csv(data, sys.stdout.buffer)


def write_json(rows: Sequence[dict[str, Any]]) -> None:
    """``rows`` as a JSON array of objects on stdout (timestamps as strings)."""
    json.dump(list(rows), sys.stdout, ensure_ascii=False, indent=1, default=str)
    sys.stdout.write("\n")


def console() -> Console:
    """The terminal (its width; ``COLUMNS`` overrides), or 200 columns when stdout is
    not a terminal."""
    c = Console()
    return c if c.is_terminal or "COLUMNS" in os.environ else Console(width=200)


def print_table(table: Table) -> None:
    """A rich table on the terminal (``console``)."""
    console().print(table)


#: the narrowest a folded (wrapping) column gets
FOLD_WIDTH = 12


@dataclass(frozen=True)
class Column:
    """A column of a table that fits the terminal: ``key`` of the row, its ``header``,
    the ``width`` it needs (a ``fold`` column wraps its text and takes what is left),
    and its ``keep`` rank: when the terminal is too narrow for every column, the
    lowest ranks are left out first."""

    key: str
    header: str
    width: int
    keep: int
    right: bool = False
    fold: bool = False


def fitted_table(title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]],
                 width: int) -> tuple[Table, list[str]]:  # fmt: skip
    """A rich table of ``rows`` (cells in ``columns`` order) within ``width`` columns,
    and the headers of the columns left out to fit (lowest ``keep`` first)."""
    shown = list(columns)

    def least(c: Column) -> int:  # a folded column wraps down to FOLD_WIDTH
        return max(min(c.width, FOLD_WIDTH) if c.fold else c.width, len(c.header))

    def need(cols: Sequence[Column]) -> int:
        return sum(map(least, cols)) + 3 * len(cols) + 1  # borders and padding

    while len(shown) > 1 and need(shown) > width:
        shown.remove(min(shown, key=lambda c: c.keep))
    index = [columns.index(c) for c in shown]
    table = Table(title=title, expand=False)
    for c in shown:
        table.add_column(c.header, justify="right" if c.right else "left",
                         overflow="fold" if c.fold else "ellipsis", no_wrap=not c.fold,
                         min_width=least(c), max_width=None if c.fold else least(c))  # fmt: skip
    for row in rows:
        table.add_row(*(row[i] for i in index))
    return table, [c.header for c in columns if c not in shown]


def print_fitted(title: str, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> None:
    """``fitted_table`` on the terminal, saying which columns did not fit."""
    out = console()
    table, left_out = fitted_table(title, columns, rows, out.width)
    out.print(table)
    if left_out:
        out.print(f"not shown at {out.width} columns: {', '.join(left_out)} "
                  "(a wider terminal, or --format csv|json)", highlight=False)  # fmt: skip


