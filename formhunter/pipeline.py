"""Steps 4-9 of the data flow on one batch of fetched pages (no asyncio).

``Pipeline.process(batch)`` takes the pages whose fetch completed together and
runs, stage by stage over the batch:

4. parse (``formhunter.parse.parse_page``; skipped for pages parsed in the fetch task);
   a fetch that failed for a transient reason is no page: the crawl policy may put its
   link back into the frontier (``CrawlPolicy.requeue``),
5. classify (``PageClassifier.page_scores``: one call per batch),
6. judge the forms new to their site (``FormCritic.judge_many``: one call per batch),
7. record each page in fetch order (``Catalogue.add_page``/``add_form``, the crawl
   policy's site budget, the path seed -> ... -> page from parent pointers, ``PathIndex``);
   with a critic that reads its site (``SiteAwareCritic``), the share of the site's
   pages on topic so far revisits the site's earlier verdicts: a form now relevant is
   revised in the catalogue, counted, and told to the learners with the page when it is
   on it,
8. learn (``Learner.observe`` with a ``PageOutcome``),
9. score the batch's new outlinks the crawl policy keeps (``frontier.policy``: follow
   rules, link rules) in one ``LinkScorer.score`` call and persist them
   (``CrawlFrontier.add_scored``, through the run's ``FrontierStore``): queued, or in
   the store's reserve (opened by ``CrawlPolicy.next_link`` when nothing queued is left);
   the pages of the sitemaps read since the last batch join them (``outlinks.Outlinks``).

It returns a ``BatchResult``: one ``PageResult`` per page recorded, the number of
new frontier links and the new link scorer a learner returned, if any (the
caller swaps it in and re-ranks; ``Pipeline.scorer`` is what scores meanwhile).
The pipeline writes into the catalogue, store, selector and site budget it is given,
so a caller that runs it elsewhere (e.g. a remote worker) passes its own.

Component exceptions (bugs, not the Web's fault) are counted in
``CrawlStats.faults`` and never stop the batch.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import duckdb

from formhunter import killpoints
from formhunter.catalogue import Catalogue, write_learner_states
from formhunter.components import Components, restore_learners
from formhunter.config import ParseSettings, Settings
from formhunter.exceptions import ParseError
from formhunter.fetch import FetchResult
from formhunter.fetch.sitemaps import SitemapLinks
from formhunter.frontier import FrontierStore, add_seeds
from formhunter.frontier.levels import ReadyIn
from formhunter.frontier.policy import CrawlPolicy, SiteBudget
from formhunter.interfaces import (
    CrawlFrontier,
    LinkScorer,
    PageOutcome,
    SiteAwareCritic,
)
from formhunter.model import Entry, Form, Page, Verdict
from formhunter.outlinks import Outlinks
from formhunter.parse import parse_page
from formhunter.stats import CrawlStats, Timer, charge, clock
from formhunter.strategies import Strategy, build
from formhunter.urls import canonicalize

log = logging.getLogger(__name__)

#: Fetch error kinds that mean "not fetched on purpose": no page row, link skipped.
NOT_FETCHED = frozenset({"robots", "robots-unreachable", "forbidden-address", "bad-url"})
MAX_PATH = 64


class PathIndex:
    """Parent pointers of fetched pages: the path seed -> ... -> page (bounded)."""

    def __init__(self) -> None:
        self.parents: dict[str, tuple[str, str]] = {}

    def add(self, url: str, parent: str, anchor: str) -> None:
        self.parents[url] = (parent, anchor)

    def path(self, url: str, anchor: str, parent: str) -> list[tuple[str, str]]:
        """(url, anchor) hops from a seed to ``url``."""
        hops = [(url, anchor)]
        seen = {url}
        while parent and parent not in seen and len(hops) < MAX_PATH:
            seen.add(parent)
            grand, a = self.parents.get(parent, ("", ""))
            hops.append((parent, a))
            parent = grand
        hops.reverse()
        return hops


@dataclass(slots=True)
class Fetched:
    """A fetched link; ``page`` when it was parsed (and maybe rendered) in the fetch task."""

    entry: Entry
    result: FetchResult
    page: Page | None = None


@dataclass(slots=True)
class PageResult:
    """One page recorded: its catalogue row's gist and the new forms stored for it."""

    url: str
    seq: int
    error: str
    page: Page | None = None
    score: float | None = None
    on_topic: bool = False
    forms: list[tuple[Form, Verdict]] = field(default_factory=list)


@dataclass
class BatchResult:
    """What one batch did: pages recorded, new frontier links, a new scorer if any."""

    pages: list[PageResult] = field(default_factory=list)
    links_added: int = 0
    new_scorer: LinkScorer | None = None


