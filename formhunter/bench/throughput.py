"""The throughput benchmark: formhunter end to end vs a minimal Scrapy spider vs parsing alone.

In one run, on the simulated web served by its proxy (a child process on loopback):

1. formhunter crawls ``pages`` pages (strategy ``bfs`` by default) with
   ``concurrency`` requests in flight, one connection per host, no politeness
   delay, robots.txt obeyed; pages/s over the crawl loop (component set-up
   excluded) and the engine's stage timers (``CrawlStats.stage``);
2. a minimal Scrapy spider crawls the same number of pages breadth first from the
   same seeds through the same proxy (``http_proxy`` in its environment, so that
   robots.txt goes through it too, and ``meta['proxy']``), with the same settings:
   CONCURRENT_REQUESTS, CONCURRENT_REQUESTS_PER_DOMAIN=1, DOWNLOAD_DELAY, ROBOTSTXT_OBEY,
   a LinkExtractor and the page budget; it runs in a subprocess (``python -m
   formhunter.bench.throughput --scrapy-child ...``) so that Twisted's reactor and
   asyncio never share a process; pages/s from the spider's open to its N-th response;
3. ``parse_page`` alone, single-threaded, on the HTML pages formhunter fetched
   (the bytes the proxy served, regenerated in-process).

``in_process`` measures the crawler's own cost with the network taken out: no proxy,
no HTTP, the simulated web called in-process behind the Fetcher interface
(``InProcessFetcher``; its page-making CPU is measured and shown apart, the Scrapy
spider is skipped). ``profile`` prints a cProfile of formhunter's crawl (the 30
most expensive calls, cumulative). The frontier's bulk re-rank has its own
benchmark, ``formhunter bench rerank``.

``page_kb`` > 0 pads every HTML page to about that many KB (``SimWeb(page_kb=...)``,
the proxy's ``--page-kb``): the same crawl on pages of realistic weight, where the
crawler's fixed per-page costs weigh less; the parse stage parses the padded bytes.

The figures and their ratios print together, so the comparison holds on a noisy
machine (all three share it at the same time of day).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import io
import json
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin


@dataclass(frozen=True)
class ThroughputPlan:
    pages: int = 3000
    concurrency: int = 64
    sites: int = 500
    seed: int = 7
    domain: str = "airfare"
    strategy: str = "bfs"
    slow_delay: float = 0.5
    n_seeds: int = 20
    skip_scrapy: bool = False
    scrapy_timeout: float = 900.0
    page_kb: int = 0  # 0: pages as generated; else padded to about page_kb KB
    in_process: bool = False  # no proxy, no HTTP: the simulated web called in-process
    profile: bool = False  # print a cProfile of formhunter's crawl


class InProcessFetcher:
    """The simulated web without HTTP: ``SimWeb.fetch`` behind the Fetcher interface
    (redirects followed, HTML only, no robots.txt, no politeness) -- the crawler's own
    cost with the network taken out. ``server_cpu``: CPU seconds spent making pages."""

    def __init__(self, web: Any) -> None:
        self.web = web
        self.server_cpu = 0.0

    async def __aenter__(self) -> InProcessFetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def host_ready_in(self, url: str) -> float:
        return 0.0

    def take_robots(self) -> list[tuple[str, str, int, bytes, str, float]]:
        return []

    def preload_robots(self, rows: Sequence[tuple[str, str, int, bytes, float]]) -> None:
        return None

    def http(self) -> None:
        return None

    async def fetch(self, url: str) -> Any:
        from formhunter.fetch import FetchResult

        res = FetchResult(url=url, final_url=url)
        c0 = time.thread_time()
        for _ in range(6):
            r = self.web.fetch(res.final_url)
            res.status = r.status
            if r.status in (301, 302, 303, 307, 308) and "Location" in r.headers:
                res.final_url = urljoin(res.final_url, r.headers["Location"])
                res.redirects.append(res.final_url)
                continue
            break
        self.server_cpu += time.thread_time() - c0
        ctype = r.content_type.split(";")[0].strip().lower()
        if res.status >= 400:
            res.fail(f"http-{res.status // 100}xx")
        elif ctype not in ("text/html", "application/xhtml+xml"):
            res.fail("content-type")
        else:
            res.body, res.content_type = r.body, ctype
        return res


def _crawl_in_process(plan: ThroughputPlan, web: Any, seeds: list[str],
                      db: Path) -> tuple[Any, Any, dict[str, Any]]:  # fmt: skip
    """formhunter's crawl with ``InProcessFetcher``: (result, pages frame, extras)."""
    from formhunter.bench.harvest import bench_settings
    from formhunter.catalogue import Catalogue
    from formhunter.engine import crawl

    settings = bench_settings(plan.domain, plan.strategy, plan.pages, db, None,
                              plan.concurrency, 0)  # fmt: skip
    fetcher = InProcessFetcher(web)
    t0 = time.perf_counter()
    with Catalogue(db, memory_mb=settings.crawl.db_memory_mb) as cat:
        result = asyncio.run(crawl(settings, cat, seeds=seeds, fetcher=fetcher))
        pages_df = cat.con.execute("SELECT url FROM pages WHERE run_id = ? ORDER BY seq",
                                   [result.run_id]).df()  # fmt: skip
    extras = {"wall_s": time.perf_counter() - t0, "crawl_s": result.stats.seconds,
              "server_cpu_s": fetcher.server_cpu}  # fmt: skip
    return result, pages_df, extras


