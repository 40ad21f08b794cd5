"""Step 9 of the data flow: a batch's new outlinks, collected as the crawl policy says,
scored in one call and persisted (``Pipeline.process``; module doc of pipeline.py).

``Outlinks`` lives for one batch. Each recorded page gives its links (``page``), each
sitemap read its pages (``sitemap``); a link new to the batch and to the frontier (or
waiting in the reserve and now followed) joins unless a link rule skips it (stored
skipped, counted). ``add`` scores them with one ``LinkScorer.score`` call, applies the
policy's route, last-hop and reserve rules to the levels, and adds them to the
frontier: queued, or in the store's reserve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from formhunter.fetch.sitemaps import SitemapLinks
from formhunter.frontier import FrontierStore
from formhunter.frontier.policy import CrawlPolicy, Follow
from formhunter.interfaces import CrawlFrontier, LinkRecord, LinkScorer
from formhunter.model import Entry, Link, Page
from formhunter.parse import dom_offset_terms
from formhunter.stats import CrawlStats, Timer, charge, clock
from formhunter.urls import host_of, site_of_host

__all__ = ["Outlinks", "score_links"]


def score_links(scorer: LinkScorer, cands: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
    """``scorer.score(cands)`` as arrays, checked to have one entry per link."""
    levels, scores = scorer.score(cands)
    levels, scores = np.asarray(levels), np.asarray(scores, dtype=np.float64)
    if levels.shape != (len(cands),) or scores.shape != (len(cands),):
        raise ValueError("scorer returned arrays of the wrong length")
    return levels, scores


@dataclass(slots=True)
class _Links:
    """New links collected from a batch, scored together."""

    records: list[LinkRecord] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    last: list[bool] = field(default_factory=list)
    reserve: list[bool] = field(default_factory=list)
    urls: dict[str, int] = field(default_factory=dict)  # url -> index

    def add(self, rec: LinkRecord, host: str, seq: int, last: bool, reserve: bool) -> None:
        self.urls[rec.url] = len(self.records)
        self.records.append(rec)
        self.hosts.append(host)
        self.seqs.append(seq)
        self.last.append(last)
        self.reserve.append(reserve)


class Outlinks:
    """One batch's new outlinks (module doc)."""

    def __init__(self, policy: CrawlPolicy, store: FrontierStore, frontier: CrawlFrontier,
                 stats: CrawlStats, *, dom_terms: bool,
                 max_links_per_page: int) -> None:  # fmt: skip
        self.policy = policy
        self.store = store
        self.frontier = frontier
        self.stats = stats
        self.dom_terms = dom_terms
        self.max_links_per_page = max_links_per_page
        self.links = _Links()

    def page(self, entry: Entry, page: Page, page_score: float, on_topic: bool,
             seq: int) -> None:  # fmt: skip
        """Collect a recorded page's new outlinks as the crawl policy says (follow, skip)."""
        st, policy = self.stats, self.policy
        policy.saw(entry.site, on_topic)
        follow = policy.follow(entry.depth, on_topic, len(page.links))
        if follow is Follow.DROP:
            return
        reserve = follow is Follow.RESERVE
        last = follow is Follow.LAST
        t0 = clock()
        depth = entry.depth + 1
        on_page: set[str] = set()
        for lk in page.links:
            u = lk.url
            if u in on_page:
                continue
            on_page.add(u)
            if len(on_page) > self.max_links_per_page:
                st.skipped["links-per-page"] += 1
                continue
            if not self._new_link(u, reserve):
                continue
            host = host_of(u)
            site = site_of_host(host)
            rec = LinkRecord(u, site, depth, page.url, lk.anchor, lk.around, page_score,
                             " ".join(f"{t}@{d}" for t, d in dom_offset_terms(page, lk))
                             if self.dom_terms else "")  # fmt: skip
            self._keep_link(rec, host, lk, seq, last, reserve)
        charge(st, "frontier", t0)

    def sitemap(self, entry: Entry, found: SitemapLinks) -> None:
        """The pages a site's sitemaps list join the batch's new links, one hop below
        ``entry`` (whose fetch claimed them), as the crawl policy says
        (``sitemap_follow``, link rules); no anchor and no nearby words: a sitemap names a
        page, nothing more."""
        st = self.stats
        t0 = clock()
        st.sitemaps += found.read
        st.sitemap_errors.update(found.errors)
        depth, seq = entry.depth + 1, st.pages
        for u, sitemap in found.urls:
            follow = self.policy.sitemap_follow(u, depth)
            reserve = follow is Follow.RESERVE
            if follow is Follow.DROP or not self._new_link(u, reserve):
                continue
            host = host_of(u)
            rec = LinkRecord(u, site_of_host(host), depth, sitemap)
            st.sitemap_links += self._keep_link(rec, host, Link(u), seq, follow is Follow.LAST,
                                                reserve)  # fmt: skip
        charge(st, "frontier", t0)

    def _new_link(self, url: str, reserve: bool) -> bool:
        """Whether ``url`` is a link new to the batch and to the frontier (or waits in
        reserve and is now queued); one the batch has already is queued if it is now."""
        links = self.links
        i = links.urls.get(url)
        if i is not None:
            if links.reserve[i] and not reserve:  # a followed page links it too
                links.reserve[i] = False
            return False
        return url not in self.store.seen or (not reserve and self.store.in_reserve(url))

    def _keep_link(self, rec: LinkRecord, host: str, link: Link, seq: int, last: bool,
                   reserve: bool) -> bool:  # fmt: skip
        """A new link joins the batch's links, unless a link rule skips it (stored
        skipped, counted); whether it joined."""
        reason = self.policy.link_reason(rec.url, rec.site, rec.depth, link)
        if reason:
            self.store.add_skipped(rec, host, reason, at_page=seq)
            self.stats.skipped[reason] += 1
            return False
        self.links.add(rec, host, seq, last, reserve)
        return True

    def add(self, scorer: LinkScorer) -> int:
        """Score the batch's new links with ``scorer`` in one call (its exception is a
        fault: the links are stored unscored) and persist them; the number queued."""
        links, policy = self.links, self.policy
        if not links.records:
            return 0
        with Timer(self.stats, "score"):
            try:
                levels, scores = score_links(scorer, links.records)
            except Exception:
                policy.fault("scorer")
                levels, scores = np.full(len(links.records), -1), np.full(len(links.records),
                                                                          math.nan)  # fmt: skip
            levels, scores = policy.routes_first(links.records, levels, scores, links.reserve)
            if any(links.last):
                levels, scores = policy.last(levels, scores, links.last)
            if any(links.reserve):
                policy.promote(scorer, levels, scores, links.reserve)
        with Timer(self.stats, "frontier"):
            if not any(links.reserve):
                n = self.frontier.add_scored(links.records, links.hosts, levels, scores,
                                             at_page=links.seqs)  # fmt: skip
            else:
                n = 0
                res = np.asarray(links.reserve)
                for state, pick in (("queued", ~res), ("reserve", res)):
                    idx = np.flatnonzero(pick).tolist()
                    k = self.frontier.add_scored(
                        [links.records[i] for i in idx], [links.hosts[i] for i in idx],
                        levels[idx], scores[idx], at_page=[links.seqs[i] for i in idx],
                        state=state)  # fmt: skip
                    n += k if state == "queued" else 0
        self.stats.links_new += n
        return n