@dataclass(slots=True)
class _Item:
    """One fetched page on its way through a batch."""

    entry: Entry
    result: FetchResult
    out: PageResult
    new_forms: list[Form] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)  # of new_forms
    verdicts: list[Verdict] = field(default_factory=list)


def parse_fetched(entry: Entry, result: FetchResult, limits: ParseSettings) -> Page:
    """Step 4 for one fetched link within the crawl's ``[parse]`` limits (raises
    ParseError on an unparsable page)."""
    return parse_page(entry.url, result.body, final_url=result.final_url or None,
                      status=result.status, content_type=result.content_type or "text/html",
                      depth=entry.depth, limits=limits)  # fmt: skip


class Pipeline:
    """Steps 4-9 on batches of one run (module doc). ``stats`` is charged per stage."""

    def __init__(self, settings: Settings, strategy: Strategy, components: Components, *,
                 catalogue: Catalogue, run_id: int, store: FrontierStore,
                 frontier: CrawlFrontier, budget: SiteBudget, stats: CrawlStats,
                 paths: PathIndex | None = None) -> None:  # fmt: skip
        self._settings = settings
        self.strategy = strategy
        self.components = components
        self.catalogue = catalogue
        self.run_id = run_id
        self.store = store
        self.frontier = frontier
        self.budget = budget
        self._stats = stats
        self.paths = paths if paths is not None else PathIndex()
        self.policy = self._policy()
        self._new_scorer: LinkScorer | None = None
        self._states_at = -1  # stats.pages when the learners' states were last saved
        #: site -> [pages fetched and parsed, of them on topic] (for ``_revisit``)
        self._site_topic: dict[str, list[int]] = {}

    def _policy(self) -> CrawlPolicy:
        return CrawlPolicy(self._settings, self.strategy, frontier=self.frontier,
                           store=self.store, budget=self.budget, stats=self._stats,
                           scorer=lambda: self.components.scorer)  # fmt: skip

    @property
    def settings(self) -> Settings:
        """The run's settings (set: the crawl policy is built again from the new ones)."""
        return self._settings

    @settings.setter
    def settings(self, settings: Settings) -> None:
        self._settings = settings
        self.policy = self._policy()

    @property
    def stats(self) -> CrawlStats:
        """The counters charged (set: the crawl policy counts into the new ones too)."""
        return self._stats

    @stats.setter
    def stats(self, stats: CrawlStats) -> None:
        self._stats = self.policy.stats = stats

    def save_learners(self, con: duckdb.DuckDBPyConnection) -> None:
        """A catalogue flusher: the learners' states (``Learner.state``) in the commit's
        transaction, when pages were recorded since the last save."""
        if self.stats.pages == self._states_at:
            return
        with Timer(self.stats, "learn"):
            states = [(name, learner.state()) for name, learner in self.components.learners]
            write_learner_states(con, self.run_id, self.stats.pages, states)
        self._states_at = self.stats.pages

    def swap_scorer(self, scorer: LinkScorer) -> None:
        """Score with ``scorer`` from now on; re-rank the frontier if settings say so."""
        self.components.scorer = scorer
        self.stats.learning_iterations += 1
        if self.settings.learning.rerank:
            self.policy.rerank(scorer)

    def fault(self, kind: str) -> None:
        """Count a component exception (``CrawlPolicy.fault``: logged with its traceback)."""
        self.policy.fault(kind)

    def process(self, batch: Sequence[Fetched],
                sitemaps: Sequence[tuple[Entry, SitemapLinks]] = ()) -> BatchResult:
        """Steps 4-9 for the pages whose fetch completed together (module doc), and the
        links of ``sitemaps``: what the sitemaps named by an origin's robots.txt gave,
        each with the entry whose fetch was the first to know it (``fetch.sitemaps``)."""
        items = self._parse(batch)
        pages = [it for it in items if it.out.page is not None]
        self._classify(pages)
        self._judge([it for it in pages if it.new_forms])
        links = Outlinks(self.policy, self.store, self.frontier, self.stats,
                         dom_terms=self.strategy.dom_terms,
                         max_links_per_page=self.settings.frontier.max_links_per_page)  # fmt: skip
        for it in items:
            self._record(it, links)
            killpoints.reached("mid-batch")
        for entry, found in sitemaps:
            links.sitemap(entry, found)
        added = links.add(self.components.scorer)
        new, self._new_scorer = self._new_scorer, None
        return BatchResult([it.out for it in items], added, new)

    # -- the stages -------------------------------------------------------------

    def _parse(self, batch: Sequence[Fetched]) -> list[_Item]:
        st = self.stats
        items: list[_Item] = []
        now = time.monotonic()
        for f in batch:
            entry, result = f.entry, f.result
            if result.error in NOT_FETCHED:
                self.frontier.done(entry, "skipped", result.error, now)
                st.skipped[result.error] += 1
                continue
            if result.error and self.policy.requeue(entry, result.error, result.status, now):
                continue  # a transient failure: the link is queued again, no page counted
            st.pages += 1
            st.session_pages += 1
            it = _Item(entry, result, PageResult(entry.url, st.pages, result.error))
            items.append(it)
            if result.error:
                st.errors[result.error] += 1
                continue
            if f.page is not None:  # parsed (and maybe rendered) in the fetch task
                it.out.page = f.page
                st.parsed += 1
                continue
            t0 = clock()
            try:
                it.out.page = parse_fetched(entry, result, self.settings.parse)
                st.parsed += 1
            except Exception as exc:
                it.out.error = "parse"
                st.errors["parse"] += 1
                if not isinstance(exc, ParseError):
                    self.fault("parse")
            charge(st, "parse", t0)
        return items

    def _classify(self, items: list[_Item]) -> None:
        if not items:
            return
        t0 = clock()
        pages = [it.out.page for it in items if it.out.page is not None]
        try:
            scores = list(self.components.page_classifier.page_scores(pages))
            if len(scores) != len(items):
                raise ValueError("page classifier returned a score count unlike the pages'")
        except Exception:
            self.fault("page_classifier")
            scores = [0.0] * len(items)
        threshold = self.strategy.on_topic_threshold
        cat, run_id = self.catalogue, self.run_id
        for it, page, score in zip(items, pages, scores, strict=True):
            out = it.out
            out.score = float(score)
            out.on_topic = out.score >= threshold
            # Only forms new to the site are judged: a site repeats its forms on every page.
            for f in page.forms:
                sig = f.signature
                if cat.is_new_form(run_id, page.site, sig):
                    it.new_forms.append(f)
                    it.signatures.append(sig)
        charge(self.stats, "classify", t0)

    def _judge(self, items: list[_Item]) -> None:
        if not items:
            return
        t0 = clock()
        try:
            results = list(self.components.critic.judge_many(
                [(it.new_forms, it.out.page) for it in items if it.out.page is not None]))
            for it, verdicts in zip(items, results, strict=True):
                if len(verdicts) != len(it.new_forms):
                    raise ValueError("critic returned a verdict count unlike the forms'")
                it.verdicts = list(verdicts)
        except Exception:
            self.fault("critic")
            for it in items:
                it.verdicts = []
                it.new_forms = []
                it.signatures = []
        charge(self.stats, "critic", t0)

    def _record(self, it: _Item, links: Outlinks) -> None:
        """Step 7 (catalogue), the site budget, step 8 (learners), step 9 (collect links)."""
        st, cat, entry, out, result = self.stats, self.catalogue, it.entry, it.out, it.result
        page, seq = out.page, out.seq
        t0 = clock()
        st.on_topic += out.on_topic
        cat.add_page(self.run_id, seq, page, url=entry.url, site=entry.site, host=entry.host,
                     status=result.status, error=out.error, content_type=result.content_type,
                     depth=entry.depth, page_score=out.score,
                     on_topic=out.on_topic if page is not None else None,
                     n_bytes=len(result.body), elapsed=result.elapsed, parent_url=entry.parent,
                     anchor=entry.anchor, final_url=result.final_url)  # fmt: skip
        self.paths.add(entry.url, entry.parent, entry.anchor)
        self.frontier.done(entry, "fetched" if page is not None else "failed", out.error,
                           time.monotonic())  # fmt: skip
        new_searchable = new_relevant = 0
        hops: list[tuple[str, str]] | None = None
        if page is not None and it.verdicts:
            hops = self.paths.path(entry.url, entry.anchor, entry.parent)
            for form, sig, verdict in zip(it.new_forms, it.signatures, it.verdicts,
                                          strict=True):  # fmt: skip
                if cat.add_form(self.run_id, seq, page, form, verdict, found_after_pages=seq,
                                path=hops, signature=sig,
                                page_score=out.score) is None:  # fmt: skip
                    continue
                out.forms.append((form, verdict))
                st.forms += 1
                if verdict.searchable:
                    st.searchable += 1
                    new_searchable += 1
                if verdict.relevant:
                    st.relevant += 1
                    new_relevant += 1
        revised = self._revisit(page, out.on_topic) if page is not None else []
        st.relevant += len(revised)
        charge(st, "catalogue", t0)
        self.policy.page(entry.site, new_searchable, new_relevant + len(revised))
        if page is not None:
            if result.redirects:
                final = canonicalize(page.final_url)
                if final and final != page.url:
                    self.store.add_redirect_target(final, page.depth, at_page=seq)
            score = out.score or 0.0
            if self.components.learners:
                on_page = {f.signature: f for f in page.forms} if revised else {}
                later = [(on_page[sig], v) for sig, v in revised if sig in on_page]
                if later:  # the learners hear of them with this page, which holds them
                    page = replace(page, forms=[*it.new_forms, *(f for f, _ in later)])
                self._learn(entry, page, score, [*it.verdicts, *(v for _, v in later)], hops)
            links.page(entry, page, score, out.on_topic, seq)
        elif self.components.learners:
            self._failed(entry)

    def _revisit(self, page: Page, on_topic: bool) -> list[tuple[str, Verdict]]:
        """Count the page for its site; the site's earlier forms its evidence now makes
        relevant, revised in the catalogue: (signature, verdict)."""
        critic = self.components.critic
        if not isinstance(critic, SiteAwareCritic):
            return []
        counts = self._site_topic.setdefault(page.site, [0, 0])
        counts[0] += 1
        counts[1] += bool(on_topic)
        try:
            found = critic.revisit_site(page.site, counts[1] / counts[0])
        except Exception:
            self.fault("critic")
            return []
        for sig, verdict in found:
            self.catalogue.revise_form(self.run_id, page.site, sig, verdict)
        return found

    def _learn(self, entry: Entry, page: Page, page_score: float, verdicts: list[Verdict],
               hops: list[tuple[str, str]] | None) -> None:  # fmt: skip
        with Timer(self.stats, "learn"):
            path = [u for u, _ in (hops or self.paths.path(entry.url, entry.anchor, entry.parent))]
            outcome = PageOutcome(page, page_score, verdicts, path, entry.link, entry.lid)
            for name, learner in self.components.learners:
                try:
                    new = learner.observe(outcome)
                except Exception:
                    self.fault(f"learner:{name}")
                    continue
                killpoints.reached("learn")
                if new is not None:
                    self._new_scorer = new  # swapped after the batch's links are stored

    def _failed(self, entry: Entry) -> None:
        """Step 8 for a fetch that earned no page (before the batch's outlinks are added)."""
        with Timer(self.stats, "learn"):
            for name, learner in self.components.learners:
                try:
                    learner.failed(entry.link, entry.lid)
                except Exception:
                    self.fault(f"learner:{name}")

    def finish(self) -> None:
        """The crawl ended: every learner's ``finish`` (e.g. a policy saved)."""
        with Timer(self.stats, "learn"):
            for name, learner in self.components.learners:
                try:
                    learner.finish()
                except Exception:
                    self.fault(f"learner:{name}")


