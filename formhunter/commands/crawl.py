"""``formhunter crawl``: crawl from seeds for one domain and fill the catalogue.

Exit codes: 0 the crawl ended (budget, empty frontier or time limit) without
component faults; 1 a component raised while crawling (counted as faults, see
``formhunter.engine``) or not one page could be fetched; 2 bad flags or input;
130 interrupted (Ctrl-C, SIGTERM or SIGHUP, start-up included; ``--resume``
continues). Per-URL failures of
the Web (404s, timeouts, robots.txt refusals, unparsable pages) are recorded and
counted, not exit-code errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from classifiers.inputs import read_regular
from formhunter.catalogue import Catalogue
from formhunter.commands._args import count, number
from formhunter.config import Settings, load_settings, settings_from_dict
from formhunter.exceptions import ConfigError, UsageError
from formhunter.keywords import known_domains
from formhunter.progress import CrawlProgress, status_line
from formhunter.strategies import get_strategy

if TYPE_CHECKING:  # the engine imports the crawl's libraries (scikit-learn, ~1 CPU s):
    # every CLI command builds its parser from this module, so it is imported when used
    from formhunter.engine import CrawlResult, Engine

#: the largest seed file read
MAX_SEEDS_BYTES = 64 << 20


def read_seeds(path: str) -> list[str]:
    """Seed URLs of a file: one per line, blank lines and ``#`` comments ignored; a
    UTF-8 BOM is fine; only a regular file of at most ``MAX_SEEDS_BYTES`` is read."""
    try:
        if path == "-":
            text = sys.stdin.read(MAX_SEEDS_BYTES + 1)
            if len(text) > MAX_SEEDS_BYTES:
                raise UsageError(f"the seeds on stdin are more than {MAX_SEEDS_BYTES:,} bytes")
        else:
            text = read_regular(path, MAX_SEEDS_BYTES, "seed file").decode("utf-8")
    except FileNotFoundError:
        raise UsageError(f"seed file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read seed file {path}: {exc}") from None
    text = text.removeprefix("\ufeff")  # a BOM, as Windows editors write
    seeds = [ln.split("#", 1)[0].strip() for ln in text.splitlines()]
    seeds = [s for s in seeds if s]
    bad = [s for s in seeds if not s.lower().startswith(("http://", "https://"))]
    if bad:
        raise UsageError(
            f"seed file {path}: not http(s) URLs: {', '.join(bad[:3])}"
            + (f" (and {len(bad) - 3} more)" if len(bad) > 3 else "")
        )
    if not seeds:
        raise UsageError(f"seed file {path} holds no URL (one URL per line)")
    return seeds


def add_crawl_flags(p: argparse.ArgumentParser) -> None:
    """Flags shared by ``crawl`` (and reused by ``demo``); defaults None = not given."""
    p.add_argument("--strategy", help="crawl strategy (bfs, random, baseline, ache, ...)")
    p.add_argument("--max-pages", type=count, metavar="N", help="pages to fetch (budget)")
    p.add_argument("--proxy", metavar="URL", help="send every request through this HTTP proxy")
    p.add_argument("--allow-private", action="store_true", default=None,
                   help="allow loopback/private addresses (refused by default)")
    p.add_argument("--render", choices=["never", "auto", "always"],
                   help="render pages with a headless browser")
    p.add_argument("--config", metavar="FILE", help="settings file (TOML)")
    p.add_argument("--concurrency", type=count, metavar="N", help="requests in flight")
    p.add_argument("--min-delay", type=number, metavar="S",
                   help="seconds between two requests to one host")
    p.add_argument("--no-robots", action="store_true", default=None,
                   help="do not obey robots.txt (only for webs you own)")
    p.add_argument("--max-seconds", type=number, metavar="S", help="stop after S seconds")
    p.add_argument("--random-state", type=count, metavar="N", help="seed of random choices")
    p.add_argument("--warc", metavar="DIR",
                   help="write the fetched responses and their requests as WARC/1.1 files "
                   "in DIR")
    p.add_argument("--model", metavar="NAME",
                   help="the domain model to judge with, by name (formhunter models list; "
                   "'shipped': data/models; default: the newest trained)")  # fmt: skip
    p.add_argument("--quiet", "-q", action="store_true", help="no progress output")


class _FlagProbe(argparse.Namespace):
    """A namespace whose every flag is a marker naming it (``show_setting_defaults``)."""

    def __getattr__(self, name: str) -> Any:
        return _Marker(name)


class _Marker(str):
    pass


def show_setting_defaults(p: argparse.ArgumentParser) -> None:
    """Append to the help of each flag that sets a setting the setting's default (the
    flags' own default is None: "not given", so a file's value is kept)."""
    where = {str(v): (section, key) for section, kv in overrides(_FlagProbe()).items()
             for key, v in kv.items() if isinstance(v, _Marker)}  # fmt: skip
    defaults = Settings().to_dict()
    for action in p._actions:
        if action.dest in where and action.help and "default" not in action.help:
            section, key = where[action.dest]
            value = defaults[section][key]
            shown = "none" if value in ("", None) else value
            action.help += f" (default: {shown}; [{section}] {key})"


def overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    """Settings overrides from the flags (None = not given)."""
    g = lambda name: getattr(args, name, None)  # noqa: E731
    return {
        "crawl": {"domain": g("domain"), "strategy": g("strategy"), "max_pages": g("max_pages"),
                  "db": g("db"), "seeds": g("seeds"), "max_seconds": g("max_seconds"),
                  "random_state": g("random_state"), "model": g("model")},
        "fetch": {"proxy": g("proxy"), "allow_private": g("allow_private"),
                  "concurrency": g("concurrency"), "min_delay": g("min_delay"),
                  "obey_robots": False if g("no_robots") else None},
        "render": {"mode": g("render")},
        "warc": {"dir": g("warc")},
        "probe": {"in_crawl": g("probe")},
    }  # fmt: skip


def run_crawl(settings: Settings, *, seeds: list[str], resume: bool, quiet: bool,
              fetcher: Any = None, ui: tuple[str, int] | None = None,
              ) -> tuple[CrawlResult, dict[str, Any]]:  # fmt: skip
    """Open the catalogue, crawl with a progress display, return (result, stats).
    ``ui``: (host, port) to serve the web page on while crawling; the summary is then
    printed when the crawl ends, and the page stays up until Ctrl-C (or SIGTERM)."""
    with Catalogue(settings.crawl.db, memory_mb=settings.crawl.db_memory_mb) as cat:
        from formhunter.engine import Engine

        engine = Engine(settings, cat, seeds=seeds, resume=resume, fetcher=fetcher)
        if settings.probe.in_crawl:
            from formhunter.probing import CrawlProbing

            engine.accompany(CrawlProbing(settings))
        with CrawlProgress(settings.crawl.max_pages, live=False if quiet else None) as progress:
            if not quiet:
                engine.listen(progress)
            if ui is None:
                result = asyncio.run(engine.run())
            else:
                result = asyncio.run(crawl_with_ui(engine, cat, settings, ui, progress))
        rows = cat.con.execute("SELECT models FROM runs WHERE run_id = ?",
                               [result.run_id]).fetchall()  # fmt: skip
        models = json.loads(rows[0][0] or "{}") if rows else {}
        return result, {**cat.stats(result.run_id), "models": models}


async def crawl_with_ui(engine: Engine, cat: Catalogue, settings: Settings,
                        ui: tuple[str, int], progress: CrawlProgress) -> CrawlResult:  # fmt: skip
    """``engine.run()`` with the web page served on the same event loop, from the
    crawl's own catalogue connection (``formhunter.web.SharedStore``). When the crawl
    ends (unless interrupted), its summary is printed and the page goes on serving
    the end state until Ctrl-C or SIGTERM."""
    from formhunter.runtime import stop_on_signals
    from formhunter.web import SharedStore, WebSettings, start_ui
    from formhunter.web.live import LiveRun

    live = LiveRun(settings.crawl.max_pages)
    engine.listen(live)
    web = WebSettings(store=SharedStore(cat), live=live,
                      models_dir=settings.crawl.models_dir or None,
                      model=settings.crawl.model or None)  # fmt: skip
    runner, url = await start_ui(web, *ui)
    print(f"web page of this crawl: {url}", file=sys.stderr, flush=True)
    try:
        result = await engine.run()
        if result.reason != "interrupted":
            say_ended(progress, result, settings, url)
            quit_ = asyncio.Event()
            with stop_on_signals(lambda _reason: quit_.set()):
                await quit_.wait()
        return result
    finally:
        await runner.cleanup()


def say_ended(progress: CrawlProgress, result: CrawlResult, settings: Settings,
              url: str) -> None:
    """The summary of a crawl with ``--ui`` that ended, and where its page stays."""
    progress.__exit__(None, None, None)  # stop a live bar before the summary
    print(summary(result, settings), flush=True)
    print(f"the crawl has ended; its web page stays at {url} until Ctrl-C",
          file=sys.stderr, flush=True)  # fmt: skip


def summary(result: CrawlResult, settings: Settings) -> str:
    """What the crawl did, for the terminal (and why it stopped early, if it did)."""
    st = result.stats
    db, max_pages = settings.crawl.db, settings.crawl.max_pages
    lines = [
        f"run {result.run_id} {result.status} ({result.reason}) in {st.seconds:.1f}s",
        status_line(st, max_pages),
    ]
    if st.errors:
        lines.append("errors by kind: " + ", ".join(f"{k} {v}" for k, v in st.errors.most_common()))
    if st.skipped:
        lines.append("not fetched: " + ", ".join(f"{k} {v}" for k, v in st.skipped.most_common()))
    if st.faults:
        lines.append("COMPONENT FAULTS: " + ", ".join(f"{k} {v}" for k, v in st.faults.items()))
    if not st.pages and st.skipped:
        lines.append("nothing was fetched: every URL was refused ("
                     + ", ".join(f"{k} {v}" for k, v in st.skipped.most_common()) + ")")
    elif result.reason in ("exhausted", "site-limits", "not-followed") and st.pages < max_pages:
        lines.append(dry_frontier_hint(result, settings))
    lines.append(f"catalogue: {db}  (formhunter forms --db {db} --relevant)")
    if result.reason == "interrupted":
        lines.append(f"continue with: formhunter crawl --resume --db {db}")
    return "\n".join(lines)


def dry_frontier_hint(result: CrawlResult, settings: Settings) -> str:
    """Why the frontier ran dry before the budget, and the knobs that widen it."""
    st = result.stats
    parts = []
    if st.links_not_followed > st.links_reserved:
        parts.append(f"{st.links_not_followed - st.links_reserved} links of off-topic pages "
                     f"were not followed ({settings.crawl.strategy} follows on-topic pages "
                     "only; [frontier] reserve = true keeps them for later)")  # fmt: skip
    elif st.links_reserved:
        parts.append(f"the {st.links_reserved} links of off-topic pages kept in reserve "
                     "were crawled too")  # fmt: skip
    closed = sum(n for reason, n in st.skipped.items() if reason.startswith("site-"))
    if closed:
        s = settings.stopping
        parts.append(f"{closed} links led to sites already left by the stopping criteria "
                     f"([stopping] max_pages_per_site = {s.max_pages_per_site}, "
                     f"extend_pages = {s.extend_pages}, "
                     f"max_forms_per_site = {s.max_forms_per_site})")  # fmt: skip
    why = "; ".join(parts) or "no link was left to follow"
    return (f"the frontier ran dry after {st.pages} of {settings.crawl.max_pages} pages: {why}. "
            "More seeds (or looser site limits) let a crawl go on.")  # fmt: skip


def exit_code(result: CrawlResult) -> int:
    """130 interrupted; 1 component faults, nothing parsed of what was fetched, or
    nothing fetched because every URL was refused (guard, robots.txt, ...); else 0."""
    st = result.stats
    if result.reason == "interrupted":
        return 130
    if st.faults or (st.pages and not st.parsed) or (not st.pages and st.skipped):
        return 1
    return 0


def cmd_crawl(args: argparse.Namespace) -> int:
    flags = overrides(args)
    base: Settings | None = None
    if args.resume:
        db = args.db or (load_settings(args.config).crawl.db if args.config else None)
        if not db or not Path(db).exists():
            raise UsageError(f"--resume needs an existing catalogue (--db); {db or '-'} not found")
        with Catalogue(db) as cat:
            run = cat.run()
        if run is None:
            raise UsageError(f"--resume: {db} holds no run to resume")
        try:
            base = settings_from_dict(run.config)
        except ConfigError as exc:
            raise UsageError(f"--resume: the stored settings of run {run.run_id}: {exc}") from exc
    settings = load_settings(args.config, flags, base=base)
    if not args.resume:
        if not args.domain and not (args.config and settings.crawl.domain):
            raise UsageError("crawl needs --domain (e.g. --domain airfare)")
        known = known_domains()
        if settings.crawl.domain not in known:
            raise UsageError(
                f"unknown domain {settings.crawl.domain!r} (known: {', '.join(known)}); "
                f"to add one: formhunter domains new {settings.crawl.domain}"
            )
        if not settings.crawl.seeds:
            raise UsageError("crawl needs --seeds FILE (one URL per line)")
        if args.db is None and not args.config:
            raise UsageError("crawl needs --db FILE (the DuckDB catalogue)")
    seeds = read_seeds(settings.crawl.seeds) if not args.resume else []
    get_strategy(settings.crawl.strategy)  # unknown names fail before anything is written
    ui = None
    if args.ui is not None:
        from formhunter.commands.serve import check_port, warn_public

        ui = (args.ui_host, check_port(args.ui))
        warn_public(args.ui_host)
    if settings.probe.in_crawl and not settings.fetch.obey_robots:
        raise UsageError("--probe needs robots.txt obeyed: submissions to other people's "
                         "forms never skip it (leave out --no-robots)")
    if args.workers is not None or args.ray_address:
        if settings.probe.in_crawl:
            raise UsageError("--probe is not available with --workers/--ray-address; "
                             "run formhunter probe --db FILE after the crawl")
        result = cluster_crawl(args, settings, seeds, ui)
    else:
        result, stats = run_crawl(settings, seeds=seeds, resume=args.resume, quiet=args.quiet,
                                  ui=ui)  # fmt: skip
        from formhunter.commands._common import describe_models

        models = {k: v for k, v in stats["models"].items() if k != "critic"}
        print(f"forms judged by {stats['models'].get('critic', '?')}: {describe_models(models)}",
              file=sys.stderr)  # fmt: skip
    if ui is None or result.reason == "interrupted":  # else the --ui path printed it
        print(summary(result, settings))
    return exit_code(result)


def cluster_crawl(args: argparse.Namespace, settings: Settings, seeds: list[str],
                  ui: tuple[str, int] | None) -> CrawlResult:  # fmt: skip
    """``--workers``/``--ray-address``: the same crawl on a Ray cluster (formhunter.cluster).
    With ``ui`` the driver serves the web page (``cluster_ui``)."""
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers needs a number of shards >= 1")
    if ui is not None and not settings.crawl.snapshot_every_seconds:
        raise UsageError("--ui with --workers/--ray-address reads the writer's snapshot: "
                         "set [crawl] snapshot_every_seconds above 0")  # fmt: skip
    if settings.warc.dir:
        raise UsageError("--warc ([warc] dir) is not available with --workers/--ray-address "
                         "yet: each shard would need files of its own; crawl in one process")
    from formhunter.cluster import run_cluster_crawl

    with CrawlProgress(settings.crawl.max_pages,
                       live=False if args.quiet else None) as progress:  # fmt: skip
        listeners: list[Any] = [] if args.quiet else [progress]
        if ui is None:
            result, _ = run_cluster_crawl(settings, seeds=seeds, resume=args.resume,
                                          workers=args.workers or 0, address=args.ray_address,
                                          listeners=listeners)  # fmt: skip
            return result
        return cluster_ui(args, settings, seeds, ui, listeners, progress)


def cluster_ui(args: argparse.Namespace, settings: Settings, seeds: list[str],
               ui: tuple[str, int], listeners: list[Any],
               progress: CrawlProgress) -> CrawlResult:  # fmt: skip
    """A cluster crawl with its web page, served by the driver from a thread: the live
    figures from the shards' step reports (``LiveRun``), the catalogue from the writer's
    snapshot (``ClusterStore``). When the crawl ends (unless interrupted), its summary is
    printed and the page goes on serving the end state until Ctrl-C or SIGTERM."""
    import threading

    from formhunter.cluster import run_cluster_crawl
    from formhunter.runtime import stop_at_once_on_signals
    from formhunter.web import ClusterStore, WebSettings
    from formhunter.web.live import LiveRun
    from formhunter.web.thread import UiThread

    Catalogue(settings.crawl.db).close()  # the file the page reads exists (or is refused)
    live = LiveRun(settings.crawl.max_pages)
    web = WebSettings(store=ClusterStore(settings.crawl.db), live=live,
                      models_dir=settings.crawl.models_dir or None,
                      model=settings.crawl.model or None)  # fmt: skip
    with UiThread(web, *ui) as page:
        print(f"web page of this crawl: {page.url}", file=sys.stderr, flush=True)
        result, _ = run_cluster_crawl(settings, seeds=seeds, resume=args.resume,
                                      workers=args.workers or 0, address=args.ray_address,
                                      listeners=[*listeners, live])  # fmt: skip
        if result.reason != "interrupted":
            say_ended(progress, result, settings, page.url)
            quit_ = threading.Event()
            with stop_at_once_on_signals(lambda _reason: quit_.set()):
                while not quit_.wait(0.5):
                    pass
    return result


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "crawl",
        help="crawl the Web (or the simulated web) for searchable forms of a domain",
        description="Crawl from seed URLs for the forms of one domain, filling a DuckDB "
        "catalogue. Flags override the --config file, which overrides the defaults.",
        epilog="exit codes: 0 ok; 1 component faults, or nothing fetched (every seed "
        "refused); 2 usage; "
        "130 interrupted (continue with --resume)",
    )
    p.add_argument("--domain", help="database domain (airfare, auto, book, hotel, job, ...)")
    p.add_argument("--seeds", metavar="FILE", help="seed URLs, one per line ('-': stdin)")
    p.add_argument("--db", metavar="FILE", help="the DuckDB catalogue to write")
    p.add_argument("--resume", action="store_true",
                   help="continue the catalogue's latest run where it stopped")
    p.add_argument("--ui", type=count, metavar="PORT",
                   help="serve the catalogue's web page on PORT while crawling (live figures, "
                   "forms, labels; the URL with its token is printed)")
    p.add_argument("--ui-host", default="127.0.0.1",
                   help="address the --ui page listens on (default 127.0.0.1)")
    p.add_argument("--probe", action="store_true", default=None,
                   help="probe each relevant form during the crawl: a few GET submissions "
                   "within the same politeness, robots.txt and address guard ([probe] in "
                   "the settings; off by default: it submits forms to other people's sites)")
    p.add_argument("--workers", type=count, metavar="N",
                   help="crawl on a local Ray cluster of N shards that formhunter starts")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="crawl on an existing Ray cluster (ray start --head ...); --workers "
                   "then sets the shards (default: the cluster's CPUs)")
    add_crawl_flags(p)
    show_setting_defaults(p)
    p.set_defaults(func=cmd_crawl)
