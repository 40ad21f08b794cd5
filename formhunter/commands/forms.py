"""``formhunter forms``: list or export the form directory of a catalogue.

By default one row per distinct form across runs (identity: site, signature;
``formhunter.directory``): when it was first and last seen, the runs and pages
that saw it, its latest verdict (a re-judging's or the crawl's, and which models
gave it) and the user's label, which overrides the verdict in ``searchable``,
``domain`` and ``relevant``. ``--all-rows`` lists the log instead: one row per
run that saw a form, with that crawl's verdict.

``--format table`` prints a table to the terminal; ``csv`` and ``json`` (an array
of objects) go to ``--out`` or stdout; ``parquet`` needs ``--out``. json and parquet
carry each form's ``fields`` (position, name, type, label, options, value,
placeholder), ``path`` (url, anchor per hop from the seed), ``runs`` and ``pages``
as nested columns; csv writes them as JSON text. ``--run N`` of a run the
catalogue does not hold is a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from formhunter.commands._args import count
from formhunter.commands._common import (
    Column,
    open_catalogue,
    print_fitted,
    quiet_broken_pipe,
    resolve_run,
    write_csv,
    write_json,
)
from formhunter.directory import nested_as_json
from formhunter.exceptions import UsageError

#: the directory's table; at 80 columns the id, method, fields, domain, relevance, site
#: and page URL (wrapped) stay
TABLE = (
    Column("form_id", "id", 4, 10, right=True),
    Column("site", "site", 14, 6),
    Column("page_url", "page", 24, 5, fold=True),
    Column("action_url", "action", 24, 2, fold=True),
    Column("method", "method", 4, 8),
    Column("n_fields", "fields", 3, 8, right=True),
    Column("domain_score", "score", 4, 3, right=True),
    Column("domain", "domain", 7, 9),
    Column("relevant", "rel.", 5, 9),
    Column("label", "label", 10, 4),
    Column("copies", "seen", 4, 3, right=True),
    Column("runs", "runs", 5, 1),
)
TABLE_COLUMNS = tuple(c.key for c in TABLE)
#: the log's table (--all-rows): one row per run that saw a form
LOG_TABLE = (
    Column("form_id", "id", 4, 10, right=True),
    Column("run_id", "run", 3, 7, right=True),
    Column("site", "site", 14, 6),
    Column("page_url", "page", 24, 5, fold=True),
    Column("action_url", "action", 24, 2, fold=True),
    Column("method", "method", 4, 8),
    Column("n_fields", "fields", 3, 8, right=True),
    Column("searchable_score", "score", 4, 3, right=True),
    Column("domain", "domain", 7, 9),
    Column("relevant", "rel.", 5, 9),
    Column("label", "label", 10, 4),
    Column("found_after_pages", "found at", 6, 1, right=True),
)


def filters_of(args: argparse.Namespace) -> dict[str, Any]:
    """The ``select_forms`` filters the command line gives."""
    for name in ("min_score", "max_score"):
        value = getattr(args, name)
        if value is not None and not 0 <= value <= 1:
            raise UsageError(f"--{name.replace('_', '-')} must be between 0 and 1")
    if args.labelled and args.unlabelled:
        raise UsageError("give --labelled or --unlabelled, not both")
    if args.relevant and args.not_relevant:
        raise UsageError("give --relevant or --not-relevant, not both")
    return {
        "all_rows": args.all_rows, "domain": args.domain, "run_id": args.run,
        "relevant": True if args.relevant else (False if args.not_relevant else None),
        "site": args.site, "min_score": args.min_score, "max_score": args.max_score,
        "labelled": True if args.labelled else (False if args.unlabelled else None),
    }  # fmt: skip


def cmd_forms(args: argparse.Namespace) -> int:
    db = Path(args.db)
    filters = filters_of(args)
    with open_catalogue(db) as cat:
        if args.format == "parquet" and not args.out:
            raise UsageError("--format parquet needs --out FILE")
        if args.run is not None:
            resolve_run(cat, args.run)
        if args.out:
            if args.format == "table":
                raise UsageError("--out works with --format csv, json or parquet")
            n = cat.export_forms(args.format, args.out, **filters)
            what = "form copies (the log)" if args.all_rows else "distinct forms"
            print(f"{n} {what} written to {args.out}", file=sys.stderr)
            return 0
        data = cat.forms_table(nested=args.format in ("csv", "json"), **filters)
    with quiet_broken_pipe():
        _print(data, args, db)
    return 0


def _label(row: dict[str, Any]) -> str:
    if not row.get("labelled"):
        return ""
    return f"{'right' if row['label_ok'] else 'wrong'}:{row['label_domain']}"


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "" if value is None else str(value)


def _print(data: pa.Table, args: argparse.Namespace, db: Path) -> None:
    if args.format == "csv":
        write_csv(nested_as_json(data))
    elif args.format == "json":
        write_json(data.to_pylist())
    else:
        columns = LOG_TABLE if args.all_rows else TABLE
        what = ("form copies in {db} (the log: one per run that saw a form)" if args.all_rows
                else "forms in {db} (one row per distinct form; --all-rows: every copy)")
        rows = data.to_pylist()
        cells = []
        for row in rows[: args.limit] if args.limit else rows:
            row["label"] = _label(row)
            cells.append([_cell(row[c.key]) for c in columns])
        print_fitted(f"{data.num_rows} {what.format(db=db)}", columns, cells)
        if args.limit and len(rows) > args.limit:
            print(f"... {len(rows) - args.limit} more (--limit 0 shows all)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "forms",
        help="list or export the form directory of a catalogue (--all-rows: every copy)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--all-rows", action="store_true",
                   help="the log: one row per run that saw a form, with that crawl's verdict")
    p.add_argument("--domain", help="only forms of this domain (the label's, else the verdict's)")
    p.add_argument("--relevant", action="store_true", help="only relevant forms")
    p.add_argument("--not-relevant", action="store_true", help="only forms not relevant")
    p.add_argument("--run", type=count, metavar="ID", help="only forms this run saw")
    p.add_argument("--site", help="only forms of this site (e.g. example.com)")
    p.add_argument("--min-score", type=float, metavar="S",
                   help="only searchable forms whose domain score is at least S (0-1)")
    p.add_argument("--max-score", type=float, metavar="S",
                   help="only searchable forms whose domain score is at most S (0-1)")
    p.add_argument("--labelled", action="store_true", help="only forms a user labelled")
    p.add_argument("--unlabelled", action="store_true", help="only forms nobody labelled")
    p.add_argument("--format", choices=["table", "csv", "json", "parquet"], default="table")
    p.add_argument("--out", metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--limit", type=count, default=50, metavar="N",
                   help="rows shown by --format table (0: all; default 50)")
    p.set_defaults(func=cmd_forms)
