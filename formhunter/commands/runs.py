"""``formhunter runs``: one row per crawl run of a catalogue.

The counts are computed from the rows the run wrote (``pages``, ``forms``,
``learning_iterations``), not taken from the run's saved counters; the harvest
rate is relevant forms per page fetched. ``status`` is what the catalogue
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

from formhunter.catalogue import Catalogue
from formhunter.commands._common import (
    Column,
    open_catalogue,
    print_fitted,
    quiet_broken_pipe,
    write_csv,
    write_json,
)

COLUMNS = ("run_id", "started_at", "finished_at", "domain", "strategy", "max_pages", "pages",
           "forms", "searchable_forms", "relevant_forms", "harvest_rate",
           "learning_iterations", "status", "end_reason")  # fmt: skip

RUNS_SQL = """
SELECT r.run_id, r.started_at, r.finished_at, r.domain, r.strategy, r.max_pages,
       coalesce(p.n, 0) AS pages, coalesce(f.n, 0) AS forms,
       coalesce(f.searchable, 0) AS searchable_forms,
       coalesce(f.relevant, 0) AS relevant_forms,
       CASE WHEN coalesce(p.n, 0) > 0 THEN CAST(coalesce(f.relevant, 0) AS DOUBLE) / p.n
            ELSE 0.0 END AS harvest_rate,
       coalesce(l.n, 0) AS learning_iterations, r.status, {end_reason} AS end_reason
FROM runs r
LEFT JOIN (SELECT run_id, count(*) AS n FROM pages GROUP BY run_id) p USING (run_id)
LEFT JOIN (SELECT run_id, count(*) AS n, count(*) FILTER (WHERE searchable) AS searchable,
                  count(*) FILTER (WHERE relevant) AS relevant
           FROM forms GROUP BY run_id) f USING (run_id)
LEFT JOIN (SELECT run_id, count(*) AS n FROM learning_iterations GROUP BY run_id) l
       USING (run_id)
ORDER BY r.run_id
"""


def runs_table(cat: Catalogue) -> pa.Table:
    """The catalogue's runs with their counts, columns ``COLUMNS``."""
    # A read-only catalogue of schema version 2 is not migrated: no end_reason there.
    cols = {r[0] for r in cat.con.execute("DESCRIBE runs").fetchall()}
    end_reason = "r.end_reason" if "end_reason" in cols else "CAST(NULL AS VARCHAR)"
    sql = RUNS_SQL.format(end_reason=end_reason)
    return cat.con.sql(sql).to_arrow_table().select(list(COLUMNS))


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
    Column("learning_iterations", "learning", 4, 6, right=True),
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
        "fetched, (searchable, relevant) forms, harvest rate (relevant forms per page), "
        "learning iterations, status (finished, interrupted or running) and why it ended.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(func=cmd_runs)
