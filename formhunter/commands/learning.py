"""``formhunter learning``: the learning iterations of a run (ACHE's Table 2).

One row per iteration of the run's adaptive learners. For ACHE's online link
learner (``ache-online``) the terms feature selection chose are shown per
feature space: columns ``url``, ``anchor`` and ``around``; whatever else a
learner recorded (ACHE: instances per level; apprentice and CFC: their batch
figures) is in ``details``, as ``key=value`` pairs (nested keys dotted).

``--format table`` prints a table with the first ``--terms`` terms of each
space; ``csv`` has every term, comma separated, and ``details`` as key=value;
``json`` (an array of objects) has the terms as lists and ``details`` as the
recorded object.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
from rich.table import Table

from formhunter.catalogue import Catalogue
from formhunter.commands._args import count
from formhunter.commands._common import (
    open_catalogue,
    print_table,
    quiet_broken_pipe,
    resolve_run,
    write_csv,
    write_json,
)
from formhunter.reads import SPACES, split_features

SCHEMA = pa.schema(
    [("run_id", pa.int32()), ("iteration", pa.int32()), ("learned_at", pa.timestamp("us")),
     ("learner", pa.string()), ("at_page", pa.int64()), ("n_paths", pa.int32()),
     ("seconds", pa.float64()), ("url", pa.string()), ("anchor", pa.string()),
     ("around", pa.string()), ("details", pa.string()), ("note", pa.string())]
)  # fmt: skip
COLUMNS = tuple(SCHEMA.names)


def key_values(data: dict[str, Any], prefix: str = "") -> str:
    """``{"a": 1, "b": {"c": 2}}`` as ``a=1, b.c=2`` (lists joined with ``|``)."""
    parts: list[str] = []
    for k, v in data.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            if v:
                parts.append(key_values(v, key + "."))
        elif isinstance(v, list):
            parts.append(f"{key}={'|'.join(map(str, v))}")
        else:
            parts.append(f"{key}={v}")
    return ", ".join(parts)


def iterations(cat: Catalogue, run_id: int, learner: str | None = None) -> list[dict[str, Any]]:
    """The run's learning iterations in order: the stored columns plus ``spaces`` (terms per
    feature space) and ``details`` (the rest of the features JSON, a dict)."""
    sql = ("SELECT run_id, iteration, learned_at, learner, at_page, n_paths, seconds, features,"
           " note FROM learning_iterations WHERE run_id = ?")  # fmt: skip
    params: list[Any] = [run_id]
    if learner:
        sql += " AND learner = ?"
        params.append(learner)
    rows = []
    for r in cat.con.execute(sql + " ORDER BY iteration", params).fetchall():
        spaces, details = split_features(r[7])
        rows.append({"run_id": r[0], "iteration": r[1], "learned_at": r[2], "learner": r[3],
                     "at_page": r[4], "n_paths": r[5], "seconds": r[6], "spaces": spaces,
                     "details": details, "note": r[8] or ""})  # fmt: skip
    return rows


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    """A row for CSV: every term, comma separated; details as key=value."""
    out = {k: row[k] for k in COLUMNS if k not in SPACES and k != "details"}
    for s in SPACES:
        out[s] = ", ".join(row["spaces"].get(s, []))
    out["details"] = key_values(row["details"])
    return out


def _json(row: dict[str, Any]) -> dict[str, Any]:
    """A row for JSON: terms as lists, details as recorded."""
    out = {k: row[k] for k in COLUMNS if k not in SPACES}
    out.update({s: row["spaces"].get(s, []) for s in SPACES})
    return {k: out[k] for k in COLUMNS}


def _terms(terms: list[str], top: int) -> str:
    if top and len(terms) > top:
        return ", ".join(terms[:top]) + f" (+{len(terms) - top})"
    return ", ".join(terms)


def _table(rows: list[dict[str, Any]], title: str, top: int) -> Table:
    spaces = [s for s in SPACES if any(s in r["spaces"] for r in rows)]
    details = any(r["details"] for r in rows)
    table = Table(title=title)
    for col in ("run", "iter", "learner", "at_page", "n_paths", "seconds"):
        table.add_column(col, justify="left" if col == "learner" else "right", no_wrap=True)
    for s in spaces:
        table.add_column(s, overflow="fold", min_width=12)
    if details:
        table.add_column("details", overflow="ellipsis", no_wrap=True, max_width=48)
    table.add_column("note", overflow="ellipsis", no_wrap=True, max_width=30)
    for r in rows:
        cells = [str(r["run_id"]), str(r["iteration"]), r["learner"] or "-", str(r["at_page"]),
                 str(r["n_paths"]), f"{r['seconds']:.3f}" if r["seconds"] is not None else "-"]
        cells += [_terms(r["spaces"].get(s, []), top) for s in spaces]
        if details:
            cells.append(key_values(r["details"]))
        table.add_row(*cells, r["note"])
    return table


def cmd_learning(args: argparse.Namespace) -> int:
    db = Path(args.db)
    with open_catalogue(db) as cat:
        run_id = resolve_run(cat, args.run)
        info = cat.run(run_id)
        rows = iterations(cat, run_id, args.learner)
        learners = [r[0] for r in cat.con.execute(
            "SELECT DISTINCT learner FROM learning_iterations WHERE run_id = ? ORDER BY 1",
            [run_id]).fetchall()]  # fmt: skip
    if not rows:
        what = f" by learner {args.learner!r}" if args.learner else ""
        known = f" (its learners: {', '.join(learners)})" if learners else ""
        print(f"run {run_id} has no learning iteration{what}{known}", file=sys.stderr)
        if args.format == "table":
            return 0
    with quiet_broken_pipe():
        if args.format == "csv":
            write_csv(pa.Table.from_pylist([_flat(r) for r in rows], schema=SCHEMA))
        elif args.format == "json":
            write_json([_json(r) for r in rows])
        else:
            about = f" ({info.strategy}, {info.domain})" if info else ""
            title = f"{len(rows)} learning iterations of run {run_id}{about} in {db}"
            print_table(_table(rows, title, args.terms))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "learning",
        help="list the learning iterations of a run (features chosen per space)",
        description="One row per learning iteration of a run's adaptive learners: when "
        "(pages fetched), paths learned from, seconds, and for ACHE's online learner the "
        "terms chosen in each feature space (url, anchor, around), as in Table 2 of the "
        "ACHE paper; other learners' figures as key=value.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--run", type=count, metavar="ID", help="the run (default: the latest)")
    p.add_argument("--learner", metavar="NAME",
                   help="only this learner's iterations (e.g. ache-online, apprentice, cfc)")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.add_argument("--terms", type=count, default=8, metavar="N",
                   help="terms shown per feature space by --format table (0: all; default 8)")
    p.set_defaults(func=cmd_learning)
