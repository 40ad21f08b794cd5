#!/usr/bin/env python
"""What rendering finds and what it costs: ``--render never|auto|always`` on the
simulated web (through its real proxy on loopback, headless chromium).

The sample is fixed by the seed: a breadth-first walk of the simulated web from
the seeds of every domain (robots-allowed HTML pages only, in-process, so the
walk costs nothing) of ``--pages`` pages, plus every robots-allowed page with a
script-built form (``SimWeb.hostile()["js_form"]``; they are rare, a plain
sample would hold none). For each mode, the same pages are fetched with a fresh
``Fetcher`` (``min_delay`` and Crawl-delay 0: this measures cost, not
politeness), parsed, and
handed to ``maybe_render``; ``--in-flight`` pages at a time, ``--pool`` browser
pages. Printed per mode:

* pages/s end to end (fetch + parse + decision + render + parse again);
* the share of pages rendered (for ``auto``: on the walk alone and overall);
* relevant truth forms found (truth rows with ``searchable`` and a relevant
  domain, matched on signature), and how many of them only rendering finds.

With ``--real-pages`` (default on when the formasaurus package ships its HTML
pages) the share of real Web pages that ``auto`` would render is printed too:
those pages all hold static forms, so every page rendered there is a cost.

Usage::

    .venv/bin/python scripts/bench_render.py [--pages 300] [--sites 300] [--pool 2]
"""

from __future__ import annotations

import argparse
import asyncio
import glob
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from formhunter.config import RenderSettings
from formhunter.fetch import Fetcher, FetchSettings
from formhunter.fetch.needs_render import needs_render
from formhunter.fetch.render import Renderer, maybe_render
from formhunter.parse import parse_page
from formhunter.simweb import SimWeb, running_proxy
from formhunter.simweb.truth import form_rows

DOMAINS = ("airfare", "auto", "book", "hotel", "job", "movie", "music", "rental")


def sample(web: SimWeb, n: int) -> tuple[list[str], list[str]]:
    """(walked pages, script-form pages not in the walk), both fixed by the seed."""
    todo = [u for d in DOMAINS for u in web.seeds(d, 2)]
    seen = set(todo)
    walk: list[str] = []
    while todo and len(walk) < n:
        url = todo.pop(0)
        spec = web.page(url)
        for dst, _ in web.outlinks(url):
            if dst not in seen:
                seen.add(dst)
                todo.append(dst)
        if spec is None or not spec.robots_allowed:
            continue
        resp = web.fetch(url)
        if resp.status == 200 and resp.headers.get("Content-Type", "").startswith("text/html"):
            walk.append(url)
    js = [u for u in web.hostile()["js_form"] if u not in set(walk)]
    js = [u for u in js if (s := web.page(u)) is not None and s.robots_allowed]
    return walk, js


def relevant_truth(web: SimWeb, urls: list[str]) -> dict[str, dict[str, bool]]:
    """url -> {signature of a relevant form: js_only}."""
    out: dict[str, dict[str, bool]] = {}
    for url in urls:
        spec = web.page(url)
        if spec is None:
            continue
        rows = form_rows(spec)
        out[url] = {r["signature"]: r["js_only"] for r in rows
                    if r["searchable"] and r["relevant_domains"]}  # fmt: skip
    return out


async def run_mode(mode: str, proxy: str, urls: list[str], args: argparse.Namespace
                   ) -> dict[str, Any]:  # fmt: skip
    # no politeness waits (min_delay 0, Crawl-delay capped at 0): this measures cost
    settings = FetchSettings(proxy=proxy, min_delay=0.0, max_crawl_delay=0.0, retries=0,
                             concurrency=args.in_flight, per_host_connections=4)  # fmt: skip
    pages: dict[str, Any] = {}
    errors: Counter[str] = Counter()
    sem = asyncio.Semaphore(args.in_flight)
    async with Fetcher(settings) as fetcher:
        renderer: Renderer | None = None
        if mode != "never":
            renderer = Renderer(RenderSettings(mode=mode, timeout=args.timeout, max_rendered=0),
                                fetcher, pool_size=args.pool)  # fmt: skip
            await renderer.start()
        try:
            async def one(url: str) -> None:
                async with sem:
                    result = await fetcher.fetch(url)
                    if result.error:
                        errors[result.error] += 1
                        return
                    try:
                        static = parse_page(url, result.body, final_url=result.final_url)
                    except Exception:
                        errors["parse"] += 1
                        return
                    pages[url] = await maybe_render(mode, renderer, result, static)

            t0 = time.perf_counter()
            await asyncio.gather(*(one(u) for u in urls))
            seconds = time.perf_counter() - t0
        finally:
            stats = renderer.stats.as_dict() if renderer is not None else {}
            if renderer is not None:
                await renderer.close()
    return {"pages": pages, "seconds": seconds, "errors": errors, "render": stats}


