"""The harvest benchmark: strategies side by side on the simulated web, against the ceiling.

Every strategy crawls the same simulated web from the same seeds with the same
page budget, each run in its own DuckDB catalogue, through the simweb forward
proxy on loopback (a subprocess, so that server and crawler do not share one
GIL; no politeness delay, high concurrency). Three references are run (keyword and
random can be left out with ``references``, e.g. in a part re-run to merge):
``omniscient`` (``oracle.omniscient``: the ceiling, computed from the ground truth),
``keyword`` (keyword best first, no learning: the rule every learner must beat) and
``random`` (the engine's random strategy: the floor). Repeat ``r`` uses seed set
``r`` (``seed_set``) for every strategy.

Several webs (``HarvestPlan.webs``): everything above runs on each simulated-web
seed in turn (its own truth graph and proxy); the report gives mean ± sd over webs.
``UNSEEN_WEBS`` are seeds no model or default was built or tuned on (the shipped
offline link models come from web 8, the learners were tuned on webs 7 and 8).
``HarvestPlan.world`` chooses the family of webs (``formhunter.worlds``: simweb or
bazaar, a second family designed apart); parts of different worlds do not merge.

A run is judged twice: by the crawler's own critic (``forms.relevant``: what the
crawler believes) and by the truth (catalogue forms joined with the truth's
forms on site and signature: the honest count). Pages are on topic per the
truth when the page is about the domain. See ``report`` for the files written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import random
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from classifiers.sites import site_of
from formhunter.bench.oracle import Curve, TruthGraph, domain_bit, load_or_build, omniscient
from formhunter.exceptions import ConfigError, FormhunterError, UsageError
from formhunter.simweb.server import proxy_process

if TYPE_CHECKING:
    from formhunter.engine import Engine

log = logging.getLogger(__name__)

REFERENCES = ("omniscient", "keyword", "random")
#: Simulated-web seeds that no model or default was built or tuned on (module doc).
UNSEEN_WEBS = (11, 12, 13, 14, 15)
DEFAULT_STRATEGIES = ("bfs", "baseline", "ache", "ache-apprentice", "cfc")


@dataclass(frozen=True)
class HarvestPlan:
    """What to run. ``strategies`` are engine strategy names (``omniscient``,
    ``keyword`` and ``random`` are added); ``webs`` simulated-web seeds to run on
    (empty: just ``seed``); ``out`` the report folder; ``cache_dir`` where the truth
    graph is cached (None: rebuilt every time)."""

    domains: tuple[str, ...] = ("airfare", "book", "movie")
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES
    pages: int = 3000
    repeats: int = 1
    sites: int = 500
    seed: int = 7
    seeds_per_domain: int = 10
    out: Path = Path("reports/harvest")
    cache_dir: Path | None = None
    concurrency: int = 64
    slow_delay: float = 0.5
    keep_catalogues: bool = False
    learning_threshold: int = 0  # 0: the settings' default
    config: str = ""  # a settings file (TOML) read for every crawl, under the bench's own
    webs: tuple[int, ...] = ()
    references: tuple[str, ...] = ("keyword", "random")
    world: str = "simweb"  # the family of simulated webs (formhunter.worlds)

    def engine_strategies(self) -> list[str]:
        """Engine strategies to run, in order: the given ones, then the keyword
        reference, then random (floor), as far as ``references`` names them."""
        out = [s for s in self.strategies if s != "omniscient"]
        for ref in self.references:
            if ref not in out:
                out.append(ref)
        return list(dict.fromkeys(out))

    def web_seeds(self) -> tuple[int, ...]:
        """The simulated-web seeds to run on, in order."""
        return tuple(dict.fromkeys(self.webs)) or (self.seed,)


def validate(plan: HarvestPlan) -> None:
    """UsageError for unknown domains/strategies or bad numbers (before any work)."""
    from formhunter.strategies import get_strategy

    for d in plan.domains:
        domain_bit(d)
    for s in plan.engine_strategies():
        try:
            get_strategy(s)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
    if plan.pages < 1 or plan.repeats < 1 or plan.sites < 1 or plan.seeds_per_domain < 1:
        raise UsageError("--pages, --repeats, --sites and --seeds-per-domain must be >= 1")
    if not plan.domains:
        raise UsageError("--domains: give at least one domain")


def seed_set(web: Any, domain: str, k: int, repeat: int) -> list[str]:
    """Seed URLs of ``repeat``: repeat 0 takes the first ``k`` of ``web.seeds`` (as
    ``simweb seeds`` prints them); repeat r > 0 a random sample of ``k`` from a pool
    of the first ``4 k`` (deterministic in the web's seed, the domain and r)."""
    if repeat == 0:
        return list(web.seeds(domain, k))
    pool = list(web.seeds(domain, 4 * k))
    rng = random.Random(f"{web.seed}/{domain}/{repeat}")
    return rng.sample(pool, min(k, len(pool)))


# -- one run ---------------------------------------------------------------------


@dataclass
class RunResult:
    """One crawl (or the oracle), judged: per-page curves and the figures of ``metrics``."""

    strategy: str
    domain: str
    repeat: int
    curves: pd.DataFrame
    metrics: dict[str, Any] = field(default_factory=dict)
    web: int = 7


def bench_settings(domain: str, strategy: str, pages: int, db: Path, proxy: str | None,
                   concurrency: int, random_state: int,
                   learning_threshold: int = 0, config: str = "") -> Any:  # fmt: skip
    """Settings of a benchmark crawl: the defaults (then ``config``, a settings file),
    through the proxy, no politeness delay."""
    from formhunter.config import load_settings

    return load_settings(config or None, {
        "learning": {"threshold": learning_threshold or None},
        "crawl": {"domain": domain, "strategy": strategy, "max_pages": pages, "db": str(db),
                  "random_state": random_state, "commit_every_pages": 1000,
                  "commit_every_seconds": 30.0},
        "fetch": {"proxy": proxy, "min_delay": 0.0, "concurrency": concurrency,
                  "read_timeout": 5.0, "total_timeout": 10.0, "retries": 1,
                  "backoff_base": 0.2, "max_crawl_delay": 2.0},
    })  # fmt: skip


def _learner_extras(engine: Engine) -> dict[str, Any]:
    """Figures of the crawl's learners for the report: CFC's fetch savings."""
    from formhunter.learners.cfc import CFCLearner

    out: dict[str, Any] = {}
    for _, learner in engine.pipeline.components.learners:
        if isinstance(learner, CFCLearner):
            out["cfc_savings"] = dict(learner.savings.stats())
    return out


Frames = tuple[Any, pd.DataFrame, pd.DataFrame, dict[str, Any]]


def crawl_run(strategy: str, domain: str, seeds: Sequence[str], pages: int, repeat: int,
              proxy: str, db: Path, concurrency: int = 64,
              on_page: Callable[[int], None] | None = None,
              learning_threshold: int = 0, config: str = "",
              on_event: Callable[[str], None] | None = None) -> Frames:  # fmt: skip
    """Crawl once; returns (CrawlResult, pages frame, forms frame, extras). ``on_event``
    is called with "start" and "end" (the engine's listener events)."""
    from formhunter.catalogue import Catalogue
    from formhunter.engine import crawl

    settings = bench_settings(
        domain, strategy, pages, db, proxy, concurrency, repeat, learning_threshold, config
    )
    extras: dict[str, Any] = {}

    def listener(event: str, engine: Engine) -> None:
        if event in ("start", "end") and on_event is not None:
            on_event(event)
        if event == "page" and on_page is not None:
            on_page(engine.stats.pages)
        elif event == "end":
            extras.update(_learner_extras(engine))

    t0 = time.perf_counter()
    with Catalogue(db, memory_mb=settings.crawl.db_memory_mb) as cat:
        result = asyncio.run(crawl(settings, cat, seeds=seeds, listeners=[listener]))
        pages_df, forms_df = run_frames(cat.con, result.run_id)
    extras["wall_s"] = time.perf_counter() - t0
    extras["crawl_s"] = result.stats.seconds
    return result, pages_df, forms_df, extras


def run_frames(con: Any, run_id: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run's pages (seq, url, site, on_topic) and forms (found_after_pages, site, signature,
    relevant, searchable) from its catalogue connection: what ``judge`` reads."""
    pages = con.execute(
        "SELECT seq, url, site, coalesce(on_topic, false) AS on_topic FROM pages"
        " WHERE run_id = ? ORDER BY seq", [run_id]).df()  # fmt: skip
    forms = con.execute(
        "SELECT found_after_pages, site, signature, coalesce(relevant, false) AS relevant,"
        " coalesce(searchable, false) AS searchable FROM forms WHERE run_id = ?",
        [run_id]).df()  # fmt: skip
    return pages, forms


def judge(graph: TruthGraph, domain: str, pages_df: pd.DataFrame,
          forms_df: pd.DataFrame) -> dict[str, np.ndarray]:  # fmt: skip
    """Per-page cumulative curves of one crawl, by the truth and by the critic."""
    n = len(pages_df)
    bit = domain_bit(domain)
    rel_key = graph.relevant_keys(domain)
    keys = graph.keys
    nodes = np.asarray([graph.node_of(u) for u in pages_df["url"].tolist()], dtype=np.int64)
    known = nodes >= 0
    on_topic = np.zeros(n, dtype=bool)
    on_topic[known] = (graph.topics[nodes[known]] & bit) != 0

    def cum(mask: np.ndarray) -> np.ndarray:
        at = forms_df["found_after_pages"].to_numpy(dtype=np.int64)[mask]
        counts = np.bincount(np.clip(at, 1, max(n, 1)) - 1, minlength=n)[:n]
        return np.cumsum(counts)

    pairs = zip(forms_df["site"], forms_df["signature"], strict=True)
    kid = np.asarray([keys.get((s, g), -1) for s, g in pairs], dtype=np.int64)
    in_truth = kid >= 0
    t_rel = np.zeros(len(kid), dtype=bool)
    t_srch = np.zeros(len(kid), dtype=bool)
    t_rel[in_truth] = rel_key[kid[in_truth]]
    t_srch[in_truth] = graph.key_searchable[kid[in_truth]]
    sites = forms_df["site"].to_numpy()[t_rel]
    page_sites = (pages_df["site"] if "site" in pages_df
                  else pages_df["url"].map(site_of)).tolist()  # fmt: skip
    return {
        **site_figures(graph.form_sites(domain), page_sites, set(sites.tolist())),
        "relevant": cum(t_rel), "searchable": cum(t_srch),
        "relevant_critic": cum(forms_df["relevant"].to_numpy(dtype=bool)),
        "searchable_critic": cum(forms_df["searchable"].to_numpy(dtype=bool)),
        "on_topic": on_topic,
        "on_topic_critic": pages_df["on_topic"].to_numpy(dtype=bool),
        "forms_unmatched": np.asarray([int((~in_truth).sum())]),
        "pages_unmatched": np.asarray([int((~known).sum())]),
    }  # fmt: skip


def site_figures(form_sites: set[str], page_sites: Sequence[str],
                 found: set[str]) -> dict[str, np.ndarray]:  # fmt: skip
    """Per-site figures of one crawl against the truth: ``form_sites`` hold a findable
    relevant form, ``page_sites`` is the site of every page fetched, ``found`` the sites
    where the crawl found a relevant form (truth). Site coverage = found / form sites."""
    visited = Counter(page_sites)
    entered = form_sites & visited.keys()
    on_form_sites = sum(visited[s] for s in entered)
    figures = {
        "sites_relevant": len(found), "form_sites": len(form_sites),
        "form_sites_entered": len(entered),
        "form_sites_entered_without": len(entered - found),
        "sites_visited": len(visited),
        "pages_per_site": len(page_sites) / len(visited) if visited else 0.0,
        "pages_per_form_site": on_form_sites / len(entered) if entered else 0.0,
        "site_coverage": len(found & form_sites) / len(form_sites) if form_sites else math.nan,
    }  # fmt: skip
    return {k: np.asarray([v]) for k, v in figures.items()}


#: the per-site figures of ``site_figures``, as ``metrics`` reports them
SITE_FIGURES = ("sites_relevant", "form_sites", "form_sites_entered",
                "form_sites_entered_without", "sites_visited", "pages_per_site",
                "pages_per_form_site", "site_coverage")  # fmt: skip


def curve_frame(strategy: str, domain: str, repeat: int,
                c: dict[str, np.ndarray], web: int = 7) -> pd.DataFrame:  # fmt: skip
    n = len(c["on_topic"])
    return pd.DataFrame({
        "web": web, "strategy": strategy, "domain": domain, "repeat": repeat,
        "seq": np.arange(1, n + 1, dtype=np.int64),
        "relevant_so_far": c["relevant"],
        "relevant_critic_so_far": pd.array(c["relevant_critic"], dtype="Int64"),
        "searchable_so_far": c["searchable"],
        "searchable_critic_so_far": pd.array(c["searchable_critic"], dtype="Int64"),
        "on_topic": c["on_topic"], "on_topic_critic": c["on_topic_critic"],
    })  # fmt: skip


def metrics(c: dict[str, np.ndarray], omni: Curve | None) -> dict[str, Any]:
    """The table's figures for one run (ARCHITECTURE.md §5)."""
    n = len(c["on_topic"])
    last = lambda a: int(a[-1]) if len(a) else 0  # noqa: E731
    rel, srch = last(c["relevant"]), last(c["searchable"])
    off = int(n - c["on_topic"].sum())
    m: dict[str, Any] = {
        "pages": n, "relevant": rel, "relevant_critic": last(c["relevant_critic"]),
        "searchable": srch, "searchable_critic": last(c["searchable_critic"]),
        "harvest_relevant": rel / n if n else 0.0, "harvest_searchable": srch / n if n else 0.0,
        "off_topic_pages": off, "loss_rate": off / n if n else 0.0,
        **{k: c[k][0].item() for k in SITE_FIGURES},
        "forms_unmatched": int(c["forms_unmatched"][0]),
        "pages_unmatched": int(c["pages_unmatched"][0]),
    }  # fmt: skip
    if omni is not None and omni.pages:
        o = int(omni.relevant[min(n, omni.pages) - 1]) if n else 0
        m["omniscient_at_pages"] = o
        m["ratio_omniscient"] = rel / o if o else float("nan")
    return m


def oracle_run(graph: TruthGraph, domain: str, seeds: Sequence[str], pages: int,
               repeat: int, web: int = 7) -> tuple[Curve, RunResult]:  # fmt: skip
    t0 = time.perf_counter()
    curve = omniscient(graph, domain, seeds, pages)
    dt = time.perf_counter() - t0
    n = curve.pages
    keys = np.zeros(0, dtype=np.int64)  # relevant forms found by the oracle
    if n:
        fetched = np.zeros(graph.n, dtype=bool)
        fetched[curve.nodes] = True
        occ = fetched[graph.occ_node] & graph.relevant_keys(domain)[graph.occ_key]
        keys = np.unique(graph.occ_key[occ])
    c = {
        "relevant": curve.relevant, "searchable": curve.searchable,
        "relevant_critic": np.full(n, -1), "searchable_critic": np.full(n, -1),
        "on_topic": curve.on_topic, "on_topic_critic": curve.on_topic,
        **site_figures(graph.form_sites(domain), [site_of(graph.urls[u]) for u in
                                                  curve.nodes.tolist()],
                       {graph.key_site[k] for k in keys.tolist()}),
        "forms_unmatched": np.asarray([0]), "pages_unmatched": np.asarray([0]),
    }  # fmt: skip
    m = metrics(c, curve)
    m.update(relevant_critic=None, searchable_critic=None, wall_s=dt, crawl_s=dt,
             pages_per_s=None, learning_iterations=0, reason="budget" if n >= pages
             else "exhausted", faults=0, errors=0, requeued=0,
             recomputes=curve.recomputes)  # fmt: skip
    frame = curve_frame("omniscient", domain, repeat, c, web)
    for col in ("relevant_critic_so_far", "searchable_critic_so_far"):
        frame[col] = pd.array([pd.NA] * n, dtype="Int64")
    return curve, RunResult("omniscient", domain, repeat, frame, m, web)


# -- the whole benchmark ----------------------------------------------------------


@dataclass
class HarvestResult:
    plan: HarvestPlan
    runs: list[RunResult]
    totals: dict[str, dict[str, int]]  # of the first web
    seeds: dict[str, list[list[str]]]  # of the first web
    interrupted: bool = False
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    web_totals: dict[int, dict[str, dict[str, int]]] = field(default_factory=dict)
    replaced: int = 0  # merged reports: runs of an earlier part a later part replaced

    def runs_frame(self) -> pd.DataFrame:
        rows = [{"web": r.web, "strategy": r.strategy, "domain": r.domain, "repeat": r.repeat,
                 **r.metrics} for r in self.runs]  # fmt: skip
        return pd.DataFrame(rows)

    def curves_frame(self) -> pd.DataFrame:
        if not self.runs:
            return pd.DataFrame()
        frames = [r.curves for r in self.runs]
        return pd.concat(frames, ignore_index=True)


def run_harvest(plan: HarvestPlan, *, progress: bool = True,
                say: Callable[[str], None] = print) -> HarvestResult:  # fmt: skip
    """Run every (web, repeat, domain, strategy) of ``plan`` plus the oracle; see module doc."""
    validate(plan)
    t_start = time.perf_counter()
    strategies = plan.engine_strategies()
    db_dir = plan.out / "catalogues"
    db_dir.mkdir(parents=True, exist_ok=True)
    webs = plan.web_seeds()
    runs: list[RunResult] = []
    failures: list[str] = []
    web_totals: dict[int, dict[str, dict[str, int]]] = {}
    first_seeds: dict[str, list[list[str]]] = {d: [] for d in plan.domains}
    n_runs = len(webs) * plan.repeats * len(plan.domains) * (len(strategies) + 1)
    interrupted = False
    with _progress(progress, n_runs, plan.pages) as bar:
        for w in webs:
            seeds: dict[str, list[list[str]]] = {d: [] for d in plan.domains}
            if w == webs[0]:
                first_seeds = seeds
            try:
                interrupted = _run_web(plan, w, strategies, db_dir, bar, say, runs, failures,
                                       web_totals, seeds)  # fmt: skip
            except KeyboardInterrupt:  # between crawls (a crawl stops on its own): keep the runs
                interrupted = True
            if interrupted:
                break
    _add_keyword_ratios(runs)
    if not plan.keep_catalogues:
        shutil.rmtree(db_dir, ignore_errors=True)
    return HarvestResult(plan, runs, web_totals.get(webs[0], {}), first_seeds, interrupted,
                         time.perf_counter() - t_start, failures, web_totals)  # fmt: skip


def _run_web(plan: HarvestPlan, w: int, strategies: Sequence[str], db_dir: Path, bar: _Bar,
             say: Callable[[str], None], runs: list[RunResult], failures: list[str],
             web_totals: dict[int, dict[str, dict[str, int]]],
             seeds: dict[str, list[list[str]]]) -> bool:  # fmt: skip
    """Every (repeat, domain, strategy) on simulated web ``w``; True when interrupted."""
    from formhunter.worlds import open_world

    web = open_world(plan.world, w, plan.sites, slow_delay=plan.slow_delay)
    say(f"truth graph of the {plan.world} web (seed {w}, {plan.sites} sites)"
        f"{'' if plan.cache_dir else ' (no cache: built now)'} ...")  # fmt: skip
    t0 = time.perf_counter()
    graph = load_or_build(web, plan.cache_dir)
    say(f"  {graph.n} nodes, {len(graph.indices)} links, {len(graph.key_site)} distinct forms"
        f" ({time.perf_counter() - t0:.1f}s)")  # fmt: skip
    totals = web_totals[w] = {d: graph.totals(d) for d in plan.domains}
    tag = f"w{w} " if len(plan.web_seeds()) > 1 else ""
    with proxy_process(w, plan.sites, plan.slow_delay, world=plan.world) as proxy:
        for rep in range(plan.repeats):
            for domain in plan.domains:
                sd = seed_set(web, domain, plan.seeds_per_domain, rep)
                seeds[domain].append(sd)
                in_web = totals[domain].get("relevant_forms", 0)
                bar.run(f"{tag}omniscient {domain} r{rep}")
                omni, res = oracle_run(graph, domain, sd, plan.pages, rep, w)
                res.metrics["share_of_web"] = res.metrics["relevant"] / in_web if in_web else None
                runs.append(res)
                say(_line(res))
                bar.done()
                for strategy in strategies:
                    bar.run(f"{tag}{strategy} {domain} r{rep}")
                    db = db_dir / f"w{w}-{domain}-{strategy}-r{rep}.duckdb"
                    for p in (db, db.with_name(db.name + ".wal")):
                        p.unlink(missing_ok=True)
                    try:
                        result, pages_df, forms_df, extras = crawl_run(
                            strategy, domain, sd, plan.pages, rep, proxy, db, plan.concurrency,
                            on_page=bar.page,
                            learning_threshold=plan.learning_threshold,
                            config=plan.config)  # fmt: skip
                    except FormhunterError as exc:  # e.g. a model the strategy needs is missing
                        failures.append(f"{tag}{strategy} {domain} r{rep}: {exc}")
                        say(f"{tag}{strategy} {domain} r{rep}: FAILED: {exc}")
                        bar.done()
                        continue
                    c = judge(graph, domain, pages_df, forms_df)
                    m = metrics(c, omni)
                    st = result.stats
                    m.update(wall_s=extras.pop("wall_s"), crawl_s=extras.pop("crawl_s"),
                             pages_per_s=st.pages_per_second,
                             learning_iterations=st.learning_iterations, reason=result.reason,
                             faults=sum(st.faults.values()), errors=st.n_errors,
                             requeued=st.requeued,
                             share_of_web=m["relevant"] / in_web if in_web else None,
                             extras=json.dumps(extras) if extras else "")  # fmt: skip
                    frame = curve_frame(strategy, domain, rep, c, w)
                    runs.append(RunResult(strategy, domain, rep, frame, m, w))
                    say(_line(runs[-1]))
                    if not plan.keep_catalogues:
                        for p in (db, db.with_name(db.name + ".wal")):
                            p.unlink(missing_ok=True)
                    bar.done()
                    if result.reason == "interrupted":
                        return True
    return False


# -- reports of parts run apart, merged ------------------------------------------

#: the plan fields that must agree for runs to be compared in one report
_SAME_IN_PARTS = ("pages", "sites", "repeats", "seeds_per_domain", "concurrency", "slow_delay",
                  "learning_threshold", "config", "world")  # fmt: skip


def plan_record(result: HarvestResult) -> dict[str, Any]:
    """What ``load_harvest`` needs besides runs, curves and seeds (``run.json``)."""
    p = result.plan
    return {
        "plan": {"domains": list(p.domains), "strategies": list(p.strategies),
                 "webs": list(p.web_seeds()), **{k: getattr(p, k) for k in _SAME_IN_PARTS}},
        "web_totals": {str(w): t for w, t in result.web_totals.items()},
        "seconds": result.seconds, "interrupted": result.interrupted,
        "failures": result.failures,
    }  # fmt: skip


def load_harvest(folder: Path) -> HarvestResult:
    """A harvest report folder (``report.write_harvest``) read back; UsageError when
    it is not one (a file missing, damaged or not of this format)."""
    try:
        return _load_harvest(folder)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"{folder} is not a readable harvest report (run.json, runs.csv, "
                         f"curves.parquet, seeds.json): {exc!r}") from None  # fmt: skip


