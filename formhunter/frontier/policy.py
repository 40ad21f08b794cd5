"""Crawl policy in one place: what to do with a page's links, what to do when the
frontier runs dry, when a site closes and how a run ends.

``CrawlPolicy`` is built once per run by the ``Pipeline`` (its rules by ``Rules.build``
from the settings and the strategy; the site rules and ``SiteBudget`` live in
``frontier/sites.py``, the route policy within a site in ``frontier/routes.py``); the
pipeline and the engine ask it, never the settings, what to do:

- ``follow(depth, on_topic, n_links)``: a page's outlinks are queued, queued in the
  last level, kept in reserve, or dropped (``Follow``);
- ``link_reason(url, site, depth, link)``: why one new outlink is skipped ("" = keep);
- ``sitemap_follow(url, depth)``: a page a site's XML sitemap lists (``fetch.sitemaps``)
  is queued when its URL names a search route (then placed by the route policy, as a
  route link), else placed as an off-topic page's outlinks are;
- ``promote_below(scorer)`` / ``promote(...)``: links bound for the reserve that
  ``scorer`` puts in a level below this one are queued at once (ACHE's delayed benefit);
- ``next_link(now)``: the selector's next link, links of closed sites skipped on the
  way; when nothing queued is left, the dry rules act (extend sites, open the reserve:
  the store queues the links again, the selector re-ranks them);
- ``exhausted()``: nothing queued, nothing in flight, nothing in reserve;
- ``page(site, new_searchable, new_relevant)``: one page of ``site`` counted in the
  ``SiteBudget``, whose site rules close it;
- ``saw(site, on_topic)`` / ``routes_first(...)``: the route policy within a site
  (``SiteRoutes``, ``[frontier] route_links_per_site``): on a site that looks on-domain,
  links naming a search route (``route_words``, many languages) go first, at scoring
  and at every re-rank;
- ``requeue(entry, error, status, now)``: a fetch that failed for a transient reason
  (``transient``) puts its link back into the frontier, at most ``[frontier]
  requeue_failed`` times per link (counted in memory: a resumed run may try a link
  that many times again), instead of marking it failed;
- ``stop_reason()``: a reason to stop the run now ("" = go on);
- ``end_reason()``: why a run whose frontier is exhausted ended.

Extension points: each decision asks a short ordered list of rules; the first rule
that answers wins. A new rule is a small class with the method below, added to the
list in ``Rules.build`` (its switch a setting in config.py) and one test. Rules keep no
state of their own between runs; what they count lives in ``SiteBudget`` or
``CrawlStats`` (both restored on ``--resume``).

=============  =========================================  ===========================
rule kind      method (answers "" / None to pass)         built-in rules, in order
=============  =========================================  ===========================
``SiteRule``   ``reason(site, budget) -> str``: close      ``PageLimit``, ``FormLimit``,
               the site (checked after each of its pages)  ``RelevantFormLimit``,
                                                           ``NoFormLimit``,
                                                           ``SiteExhausted``
``FollowRule`` ``decide(depth, on_topic) -> Follow|None``  ``FollowOnTopic`` or
                                                           ``OnTopicFirst`` (by
                                                           ``Strategy.follow``)
``LinkRule``   ``reason(url, site, depth, link) -> str``:  ``TrapLimits``, ``NoFollow``,
               skip one outlink with that reason            ``SiteClosed``
``DryRule``    ``act(policy) -> Dry``: nothing queued is    ``ExtendSites``,
               left; queue more (every rule acts, in order) ``OpenReserve``
``StopRule``   ``reason(stats) -> str``: end the run now    ``TimeLimit``
``EndRule``    ``reason(stats) -> str``: why an exhausted   ``SiteLimitsLeft``,
               frontier ended the run (else "exhausted")    ``NotFollowedLeft``
=============  =========================================  ===========================

The page budget ("budget") stays the engine's: it is the allowance of links taken,
not a decision about them. A site the site rules closed is skipped (``SiteClosed``,
``next_link``) only for strategies with ``site_limits``. A cluster crawl's driver asks
the same stop and end rules (``stop_rules``, ``end_rules``, ``first_reason``) of the
shards' merged counters; each shard's pipeline has its own ``CrawlPolicy``.
"""

from __future__ import annotations

