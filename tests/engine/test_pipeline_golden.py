"""Golden tests of ``Pipeline.process`` on saved pages (tests/data/pages, no network):
keyword components, so the figures do not move when the trained models are retrained."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.critics.keywords import KeywordCritic
from formhunter.fetch import FetchResult
from formhunter.frontier import Entry, add_seeds
from formhunter.interfaces import LinkRecord, LinkScorer, PageOutcome, RecordScorer
from formhunter.keywords import domain_keywords
from formhunter.page_classifiers.keywords import KeywordPageClassifier
from formhunter.pipeline import BatchResult, Components, Fetched, Pipeline, open_pipeline
from formhunter.scorers.simple import BreadthFirstScorer
from formhunter.stats import CrawlStats
from formhunter.strategies import Strategy
from formhunter.urls import host_of, site_of

DOMAIN = "airfare"


class _Recorder:
    """A learner that keeps every outcome and hands back a scorer on the 4th page."""

    def __init__(self) -> None:
        self.outcomes: list[PageOutcome] = []
        self.failures: list[str] = []
        self.finished = False

    def observe(self, outcome: PageOutcome) -> LinkScorer | None:
        self.outcomes.append(outcome)
        return BreadthFirstScorer() if len(self.outcomes) == 4 else None

    def failed(self, link: LinkRecord, lid: int) -> None:
        self.failures.append(link.url)

    def finish(self) -> None:
        self.finished = True

    def state(self) -> bytes:
        return b""

    def restore(self, state: bytes) -> LinkScorer | None:
        return None


def _pipeline(tmp_path: Path, follow: Any = "on_topic", threshold: float = 0.5
              ) -> tuple[Pipeline, Catalogue, _Recorder]:  # fmt: skip
    settings = Settings()
    settings = dataclasses.replace(
        settings, fetch=dataclasses.replace(settings.fetch, per_host_connections=8))
    strategy = Strategy(name="golden", description="test", follow=follow, dom_terms=True,
                        on_topic_threshold=threshold)  # fmt: skip
    cat = Catalogue(tmp_path / "g.duckdb")
    run_id = cat.new_run(domain=DOMAIN, strategy="golden", max_pages=100, config={}, seeds=[])
    learner = _Recorder()
    kw = domain_keywords(DOMAIN)
    components = Components(KeywordPageClassifier(kw), KeywordCritic(DOMAIN, kw),
                            BreadthFirstScorer(), [("recorder", learner)])  # fmt: skip
    stats = CrawlStats()
    pipe = open_pipeline(settings, strategy, cat, run_id, resumed=False, seeds=[], stats=stats)
    pipe.components = components
    return pipe, cat, learner


def _batch(pipe: Pipeline, pages: list[dict[str, Any]]) -> list[Fetched]:
    """Every saved page as a fetched frontier entry (seeds first, then their outlinks)."""
    fr = pipe.frontier
    for r in pages:
        if r["depth"] == 0:
            add_seeds(fr, [r["url"]])
        else:
            rec = LinkRecord(r["url"], site_of(r["url"]), 1, r["parent"], r["anchor"])
            fr.add_scored([rec], [host_of(r["url"])], *BreadthFirstScorer().score([rec]))
    taken: dict[str, Entry] = {}
    for _ in range(50):
        e = fr.next(0.0)
        if e is None:
            break
        taken[e.url] = e
    assert set(taken) == {r["url"] for r in pages}
    return [Fetched(taken[r["url"]], FetchResult(r["url"], r["url"], r["status"],
                    body=r["body"], content_type="text/html")) for r in pages]  # fmt: skip


def test_pipeline_on_saved_pages(tmp_path: Path, saved_pages: list[dict[str, Any]]) -> None:
    pipe, cat, learner = _pipeline(tmp_path)
    res = pipe.process(_batch(pipe, saved_pages))
    assert isinstance(res, BatchResult)
    st = pipe.stats
    assert not st.faults and not st.errors
    # one PageResult per page, in fetch order, numbered from 1
    assert [p.url for p in res.pages] == [r["url"] for r in saved_pages]
    assert [p.seq for p in res.pages] == list(range(1, 8))
    scores = [round(p.score or 0.0, 4) for p in res.pages]
    assert scores == GOLDEN_SCORES
    assert [p.on_topic for p in res.pages] == [s >= 0.5 for s in GOLDEN_SCORES]
    forms = [[(f.action, v.searchable, v.relevant) for f, v in p.forms] for p in res.pages]
    assert forms == GOLDEN_FORMS
    assert (st.pages, st.parsed, st.forms, st.searchable, st.relevant) == GOLDEN_COUNTS
    assert (res.links_added, st.links_not_followed) == GOLDEN_LINKS
    # the learner saw every page with its hop and path; its scorer came back once
    assert [o.page.url for o in learner.outcomes] == [r["url"] for r in saved_pages]
    for o, r in zip(learner.outcomes, saved_pages, strict=True):
        assert o.link is not None and o.link.url == r["url"]
        assert o.link.parent_url == r["parent"] and o.link.anchor == r["anchor"]
        assert o.path == ([r["parent"], r["url"]] if r["parent"] else [r["url"]])
    assert isinstance(res.new_scorer, BreadthFirstScorer)
    # what reached the catalogue after a commit
    cat.commit()
    n_pages = cat.con.execute("SELECT count(*) FROM pages").fetchall()[0][0]
    n_forms = cat.con.execute("SELECT count(*) FROM forms").fetchall()[0][0]
    assert (n_pages, n_forms) == (7, GOLDEN_COUNTS[2])
    hops = cat.con.execute("SELECT count(*) FROM form_paths").fetchall()[0][0]
    assert hops >= n_forms
    queued = cat.con.execute(
        "SELECT count(*) FROM frontier WHERE state = 'queued'").fetchall()[0][0]
    assert queued == res.links_added
    cat.close()


@pytest.mark.parametrize("follow", ["on_topic", "on_topic_first", "all"])
def test_follow_policy(tmp_path: Path, saved_pages: list[dict[str, Any]], follow: str) -> None:
    """At threshold 0.9 the two 0.64 pages are off topic. Recorded first (the batch
    reversed): "on_topic" drops their 78 links (the seeds then bring the same ones),
    "on_topic_first" keeps them in the last level, "all" follows them."""
    pipe, cat, _ = _pipeline(tmp_path, follow=follow, threshold=0.9)
    res = pipe.process(_batch(pipe, saved_pages[::-1]))
    assert [p.on_topic for p in res.pages] == [s >= 0.9 for s in GOLDEN_SCORES[::-1]]
    assert pipe.stats.links_not_followed == (78 if follow == "on_topic" else 0)
    assert res.links_added == GOLDEN_LINKS[0]
    cat.commit()
    last = cat.con.execute("SELECT count(*) FROM frontier WHERE state = 'queued' AND level = ?",
                           [pipe.frontier.n_levels - 1]).fetchall()[0][0]  # fmt: skip
    assert (last > 0) == (follow == "on_topic_first")
    cat.close()


def test_component_faults_are_counted(tmp_path: Path, saved_pages: list[dict[str, Any]]) -> None:
    class Broken:
        n_levels = 1

        def page_score(self, page: Any) -> float:
            raise RuntimeError("bug")

        def page_scores(self, pages: Any) -> list[float]:
            raise RuntimeError("bug")

    pipe, cat, _ = _pipeline(tmp_path)
    pipe.components.page_classifier = Broken()
    res = pipe.process(_batch(pipe, saved_pages))
    assert pipe.stats.faults["page_classifier"] == 1
    assert all(p.score == 0.0 and not p.on_topic for p in res.pages)
    assert not math.isnan(sum(p.score or 0.0 for p in res.pages))
    cat.close()


#: keyword page scores of the seven pages (the keyword classifier is generous)
GOLDEN_SCORES = [0.9899, 0.9999, 0.9997, 0.9899, 0.64, 0.64, 0.9995]
#: forms stored per page: (action, searchable, relevant); pages 2 and 6 repeat page 1's
#: comment form (same site and signature), so nothing new is stored for them
GOLDEN_FORMS = [
    [],
    [("http://green-horizon-land.example/wp-comments-post.php", False, False)],
    [],
    [("http://www.tailwinddirect.example/browse.html", True, True),
     ("http://www.tailwinddirect.example/newsletter/submit.html", False, False)],
    [("http://www.hubbase.example/contact/submit.html", False, False)],
    [("http://www.hubbase.example/do/register", False, False)],
    [],
]  # fmt: skip
#: (pages, parsed, forms, searchable, relevant)
GOLDEN_COUNTS = (7, 7, 5, 1, 1)
#: (new frontier links, links not followed)
GOLDEN_LINKS = (112, 0)


def test_reserve_rows_leave_the_reserve_when_a_followed_page_links_them(
        tmp_path: Path, saved_pages: list[dict[str, Any]]) -> None:  # fmt: skip
    """Under "on_topic" the off-topic pages' links go to the reserve; the seeds,
    recorded in a later batch, link the same URLs, which become queued (one row per
    URL); what is left in reserve is queued when the reserve is opened."""
    pipe, cat, _ = _pipeline(tmp_path, follow="on_topic", threshold=0.9)
    batch = _batch(pipe, saved_pages[::-1])
    off = [f for f, s in zip(batch, GOLDEN_SCORES[::-1], strict=True) if s < 0.9]
    assert off and all(f.entry.depth > 0 for f in off)
    assert pipe.process(off).links_added == 0
    reserved = pipe.store.n_reserve
    assert reserved > 0 and pipe.stats.links_reserved == 78
    pipe.process([f for f in batch if f not in off])
    cat.commit()
    rows = cat.con.execute("SELECT url, state FROM frontier").fetchall()
    assert len(rows) == len({u for u, _ in rows}), "one row per URL"
    left = {u for u, s in rows if s == "reserve"}
    assert left == set(pipe.store.reserved) and len(left) < reserved
    queued_before = sum(s == "queued" for _, s in rows)
    n = pipe.store.open_reserve()
    pipe.frontier.rerank(pipe.components.scorer)
    cat.commit()
    assert n == len(left)
    states = dict(cat.con.execute("SELECT state, count(*) FROM frontier GROUP BY state").fetchall())
    assert states.get("reserve", 0) == 0 and states["queued"] == queued_before + n
    cat.close()


class _NearFormScorer(RecordScorer):
    """Four levels: links whose URL has an even length at level 0, the rest last."""

    n_levels = 4

    def score(self, links: Any) -> tuple[Any, Any]:
        import numpy as np

        near = np.asarray([len(lk.url) % 2 == 0 for lk in links], dtype=bool)
        return np.where(near, 0, 3), np.where(near, 0.9, 0.1)

    def score_frame(self, frame: Any) -> tuple[Any, Any]:
        import numpy as np

        near = (frame["url"].str.len() % 2 == 0).to_numpy(dtype=bool)
        return np.where(near, 0, 3), np.where(near, 0.9, 0.1)


def test_reserve_by_level_queues_off_topic_links_the_scorer_puts_near_a_form(
        tmp_path: Path, saved_pages: list[dict[str, Any]]) -> None:  # fmt: skip
    """With a multi-level scorer, the off-topic pages' links it puts on a path level are
    queued at once; a re-rank re-scores the reserve and queues what it now puts there."""
    pipe, cat, _ = _pipeline(tmp_path, follow="on_topic", threshold=0.9)
    pipe.settings = dataclasses.replace(pipe.settings, frontier=dataclasses.replace(
        pipe.settings.frontier, reserve_by_level=True))  # fmt: skip
    pipe.components.scorer = _NearFormScorer()
    batch = _batch(pipe, saved_pages[::-1])
    off = [f for f, s in zip(batch, GOLDEN_SCORES[::-1], strict=True) if s < 0.9]
    pipe.process(off)
    cat.commit()
    rows = cat.con.execute("SELECT url, state FROM frontier WHERE state IN ('queued', 'reserve')"
                           ).fetchall()  # fmt: skip
    taken = {f.entry.url for f in batch}
    queued = {u for u, s in rows if s == "queued"} - taken
    reserved = {u for u, s in rows if s == "reserve"}
    assert queued and all(len(u) % 2 == 0 for u in queued)
    assert reserved and not any(len(u) % 2 == 0 for u in reserved)
    assert pipe.stats.links_near_form == len(queued)

    class _All(_NearFormScorer):
        def score_frame(self, frame: Any) -> tuple[Any, Any]:
            import numpy as np

            return np.zeros(len(frame), dtype=np.int64), np.full(len(frame), 0.5)

    pipe.swap_scorer(_All())
    cat.commit()
    states = dict(cat.con.execute("SELECT state, count(*) FROM frontier GROUP BY state").fetchall())
    assert states.get("reserve", 0) == 0 and not pipe.store.n_reserve
    unfetched = len(batch) - len(off)
    assert states["queued"] == len(queued) + len(reserved) + unfetched


def test_failed_fetch_reaches_learners_and_finish_ends_them(
    tmp_path: Path, saved_pages: list[dict[str, Any]]
) -> None:
    """A fetch that earned no page goes to ``Learner.failed`` with its link and frontier
    id (robots refusals do not: nothing was fetched); ``finish`` reaches every learner."""
    pipe, cat, learner = _pipeline(tmp_path)
    batch = _batch(pipe, saved_pages[:3])
    # a 404 (a 503 or a timeout is transient: its link is queued again, tests/engine/
    # test_requeue.py)
    batch[1] = Fetched(batch[1].entry, FetchResult(batch[1].entry.url, status=404,
                                                   error="http-4xx"))  # fmt: skip
    batch[2] = Fetched(batch[2].entry, FetchResult(batch[2].entry.url, error="robots"))
    res = pipe.process(batch)
    assert [p.url for p in res.pages] == [saved_pages[0]["url"], saved_pages[1]["url"]]
    assert learner.failures == [saved_pages[1]["url"]]
    assert [o.page.url for o in learner.outcomes] == [saved_pages[0]["url"]]
    assert learner.outcomes[0].lid == batch[0].entry.lid > 0
    assert not learner.finished
    pipe.finish()
    assert learner.finished and not pipe.stats.faults
    cat.close()
