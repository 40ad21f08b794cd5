"""``formhunter forms``: list or export the forms of a catalogue.

``--format table`` prints a table to the terminal (with each form's page URL);
``csv`` and ``json`` (an array of objects) go to ``--out`` or stdout; ``parquet``
needs ``--out``. json and parquet carry each form's ``fields`` (name, type, label,
options) and ``path`` (url, anchor per hop from the seed) as nested columns; csv
flattens them to one text column each. ``--run N`` of a run the catalogue does not
hold is a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pyarrow as pa

from formhunter.catalogue import flatten_nested
from formhunter.commands._common import (
    Column,
    open_catalogue,
    print_fitted,
    quiet_broken_pipe,
    resolve_run,
    write_csv,
    write_json,
)
from formhunter.exceptions import UsageError

#: the table's columns; at 80 columns the id, method, fields, domain, relevance, site and
#: page URL (wrapped) stay
TABLE = (
    Column("form_id", "id", 4, 10, right=True),
    Column("site", "site", 14, 6),
    Column("page_url", "page", 24, 5, fold=True),
    Column("action_url", "action", 24, 2, fold=True),
    Column("method", "method", 4, 8),
    Column("n_fields", "fields", 3, 8, right=True),
    Column("searchable_score", "score", 4, 3, right=True),
    Column("domain", "domain", 7, 9),
    Column("relevant", "rel.", 5, 9),
    Column("found_after_pages", "found at", 6, 1, right=True),
)
TABLE_COLUMNS = tuple(c.key for c in TABLE)


def cmd_forms(args: argparse.Namespace) -> int:
    db = Path(args.db)
    filters = {"domain": args.domain, "relevant": args.relevant, "run_id": args.run}
    with open_catalogue(db) as cat:
        if args.format == "parquet" and not args.out:
            raise UsageError("--format parquet needs --out FILE")
        if args.run is not None:
            resolve_run(cat, args.run)
        if args.out:
            if args.format == "table":
                raise UsageError("--out works with --format csv, json or parquet")
            n = cat.export_forms(args.format, args.out, **filters)
            print(f"{n} forms written to {args.out}", file=sys.stderr)
            return 0
        data = cat.forms_table(nested=args.format in ("csv", "json"), **filters)
    with quiet_broken_pipe():
        _print(data, args, db)
    return 0


def _print(data: pa.Table, args: argparse.Namespace, db: Path) -> None:
    if args.format == "csv":
        write_csv(flatten_nested(data))
    elif args.format == "json":
        write_json(data.to_pylist())
    else:
        rows = data.select(list(TABLE_COLUMNS)).to_pylist()
        cells = [[f"{v:.2f}" if isinstance(v, float) else str(v) for v in row.values()]
                 for row in (rows[: args.limit] if args.limit else rows)]  # fmt: skip
        print_fitted(f"{data.num_rows} forms in {db}", TABLE, cells)
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