import enum
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from formhunter.config import FrontierSettings, Settings
from formhunter.frontier.routes import SiteRoutes, route_words
from formhunter.frontier.sites import SiteBudget, SiteRule
from formhunter.interfaces import CrawlFrontier, LinkRecord, LinkScorer
from formhunter.model import Entry, Link
from formhunter.stats import CrawlStats

if TYPE_CHECKING:
    from formhunter.frontier.store import FrontierStore
    from formhunter.strategies import Strategy

log = logging.getLogger(__name__)

__all__ = [
    "CrawlPolicy", "Dry", "DryRule", "EndRule", "Follow", "FollowRule", "LinkRule", "Rules",
    "SiteBudget", "SiteRule", "StopRule", "end_rules", "first_reason", "stop_rules", "trap",
]  # fmt: skip


# -- follow rules ------------------------------------------------------------------


class Follow(enum.Enum):
    """What becomes of a page's outlinks."""

    QUEUE = "queue"  # scored and queued
    LAST = "last"  # queued in the frontier's last level (not ranked)
    RESERVE = "reserve"  # kept aside until the frontier runs dry (``OpenReserve``)
    DROP = "drop"  # not followed at all


class FollowRule(Protocol):
    """Decides for a page's outlinks: ``decide(depth, on_topic)`` (``depth`` of the page,
    0 for a seed) returns a ``Follow``, or None to let the next rule decide (none
    decides: ``Follow.QUEUE``)."""

    def decide(self, depth: int, on_topic: bool) -> Follow | None: ...


@dataclass(frozen=True)
class FollowOnTopic:
    """ACHE's FFC: only the outlinks of seeds and on-topic pages are queued; the others
    are kept in reserve (``[frontier] reserve``) or dropped."""

    reserve: bool

    def decide(self, depth: int, on_topic: bool) -> Follow | None:
        # A seed is followed whatever its score: the user chose it as a way in, and a
        # directory page or portal home often scores off topic though it links on.
        if on_topic or depth == 0:
            return None
        return Follow.RESERVE if self.reserve else Follow.DROP


class OnTopicFirst:
    """Off-topic pages' outlinks (seeds' too) wait in the last level."""

    def decide(self, depth: int, on_topic: bool) -> Follow | None:
        return None if on_topic else Follow.LAST


# -- link rules --------------------------------------------------------------------


class LinkRule(Protocol):
    """Skips one new outlink: ``reason(url, site, depth, link)`` (``depth`` the link's,
    ``link`` as parsed) is the reason it is stored skipped with, "" to keep it."""

    def reason(self, url: str, site: str, depth: int, link: Link) -> str: ...


def trap(url: str, depth: int, s: FrontierSettings) -> str:
    """The trap limit ``url`` hits ("" if none): url-length, depth, repeated-segments."""
    if len(url) > s.max_url_length:
        return "url-length"
    if depth > s.max_depth:
        return "depth"
    start = url.find("/", url.find("//") + 2)
    if start > 0:
        end = len(url)
        for ch in "?#":
            i = url.find(ch, start)
            if 0 <= i < end:
                end = i
        segments = [p for p in url[start:end].split("/") if p]
        if len(segments) > s.max_repeated_segments:
            top = Counter(segments).most_common(1)[0][1]
            if top > s.max_repeated_segments:
                return "repeated-segments"
    return ""


@dataclass(frozen=True)
class TrapLimits:
    """The frontier's trap limits (``trap``: url-length, depth, repeated-segments)."""

    settings: FrontierSettings

    def reason(self, url: str, site: str, depth: int, link: Link) -> str:
        return trap(url, depth, self.settings)


class NoFollow:
    """rel="nofollow" links (``[frontier] follow_nofollow`` false)."""

    def reason(self, url: str, site: str, depth: int, link: Link) -> str:
        return "nofollow" if link.nofollow else ""


@dataclass(frozen=True)
class SiteClosed:
    """Links of a site the site rules closed."""

    budget: SiteBudget

    def reason(self, url: str, site: str, depth: int, link: Link) -> str:
        return self.budget.closed.get(site, "")


# -- dry, stop and end rules -------------------------------------------------------


@dataclass(frozen=True)
class Dry:
    """What a dry rule did: ``queued`` links; ``ranked`` if every queued link was
    re-scored (else one re-rank follows the dry rules)."""

    queued: bool = False
    ranked: bool = False


class DryRule(Protocol):
    """Acts when nothing queued is left and nothing is in flight: ``act(policy)`` may
    queue links (through ``policy.store``, for a selector that ``takes_back``) and says
    so. Every dry rule acts, in order."""

    def act(self, policy: CrawlPolicy) -> Dry: ...