def _load_harvest(folder: Path) -> HarvestResult:
    rec = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    runs_df = pd.read_csv(folder / "runs.csv")
    curves = pd.read_parquet(folder / "curves.parquet")
    seeds = json.loads((folder / "seeds.json").read_text(encoding="utf-8"))
    p = rec["plan"]
    plan = HarvestPlan(domains=tuple(p["domains"]), strategies=tuple(p["strategies"]),
                       webs=tuple(p["webs"]), out=folder,
                       **{k: p[k] for k in _SAME_IN_PARTS if k in p})  # fmt: skip
    keys = ["web", "strategy", "domain", "repeat"]
    by_run = dict(iter(curves.groupby(keys, sort=False)))
    runs = [
        RunResult(row["strategy"], row["domain"], int(row["repeat"]),
                  by_run[tuple(row[k] for k in keys)].reset_index(drop=True),
                  {k: v for k, v in row.items() if k not in keys}, int(row["web"]))
        for row in runs_df.to_dict("records")
    ]  # fmt: skip
    web_totals = {int(w): t for w, t in rec["web_totals"].items()}
    first = plan.web_seeds()[0]
    return HarvestResult(plan, runs, web_totals.get(first, {}), seeds, rec["interrupted"],
                         rec["seconds"], rec["failures"], web_totals)  # fmt: skip


