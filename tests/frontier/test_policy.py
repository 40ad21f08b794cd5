"""The crawl policy (formhunter/frontier/policy.py): follow, link, dry, stop and end rules
on a real frontier over a DuckDB store; a new rule is one class in a rule list."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from policy_helpers import FlatScorer, policy_over_store

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.frontier import Frontier
from formhunter.frontier.policy import CrawlPolicy, Follow, Rules, SiteBudget
from formhunter.interfaces import LinkRecord
from formhunter.model import Link
from formhunter.stats import CrawlStats
from formhunter.strategies import get_strategy


def _policy(tmp_path: Path, strategy: str = "ache", **stopping: int
            ) -> tuple[CrawlPolicy, Frontier, Catalogue]:  # fmt: skip
    settings = Settings()
    settings = dataclasses.replace(settings, stopping=dataclasses.replace(
        settings.stopping, max_forms_per_site=0, **stopping))  # fmt: skip
    return policy_over_store(tmp_path, settings, FlatScorer(0, 1.0, n_levels=1), strategy=strategy,
                             domain="airfare", n_levels=2)


def _add(fr: Frontier, urls: list[str], state: str = "queued") -> None:
    recs = [LinkRecord(u, u.split("/")[2], 1) for u in urls]
    fr.add_scored(recs, [r.site for r in recs], np.zeros(len(recs)), np.ones(len(recs)),
                  state=state)  # fmt: skip


def test_follow_rules_of_the_ffc() -> None:
    """ache follows seeds and on-topic pages; off-topic pages' links go to the reserve."""
    s = Settings()
    rules = Rules.build(s, get_strategy("ache"), SiteBudget(s.stopping))
    policy = CrawlPolicy(s, get_strategy("ache"), frontier=None, store=None,  # type: ignore[arg-type]
                         budget=SiteBudget(s.stopping), stats=CrawlStats(),
                         scorer=lambda: FlatScorer(0, 1.0, n_levels=1), rules=rules)  # fmt: skip
    assert policy.follow(0, False, 5) is Follow.QUEUE  # a seed
    assert policy.follow(2, True, 5) is Follow.QUEUE
    assert policy.follow(2, False, 5) is Follow.RESERVE
    assert (policy.stats.links_not_followed, policy.stats.links_reserved) == (5, 5)
    off = dataclasses.replace(s, frontier=dataclasses.replace(s.frontier, reserve=False))
    drop = CrawlPolicy(off, get_strategy("ache"), frontier=None, store=None,  # type: ignore[arg-type]
                       budget=SiteBudget(s.stopping), stats=CrawlStats(),
                       scorer=lambda: FlatScorer(0, 1.0, n_levels=1))
    assert drop.follow(2, False, 3) is Follow.DROP
    assert drop.end_reason() == "not-followed"


def test_link_rules_skip_with_a_reason_and_sites_close(tmp_path: Path) -> None:
    policy, _, cat = _policy(tmp_path, max_pages_per_site=2)
    link = Link("http://a.example/x")
    assert policy.link_reason(link.url, "a.example", 1, link) == ""
    assert policy.link_reason(link.url, "a.example", 99, link) == "depth"
    nf = Link("http://a.example/y", nofollow=True)
    assert policy.link_reason(nf.url, "a.example", 1, nf) == "nofollow"
    policy.page("a.example", 0, 0)
    policy.page("a.example", 0, 0)
    assert policy.link_reason(link.url, "a.example", 1, link) == "site-pages"
    assert policy.site_reason("a.example") == "site-pages"
    cat.close()


def test_dry_rules_extend_sites_then_open_the_reserve(tmp_path: Path) -> None:
    """When nothing queued is left: the page limit grows, the closed site's skipped links
    are queued again, the reserve opens; a queued link of a closed site is skipped on
    the way; the run ends exhausted only when every rule had its turn."""
    policy, fr, cat = _policy(tmp_path, max_pages_per_site=1, extend_pages=1)
    _add(fr, ["http://a.example/1", "http://a.example/2"])
    _add(fr, ["http://b.example/r"], state="reserve")
    e = policy.next_link(0.0)
    assert e is not None and e.site == "a.example"
    fr.done(e, "fetched")
    policy.page("a.example", 0, 0)  # a.example closes at its page limit
    skipped = LinkRecord("http://a.example/3", "a.example", 1)
    fr.store.add_skipped(skipped, "a.example", "site-pages")
    seen = []
    while (e := policy.next_link(0.0)) is not None:
        seen.append(e.url)
        fr.done(e, "fetched")
        policy.page(e.site, 0, 0)
    st = policy.stats
    assert st.skipped["site-pages"] >= 1 and st.sites_extended >= 1 and st.reserve_opened == 1
    assert sorted(seen) == ["http://a.example/2", "http://a.example/3", "http://b.example/r"]
    assert policy.exhausted() and policy.end_reason() == "site-limits"
    cat.close()


def test_a_new_stop_rule_is_one_class_in_the_list(tmp_path: Path) -> None:
    """The extension point: a stop rule ends the run with its reason."""

    class FormsEnough:
        def reason(self, stats: CrawlStats) -> str:
            return "enough-forms" if stats.searchable >= 3 else ""

    policy, _, cat = _policy(tmp_path)
    policy.rules.stop.append(FormsEnough())
    assert policy.stop_reason() == ""
    policy.stats.searchable = 3
    assert policy.stop_reason() == "enough-forms"
    assert [type(r).__name__ for r in policy.rules.stop] == ["TimeLimit", "FormsEnough"]
    cat.close()
