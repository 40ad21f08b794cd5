"""Figures of the simulated web: counts, form densities, crawl sketches, proxy pages/s.

Run: ``.venv/bin/python -m formhunter.simweb.bench [--sites 500] [--clients 32]``
(or ``formhunter simweb bench``). Prints:

- sites by kind, pages by kind, distinct forms by kind and relevant forms by domain;
- relevant-form density per domain = distinct relevant forms / pages about the domain,
  and the density a topic-focused crawl would see (its pages = on-topic pages plus the
  off-topic pages they link to);
- a sketch of BFS vs a focused crawler (truth-labelled page classifier: follow links of
  on-topic pages only) from the domain's seeds: relevant forms after N pages;
- in-process generation speed and the proxy's pages/s with N concurrent clients
  (the proxy runs in a subprocess so that client and server do not share one GIL).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import random
import socket
import subprocess
import sys
import time
from collections import deque
from typing import Any

from formhunter.simweb import vocab as vc
from formhunter.simweb.generator import SimWeb


def counts(web: SimWeb) -> dict[str, Any]:
    """Counts over the whole truth (builds every PageSpec once; no HTML)."""
    sites = collections.Counter(
        s.kind + (f":{s.domain}" if s.kind == "database" else "") for s in web.sites
    )
    pages: collections.Counter[str] = collections.Counter()
    status: collections.Counter[int] = collections.Counter()
    topical: collections.Counter[str] = collections.Counter()
    forms_by_kind: dict[str, set[str]] = collections.defaultdict(set)
    relevant: dict[str, set[str]] = collections.defaultdict(set)
    rel_sites: dict[str, set[str]] = collections.defaultdict(set)
    rel_where: collections.Counter[str] = collections.Counter()
    js_only: set[str] = set()
    neighbours: dict[str, set[str]] = {d: set() for d in vc.DOMAINS}
    ontopic: dict[str, set[str]] = {d: set() for d in vc.DOMAINS}
    n = 0
    for spec in web.truth().specs():
        n += 1
        pages[spec.kind] += 1
        status[spec.status] += 1
        for d in spec.domains:
            topical[d] += 1
            ontopic[d].add(spec.url)
            neighbours[d].update(u for u, _ in spec.links)
        for f in spec.ordered_forms():
            forms_by_kind[f.kind].add(f.signature)
            if f.js_only:
                js_only.add(f.signature)
            for d in f.relevant_domains:
                if f.signature not in relevant[d]:
                    rel_where[spec.kind] += 1
                relevant[d].add(f.signature)
                rel_sites[d].add(spec.site.name)
    focused_pages = {d: len(ontopic[d] | neighbours[d]) for d in vc.DOMAINS}
    return {
        "n_sites": len(web.sites), "sites": dict(sorted(sites.items())), "n_pages": n,
        "pages": dict(pages.most_common()), "status": dict(sorted(status.items())),
        "forms_by_kind": {k: len(v) for k, v in sorted(forms_by_kind.items())},
        "js_only_forms": len(js_only),
        "relevant": {d: len(relevant[d]) for d in vc.DOMAINS},
        "relevant_sites": {d: len(rel_sites[d]) for d in vc.DOMAINS},
        "relevant_on_page_kind": dict(rel_where.most_common()),
        "topical_pages": {d: topical[d] for d in vc.DOMAINS},
        "density": {d: len(relevant[d]) / max(1, topical[d]) for d in vc.DOMAINS},
        "focused_density": {d: len(relevant[d]) / max(1, focused_pages[d]) for d in vc.DOMAINS},
    }  # fmt: skip


def crawl_sketch(web: SimWeb, domain: str, max_pages: int, focused: bool) -> int:
    """Relevant forms found by BFS (focused=False) or an on-topic-only crawler."""
    seen: set[str] = set()
    queue: deque[str] = deque()
    for u in web.seeds(domain, 50):
        if u not in seen:
            seen.add(u)
            queue.append(u)
    found: set[str] = set()
    fetched = 0
    while queue and fetched < max_pages:
        url = queue.popleft()
        spec = web.page(url)
        fetched += 1
        if spec is None or (spec.kind == "calendar" and focused):
            continue
        for f in spec.ordered_forms():
            if domain in f.relevant_domains and not f.js_only:
                found.add(f.signature)
        if spec.redirect_to and spec.redirect_to not in seen:
            seen.add(spec.redirect_to)
            queue.append(spec.redirect_to)
        if focused and domain not in spec.domains:
            continue
        for u, _ in spec.links:
            if u not in seen:
                seen.add(u)
                queue.append(u)
    return len(found)


def generation_speed(web: SimWeb, urls: list[str]) -> tuple[float, float]:
    t = time.perf_counter()
    size = 0
    for u in urls:
        size += len(web.fetch(u).body)
    dt = time.perf_counter() - t
    return len(urls) / dt, size / len(urls)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _hammer(proxy: str, urls: list[str], clients: int) -> tuple[float, int, int]:
    import aiohttp

    queue: asyncio.Queue[str] = asyncio.Queue()
    for u in urls:
        queue.put_nowait(u)
    ok = 0
    nbytes = 0
    conn = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=conn) as session:

        async def worker() -> None:
            nonlocal ok, nbytes
            while not queue.empty():
                u = queue.get_nowait()
                async with session.get(u, proxy=proxy, allow_redirects=False) as r:
                    body = await r.read()
                    ok += r.status < 600
                    nbytes += len(body)

        t = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - t, ok, nbytes


def proxy_speed(seed: int, n_sites: int, urls: list[str], clients: int) -> dict[str, float]:
    port = _free_port()
    cmd = [sys.executable, "-m", "formhunter.cli", "simweb", "serve", "--port", str(port),
           "--seed", str(seed), "--sites", str(n_sites), "--slow-delay", "0"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        proxy = f"http://127.0.0.1:{port}"
        asyncio.run(_hammer(proxy, urls[:200], clients))  # warm-up
        dt, ok, nbytes = asyncio.run(_hammer(proxy, urls, clients))
        return {"pages_per_s": ok / dt, "mb_per_s": nbytes / dt / 1e6, "requests": ok,
                "seconds": dt, "clients": clients}  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="formhunter.simweb.bench", description=__doc__)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--sites", type=int, default=500)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--crawl-pages", type=int, default=10000)
    ap.add_argument("--skip-crawl", action="store_true")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    web = SimWeb(seed=args.seed, n_sites=args.sites)
    print(f"# simulated web seed={args.seed} sites={args.sites}  (plans built in "
          f"{time.perf_counter() - t0:.2f}s, cpus={os.cpu_count()})")  # fmt: skip
    t0 = time.perf_counter()
    c = counts(web)
    print(f"truth pass over {c['n_pages']} pages: {time.perf_counter() - t0:.1f}s")
    print(f"sites: {c['n_sites']}")
    for k, v in c["sites"].items():
        print(f"  {k:20s} {v:6d}")
    print(f"pages: {c['n_pages']}  by kind: {c['pages']}")
    print(f"status: {c['status']}")
    print(f"distinct forms by kind: {c['forms_by_kind']}  (js-only: {c['js_only_forms']})")
    print(f"relevant forms found on page kinds: {c['relevant_on_page_kind']}")
    print(f"{'domain':8s} {'relevant':>8s} {'sites':>6s} {'topical pages':>13s} "
          f"{'density':>8s} {'focused-crawl density':>22s}")  # fmt: skip
    for d in vc.DOMAINS:
        print(
            f"{d:8s} {c['relevant'][d]:8d} {c['relevant_sites'][d]:6d} "
            f"{c['topical_pages'][d]:13d} {100 * c['density'][d]:7.3f}% "
            f"{100 * c['focused_density'][d]:21.3f}%"
        )
    if not args.skip_crawl:
        print(f"crawl sketch, relevant forms after {args.crawl_pages} pages (BFS vs focused):")
        for d in vc.DOMAINS:
            b = crawl_sketch(web, d, args.crawl_pages, focused=False)
            f = crawl_sketch(web, d, args.crawl_pages, focused=True)
            print(f"  {d:8s} bfs {b:4d}   focused {f:4d}")
    rng = random.Random(1)
    urls = []
    for s in rng.sample(web.sites, min(len(web.sites), 200)):
        for key in rng.sample(web.site_keys(s), min(25, len(web.site_keys(s)))):
            if key[0] not in ("huge", "doc"):
                urls.append(s.url_of(key))
    rng.shuffle(urls)
    urls = urls[: args.requests]
    rate, avg = generation_speed(web, urls[:2000])
    print(f"in-process fetch(): {rate:.0f} pages/s on one core, average page {avg / 1000:.1f} KB")
    r = proxy_speed(args.seed, args.sites, urls, args.clients)
    print(
        f"proxy: {r['pages_per_s']:.0f} pages/s, {r['mb_per_s']:.1f} MB/s with "
        f"{r['clients']} concurrent clients ({r['requests']} requests in {r['seconds']:.1f}s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