def open_pipeline(settings: Settings, strategy: Strategy, catalogue: Catalogue, run_id: int, *,
                  resumed: bool, seeds: Sequence[str], stats: CrawlStats,
                  ready_in: ReadyIn | None = None) -> Pipeline:  # fmt: skip
    """The pipeline of run ``run_id`` with its components, frontier store, selector
    and site budget: a new run's frontier gets ``seeds``; a resumed run's state comes
    from the catalogue (``stats.pages`` set) and ``seeds`` not in its frontier yet
    are queued again."""
    store = FrontierStore(catalogue.con, run_id)
    catalogue.add_flusher(store.flush)
    components = Components.build(settings, strategy, catalogue=catalogue, run_id=run_id)
    catalogue.update_run(run_id, models=components.models())
    # The frontier is built after the learners: one may drive it (``Strategy.frontier``).
    frontier: CrawlFrontier = build(
        "frontier", strategy.frontier, store=store, settings=settings,
        ready_in=ready_in, per_host=settings.fetch.per_host_connections,
        n_levels=max(settings.frontier.levels, components.scorer.n_levels) + 1,
        learners=[x for _, x in components.learners], resumed=resumed,
        random_state=settings.crawl.random_state,
    )  # fmt: skip
    paths = PathIndex()
    if resumed:
        restore_learners(components, catalogue.learner_states(run_id), stats)
        state = catalogue.resume_state(run_id)
        stats.pages = state.pages
        paths.parents.update(state.parents)
        budget = SiteBudget.from_resume(settings.stopping, state)
    else:
        budget = SiteBudget(settings.stopping)
    bad = add_seeds(frontier, seeds)
    if bad and not resumed:
        stats.skipped["bad-seed"] += bad
    pipeline = Pipeline(settings, strategy, components, catalogue=catalogue, run_id=run_id,
                        store=store, frontier=frontier, budget=budget, stats=stats,
                        paths=paths)  # fmt: skip
    if components.learners:
        catalogue.add_flusher(pipeline.save_learners)
    return pipeline

