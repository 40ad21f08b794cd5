"""One frontier shard of a cluster crawl: the sites it owns, their frontier, fetch and pipeline.

A shard owns the sites whose stable hash (``shard_of``) is its index, so every host
of a site -- its politeness, robots.txt and the site's stopping criteria and form
de-duplication -- lives on one shard. ``ShardWorker.step`` runs the engine's own batch
loop (``Engine.run_slice``: fetch, parse in the fetch task, the ordinary ``Pipeline`` on
batches of its own links) until its page allowance or its time slice is used, then ships
the step's rows (pages, forms, frontier rows and state changes of the pages recorded;
never page HTML) to the writer and returns a small ``StepReport``: counters, the links
it found for other shards' sites (routed by the driver), whether its frontier is dry
and how many fetches it carries over to its next step (they stay in flight meanwhile).

The pipeline is unchanged: it writes into a ``ShardCatalogue`` (a catalogue whose
commit hands its buffered rows to the outbox instead of a file), a ``ShardStore``
(which keeps other shards' links aside for the driver) under the ordinary multi-level
selector and, for learning strategies, an
``OutcomeBuffer`` learner that collects ``PageOutcome``s for the learner actor.
This module does not import Ray: the driver wraps ``ShardWorker`` as an actor.
"""

from __future__ import annotations

import contextlib
import logging
import time
import zlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from formhunter.catalogue import Catalogue, ResumeState
from formhunter.components import Components
from formhunter.config import Settings
from formhunter.engine import Engine
from formhunter.fetch import Fetcher
from formhunter.frontier import Frontier, FrontierStore, add_seeds
from formhunter.frontier.policy import SiteBudget
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome, RoutesFirst
from formhunter.model import Page
from formhunter.pipeline import PathIndex, Pipeline
from formhunter.runtime import gc_tuned
from formhunter.schema import insert_arrow
from formhunter.stats import CrawlStats
from formhunter.strategies import get_strategy
from formhunter.urls import canonicalize, site_of

log = logging.getLogger(__name__)

#: Tables a shard ships to the writer, in insert order (``frontier_drops``: lids of
#: reserve rows a queued row of the same URL replaced).
TABLES = ("frontier", "frontier_drops", "frontier_updates", "pages", "forms", "form_fields",
          "form_paths")  # fmt: skip


def shard_of(site: str, n_shards: int) -> int:
    """The shard owning ``site``: a stable hash (the same on every machine and run)."""
    return zlib.crc32(site.encode("utf-8")) % n_shards if n_shards > 1 else 0


@dataclass
class RoutedLink:
    """A link found on one shard for a site another shard owns, scored by the sender.
    ``hops``: (url, anchor) from a seed to the page it was found on (for paths)."""

    rec: LinkRecord
    host: str
    level: int
    score: float
    hops: list[tuple[str, str]]
    reserve: bool = False  # found on a page the follow rules did not follow


@dataclass
class ShardState:
    """What a (re)started shard loads from the catalogue (``CatalogueWriter.shard_state``)."""

    frontier: pa.Table  # the run's frontier rows of the shard's sites
    max_lid: int
    resume: ResumeState  # site counters of the shard's sites only
    form_keys: set[tuple[str, str]]


@dataclass
class StepReport:
    """What one step did (no page content): counters, links for other shards."""

    shard: int
    stats: dict[str, Any]
    pages: int
    routed: dict[int, list[RoutedLink]] = field(default_factory=dict)
    dry: bool = False  # nothing queued (a reserve or closed sites may be left)
    queued: int = 0
    cpu_seconds: float = 0.0
    restarts: int = 0
    committed: int = 0  # the run's pages in the catalogue after this step's commit
    refilled: bool = False  # the dry rules of a ``refill`` step queued links
    in_flight: int = 0  # fetches carried over to the next step (``Engine.run_slice``)


