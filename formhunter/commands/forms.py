"""``formhunter forms``: list or export the forms of a catalogue.

``--format table`` prints a table to the terminal; ``csv`` and ``json`` (an array
of objects) go to ``--out`` or stdout; ``parquet`` needs ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
from rich.console import Console
from rich.table import Table

from formhunter.catalogue import Catalogue
from formhunter.exceptions import UsageError

TABLE_COLUMNS = ("form_id", "site", "action_url", "method", "n_fields", "searchable_score",
                 "domain", "relevant", "found_after_pages")  # fmt: skip


def cmd_forms(args: argparse.Namespace) -> int:
    db = Path(args.db)
    if not db.exists():
        raise UsageError(f"no catalogue at {db} (make one with `formhunter crawl --db {db}`)")
    if args.format == "parquet" and not args.out:
        raise UsageError("--format parquet needs --out FILE")
    filters = {"domain": args.domain, "relevant": args.relevant, "run_id": args.run}
    with Catalogue(db, read_only=True) as cat:
        if args.out:
            if args.format == "table":
                raise UsageError("--out works with --format csv, json or parquet")
            n = cat.export_forms(args.format, args.out, **filters)
            print(f"{n} forms written to {args.out}", file=sys.stderr)
            return 0
        data = cat.forms_table(**filters)
    try:
        _print(data, args, db)
    except BrokenPipeError:  # e.g. `| head`: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _print(data: pa.Table, args: argparse.Namespace, db: Path) -> None:
    if args.format == "csv":
        pacsv.write_csv(data, sys.stdout.buffer)
    elif args.format == "json":
        json.dump(data.to_pylist(), sys.stdout, ensure_ascii=False, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        table = Table(title=f"{data.num_rows} forms in {db}")
        for col in TABLE_COLUMNS:
            table.add_column(col, overflow="ellipsis", no_wrap=True,
                             max_width=60 if col == "action_url" else None)  # fmt: skip
        rows = data.select(list(TABLE_COLUMNS)).to_pylist()
        for row in rows[: args.limit] if args.limit else rows:
            table.add_row(*(f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()))
        console = Console()
        if not console.is_terminal:
            console = Console(width=200)
        console.print(table)
        if args.limit and len(rows) > args.limit:
            print(f"... {len(rows) - args.limit} more (--limit 0 shows all)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "forms",
        help="list or export the forms of a catalogue",
        description="List the forms found by crawls (table) or export them as CSV, JSON "
        "(an array of objects) or Parquet.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--domain", help="only forms the critic assigned to this domain")
    p.add_argument("--relevant", action="store_true", help="only relevant forms")
    p.add_argument("--run", type=int, metavar="ID", help="only forms of this run")
    p.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--limit", type=int, default=50, metavar="N",
                   help="rows shown by --format table (0: all; default 50)")
    p.set_defaults(func=cmd_forms)
