"""``formhunter probe``: probe the stored forms of a catalogue after a crawl.

A few GET submissions per form (``[probe] max_per_form``, default 6; at most
``[probe] max_per_site`` per site), through the same fetcher as a crawl: robots.txt
always obeyed (on every submission URL), one connection and ``[fetch] min_delay``
between requests per host, private addresses refused without ``--allow-private``.
Never a POST form, a form with a password, email, file or textarea field, or one the
critic judged not searchable. Every submission is recorded (``probes``) and each form's
verdict (``form_probes``); ``formhunter forms --format json`` shows it as ``probe``.
Forms probed before are skipped unless ``--again``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from formhunter.catalogue import Catalogue
from formhunter.commands._args import count, number
from formhunter.config import load_settings
from formhunter.exceptions import UsageError


def cmd_probe(args: argparse.Namespace) -> int:
    from formhunter.probing import probe_catalogue

    db = Path(args.db)
    if not db.exists():
        raise UsageError(f"no catalogue at {db} (make one with `formhunter crawl --db {db}`)")
    if args.max_per_form is not None and args.max_per_form < 1:
        raise UsageError("--max-per-form needs a number >= 1")
    flags = {
        "fetch": {"proxy": args.proxy, "allow_private": args.allow_private,
                  "min_delay": args.min_delay},
        "probe": {"forms": args.forms, "max_per_form": args.max_per_form,
                  "max_per_site": args.max_per_site},
    }  # fmt: skip
    settings = load_settings(args.config, flags)
    with Catalogue(db) as cat:
        report = probe_catalogue(cat, settings, domain=args.domain, run_id=args.run,
                                 again=args.again)  # fmt: skip
    counts = report.counts()
    n = len(report.results)
    subs = sum(len(r.answers) for r in report.results)
    print(f"{n} forms probed with {subs} submissions on {len(report.site_spent)} sites: "
          + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "nothing to probe"))
    for r in report.results:
        if args.verbose_forms:
            print(f"  form {r.form.form_id} {r.form.site}: {r.verdict} {r.domain or '-'} "
                  f"inputs={','.join(r.inputs) or '-'} ~{r.results_estimate} {r.note}",
                  file=sys.stderr)  # fmt: skip
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "probe",
        help="probe stored forms with a few polite GET queries (answers queries? domain?)",
        description=(__doc__ or "").split("\n\n", 1)[1].replace("``", ""),
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the DuckDB catalogue")
    p.add_argument("--domain", help="only forms the critic assigned to this domain")
    p.add_argument("--forms", choices=["relevant", "searchable"],
                   help="which stored forms (default: [probe] forms, relevant)")
    p.add_argument("--max-per-form", type=count, metavar="N",
                   help="submissions per form at most (default: [probe] max_per_form, 6)")
    p.add_argument("--max-per-site", type=count, metavar="N",
                   help="submissions per site at most (default: [probe] max_per_site)")
    p.add_argument("--run", type=count, metavar="ID", help="only forms of this run")
    p.add_argument("--again", action="store_true", help="probe forms probed before again")
    p.add_argument("--proxy", metavar="URL", help="send every request through this HTTP proxy")
    p.add_argument("--allow-private", action="store_true", default=None,
                   help="allow loopback/private addresses (refused by default)")
    p.add_argument("--min-delay", type=number, metavar="S",
                   help="seconds between two requests to one host")
    p.add_argument("--config", metavar="FILE", help="settings file (TOML)")
    p.add_argument("--list", dest="verbose_forms", action="store_true",
                   help="print each form's verdict")
    p.set_defaults(func=cmd_probe)
