"""``formhunter rejudge --db FILE``: judge every stored form again with the current models.

Each stored form keeps its HTML, context and page (URL, title, site name,
navigation, topic score): the critic (``--critic``, default the trained one) judges
them again with the models ``--models DIR`` / ``--model NAME`` name (default: the
newest model the user trained, else the shipped one; ``formhunter models list``).
The verdicts are recorded beside the crawl's (the directory shows the latest, the
web page's "Re-judgings" what changed) together with the models used: path,
manifest hash, metrics. Prints what changed per distinct form: newly relevant, no
longer relevant, domain changed (``--format json``: the same as one object).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from formhunter.commands._args import count
from formhunter.commands._common import describe_models, print_table, quiet_broken_pipe
from formhunter.exceptions import UsageError


def critic_factory(name: str, models_dir: str | None, model: str | None) -> Any:
    """``domain -> critic`` built by name from the critics registry."""
    from formhunter.strategies import build

    def make(domain: str) -> Any:
        return build("critic", name, domain=domain, models_dir=models_dir, model=model)

    return make


def cmd_rejudge(args: argparse.Namespace) -> int:
    from formhunter.catalogue import Catalogue
    from formhunter.rejudge import CHANGES, rejudge

    db = Path(args.db)
    if not db.exists():
        raise UsageError(f"no catalogue at {db} (make one with `formhunter crawl --db {db}`)")
    if args.models and args.model:
        raise UsageError("give --models DIR or --model NAME, not both")
    make = critic_factory(args.critic, args.models, args.model)
    with Catalogue(db) as cat:
        report = rejudge(cat, make, critic=args.critic)
    print(f"judged with the {args.critic} critic: {describe_models(report.models)}",
          file=sys.stderr)  # fmt: skip
    if args.format == "json":
        with quiet_broken_pipe():
            json.dump(report.as_dict(), sys.stdout, indent=1, default=str)
            sys.stdout.write("\n")
        return 0
    counts = report.counts()
    print(f"re-judging {report.rejudge_id} of {db}: {report.judged} stored forms judged "
          f"({report.distinct} distinct; {report.skipped} without parsable HTML)")  # fmt: skip
    print(", ".join(f"{k.replace('_', ' ')}: {counts[k]}" for k in CHANGES))
    table = Table(title=f"what changed (re-judging {report.rejudge_id})")
    for col in ("change", "form_id", "site", "action_url", "target", "was", "now"):
        table.add_column(col, overflow="ellipsis", no_wrap=True,
                         max_width=50 if col == "action_url" else None)  # fmt: skip
    shown = 0
    for kind in CHANGES:
        for c in report.changes[kind]:
            if args.limit and shown >= args.limit:
                break
            shown += 1
            table.add_row(kind.replace("_", " "), str(c["form_id"]), c["site"], c["action_url"],
                          c["run_domain"], _verdict(c, "old"), _verdict(c, "new"))  # fmt: skip
    if shown:
        print_table(table)
    total = sum(counts.values())
    if args.limit and total > shown:
        print(f"... {total - shown} more changes (--limit 0 shows all)")
    return 0


def _verdict(c: dict[str, Any], which: str) -> str:
    domain = c[f"{which}_domain"] or "not searchable"
    score = c[f"{which}_score"]
    rel = " relevant" if c[f"{which}_relevant"] else ""
    return f"{domain} {score:.2f}{rel}" if score is not None else f"{domain}{rel}"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rejudge",
        help="judge every stored form again with the current (or a named) model; print "
        "what changed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--models", metavar="DIR",
                   help="model directory with searchable/ and domain/ (default: the user "
                   "one, then data/models)")  # fmt: skip
    p.add_argument("--model", metavar="NAME",
                   help="the domain model to use, by name (formhunter models list; "
                   "'shipped' = data/models); default: the newest")  # fmt: skip
    p.add_argument("--critic", default="default",
                   help="critic by registry name (default: default, the trained models)")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.add_argument("--limit", type=count, default=50, metavar="N",
                   help="changes shown by --format table (0: all; default 50)")
    p.set_defaults(func=cmd_rejudge)