def merge_harvests(parts: Sequence[HarvestResult], out: Path) -> HarvestResult:
    """One result from parts run apart (other domains, strategies or webs, e.g. on
    several machines); UsageError when their budgets or webs' sizes differ. A run
    (web, strategy, domain, repeat) in several parts is the last part's: a strategy
    re-run after a change is merged over the old report (``replaced`` counts them;
    the omniscient ceiling is the same in every part). ``seconds`` is the longest
    part's (parts run side by side)."""
    if not parts:
        raise UsageError("--merge: give at least one report folder")
    base = parts[0].plan
    for r in parts[1:]:
        diff = [k for k in _SAME_IN_PARTS if getattr(r.plan, k) != getattr(base, k)]
        if diff:
            raise UsageError(f"--merge: {r.plan.out} differs from {base.out} in {', '.join(diff)}")
    latest = {(x.web, x.strategy, x.domain, x.repeat): x for r in parts for x in r.runs}
    runs = list(latest.values())
    replaced = sum(len(r.runs) for r in parts) - len(runs)
    _add_keyword_ratios(runs)  # a re-run keyword reference changes every ratio
    web_totals: dict[int, dict[str, dict[str, int]]] = {}
    seeds: dict[str, list[list[str]]] = {}
    for r in parts:
        for w, t in r.web_totals.items():
            web_totals.setdefault(w, {}).update(t)
        seeds.update(r.seeds)

    def union(field_name: str) -> tuple[Any, ...]:
        return tuple(dict.fromkeys(x for r in parts for x in getattr(r.plan, field_name)))

    plan = HarvestPlan(domains=union("domains"), strategies=union("strategies"),
                       webs=tuple(sorted(set(union("webs")))), out=out,
                       **{k: getattr(base, k) for k in _SAME_IN_PARTS})  # fmt: skip
    first = plan.web_seeds()[0]
    return HarvestResult(plan, runs, web_totals.get(first, {}), seeds,
                         any(r.interrupted for r in parts), max(r.seconds for r in parts),
                         [f for r in parts for f in r.failures], web_totals,
                         replaced)  # fmt: skip


