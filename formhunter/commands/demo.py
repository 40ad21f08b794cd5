"""``formhunter demo``: the simulated web on loopback, one crawl, the forms found.

Starts the simulated web's proxy in a background process, picks seeds of one
domain, crawls about 2,000 pages with the best available strategy, prints the
relevant forms and the harvest rate, and leaves the DuckDB catalogue behind.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from formhunter.catalogue import Catalogue
from formhunter.commands._args import count, number
from formhunter.config import load_settings
from formhunter.simweb import SimWeb
from formhunter.simweb.server import proxy_process
from formhunter.strategies import best_available, get_strategy


def _truly_relevant(web: SimWeb, page_url: str, signature: str, domain: str) -> bool:
    """Whether the simulated web's ground truth calls this form relevant for ``domain``."""
    spec = web.page(page_url)
    return spec is not None and any(
        f.signature == signature and domain in f.relevant_domains for f in spec.ordered_forms()
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from formhunter.commands.crawl import exit_code, run_crawl, summary

    strategy = get_strategy(args.strategy) if args.strategy else best_available()
    web = SimWeb(seed=args.seed, n_sites=args.sites)
    seeds = web.seeds(args.domain, 20)
    print(f"simulated web: {args.sites} sites (seed {args.seed}); domain {args.domain}; "
          f"strategy {strategy.name}; {len(seeds)} seeds; {args.pages} pages")  # fmt: skip
    with proxy_process(args.seed, args.sites, slow_delay=2.0) as proxy:  # SimWeb's default
        settings = load_settings(args.config, {
            "crawl": {"domain": args.domain, "strategy": strategy.name, "max_pages": args.pages,
                      "db": args.db},
            "fetch": {"proxy": proxy, "min_delay": args.min_delay, "read_timeout": 3.0,
                      "total_timeout": 10.0, "retries": 1, "max_bytes": 2_000_000},
        })  # fmt: skip
        result, stats = run_crawl(settings, seeds=seeds, resume=False, quiet=args.quiet)
    with Catalogue(settings.crawl.db, read_only=True) as cat:
        rows = cat.con.execute(
            "SELECT found_after_pages, site, action_url, round(domain_score, 2), page_url,"
            " signature FROM forms WHERE run_id = ? AND relevant ORDER BY form_id",
            [result.run_id],
        ).fetchall()
    truth = [_truly_relevant(web, page_url, sig, args.domain) for *_, page_url, sig in rows]
    wrong = len(rows) - sum(truth)
    print(f"\nrelevant {args.domain} forms found ({len(rows)}; ground truth: "
          f"{sum(truth)} relevant, {wrong} false positives marked x):")  # fmt: skip
    for (after, site, action, score, *_), ok in zip(rows, truth, strict=True):
        print(f"  {' ' if ok else 'x'} after {after:>5} pages  {site:<32} {action}  ({score})")
    print()
    print(summary(result, settings))
    print(f"harvest rate: {stats['harvest_relevant']:.4f} relevant forms per page "
          f"({stats['relevant_forms']} / {stats['pages']}); searchable forms: "
          f"{stats['searchable_forms']} ({stats['harvest_searchable']:.4f} per page)")  # fmt: skip
    print(f"the catalogue is at {Path(settings.crawl.db).resolve()}")
    return exit_code(result)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="crawl the simulated web on loopback and show the forms found",
        description="Start the simulated web (a proxy on 127.0.0.1 in a background "
        "process), crawl one domain for about 2,000 pages with the best available "
        "strategy, print the relevant forms and the harvest rate, and keep the catalogue.",
    )
    p.add_argument("--domain", default="airfare", help="domain to crawl for (default airfare)")
    p.add_argument("--pages", type=count, default=2000, metavar="N", help="pages to fetch")
    p.add_argument("--db", default="formhunter-demo.duckdb", metavar="FILE",
                   help="catalogue file (default ./formhunter-demo.duckdb; runs are added)")
    p.add_argument("--strategy", help="strategy (default: the best available)")
    p.add_argument("--sites", type=count, default=500, metavar="N", help="sites in the web")
    p.add_argument("--seed", type=count, default=7, help="seed of the simulated web")
    p.add_argument("--min-delay", type=number, default=0.05, metavar="S",
                   help="seconds between two requests to one host (default 0.05)")
    p.add_argument("--config", metavar="FILE", help="settings file (TOML)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress output")
    p.set_defaults(func=cmd_demo)