class ExtendSites:
    """The sites the page limit closed get ``[stopping] extend_pages`` more pages and
    their skipped links are queued again (not yet re-scored; a selector that does not
    take links back takes only the links found from now on)."""

    def act(self, policy: CrawlPolicy) -> Dry:
        sites = policy.budget.extend()
        if not sites:
            return Dry()
        policy.stats.sites_extended += 1
        if not policy.frontier.takes_back:
            return Dry()
        try:
            n = policy.store.requeue_skipped(sites, "site-pages")
        except Exception:
            policy.fault("extend")
            return Dry()
        log.info("frontier dry: page limit %d, %d links of %d sites queued again",
                 policy.budget.settings.max_pages_per_site + policy.budget.extra_pages,
                 n, len(sites))  # fmt: skip
        return Dry(queued=n > 0)


class OpenReserve:
    """The links kept in reserve are queued, every queued link re-scored by the scorer."""

    def act(self, policy: CrawlPolicy) -> Dry:
        if not policy.store.n_reserve or not policy.frontier.takes_back:
            return Dry()
        try:
            n = policy.store.open_reserve()
            policy.frontier.rerank(policy.scorer(), routes=policy.routes)
        except Exception:
            policy.fault("reserve")
            return Dry(ranked=True)  # no re-rank after a failed one
        policy.stats.reserve_opened += 1
        log.info("frontier dry: %d links of the reserve queued", n)
        return Dry(queued=n > 0, ranked=True)


class StopRule(Protocol):
    """Ends the run now: ``reason(stats)`` is the end reason ("" = go on). Checked by
    the engine before it takes more links; what was fetched is still processed."""

    def reason(self, stats: CrawlStats) -> str: ...


@dataclass(frozen=True)
class TimeLimit:
    """``[crawl] max_seconds`` of wall time (0: none)."""

    seconds: float

    def reason(self, stats: CrawlStats) -> str:
        return "time-limit" if self.seconds and stats.seconds >= self.seconds else ""


class EndRule(Protocol):
    """Why a run whose frontier is exhausted ended before its budget: ``reason(stats)``,
    "" to let the next rule say (none says: "exhausted")."""

    def reason(self, stats: CrawlStats) -> str: ...


class SiteLimitsLeft:
    """Links were left that the site rules closed."""

    def reason(self, stats: CrawlStats) -> str:
        return "site-limits" if any(n for r, n in stats.skipped.items()
                                    if r.startswith("site-")) else ""  # fmt: skip


class NotFollowedLeft:
    """Links were left that the follow rules did not follow, without a reserve."""

    def reason(self, stats: CrawlStats) -> str:
        return "not-followed" if stats.links_not_followed > stats.links_reserved else ""


def stop_rules(settings: Settings) -> list[StopRule]:
    """The stop rules the settings switch on, in order."""
    return [TimeLimit(settings.crawl.max_seconds)]


def end_rules(settings: Settings) -> list[EndRule]:
    """The end rules, in order."""
    return [SiteLimitsLeft(), NotFollowedLeft()]


def first_reason(rules: Sequence[StopRule | EndRule], stats: CrawlStats) -> str:
    """The reason of the first stop or end rule that gives one ("" if none does)."""
    for rule in rules:
        why = rule.reason(stats)
        if why:
            return why
    return ""


# -- transient fetch failures -------------------------------------------------------

#: Fetch error kinds (``formhunter.fetch.http``) that say nothing about the URL: the
#: network, the server or this machine was busy. HTTP statuses: see ``transient``.
TRANSIENT = frozenset({"timeout", "connect", "disconnected", "payload", "proxy"})


def transient(error: str, status: int) -> bool:
    """Whether a fetch that failed with ``error`` (HTTP ``status``, 0 if none) may
    succeed later: a ``TRANSIENT`` kind, 429, or a 5xx other than 501."""
    if error in TRANSIENT:
        return True
    return bool(error) and (status == 429 or (500 <= status < 600 and status != 501))


# -- the policy --------------------------------------------------------------------


