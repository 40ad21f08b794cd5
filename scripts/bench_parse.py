#!/usr/bin/env python
"""Throughput of the parse stage, in pages/s on one core.

Measures (a) the lxml parse alone, (b) ``parse_page`` with links and no forms,
(c) ``parse_page`` with links and forms, on

1. synthetic pages shaped like ARCHITECTURE.md section 6 (~110 KB, ~540
   links, a few forms, inline scripts and styles), and
2. pages of the simulated web (``formhunter.simweb``), when it is available.

Usage::

    .venv/bin/python scripts/bench_parse.py [--pages 40] [--seconds 3] [--profile]

(c') is (c) with the cross-page URL cache emptied before every round: the
synthetic pages repeat their navigation links like pages of one site do, so
(c) profits from ``urls.join``'s cache; (c') is the worst case. The machine
is shared: each figure is the best of many short rounds.

``--profile`` prints the top of a cProfile of (c) on the synthetic pages.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import lxml.html

from formhunter import urls
from formhunter.parse import parse_page

_WORD_TEXT = (
    "flight airline ticket search cheap deals travel hotel car rental book online fare "
    "destination departure return passenger economy business class round trip one way "
    "city airport schedule news about contact help account login privacy terms careers "
    "press blog review rating price compare offer weekend holiday vacation package cruise "
    "the of and to in for with on by from at this that new best top more all your our"
)
WORDS = _WORD_TEXT.split()


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def synthetic_page(seed: int) -> tuple[str, bytes]:
    """A page like section 6: ~110 KB, ~540 links, 3 forms, scripts and styles."""
    rng = random.Random(seed)
    host = f"www.site{seed % 7}.example.com"
    out: list[str] = [
        "<!DOCTYPE html><html lang=en><head><meta charset='utf-8'>",
        f"<title>{_words(rng, 6)}</title>",
        "<meta name=viewport content='width=device-width'>",
        "<link rel=stylesheet href='/static/site.css'>",
        "<style>" + ".c{color:#333;margin:0 auto}\n" * 150 + "</style>",
        "<script>" + "window.dataLayer=window.dataLayer||[];function g(){dataLayer.push(1)}\n" * 120
        + "</script></head><body>",
        "<header><nav><ul class=menu>",
    ]
    for i in range(60):
        out.append(
            f"<li class=item><a href='/section/{rng.choice(WORDS)}-{i}/'>{_words(rng, 2)}</a></li>"
        )
    out.append("</ul></nav>")
    out.append(
        "<form action='/search' method=get class=search><label for=q>Search</label>"
        "<input id=q name=q type=text placeholder='Where to?'><select name=cls>"
        "<option>Economy</option><option>Business</option></select>"
        "<input type=submit value=Go></form></header><main>"
    )
    for block in range(24):
        out.append(f"<section id=s{block}><h2>{_words(rng, 4)}</h2><div class=cards>")
        for j in range(9):
            k = block * 9 + j
            href = rng.choice(
                [
                    f"/article/{k}/{rng.choice(WORDS)}-{rng.choice(WORDS)}.html",
                    f"../page{k}.html?ref=home&b={k}#top",
                    f"https://partner{k % 9}.example.org/go?id={k}&PHPSESSID=abc{k}",
                    f"item/{k}",
                    f"/section/{rng.choice(WORDS)}-{k % 60}/",
                ]
            )
            out.append(
                f"<div class='card card-{j}'><a href='{href}' class=thumb>"
                f"<img src='/img/{k}.jpg' alt='{_words(rng, 3)}'></a>"
                f"<h3><a href='{href}'>{_words(rng, 5)}</a></h3>"
                f"<p class=teaser>{_words(rng, 14)} <b>{_words(rng, 2)}</b> {_words(rng, 9)}</p>"
                f"<span class=meta>{_words(rng, 3)}</span><br></div>"
            )
        out.append("</div></section>")
        if block % 8 == 0:
            out.append(
                "<table class=grid>"
                + "".join(
                    f"<tr><td>{_words(rng, 2)}</td><td><a href='/t/{block}/{r}'>{_words(rng, 2)}"
                    f"</a></td><td>{rng.randint(1, 999)}</td></tr>"
                    for r in range(8)
                )
                + "</table>"
            )
    out.append("</main><aside>")
    out.append(
        "<form action='/newsletter' method=post><label>Email <input type=email name=email>"
        "</label><input type=hidden name=token value=xyz><button>Subscribe</button></form>"
    )
    out.append(
        "<form action='https://secure.example.com/login' method=post><input name=user "
        "placeholder=User><input type=password name=pw><input type=checkbox name=remember "
        "id=r><label for=r>Remember me</label><input type=submit value='Log in'></form>"
    )
    out.append("</aside><footer><ul>")
    for i in range(40):
        out.append(f"<li><a href='/info/{i}' rel=nofollow>{_words(rng, 2)}</a></li>")
    out.append("</ul><script>var t=" + "1234567890" * 200 + ";</script></footer></body></html>")
    return f"https://{host}/section/news/index.html", "".join(out).encode("utf-8")


def _rate(fn: Callable[[], object], n_pages: int, seconds: float) -> float:
    """Best pages/s over rounds of ``fn`` for about ``seconds`` (the machine is
    shared, so the best round is the least disturbed one)."""
    fn()  # warm-up (caches, imports)
    best = 0.0
    deadline = time.perf_counter() + seconds
    while True:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best = max(best, n_pages / elapsed)
        if time.perf_counter() >= deadline:
            return best


def bench(name: str, pages: list[tuple[str, bytes]], seconds: float) -> None:
    parser = lxml.html.HTMLParser(encoding="utf-8", recover=True)
    size = sum(len(b) for _, b in pages) / len(pages)
    sample = [parse_page(u, b) for u, b in pages]
    links = sum(len(p.links) for p in sample) / len(sample)
    forms = sum(len(p.forms) for p in sample) / len(sample)
    print(f"\n{name}: {len(pages)} pages, {size / 1024:.1f} KB, {links:.0f} links, "
          f"{forms:.1f} forms per page")

    def lxml_only() -> None:
        for _, body in pages:
            lxml.html.document_fromstring(body, parser=parser)

    def links_only() -> None:
        for url, body in pages:
            parse_page(url, body, extract_forms=False)

    def links_forms() -> None:
        for url, body in pages:
            parse_page(url, body)

    def links_forms_cold() -> None:
        urls._join_cached.cache_clear()  # as if every page came from a new site
        links_forms()

    for label, fn in (
        ("(a) lxml parse alone", lxml_only),
        ("(b) parse_page, links", links_only),
        ("(c) parse_page, links + forms", links_forms),
        ("(c') (c) with a cold URL cache", links_forms_cold),
    ):
        print(f"  {label:34s} {_rate(fn, len(pages), seconds):8.1f} pages/s")


def simweb_pages(n: int) -> list[tuple[str, bytes]] | None:
    """Up to ``n`` HTML pages of the simulated web (breadth-first from topical
    seeds, in process), or None when ``formhunter.simweb`` is not available."""
    try:
        from formhunter.simweb import SimWeb
    except ImportError:
        return None
    web = SimWeb(seed=7, n_sites=200)
    queue = [u for d in ("airfare", "auto", "book", "hotel", "job") for u in web.seeds(d, 4)]
    seen = set(queue)
    pages: list[tuple[str, bytes]] = []
    while queue and len(pages) < n:
        resp = web.fetch(queue.pop(0))
        if resp.status != 200 or "html" not in resp.headers.get("Content-Type", ""):
            continue
        pages.append((resp.url, resp.body))
        for link in parse_page(resp.url, resp.body, extract_forms=False).links:
            if link.url not in seen:
                seen.add(link.url)
                queue.append(link.url)
    return pages


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=40, help="distinct pages per data set")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--profile", action="store_true", help="print a cProfile of (c)")
    args = ap.parse_args()

    synth = [synthetic_page(i) for i in range(args.pages)]
    bench("synthetic (ARCHITECTURE section 6)", synth, args.seconds)
    sim = simweb_pages(args.pages * 10)
    if sim:
        bench("simulated web", sim, args.seconds)
    else:
        print("\nsimulated web: not available, skipped")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            for url, body in synth:
                parse_page(url, body)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(18)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
