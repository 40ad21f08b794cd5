"""``formhunter models list``: the models kept in the user model directory and the shipped ones.

``formhunter train`` keeps every model it makes: each gets a name of its own (the
time it was made and its training data's hash, ``20261128-021500-1a2b3c4d``) in the
user model directory (``--models DIR``; default ``$FORMHUNTER_MODELS``, else
``~/.local/share/formhunter/models``), and never replaces the one before. Commands
that judge (``crawl``, ``judge``, ``serve``, ``rejudge``) use the newest of a kind
unless ``--model NAME`` names one (``shipped``: the one in data/models, the
fallback when the user directory has none). ``default`` marks the model they use.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table

from formhunter.commands._common import print_table, quiet_broken_pipe, write_json

COLUMNS = ("kind", "name", "default", "created", "data_hash", "metric", "path")


def _metric(manifest: dict[str, Any]) -> str:
    metrics = manifest.get("metrics") or {}
    for key in ("macro_f1", "f1", "accuracy", "roc_auc"):
        value = metrics.get(key)
        if isinstance(value, int | float):
            return f"{key}={value:.3f}"
    return ""


def model_rows(models_dir: str | None) -> list[dict[str, Any]]:
    """One row per kept model (user directory, then shipped), with ``default`` set on
    the one ``model_path`` picks for its kind."""
    from classifiers.persist import list_models, model_path

    rows = []
    for m in list_models(models_dir):
        chosen = model_path(m["kind_path"], models_dir)
        rows.append({
            "kind": m["kind_path"], "name": m["name"],
            "default": "yes" if Path(chosen).resolve() == Path(m["path"]).resolve() else "",
            "created": m["manifest"].get("created", ""),
            "data_hash": str(m["manifest"].get("data_hash", ""))[:16],
            "metric": _metric(m["manifest"]), "path": str(m["path"]),
        })  # fmt: skip
    return rows


def cmd_list(args: argparse.Namespace) -> int:
    rows = model_rows(args.models)
    with quiet_broken_pipe():
        if args.format == "json":
            write_json(rows)
            return 0
        table = Table(title=f"{len(rows)} models (default: the one a command uses "
                      "without --model)")  # fmt: skip
        for col in COLUMNS:
            table.add_column(col, overflow="fold" if col == "path" else "ellipsis")
        for r in rows:
            table.add_row(*(str(r[c]) for c in COLUMNS))
        print_table(table)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="list the trained models kept (named by time and data hash) and the shipped ones",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    ls = actions.add_parser("list", help="one row per model: kind, name, default, metrics",
                            description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    ls.add_argument("--models", metavar="DIR",
                    help="user model directory (default: $FORMHUNTER_MODELS, else "
                    "~/.local/share/formhunter/models)")  # fmt: skip
    ls.add_argument("--format", choices=["table", "json"], default="table")
    ls.set_defaults(func=cmd_list)