class ShardCatalogue(Catalogue):
    """An in-memory catalogue: the frontier store's database, and a commit that moves
    the buffered rows to ``outbox`` (for the writer) instead of writing them."""

    def __init__(self) -> None:
        super().__init__(":memory:")
        self.outbox: dict[str, list[pa.Table]] = {name: [] for name in TABLES}

    def preload_form_keys(self, run_id: int, keys: set[tuple[str, str]]) -> None:
        """The (site, signature) pairs the catalogue holds already for this shard's sites."""
        self._form_keys[run_id] = set(keys)

    def commit(self) -> None:
        with self._lock:
            self.con.execute("BEGIN TRANSACTION")
            try:
                for flush in self._flushers:
                    flush(self.con)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            bufs = (("pages", self.pages), ("forms", self.forms), ("form_fields", self.fields),
                    ("form_paths", self.paths))
            for name, buf in bufs:
                if len(buf):
                    self.outbox[name].append(buf.take())
            self._run_updates = {}
            self.commits += 1

    def take_learning(self) -> list[tuple[Any, ...]]:
        """Learning iterations recorded since the last call (rows of ``learning_iterations``)."""
        with self._lock:
            rows, self._learning = self._learning, []
        return rows

    def take_outbox(self) -> dict[str, pa.Table]:
        """Every table committed since the last call (one Arrow table each; of several
        state changes of one link, the last)."""
        out: dict[str, pa.Table] = {}
        for name, parts in self.outbox.items():
            if parts:
                out[name] = pa.concat_tables(parts)
            self.outbox[name] = []
        upd = out.get("frontier_updates")
        if upd is not None:
            last = {lid: i for i, lid in enumerate(upd.column("lid").to_pylist())}
            if len(last) < upd.num_rows:
                out["frontier_updates"] = upd.take(sorted(last.values()))
        return out