def real_page_share() -> tuple[int, int, Counter[str]] | None:
    try:
        import formasaurus
    except ImportError:
        return None
    files = sorted(glob.glob(os.path.join(os.path.dirname(formasaurus.__file__),
                                          "data", "html", "*.html")))  # fmt: skip
    if not files:
        return None
    n = hits = 0
    reasons: Counter[str] = Counter()
    for path in files:
        body = Path(path).read_bytes()
        try:
            page = parse_page("http://real.example/", body)
        except Exception:
            continue
        n += 1
        d = needs_render(page, body)
        if d:
            hits += 1
            reasons[d.reason.split(":")[0]] += 1
    return n, hits, reasons


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--pages", type=int, default=300, help="pages of the breadth-first walk")
    ap.add_argument("--sites", type=int, default=300, help="sites of the simulated web")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--pool", type=int, default=2, help="browser pages (renders at a time)")
    ap.add_argument("--in-flight", type=int, default=16, help="pages processed at a time")
    ap.add_argument("--timeout", type=float, default=15.0, help="seconds per render")
    ap.add_argument("--modes", default="never,auto,always")
    ap.add_argument("--no-real-pages", action="store_true")
    args = ap.parse_args()

    web = SimWeb(seed=args.seed, n_sites=args.sites, slow_delay=0.5)
    walk, js = sample(web, args.pages)
    urls = walk + js
    truth = relevant_truth(web, urls)
    n_rel = sum(len(v) for v in truth.values())
    n_js = sum(sum(v.values()) for v in truth.values())
    print(f"simulated web: seed {args.seed}, {args.sites} sites; sample: {len(walk)} pages of a "
          f"breadth-first walk + {len(js)} pages with script-built forms")  # fmt: skip
    print(f"truth on the sample: {n_rel} relevant forms, {n_js} of them built by script")
    print(f"chromium pool {args.pool} pages, {args.in_flight} pages in flight, min_delay 0, "
          f"{os.cpu_count()} cores (shared machine)\n")  # fmt: skip

    results: dict[str, dict[str, Any]] = {}
    with running_proxy(web=web, slow_delay=0.5) as proxy:
        for mode in args.modes.split(","):
            results[mode] = asyncio.run(run_mode(mode, proxy.url, urls, args))

    walk_set = set(walk)
    found_by: dict[str, set[tuple[str, str]]] = {}
    head = (f"{'mode':7} {'pages':>5} {'err':>4} {'rendered':>9} {'share':>6} {'walk':>6} "
            f"{'relevant':>8} {'js-only':>7} {'pages/s':>8} {'s/render':>8}")  # fmt: skip
    print(head)
    print("-" * len(head))
    for mode, res in results.items():
        pages = res["pages"]
        found: set[tuple[str, str]] = set()
        for url, page in pages.items():
            sigs = {f.signature for f in page.forms}
            found |= {(url, s) for s in truth.get(url, {}) if s in sigs}
        found_by[mode] = found
        js_found = sum(1 for url, s in found if truth[url][s])
        rendered = [u for u, p in pages.items() if p.rendered]
        walk_rendered = sum(1 for u in rendered if u in walk_set)
        st = res["render"]
        per_render = st.get("seconds", 0.0) / max(1, st.get("renders", 0)) if st else 0.0
        print(f"{mode:7} {len(pages):5d} {sum(res['errors'].values()):4d} {len(rendered):9d} "
              f"{len(rendered) / max(1, len(pages)):6.1%} "
              f"{walk_rendered / max(1, len(walk)):6.1%} {len(found):8d} {js_found:7d} "
              f"{len(pages) / res['seconds']:8.1f} {per_render:8.3f}")  # fmt: skip
    if "never" in found_by:
        for mode in ("auto", "always"):
            if mode in found_by:
                extra = found_by[mode] - found_by["never"]
                lost = found_by["never"] - found_by[mode]
                print(f"{mode}: {len(extra)} relevant forms that never misses "
                      f"({len(lost)} that never finds and {mode} does not)")  # fmt: skip
    for mode, res in results.items():
        if res["render"]:
            st = res["render"]
            print(f"{mode} renderer: renders {st['renders']}, ok {st['ok']}, partial "
                  f"{st['partial']}, failures {st['failures']}, launches {st['launches']}, "
                  f"pages opened {st['pages_opened']}, sub-resources fetched {st['fetched']}, "
                  f"blocked {st['blocked']}")  # fmt: skip
        if res["errors"]:
            print(f"{mode} fetch errors: {dict(res['errors'])}")
    if not args.no_real_pages:
        share = real_page_share()
        if share is not None:
            n, hits, reasons = share
            print(f"\nreal Web pages (formasaurus, all with static forms): auto would render "
                  f"{hits} of {n} ({hits / max(1, n):.1%}); by signal {dict(reasons)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