def _add_keyword_ratios(runs: list[RunResult]) -> None:
    """``ratio_keyword``: relevant (truth) over the keyword reference's on the same web,
    domain and repeat (nan when the reference found none or did not run)."""
    ref = {(r.web, r.domain, r.repeat): r.metrics["relevant"] for r in runs
           if r.strategy == "keyword"}  # fmt: skip
    for r in runs:
        k = ref.get((r.web, r.domain, r.repeat))
        r.metrics["ratio_keyword"] = r.metrics["relevant"] / k if k else float("nan")


def _line(r: RunResult) -> str:
    m = r.metrics
    return (f"w{r.web} {r.strategy} {r.domain} r{r.repeat}: {m['pages']} pages, "
            f"{m['relevant']} relevant (truth), {m['searchable']} searchable, "
            f"loss {m['loss_rate']:.0%}, "
            f"{m['wall_s']:.0f}s")  # fmt: skip


class _Bar:
    """A rich progress display over runs (and pages of the current run); or nothing."""

    def __init__(self, progress: Any, total: int, pages: int) -> None:
        self.p = progress
        self.pages = pages
        if progress is not None:
            self.runs = progress.add_task("runs", total=total)
            self.cur = progress.add_task("", total=pages)

    def run(self, name: str) -> None:
        if self.p is not None:
            self.p.update(self.cur, description=name, completed=0)

    def page(self, n: int) -> None:
        if self.p is not None and n % 25 == 0:
            self.p.update(self.cur, completed=n)

    def done(self) -> None:
        if self.p is not None:
            self.p.update(self.cur, completed=self.pages)
            self.p.advance(self.runs)


@contextlib.contextmanager
def _progress(enabled: bool, total: int, pages: int) -> Iterator[_Bar]:
    if not enabled:
        yield _Bar(None, total, pages)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:28s}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=False) as p:  # fmt: skip
        yield _Bar(p, total, pages)


def default_report_dir(kind: str) -> Path:
    """reports/<date>-<short commit>/<kind>/ (commit: ``git rev-parse``, else "nogit")."""
    import datetime as dt

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True, timeout=10).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        commit = "nogit"
    return Path("reports") / f"{dt.date.today().isoformat()}-{commit}" / kind


def default_cache_dir() -> Path:
    """Where truth graphs are cached: $FORMHUNTER_CACHE, else ~/.cache/formhunter/bench."""
    env = os.environ.get("FORMHUNTER_CACHE")
    base = Path(env) if env else Path.home() / ".cache" / "formhunter"
    return base / "bench"