class ShardStore(FrontierStore):
    """The frontier store of a shard. It keeps the links of the shard's own sites: a link
    of another shard's site goes to ``routed`` (the driver delivers it there, queued or
    in that shard's reserve; once per URL, once more when a link routed as reserve is
    found on a followed page), with the hops to the page it was found on. Lids are
    ``k, k + n, k + 2n, ...`` above the run's largest (unique across shards); what it
    writes also goes to the catalogue's outbox (for the writer)."""

    def __init__(self, con: Any, run_id: int, outbox: dict[str, list[pa.Table]], *, shard: int,
                 n_shards: int, max_lid: int, paths: PathIndex) -> None:  # fmt: skip
        self.outbox = outbox
        self.shard, self.stride = shard, n_shards
        self.paths = paths
        self.routed: list[RoutedLink] = []
        self.routed_reserve: set[str] = set()  # routed as reserve: routed again if followed
        super().__init__(con, run_id)
        self.next_lid = (max(max_lid, self.next_lid - 1) // n_shards + 1) * n_shards + shard

    def owns(self, site: str) -> bool:
        return shard_of(site, self.stride) == self.shard

    def in_reserve(self, url: str) -> bool:
        return url in self.reserved or url in self.routed_reserve

    def add(self, rec: LinkRecord, host: str, level: int, score: float, *,
            state: str = "queued", reason: str = "", at_page: int = 0,
            loaded: bool = False) -> int:  # fmt: skip
        """``FrontierStore.add`` for the shard's own sites; 0 for another shard's link
        (routed if queued or in reserve; a skipped one is that shard's to record)."""
        if state in ("queued", "reserve", "skipped") and not self.owns(rec.site):
            if state != "skipped":
                self._route(rec, host, level, score, reserve=state == "reserve")
            return 0
        lid = super().add(rec, host, level, score, state=state, reason=reason, at_page=at_page,
                          loaded=loaded)  # fmt: skip
        self.next_lid = lid + self.stride
        return lid

    def _route(self, rec: LinkRecord, host: str, level: int, score: float, *,
               reserve: bool) -> None:  # fmt: skip
        self.seen.add(rec.url)
        if reserve:
            self.routed_reserve.add(rec.url)
        else:
            self.routed_reserve.discard(rec.url)
        grand, anchor = self.paths.parents.get(rec.parent_url, ("", ""))
        hops = self.paths.path(rec.parent_url, anchor, grand) if rec.parent_url else []
        self.routed.append(RoutedLink(rec, host, level, score, hops, reserve=reserve))

    def take_routed(self) -> dict[int, list[RoutedLink]]:
        """The links routed since the last call, by shard."""
        out: dict[int, list[RoutedLink]] = {}
        for link in self.routed:
            out.setdefault(shard_of(link.rec.site, self.stride), []).append(link)
        self.routed = []
        return out

    def _write_new(self, con: Any) -> tuple[pa.Table, list[int]]:
        new, dropped = super()._write_new(con)
        if new.num_rows:
            self.outbox["frontier"].append(new)
        if dropped:
            self.outbox["frontier_drops"].append(
                pa.table({"lid": pa.array(dropped, type=pa.int64())}))
        return new, dropped

    def _write_updates(self, con: Any, upd: pa.Table) -> None:
        self.outbox["frontier_updates"].append(upd)
        super()._write_updates(con, upd)

    def _ship_queued(self, lids: Sequence[int]) -> None:
        """Links that became queued by SQL here (the reserve opened, a site's skipped
        links queued again, reserve links promoted): the writer gets the change."""
        if lids:
            self.outbox["frontier_updates"].append(pa.table({
                "lid": pa.array(list(lids), pa.int64()),
                "state": pa.array(["queued"] * len(lids), pa.string()),
                "reason": pa.array([""] * len(lids), pa.string())}))  # fmt: skip

    def open_reserve(self) -> int:
        lids = list(self.reserved.values())
        n = super().open_reserve()
        self._ship_queued(lids)
        return n

    def requeue_skipped(self, sites: Sequence[str], reason: str) -> int:
        self.sync()  # the rows shipped skipped are in the file, to be shipped queued
        sql = "SELECT lid FROM frontier WHERE run_id = ? AND state = 'skipped' AND reason = ?"
        before = {r[0] for r in self.con.execute(sql, [self.run_id, reason]).fetchall()}
        n = super().requeue_skipped(sites, reason)
        if n:
            after = {r[0] for r in self.con.execute(sql, [self.run_id, reason]).fetchall()}
            self._ship_queued(sorted(before - after))
        return n

    def rerank(self, scorer: LinkScorer, n_levels: int, *, batch: int = 50_000,
               chunk: int = 1_000_000, inflight: Sequence[int] = (), promote_below: int = 0,
               routes: RoutesFirst | None = None) -> int:  # fmt: skip
        before = set(self.reserved.values())
        n = super().rerank(scorer, n_levels, batch=batch, chunk=chunk, inflight=inflight,
                           promote_below=promote_below, routes=routes)  # fmt: skip
        self._ship_queued(sorted(before - set(self.reserved.values())))
        return n


class OutcomeBuffer:
    """The learner of a shard's pipeline: collects slim ``PageOutcome``s (no text, no
    DOM leaves) for the learner actor, which holds the real learners."""

    def __init__(self) -> None:
        self.outcomes: list[PageOutcome] = []

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        p = outcome.page
        slim = Page(p.url, p.final_url, p.status, p.site, p.title, "", p.links, p.forms, [],
                    p.content_type, p.depth, p.rendered)  # fmt: skip
        self.outcomes.append(PageOutcome(slim, outcome.page_score, outcome.verdicts,
                                         outcome.path, outcome.link))  # fmt: skip
        return None

    def failed(self, link: LinkRecord, lid: int) -> None:
        """Failed fetches are not sent to the learner actor (no learner of a cluster
        strategy learns from them; tres, which does, runs in one process)."""

    def finish(self) -> None:
        """The learner actor finishes the real learners (``LearnerActor.finish``)."""

    def state(self) -> bytes:
        """Nothing to keep: the learner actor holds what is learnt."""
        return b""

    def restore(self, state: bytes) -> LinkScorer | None:
        return None

    def take(self) -> list[PageOutcome]:
        out, self.outcomes = self.outcomes, []
        return out


Ship = Callable[[int, dict[str, pa.Table]], Awaitable[Any]]
Learn = Callable[[list[PageOutcome]], Awaitable[Any]]
LoadModel = Callable[[Any], Awaitable[LinkScorer]]


class ShardWorker:
    """Shard ``shard`` of ``n_shards`` of run ``run_id`` (module doc).

    ``state``: the shard's part of the catalogue; ``ship(shard, tables)`` writes a
    step's rows (awaited: a step ends committed); ``learn(outcomes)`` feeds the learner
    actor; ``load_model(ref)`` fetches a broadcast link scorer.
    """

    def __init__(self, shard: int, n_shards: int, settings: Settings, run_id: int,
                 seeds: Sequence[str], state: ShardState, *, ship: Ship, learn: Learn | None,
                 load_model: LoadModel, restarts: int = 0) -> None:  # fmt: skip
        self.shard, self.n_shards, self.settings, self.run_id = shard, n_shards, settings, run_id
        self.ship, self.learn, self.load_model = ship, learn, load_model
        self.restarts = restarts
        self.strategy = get_strategy(settings.crawl.strategy)
        self.cat = ShardCatalogue()
        self.cat.preload_form_keys(run_id, state.form_keys)
        if state.frontier.num_rows:
            insert_arrow(self.cat.con, "frontier", state.frontier)
        paths = PathIndex()
        paths.parents.update(state.resume.parents)
        store = ShardStore(self.cat.con, run_id, self.cat.outbox, shard=shard, n_shards=n_shards,
                           max_lid=state.max_lid, paths=paths)  # fmt: skip
        self.cat.add_flusher(store.flush)
        self.fetcher = Fetcher(settings.fetch)
        comps = Components.build(settings, self.strategy)
        #: what ``runs.models`` records (``Components.models``): the driver sends it on
        self.models: dict[str, Any] = comps.models()
        self.outcomes = OutcomeBuffer() if self.strategy.learners else None
        comps.learners = [("cluster", self.outcomes)] if self.outcomes is not None else []
        frontier = Frontier(store, settings.frontier, ready_in=self.fetcher.host_ready_in,
                            n_levels=max(settings.frontier.levels, comps.scorer.n_levels) + 1,
                            per_host=settings.fetch.per_host_connections)  # fmt: skip
        budget = SiteBudget.from_resume(settings.stopping, state.resume)
        self.stats = CrawlStats()
        self.pipeline = Pipeline(settings, self.strategy, comps, catalogue=self.cat,
                                 run_id=run_id, store=store, frontier=frontier, budget=budget,
                                 stats=self.stats, paths=paths)  # fmt: skip
        self.pipeline.policy.rules.stop = []  # the driver's, over every shard's counters
        # The dry rules (extend sites, open the reserve) act when every shard is dry, as
        # one process's act when its whole frontier is: a ``refill`` step from the driver.
        self.dry_rules, self.pipeline.policy.rules.dry = self.pipeline.policy.rules.dry, []
        self.store, self.frontier = store, frontier
        self.engine = ShardEngine(settings, self.cat, fetcher=self.fetcher)
        self.engine.attach(self.pipeline)
        mine = []
        for raw in seeds:
            url = canonicalize(raw)
            if url is None:
                if shard == 0:
                    self.stats.skipped["bad-seed"] += 1
            elif store.owns(site_of(url)):
                mine.append(url)
        add_seeds(frontier, mine)  # known seeds (a restart, a resume) are not added again
        self.model_version = 0
        self._open = False
        self._gc = contextlib.ExitStack()

    async def _ensure_open(self) -> None:
        if not self._open:
            # as a process's crawl loop: what set-up loaded (models, tables) is kept out
            # of the collector's passes while the shard crawls
            self._gc.enter_context(gc_tuned())
            await self.fetcher.__aenter__()
            self._open = True

    async def close(self) -> None:
        if self._open:
            await self.engine.abandon_in_flight()
            await self.fetcher.__aexit__(None, None, None)
            self._gc.close()
            self._open = False

    def receive(self, links: Sequence[RoutedLink], at_page: int) -> int:
        """Links other shards found for this shard's sites; returns how many were new."""
        store, paths = self.store, self.pipeline.paths
        todo: dict[str, list[RoutedLink]] = {"queued": [], "reserve": []}
        for link in links:
            rec = link.rec
            for (u0, _), (u1, a1) in zip(link.hops, link.hops[1:], strict=False):
                paths.parents.setdefault(u1, (u0, a1))
            if link.hops:
                paths.parents.setdefault(link.hops[0][0], ("", link.hops[0][1]))
            if not store.owns(rec.site) or (rec.url in store.seen and (
                    link.reserve or not store.in_reserve(rec.url))):  # fmt: skip
                continue
            reason = self.pipeline.policy.site_reason(rec.site)
            if reason:
                store.add_skipped(rec, link.host, reason, at_page=at_page)
                self.stats.skipped[reason] += 1
                continue
            todo["reserve" if link.reserve else "queued"].append(link)
        n = 0
        for state, group in todo.items():
            if group:
                k = self.frontier.add_scored([x.rec for x in group], [x.host for x in group],
                                  np.asarray([x.level for x in group]),
                                  np.asarray([x.score for x in group], dtype=np.float64),
                                  at_page=at_page, state=state)  # fmt: skip
                n += k if state == "queued" else 0
        self.stats.links_new += n
        return n

    async def step(self, allowance: int, inbox: Sequence[RoutedLink], at_page: int,
                   model: tuple[int, list[Any]], seconds: float,
                   refill: bool = False) -> StepReport:  # fmt: skip
        """Crawl for about ``seconds``: record up to ``allowance`` pages, the fetches
        carried over from the last step included (they count against it); ship what was
        recorded; report, with the fetches carried over to the next step. With
        ``refill`` (every shard is dry) the dry rules act first (``CrawlPolicy.when_dry``)."""
        cpu0 = time.process_time()
        await self._ensure_open()
        version, refs = model
        if version > self.model_version and refs:
            scorer = await self.load_model(refs[0])
            self.model_version = version
            self.pipeline.swap_scorer(scorer)
        # negative: a count of the run's pages, which the writer must not take for a
        # local seq of this step (it stores -at_page)
        self.receive(inbox, -at_page)
        refilled = False
        if refill:
            policy = self.pipeline.policy
            policy.rules.dry = self.dry_rules
            try:
                refilled = policy.when_dry()
            finally:
                policy.rules.dry = []
        await self.engine.run_slice(allowance, seconds)
        self.cat.commit()
        tables = self.cat.take_outbox()
        committed = int(await self.ship(self.shard, tables)) if tables else 0
        if self.learn is not None and self.outcomes is not None:
            outcomes = self.outcomes.take()
            if outcomes:
                await self.learn(outcomes)
        st, self.stats = self.stats, CrawlStats()
        self.pipeline.stats = self.stats
        self.engine.attach(self.pipeline)
        return StepReport(self.shard, st.to_dict(), st.pages, self.store.take_routed(),
                          self.frontier.dry, len(self.frontier), time.process_time() - cpu0,
                          self.restarts, committed, refilled, self.engine.in_flight)  # fmt: skip


class ShardEngine(Engine):
    """The engine's loop for a shard's steps: a commit point hands the rows to the
    outbox (the writer records the run's counters)."""

    def commit(self) -> None:
        self.catalogue.commit()


__all__ = ["TABLES", "OutcomeBuffer", "RoutedLink", "ShardState", "ShardWorker", "StepReport",
           "shard_of"]
