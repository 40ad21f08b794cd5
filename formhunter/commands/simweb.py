"""``formhunter simweb serve|seeds|truth|stats|bench``: the simulated web from the command line.

``--world NAME`` chooses the family (``formhunter.worlds``: simweb, the default, or bazaar)
for serve, seeds, truth and stats."""

from __future__ import annotations

import argparse
import asyncio
import json

from formhunter.commands._args import count, number
from formhunter.exceptions import UsageError
from formhunter.simweb.weight import PAGE_KB_MAX, check_page_kb
from formhunter.worlds import WORLDS, World, open_world


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simweb",
        help="serve, sample and export the simulated web",
        description="The simulated web: a deterministic web with ground truth, served by an "
        "HTTP forward proxy on loopback.",
    )
    ssub = p.add_subparsers(dest="simweb_command", metavar="ACTION")

    def common(q: argparse.ArgumentParser, world: bool = True) -> None:
        q.add_argument("--seed", type=count, default=7, help="generator seed (default 7)")
        q.add_argument("--sites", type=count, default=500, help="number of sites (default 500)")
        if world:
            q.add_argument("--world", choices=WORLDS, default="simweb",
                           help="which family of simulated webs (default simweb)")  # fmt: skip

    q = ssub.add_parser(
        "serve",
        help="run the forward proxy",
        description="Answer absolute-URI HTTP requests for the simulated hosts.",
    )
    common(q)
    q.add_argument("--port", type=count, default=8899, help="port on 127.0.0.1 (default 8899)")
    q.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    q.add_argument("--log", default=None, metavar="FILE", help="append a JSON line per request")
    q.add_argument("--slow-delay", type=number, default=2.0, help="delay of slow pages (s)")
    q.add_argument(
        "--page-kb",
        type=int,  # check_page_kb says the range, with its own message
        default=0,
        metavar="N",
        help=f"pad every HTML page to about N KB of realistic boilerplate markup "
        f"(same links, forms and truth; 0 = off, the default; at most {PAGE_KB_MAX})",
    )
    q.set_defaults(func=_serve)

    q = ssub.add_parser(
        "seeds",
        help="print seed URLs for a domain",
        description="Print topical seed URLs (directory categories, articles).",
    )
    common(q)
    q.add_argument("--domain", required=True, help="airfare, auto, book, hotel, job, movie, ...")
    q.add_argument("--n", type=count, default=20, help="how many (default 20)")
    q.set_defaults(func=_seeds)

    q = ssub.add_parser(
        "truth",
        help="write the ground truth (pages, links, forms)",
        description="Write pages, links and forms of the simulated web.",
    )
    common(q)
    q.add_argument("--out", required=True, metavar="DIR", help="output directory")
    q.add_argument("--format", choices=("jsonl", "parquet"), default="parquet")
    q.set_defaults(func=_truth)

    q = ssub.add_parser(
        "stats",
        help="print sites, pages and forms per domain (walks the whole truth)",
        description="Counts of a simulated web from its ground truth: pages and sites by "
        "kind, and per domain the sites holding a relevant form, the distinct relevant "
        "forms (site, signature), how many of them a crawler without a browser can find, "
        "and on-topic pages.",
    )
    common(q)
    q.add_argument("--format", choices=("table", "json"), default="table",
                   help="a text summary and a table per domain, or JSON (default table)")
    q.set_defaults(func=_stats)

    q = ssub.add_parser(
        "bench",
        help="print counts, densities and proxy pages/s",
        description="Counts of the web and the proxy's throughput.",
    )
    common(q, world=False)
    q.add_argument("--clients", type=count, default=32, help="concurrent clients (default 32)")
    q.add_argument("--requests", type=count, default=3000, help="requests to time")
    q.set_defaults(func=_bench, world="simweb")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _web(args: argparse.Namespace, slow_delay: float = 2.0) -> World:
    if args.sites < 1:
        raise UsageError("--sites must be >= 1")
    page_kb = check_page_kb(getattr(args, "page_kb", 0), "--page-kb")
    return open_world(args.world, args.seed, args.sites, slow_delay=slow_delay, page_kb=page_kb)


def _serve(args: argparse.Namespace) -> int:
    from formhunter.simweb.server import serve_forever

    web = _web(args, args.slow_delay)
    try:
        asyncio.run(serve_forever(web, args.port, args.host, args.log))
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {exc}") from exc
    return 0


def _seeds(args: argparse.Namespace) -> int:
    for url in _web(args).seeds(args.domain, args.n):
        print(url)
    return 0


def _truth(args: argparse.Namespace) -> int:
    from formhunter.worlds import SimWebWorld
    from formhunter.worlds.stats import export_rows

    world = _web(args)
    if isinstance(world, SimWebWorld):  # simweb's own export keeps its extra columns
        counts = world.web.truth().export(args.out, args.format)
    else:
        counts = export_rows(world.truth_rows(), args.out, args.format)
    print(json.dumps({"out": args.out, "format": args.format, **counts}))
    return 0


def _stats(args: argparse.Namespace) -> int:
    from formhunter.worlds.stats import format_stats, world_stats

    st = world_stats(_web(args))
    print(json.dumps(st, indent=1) if args.format == "json" else format_stats(st))
    return 0


def _bench(args: argparse.Namespace) -> int:
    from formhunter.simweb import bench

    return bench.main(
        [
            "--seed",
            str(args.seed),
            "--sites",
            str(args.sites),
            "--clients",
            str(args.clients),
            "--requests",
            str(args.requests),
        ]
    )