def _profiled(enabled: bool, say: Callable[[str], None]) -> Any:
    """A context manager that, if ``enabled``, profiles its block and says the top 30 calls."""
    if not enabled:
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def run() -> Any:
        prof = cProfile.Profile()
        prof.enable()
        try:
            yield
        finally:
            prof.disable()
            buf = io.StringIO()
            pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(30)
            say(buf.getvalue())

    return run()


def run_throughput(plan: ThroughputPlan, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the three measures (module doc); returns the figures as plain data."""
    from formhunter.bench.harvest import crawl_run
    from formhunter.simweb import SimWeb
    from formhunter.simweb.server import proxy_process

    web = SimWeb(seed=plan.seed, n_sites=plan.sites, slow_delay=plan.slow_delay,
                 page_kb=plan.page_kb)  # fmt: skip
    seeds = web.seeds(plan.domain, plan.n_seeds)
    fig: dict[str, Any] = {"plan": asdict(plan), "cpus": os.cpu_count()}
    served = (contextlib.nullcontext("in-process") if plan.in_process else
              proxy_process(plan.seed, plan.sites, plan.slow_delay, plan.page_kb))  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, served as proxy:
        db = Path(tmp) / "t.duckdb"
        say(f"formhunter: {plan.pages} pages ({plan.strategy}) through {proxy} ...")
        with _profiled(plan.profile, say):
            if plan.in_process:
                result, pages_df, extras = _crawl_in_process(plan, web, seeds, db)
            else:
                result, pages_df, _, extras = crawl_run(
                    plan.strategy, plan.domain, seeds, plan.pages, 0, proxy, db,
                    plan.concurrency)  # fmt: skip
        st = result.stats
        secs = extras["crawl_s"]
        fig["formhunter"] = {
            "pages": st.pages, "seconds": secs, "pages_per_s": st.pages / secs if secs else 0.0,
            "wall_with_setup_s": extras["wall_s"], "errors": st.n_errors,
            "parsed": st.parsed, "forms": st.forms, "cpu_seconds": st.cpu_seconds,
            "stages": {k: round(v, 4) for k, v in st.stage.items()},
            "stages_cpu": {k: round(v, 4) for k, v in st.stage_cpu.items()},
        }  # fmt: skip
        if plan.in_process:
            fig["formhunter"]["server_cpu_seconds"] = extras["server_cpu_s"]
        if not plan.skip_scrapy and not plan.in_process:
            say(f"scrapy: {st.pages} pages through {proxy} ...")
            fig["scrapy"] = scrapy_run(proxy, seeds, st.pages, plan.concurrency,
                                       timeout=plan.scrapy_timeout)  # fmt: skip
    urls = pages_df["url"].tolist()
    say(f"parse alone on the {len(urls)} pages ...")
    fig["parse"] = parse_alone(web, urls)
    fh = fig["formhunter"]["pages_per_s"]
    fig["ratios"] = {"formhunter_over_parse": fh / fig["parse"]["pages_per_s"]
                     if fig["parse"]["pages_per_s"] else None}  # fmt: skip
    f, pa = fig["formhunter"], fig["parse"]
    if f["cpu_seconds"] and pa["pages"]:
        fig["ratios"]["parse_cpu_over_crawler_cpu"] = (
            pa["cpu_seconds"] / pa["pages"] / (f["cpu_seconds"] / f["pages"])
        )
    sc = fig.get("scrapy", {}).get("pages_per_s")
    if sc:
        fig["ratios"]["formhunter_over_scrapy"] = fh / sc
    return fig


def parse_alone(web: Any, urls: list[str], rounds: int = 3) -> dict[str, Any]:
    """Time ``parse_page`` on the HTML answers of ``urls`` (redirects followed), one core;
    the best of ``rounds`` rounds, wall and CPU."""
    from formhunter.parse import parse_page

    bodies = []
    for url in urls:
        r = web.fetch(url)
        hops = 0
        while r.status in (301, 302, 303, 307, 308) and hops < 5 and "Location" in r.headers:
            r = web.fetch(urljoin(r.url, r.headers["Location"]))
            hops += 1
        ctype = r.content_type.split(";")[0].strip().lower()
        if r.status == 200 and ctype in ("text/html", "application/xhtml+xml") and \
                len(r.body) <= 5 * 1024 * 1024:  # fmt: skip
            bodies.append((url, r.url, r.body, ctype))
    best = best_cpu = float("inf")
    for _ in range(rounds):
        cold_caches()  # the crawl warmed them; each round starts as cold as the crawl did
        t0, c0 = time.perf_counter(), time.process_time()
        for url, final, body, ctype in bodies:
            parse_page(url, body, final_url=final, content_type=ctype)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    mb = sum(len(b[2]) for b in bodies) / 1e6
    return {"pages": len(bodies), "seconds": best, "cpu_seconds": best_cpu,
            "pages_per_s": len(bodies) / best if best else 0.0, "mb": mb,
            "rounds": rounds}  # fmt: skip


def cold_caches() -> None:
    """Empty the parser's and URL helpers' lru caches."""
    import formhunter.parse
    import formhunter.urls

    for mod in (formhunter.parse, formhunter.urls):
        for obj in list(vars(mod).values()):
            clear = getattr(obj, "cache_clear", None)
            if callable(clear):
                clear()


# -- Scrapy, in a child process ----------------------------------------------------


def scrapy_run(proxy: str, seeds: list[str], pages: int, concurrency: int, *,
               delay: float = 0.0, timeout: float = 900.0) -> dict[str, Any]:  # fmt: skip
    """Run the minimal spider in a subprocess; returns its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        seeds_file = Path(tmp) / "seeds.txt"
        seeds_file.write_text("\n".join(seeds), encoding="utf-8")
        out = Path(tmp) / "scrapy.json"
        cmd = [sys.executable, "-m", "formhunter.bench.throughput", "--scrapy-child",
               "--proxy", proxy, "--seeds", str(seeds_file), "--pages", str(pages),
               "--concurrency", str(concurrency), "--delay", str(delay),
               "--out", str(out)]  # fmt: skip
        env = dict(os.environ, http_proxy=proxy, HTTP_PROXY=proxy, no_proxy="", NO_PROXY="")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        if proc.returncode != 0 or not out.exists():
            raise RuntimeError(f"the scrapy spider failed ({proc.returncode}): "
                               f"{proc.stderr.strip()[-1500:]}")  # fmt: skip
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        return result


def scrapy_settings(concurrency: int, delay: float, user_agent: str) -> dict[str, Any]:
    """The spider's settings: the same concurrency and politeness as formhunter's crawl."""
    return {
        "CONCURRENT_REQUESTS": concurrency, "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "DOWNLOAD_DELAY": delay, "RANDOMIZE_DOWNLOAD_DELAY": False, "ROBOTSTXT_OBEY": True,
        "USER_AGENT": user_agent, "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "RETRY_TIMES": 1, "DOWNLOAD_TIMEOUT": 10, "DOWNLOAD_MAXSIZE": 5 * 1024 * 1024,
        "REDIRECT_MAX_TIMES": 5, "COOKIES_ENABLED": False, "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "ERROR", "HTTPERROR_ALLOW_ALL": True,
    }  # fmt: skip


def _scrapy_child(proxy: str, seeds: list[str], pages: int, concurrency: int, delay: float,
                  out: Path) -> None:  # fmt: skip
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess
    from scrapy.http import HtmlResponse
    from scrapy.linkextractors import LinkExtractor

    from formhunter.config import DEFAULT_USER_AGENT

    state: dict[str, Any] = {"n": 0, "t0": 0.0, "t_end": 0.0, "robots": 0, "status": {}}

    class BfsSpider(scrapy.Spider):
        name = "bfs"
        extractor = LinkExtractor()

        async def start(self) -> Any:
            for s in seeds:
                yield scrapy.Request(s, meta={"proxy": proxy})

        def parse(self, response: Any) -> Any:
            if not isinstance(response, HtmlResponse):
                return
            for link in self.extractor.extract_links(response):
                yield scrapy.Request(link.url, meta={"proxy": proxy})

    process = CrawlerProcess(settings=scrapy_settings(concurrency, delay, DEFAULT_USER_AGENT))
    crawler = process.create_crawler(BfsSpider)

    def opened(spider: Any) -> None:
        state["t0"] = time.perf_counter()

    def received(response: Any, request: Any, spider: Any) -> None:
        if response.url.endswith("/robots.txt"):
            state["robots"] += 1
            return
        state["n"] += 1
        key = str(response.status)
        state["status"][key] = state["status"].get(key, 0) + 1
        if state["n"] == pages:
            state["t_end"] = time.perf_counter()
            crawler.engine.close_spider(spider, "budget")

    crawler.signals.connect(opened, signal=signals.spider_opened)
    crawler.signals.connect(received, signal=signals.response_received)
    process.crawl(crawler)
    process.start()
    end = state["t_end"] or time.perf_counter()
    secs = end - state["t0"]
    out.write_text(json.dumps({
        "pages": state["n"] if not state["t_end"] else pages, "seconds": secs,
        "pages_per_s": (pages if state["t_end"] else state["n"]) / secs if secs else 0.0,
        "robots_requests": state["robots"], "status": state["status"],
        "reached_budget": bool(state["t_end"]), "scrapy": scrapy.__version__,
    }), encoding="utf-8")  # fmt: skip


# -- output -----------------------------------------------------------------------


def format_figures(fig: dict[str, Any]) -> str:
    fh, pa = fig["formhunter"], fig["parse"]
    how = " (in-process, no HTTP)" if fig["plan"].get("in_process") else ""
    lines = [
        f"formhunter end to end{how}: {fh['pages']} pages in {fh['seconds']:.1f}s = "
        f"{fh['pages_per_s']:.1f} pages/s (set-up included: {fh['wall_with_setup_s']:.1f}s)",
    ]
    sc = fig.get("scrapy")
    if sc:
        lines.append(f"scrapy (minimal BFS spider): {sc['pages']} pages in {sc['seconds']:.1f}s"
                     f" = {sc['pages_per_s']:.1f} pages/s")  # fmt: skip
    lines.append(f"parse alone: {pa['pages']} pages ({pa['mb']:.1f} MB) in {pa['seconds']:.2f}s"
                 f" = {pa['pages_per_s']:.1f} pages/s (best of {pa.get('rounds', 1)}; CPU "
                 f"{1000 * pa.get('cpu_seconds', 0.0) / max(pa['pages'], 1):.3f} ms/page)")
    r = fig["ratios"]
    if r.get("formhunter_over_scrapy") is not None:
        lines.append(f"formhunter / scrapy = {r['formhunter_over_scrapy']:.2f}")
    if r.get("formhunter_over_parse") is not None:
        lines.append(f"formhunter / parse alone = {r['formhunter_over_parse']:.2f} (goal >= 0.5)")
    n = max(fh["pages"], 1)
    if r.get("parse_cpu_over_crawler_cpu") is not None:
        lines.append(f"CPU: crawler {1000 * fh['cpu_seconds'] / n:.3f} ms/page (CPU-bound "
                     f"{n / fh['cpu_seconds']:.0f} pages/s); parse alone CPU / crawler CPU = "
                     f"{r['parse_cpu_over_crawler_cpu']:.2f} (robust to other load)")
    if "server_cpu_seconds" in fh:
        own = fh["cpu_seconds"] - fh["server_cpu_seconds"]
        lines.append(f"  the simulated web made the pages in-process: "
                     f"{1000 * fh['server_cpu_seconds'] / n:.3f} ms/page CPU; the crawler without "
                     f"it: {1000 * own / n:.3f} ms/page")  # fmt: skip
    secs = fh["seconds"] or 1.0
    cpu = fh.get("stages_cpu", {})
    lines.append("formhunter stages (seconds, ms/page, share of the crawl's wall time; "
                 "CPU ms/page of the crawl thread):")
    for k, v in sorted(fh["stages"].items(), key=lambda kv: -kv[1]):
        lines.append(f"  {k:<11} {v:8.2f}s {1000 * v / n:7.2f} ms {100 * v / secs:5.1f}%"
                     f"   CPU {1000 * cpu.get(k, 0.0) / n:6.3f} ms")  # fmt: skip
    return "\n".join(lines)


def write(fig: dict[str, Any], out: Path) -> dict[str, Path]:
    """throughput.json and report.md in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {"json": out / "throughput.json", "report": out / "report.md"}
    paths["json"].write_text(json.dumps(fig, indent=1), encoding="utf-8")
    p = fig["plan"]
    rows = [("formhunter end to end", fig["formhunter"])]
    if fig.get("scrapy"):
        rows.append(("scrapy minimal BFS spider", fig["scrapy"]))
    rows.append(("parse stage alone (one core)", fig["parse"]))
    md = ["# Throughput benchmark", "",
          f"Simulated web seed {p['seed']}, {p['sites']} sites, through its proxy on loopback; "
          f"{p['pages']} pages; concurrency {p['concurrency']}, one connection per host, no "
          f"delay, robots.txt obeyed; formhunter strategy {p['strategy']}; {fig['cpus']} CPUs"
          + (f"; HTML pages padded to about {p['page_kb']} KB." if p.get("page_kb") else "."),
          "", "| measure | pages | seconds | pages/s |", "|---|---:|---:|---:|"]  # fmt: skip
    md += [f"| {n} | {r['pages']} | {r['seconds']:.2f} | {r['pages_per_s']:.1f} |" for n, r in rows]
    md += ["", "```", format_figures(fig), "```", ""]
    paths["report"].write_text("\n".join(md), encoding="utf-8")
    return paths


def main(argv: list[str] | None = None) -> int:
    """Entry point of the Scrapy child process (``--scrapy-child``)."""
    ap = argparse.ArgumentParser(prog="formhunter.bench.throughput")
    ap.add_argument("--scrapy-child", action="store_true", required=True)
    ap.add_argument("--proxy", required=True)
    ap.add_argument("--seeds", required=True)
    ap.add_argument("--pages", type=int, required=True)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    seeds = [s for s in Path(args.seeds).read_text(encoding="utf-8").split() if s]
    _scrapy_child(args.proxy, seeds, args.pages, args.concurrency, args.delay, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