@dataclass
class Rules:
    """The ordered rule lists of one run (module doc)."""

    follow: list[FollowRule] = field(default_factory=list)
    links: list[LinkRule] = field(default_factory=list)
    dry: list[DryRule] = field(default_factory=list)
    stop: list[StopRule] = field(default_factory=list)
    end: list[EndRule] = field(default_factory=list)

    @classmethod
    def build(cls, settings: Settings, strategy: Strategy, budget: SiteBudget) -> Rules:
        """The rules the settings and the strategy switch on."""
        fs = settings.frontier
        follow: list[FollowRule] = []
        if strategy.follow == "on_topic":
            follow.append(FollowOnTopic(reserve=fs.reserve))
        elif strategy.follow == "on_topic_first":
            follow.append(OnTopicFirst())
        links: list[LinkRule] = [TrapLimits(fs)]
        if not fs.follow_nofollow:
            links.append(NoFollow())
        dry: list[DryRule] = []
        if strategy.site_limits:
            links.append(SiteClosed(budget))
            dry.append(ExtendSites())
        dry.append(OpenReserve())
        return cls(follow, links, dry, stop_rules(settings), end_rules(settings))


class CrawlPolicy:
    """The crawl policy of one run (module doc): ``frontier`` is the selector, ``store``
    the links it selects from. ``scorer()`` is the link scorer in use (it changes as
    learners hand out new ones); counters go to ``stats``."""

    def __init__(self, settings: Settings, strategy: Strategy, *, frontier: CrawlFrontier,
                 store: FrontierStore, budget: SiteBudget, stats: CrawlStats,
                 scorer: Callable[[], LinkScorer], rules: Rules | None = None) -> None:  # fmt: skip
        self.settings = settings
        self.strategy = strategy
        self.frontier = frontier
        self.store = store
        self.budget = budget
        self.stats = stats
        self.scorer = scorer
        self.rules = rules if rules is not None else Rules.build(settings, strategy, budget)
        self.tries: Counter[int] = Counter()  # lid -> times requeued (``requeue``)
        fs = settings.frontier
        self.routes = (SiteRoutes(fs.route_links_per_site, budget)
                       if fs.route_links_per_site and strategy.site_limits
                       and strategy.frontier == "levels" else None)  # fmt: skip

    # -- a page's links ------------------------------------------------------------

    def follow(self, depth: int, on_topic: bool, n_links: int) -> Follow:
        """What becomes of the ``n_links`` outlinks of a page at ``depth`` (counted in
        ``links_not_followed`` / ``links_reserved`` when not queued)."""
        for rule in self.rules.follow:
            decision = rule.decide(depth, on_topic)
            if decision is not None:
                break
        else:
            return Follow.QUEUE
        if decision in (Follow.RESERVE, Follow.DROP):
            self.stats.links_not_followed += n_links
            if decision is Follow.RESERVE:
                self.stats.links_reserved += n_links
        return decision

    def sitemap_follow(self, url: str, depth: int) -> Follow:
        """What becomes of a page URL a site's sitemap lists, found at ``depth``: one whose
        URL names a search route (``route_words``) is queued, for the route policy (module
        doc); the others are placed as the outlinks of an off-topic page are: a sitemap
        says what a site holds, not what is on topic (counted as ``follow`` counts)."""
        if route_words().url(url):
            return Follow.QUEUE
        return self.follow(max(depth, 1), False, 1)

    def link_reason(self, url: str, site: str, depth: int, link: Link) -> str:
        """Why a new outlink is skipped ("" = it is scored and stored)."""
        for rule in self.rules.links:
            why = rule.reason(url, site, depth, link)
            if why:
                return why
        return ""

    def site_reason(self, site: str) -> str:
        """Why ``site`` is closed ("" = open, or the strategy has no site limits)."""
        return self.budget.reason(site) if self.strategy.site_limits else ""

    def page(self, site: str, new_searchable: int, new_relevant: int) -> None:
        """One page of ``site`` was recorded with so many new searchable/relevant forms."""
        self.budget.page(site, new_searchable, new_relevant)

    def saw(self, site: str, on_topic: bool) -> None:
        """A page of ``site`` was fetched, on topic or not (``SiteRoutes.saw``)."""
        if self.routes is not None:
            self.routes.saw(site, on_topic)

    def routes_first(self, records: Sequence[LinkRecord], levels: np.ndarray, scores: np.ndarray,
                     reserve: list[bool]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """New links, as scored: the route links of on-domain sites go first
        (``SiteRoutes``), queued even when bound for the reserve (``reserve[i]`` cleared;
        counted in ``route_links``)."""
        if self.routes is None:
            return levels, scores
        moved: list[int] = []
        levels, scores = self.routes.links(records, levels, scores, moved)
        for i in moved:
            reserve[i] = False
        self.stats.route_links += len(moved)
        return levels, scores

    def promote_below(self, scorer: LinkScorer) -> int:
        """Links not followed that ``scorer`` puts in a level below this one are queued
        at once (ACHE's delayed benefit: an off-topic page may link close to a form):
        the path levels of a multi-level scorer, never its last level (0: none)."""
        if not self.settings.frontier.reserve_by_level:
            return 0
        return max(min(scorer.n_levels - 1, self.settings.learning.path_length), 0)

    @staticmethod
    def last(levels: np.ndarray, scores: np.ndarray,
             last: list[bool]) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The links ``Follow.LAST`` placed (``last[i]``) go to the last level, unranked."""
        pick = np.asarray(last)
        return np.where(pick, -1, levels), np.where(pick, np.nan, scores)

    def promote(self, scorer: LinkScorer, levels: np.ndarray, scores: np.ndarray,
                reserve: list[bool]) -> None:  # fmt: skip
        """Links bound for the reserve (``reserve[i]``) that ``scorer`` put in a level below
        ``promote_below`` are queued instead (counted in ``links_near_form``)."""
        below = self.promote_below(scorer)
        if not below:
            return
        lv = np.asarray(levels)
        near = (lv >= 0) & (lv < below) & ~np.isnan(np.asarray(scores, dtype=np.float64))
        for i in np.flatnonzero(near & np.asarray(reserve)).tolist():
            reserve[i] = False
            self.stats.links_near_form += 1

    def requeue(self, entry: Entry, error: str, status: int, now: float) -> bool:
        """The fetch of ``entry`` failed with ``error``: if that is ``transient`` and the
        link went back fewer than ``requeue_failed`` times, it goes back into the frontier
        at its level (``CrawlFrontier.abandon``: queued, taken again) and True; else False
        (the caller records the failure)."""
        most = self.settings.frontier.requeue_failed
        if not most or not transient(error, status) or self.tries[entry.lid] >= most:
            return False
        self.tries[entry.lid] += 1
        self.frontier.abandon(entry, now)
        self.stats.requeued += 1
        return True

    # -- taking links ----------------------------------------------------------------

    def next_link(self, now: float) -> Entry | None:
        """The frontier's next link (``CrawlFrontier.next``); links of closed sites are
        marked skipped on the way. When nothing queued is left (and nothing is in
        flight), the dry rules act (``when_dry``)."""
        fr = self.frontier
        while True:
            entry = fr.next(now)
            if entry is None and fr.dry and self.when_dry():
                entry = fr.next(now)
            if entry is None:
                return None
            reason = self.site_reason(entry.site)
            if not reason:
                return entry
            fr.done(entry, "skipped", reason, now)
            self.stats.skipped[reason] += 1

    def when_dry(self) -> bool:
        """Every dry rule acts, in order; the links they queued without re-scoring are
        re-ranked once. Whether any rule acted."""
        acted = ranked = False
        for rule in self.rules.dry:
            d = rule.act(self)
            acted |= d.queued or d.ranked
            ranked |= d.ranked
        if acted and not ranked:
            self.rerank(self.scorer())
        return acted

    def rerank(self, scorer: LinkScorer) -> None:
        """Re-score the queued links with ``scorer`` (a fault is recorded, not raised)."""
        t0 = time.perf_counter()
        try:
            n = self.frontier.rerank(scorer, self.promote_below(scorer), self.routes)
        except Exception:
            self.fault("rerank")
        else:
            self.stats.reranks += 1
            self.stats.token_reranks += self.store.last_rerank_tokens
            log.info("frontier re-ranked: %d links in %.2fs", n, time.perf_counter() - t0)

    def exhausted(self) -> bool:
        """Nothing left to fetch: the selector is dry and nothing waits in reserve."""
        return self.frontier.dry and self.store.n_reserve <= 0

    # -- ending ----------------------------------------------------------------------

    def stop_reason(self) -> str:
        """A reason to end the run now ("" = go on)."""
        return first_reason(self.rules.stop, self.stats)

    def end_reason(self) -> str:
        """Why a run whose frontier is exhausted ended before its budget: the first end
        rule's reason, else "exhausted"."""
        return first_reason(self.rules.end, self.stats) or "exhausted"

    def fault(self, kind: str) -> None:
        """Count a component exception (logged with its traceback)."""
        self.stats.faults[kind] += 1
        log.exception("%s failed", kind)
