"""``formhunter runs``: one row per crawl run of a catalogue.

The counts are computed from the rows the run wrote (``pages``, ``forms``,
``learning_iterations``), not taken from the run's saved counters; the harvest
rate is relevant forms per page fetched. Per site: ``sites`` fetched from,
``sites_relevant`` where a relevant form was found, ``domain_sites_without``
sites entered with an on-topic page but no relevant form found (the crawl
reached the domain's site and left without its form), ``pages_per_site``.
``requeued``: fetches that failed for a transient reason (timeout, connection, 5xx,
429) and whose link went back into the frontier (``[frontier] requeue_failed``; the
run's saved counters, 0 for runs before them): a busy machine or network shows here.
All by the crawler's own judgement (the benchmark's site coverage uses the
ground truth). ``status`` is what the catalogue
records of how the run ended: ``finished`` (budget reached, frontier exhausted
or time limit), ``interrupted`` (resume it with ``crawl --resume``) or
``running`` (still going, or killed before it could record its end);
``end_reason`` says why it stopped (the engine's ``CrawlResult.reason``: budget,
exhausted, time-limit, interrupted; empty for runs of schema version 2).
``--format table`` prints a table; ``csv`` and ``json`` (an array of objects)
go to stdout.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from formhunter.commands._common import (
    Column,
    open_catalogue,
    print_fitted,
    quiet_broken_pipe,
    write_csv,
    write_json,
)
from formhunter.reads import COLUMNS, RUNS_SQL, runs_table

__all__ = ["COLUMNS", "RUNS_SQL", "cmd_runs", "runs_table"]

def cmd_runs(args: argparse.Namespace) -> int:
    db = Path(args.db)
    with open_catalogue(db) as cat:
        data = runs_table(cat)
    with quiet_broken_pipe():
        if args.format == "csv":
            write_csv(data)
        elif args.format == "json":
            write_json(data.to_pylist())
        else:
            _print_table(data, db)
    return 0


def _cell(col: str, value: Any) -> str:
    if value is None:
        return "" if col == "finished_at" else "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    if col == "harvest_rate":
        return f"{value:.4f}"
    if col == "pages_per_site":
        return f"{value:.1f}"
    return str(value)


#: the table's columns; at 80 columns the id, domain, strategy, pages, relevant forms,
#: harvest rate, status and end reason stay
TABLE = (
    Column("run_id", "run", 3, 10, right=True),
    Column("started_at", "started", 16, 3),
    Column("finished_at", "finished", 16, 1),
    Column("domain", "domain", 7, 9),
    Column("strategy", "strategy", 8, 8),
    Column("max_pages", "budget", 6, 2, right=True),
    Column("pages", "pages", 6, 9, right=True),
    Column("forms", "forms", 5, 4, right=True),
    Column("searchable_forms", "searchable", 5, 5, right=True),
    Column("relevant_forms", "relevant", 5, 9, right=True),
    Column("harvest_rate", "harvest", 6, 7, right=True),
    Column("sites", "sites", 5, 2, right=True),
    Column("sites_relevant", "sites w/ form", 13, 6, right=True),
    Column("domain_sites_without", "on-topic w/o", 12, 5, right=True),
    Column("pages_per_site", "pages/site", 10, 3, right=True),
    Column("learning_iterations", "learning", 4, 6, right=True),
    Column("requeued", "requeued", 5, 4, right=True),
    Column("status", "status", 8, 8),
    Column("end_reason", "ended by", 9, 7),
)


def _print_table(data: pa.Table, db: Path) -> None:
    rows = [[_cell(c.key, row[c.key]) for c in TABLE] for row in data.to_pylist()]
    print_fitted(f"{data.num_rows} runs in {db}", TABLE, rows)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "runs",
        help="list the crawl runs of a catalogue",
        description="One row per crawl run: when it ran, domain, strategy, page budget, pages "
        "fetched, (searchable, relevant) forms, harvest rate (relevant forms per page), sites "
        "fetched from, sites with a relevant form, on-topic sites left without one, pages per "
        "site, "
        "learning iterations, fetches requeued after a transient failure, status (finished, "
        "interrupted or running) and why it ended.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(func=cmd_runs)
