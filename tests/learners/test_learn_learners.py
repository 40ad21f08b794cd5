"""The learners behind the engine's contracts, driven over a small toy web.

``crawl`` below is a minimal best-first loop (levels, then score) that talks to
the learners exactly as the engine does: PageOutcome in, maybe a new scorer
out, then the whole frontier is re-scored.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from classifiers.url_scorer import ConservativeURLScorer
from formhunter.interfaces import Learner, LinkRecord, LinkScorer, PageOutcome
from formhunter.learners import (
    AdaptiveLinkLearner,
    ApprenticeLearner,
    ApprenticeScorer,
    CFCLearner,
    CFCScorer,
    LayeredLearner,
    LinkClassifierScorer,
    LinkMemory,
    learning_table,
    links_frame,
)
from formhunter.model import Field, Form, Link, Page, Verdict
from formhunter.scorers.simple import ParentScoreScorer
from formhunter.trainers import (
    LinkGraph,
    backward_paths,
    build_offline_classifier,
    load_offline,
    save_offline,
)

# --------------------------------------------------------------------------- toy web


@dataclass
class ToyPage:
    url: str
    site: str
    title: str
    on_topic: bool
    links: list[tuple[str, str, str]] = field(default_factory=list)  # url, anchor, around
    form: bool = False
    leaves: list[str] = field(default_factory=list)


def toy_web(n_sites: int = 30, seed: int = 0) -> dict[str, ToyPage]:
    """Topical sites (home -> deals -> search page with a relevant form; news
    articles) and off-topic sites, interleaved on a directory page; articles also
    link to other sites of both kinds, so a best-first crawl strays off topic."""
    rng = random.Random(seed)
    web: dict[str, ToyPage] = {}
    directory = ToyPage("http://dir.example/", "dir.example", "Web directory", True)
    web[directory.url] = directory
    homes: dict[bool, list[str]] = {True: [], False: []}
    articles: dict[bool, list[str]] = {True: [], False: []}
    for i in range(n_sites):
        topical = i % 2 == 0
        site = f"site{i:02d}.example"
        home = f"http://www.{site}/"
        homes[topical].append(home)
        if topical:
            web[home] = ToyPage(home, site, "Cheap flights airline fares", True)
            deals = f"{home}flights/deals"
            web[home].links.append((deals, "Flight deals", "cheap fares airline tickets"))
            web[deals] = ToyPage(deals, site, "Flight deals airfare", True)
            search = f"{home}flights/search"
            web[deals].links.append((search, "Search flights", "find fares book airline"))
            web[search] = ToyPage(search, site, "Search flights airfare", True, form=True)
            for j in range(4):
                art = f"{home}travel/news/{j}"
                web[home].links.append((art, f"Travel story {j}", "airline news fares"))
                web[art] = ToyPage(art, site, "Airline news flights", True)
                articles[True].append(art)
            label = rng.choice(["Cheap flights", "Airline tickets", "Airfare deals"])
        else:
            web[home] = ToyPage(home, site, "Recipes football weather", False)
            for j in range(6):
                art = f"{home}{rng.choice(['recipes', 'football', 'weather'])}/{j}"
                web[home].links.append((art, f"Read more {j}", "dinner match rain"))
                web[art] = ToyPage(art, site, "Pasta recipes football", False)
                articles[False].append(art)
            label = rng.choice(["Pasta recipes", "Football scores", "Weather today"])
        for u in list(web):
            if u.startswith(home) and u != home:
                web[u].links.append((home, "Home", "back to start"))
        directory.links.append((home, f"{label} {i}", "listed site"))
    for art in articles[True]:
        for other in rng.sample(articles[False], 2):
            web[art].links.append((other, rng.choice(["Football scores", "Pasta recipes"]),
                                   "elsewhere on the web"))  # fmt: skip
        web[art].links.append((rng.choice(homes[True]), "Fly cheap", "elsewhere on the web"))
    for art in articles[False]:
        web[art].links.append((rng.choice(articles[False]), "Weather today", "more stories"))
    for p in web.values():
        p.leaves = [a for _, a, _ in p.links]
    return web


def toy_page(tp: ToyPage, depth: int) -> Page:
    form = Form(action=tp.url + "/go", method="get",
                fields=[Field("from", "text"), Field("to", "text")])  # fmt: skip
    links = [Link(u, a, ar, leaf=i) for i, (u, a, ar) in enumerate(tp.links)]
    return Page(tp.url, tp.url, 200, tp.site, title=tp.title, text=tp.title, links=links,
                forms=[form] if tp.form else [], leaves=tp.leaves, depth=depth)  # fmt: skip


def dom_terms(tp: ToyPage, i: int) -> str:
    out = []
    for d in range(-2, 3):
        j = i + d
        if 0 <= j < len(tp.leaves):
            out += [f"{w.lower()}@{d}" for w in tp.leaves[j].split()]
    return " ".join(out)


@dataclass(slots=True)
class LinkedOutcome(PageOutcome):
    """A PageOutcome carrying the hop link (what we ask the engine to provide)."""

    link: LinkRecord | None = None


@dataclass
class CrawlResult:
    fetched: list[str]
    relevant: int
    on_topic: int
    swaps: int
    scorer: LinkScorer


def crawl(web: dict[str, ToyPage], seeds: Sequence[str], budget: int, scorer: LinkScorer,
          learners: Sequence[Learner] = (), *, give_link: bool = False) -> CrawlResult:  # fmt: skip
    """Best first over (level, -score); learners may swap the scorer (frontier re-ranked)."""
    frontier: dict[str, tuple[LinkRecord, list[str]]] = {}
    order: dict[str, tuple[int, float]] = {}
    for s in seeds:
        frontier[s] = (LinkRecord(s, web[s].site, 0), [s])
        order[s] = (0, np.inf)
    seen = set(seeds)
    fetched: list[str] = []
    relevant = on_topic = swaps = 0
    while frontier and len(fetched) < budget:
        url = min(order, key=lambda u: (order[u][0], -order[u][1], u))
        rec, path = frontier.pop(url)
        del order[url]
        tp = web[url]
        page = toy_page(tp, len(path) - 1)
        score = 0.9 if tp.on_topic else 0.1
        verdicts = [Verdict(True, 0.9, "airfare", 0.9, True) for _ in page.forms]
        outcome = (LinkedOutcome(page, score, verdicts, path, rec) if give_link
                   else PageOutcome(page, score, verdicts, path))  # fmt: skip
        fetched.append(url)
        relevant += len(page.forms)
        on_topic += tp.on_topic
        for learner in learners:
            new = learner.observe(outcome)
            if new is not None:
                scorer, swaps = new, swaps + 1
                if frontier:
                    lv, sc = scorer.score([r for r, _ in frontier.values()])
                    for u, a, b in zip(list(frontier), lv.tolist(), sc.tolist(), strict=True):
                        order[u] = (a, b)
        new_recs = []
        for i, lk in enumerate(page.links):
            if lk.url not in seen:
                seen.add(lk.url)
                r = LinkRecord(lk.url, web[lk.url].site, page.depth + 1, url, lk.anchor,
                               lk.around, score, dom_terms(tp, i))  # fmt: skip
                new_recs.append(r)
                frontier[lk.url] = (r, [*path, lk.url])
        if new_recs:
            lv, sc = scorer.score(new_recs)
            for r, a, b in zip(new_recs, lv.tolist(), sc.tolist(), strict=True):
                order[r.url] = (a, b)
    return CrawlResult(fetched, relevant, on_topic, swaps, scorer)


SEEDS = ["http://dir.example/"]

# ------------------------------------------------------------------ adaptive learner


def test_adaptive_learner_triggers_at_threshold_and_returns_a_scorer() -> None:
    web = toy_web(40)
    learner = AdaptiveLinkLearner(threshold=5, n_levels=3, classifier={"min_df": 2})
    res = crawl(web, SEEDS, 400, ParentScoreScorer(), [learner])
    assert res.relevant >= 10 and res.swaps >= 1
    first = learner.iterations[0]
    assert first.n_paths == 5 and first.learner == "ache-online"
    assert first.at_page <= res.fetched.index(_nth_form(web, res.fetched, 5)) + 1
    feats = first.features["features"]
    assert "search" in feats["anchor"] and "search" in feats["url"]
    assert set(first.as_record()) == {"at_page", "n_paths", "seconds", "features", "learner",
                                      "note"}  # fmt: skip
    assert isinstance(res.scorer, LinkClassifierScorer) and res.scorer.n_levels == 4
    # the learned scorer puts "Search flights" links in level 0, "Home" links at the bottom
    lv, _ = res.scorer.score([
        LinkRecord("http://www.new.example/flights/search", "", 2, "", "Search flights",
                   "find fares"),
        LinkRecord("http://www.new.example/", "", 2, "", "Home", "back to start"),
    ])  # fmt: skip
    assert lv[0] == 0 and lv[1] == 3
    assert "search" in learning_table(learner.iterations)
    # hops came from the outlinks the learner saw (no PageOutcome.link given)
    assert learner.memory.stats()["hops_from_outlinks"] > 0


def _nth_form(web: dict[str, ToyPage], fetched: list[str], n: int) -> str:
    forms = [u for u in fetched if web[u].form]
    return forms[n - 1]


def test_adaptive_learner_counts_each_relevant_form_once() -> None:
    web = toy_web(6)
    learner = AdaptiveLinkLearner(threshold=2)
    url = next(u for u, p in web.items() if p.form)
    page = toy_page(web[url], 3)
    out = PageOutcome(page, 0.9, [Verdict(True, 0.9, "airfare", 0.9, True)], ["s", "a", url])
    assert learner.observe(out) is None
    assert learner.observe(out) is None  # the same form again: not new
    assert learner.new_since_learning == 1 and len(learner.repository) == 1
    assert learner.repository.instances.keys() == {(url, 0), ("a", 1)}


def test_adaptive_learner_uses_engine_link_records() -> None:
    web = toy_web(20)
    learner = AdaptiveLinkLearner(threshold=3)
    crawl(web, SEEDS, 200, ParentScoreScorer(), [learner], give_link=True)
    st = learner.memory.stats()
    assert st["hops_from_engine"] > 0 and st["hops_from_outlinks"] == 0


def test_learning_iterations_recorded_in_a_real_catalogue(tmp_path: Path) -> None:
    from formhunter import strategies
    from formhunter.catalogue import Catalogue
    from formhunter.config import Settings

    settings = Settings().replace(learning={"threshold": 4})
    with Catalogue(tmp_path / "c.duckdb") as cat:
        run = cat.new_run(domain="airfare", strategy="ache", max_pages=100, config={}, seeds=SEEDS)
        learner = strategies.build("learner", "ache-online", settings=settings, catalogue=cat,
                                   run_id=run, domain="airfare")  # fmt: skip
        assert learner.threshold == 4
        crawl(toy_web(30), SEEDS, 300, ParentScoreScorer(), [learner])
        cat.commit()
        rows = cat.con.execute(
            "SELECT iteration, learner, n_paths, features FROM learning_iterations"
            " WHERE run_id = ? ORDER BY iteration", [run]).fetchall()  # fmt: skip
    assert len(rows) == len(learner.iterations) >= 2
    assert rows[0][:3] == (1, "ache-online", 4)
    assert '"anchor"' in rows[0][3]


# ------------------------------------------------------------------------ apprentice


def test_apprentice_learner_layers_and_sinks_off_topic_links() -> None:
    web = toy_web(40)
    learner = ApprenticeLearner(batch_size=40, min_instances=40, sink_below=0.3)
    res = crawl(web, SEEDS, 300, ApprenticeScorer(None), [learner], give_link=True)
    assert learner.iterations and res.swaps >= 1
    sc = res.scorer
    assert isinstance(sc, ApprenticeScorer) and sc.n_levels == 2
    recs = [
        LinkRecord("http://x.example/a", "", 1, "http://dir.example/", "Cheap flights 7",
                   "listed site", 0.9, "cheap@0 flights@0 7@0 pasta@1 recipes@1"),
        LinkRecord("http://x.example/b", "", 2, "http://dir.example/", "Football scores 3",
                   "listed site", 0.9, "football@0 scores@0 3@0 airline@-1 tickets@-1"),
    ]  # fmt: skip
    lv, p = sc.score(recs)
    assert p[1] < 0.3 and lv[1] == 1  # off-topic link sunk
    assert lv[0] == 0


def test_apprentice_cuts_off_topic_fetches_against_baseline() -> None:
    web = toy_web(60, seed=2)
    base = crawl(web, SEEDS, 150, ParentScoreScorer())
    learner = ApprenticeLearner(batch_size=30, min_instances=30)
    app = crawl(web, SEEDS, 150, ApprenticeScorer(None), [learner], give_link=True)
    loss_base = 1 - base.on_topic / len(base.fetched)
    loss_app = 1 - app.on_topic / len(app.fetched)
    assert loss_app < loss_base


def test_layered_learner_combines_levels_and_apprentice() -> None:
    web = toy_web(40)
    layered = LayeredLearner(AdaptiveLinkLearner(threshold=4),
                             ApprenticeLearner(batch_size=40, min_instances=40),
                             base=ParentScoreScorer())  # fmt: skip
    res = crawl(web, SEEDS, 400, ParentScoreScorer(), [layered], give_link=True)
    assert isinstance(res.scorer, ApprenticeScorer)
    assert isinstance(res.scorer.base, LinkClassifierScorer)
    assert res.scorer.n_levels == 5  # 3 levels + background + sink
    learners = {it.learner for it in layered.iterations}
    assert learners == {"ache-online", "apprentice"}


# ------------------------------------------------------------------------------- CFC


def test_cfc_learns_per_depth_and_saves_fetches() -> None:
    web = toy_web(60, seed=1)
    base = crawl(web, SEEDS, 120, ParentScoreScorer())
    learner = CFCLearner(batch_size=60, min_batch=10)
    res = crawl(web, SEEDS, 120, ParentScoreScorer(), [learner])
    assert learner.iterations and isinstance(res.scorer, CFCScorer)
    assert learner.model.n_batches_ == len(learner.iterations)
    stats = learner.stats()
    assert stats["fetches_saved"] > 0
    harvest_base = base.on_topic / len(base.fetched)
    harvest_cfc = res.on_topic / len(res.fetched)
    assert harvest_cfc >= harvest_base - 0.05
    # a deeper depth triggers a batch even when it is small
    depths = [it.features["depth"] for it in learner.iterations]
    assert depths == sorted(depths)


def test_cfc_initial_model_is_handed_over_on_the_first_page() -> None:
    model = ConservativeURLScorer()
    import pandas as pd

    X = pd.DataFrame({"url": ["http://a.example/flights", "http://b.example/recipes"] * 5,
                      "anchor": ["flights", "recipes"] * 5})  # fmt: skip
    model.update_pools(X, [1, 0] * 5).partial_fit(X, [1, 0] * 5)
    learner = CFCLearner(initial=model)
    web = toy_web(4)
    page = toy_page(web[SEEDS[0]], 0)
    first = learner.observe(PageOutcome(page, 0.9, [], SEEDS))
    assert isinstance(first, CFCScorer)
    assert learner.observe(PageOutcome(page, 0.9, [], SEEDS)) is None


# --------------------------------------------------------------------------- offline


def toy_graph(web: dict[str, ToyPage]) -> LinkGraph:
    import pandas as pd

    rows = [{"src_url": p.url, "dst_url": u, "anchor": a, "around": ar}
            for p in web.values() for u, a, ar in p.links]  # fmt: skip
    return LinkGraph(pd.DataFrame(rows), [u for u, p in web.items() if p.form])


def test_backward_crawl_levels() -> None:
    web = toy_web(10)
    g = toy_graph(web)
    frame, levels = backward_paths(g, g.targets, 3)
    lv0 = frame[levels == 0]
    assert set(lv0["anchor"]) == {"Search flights"}
    assert set(frame[levels == 1]["anchor"]) == {"Flight deals"}
    assert {"Home", "Fly cheap"} <= set(frame[levels == 2]["anchor"])


def test_offline_classifier_build_save_load_and_use(tmp_path: Path) -> None:
    web = toy_web(30)
    g = toy_graph(web)
    model, frame, levels = build_offline_classifier(g, max_targets=8, min_df=1)
    assert model.n_bands == 4 and (levels == 3).sum() > 0
    d = save_offline(model, frame, levels, tmp_path / "link" / "airfare", domain="airfare",
                     source="toy")  # fmt: skip
    again, f2, l2 = load_offline(d)
    assert len(f2) == len(frame) and (l2 == levels).all()
    sc = LinkClassifierScorer(again)
    lv, _ = sc.score_frame(links_frame([LinkRecord("http://q.example/flights/search", "", 1, "",
                                                   "Search flights", "fares")]))  # fmt: skip
    assert lv[0] == 0
    # the registry finds it under models_dir
    from formhunter import strategies

    scorer = strategies.build("scorer", "link-classifier", domain="airfare", models_dir=tmp_path)
    learner = strategies.build("learner", "ache-offline-online", domain="airfare",
                               models_dir=tmp_path)  # fmt: skip
    assert isinstance(scorer, LinkClassifierScorer)
    assert learner.initial is not None and (learner.initial[1] < 3).all()
    res = crawl(web, SEEDS, 200, scorer, [learner])
    assert res.relevant >= 10


def test_link_graph_from_catalogue(tmp_path: Path) -> None:
    from formhunter.catalogue import Catalogue

    web = toy_web(8)
    with Catalogue(tmp_path / "c.duckdb") as cat:
        run = cat.new_run(domain="airfare", strategy="bfs", max_pages=50, config={}, seeds=SEEDS)
        parents: dict[str, tuple[str, str]] = {}
        for seq, (url, tp) in enumerate(web.items(), 1):
            page = toy_page(tp, 1)
            src, anchor = parents.get(url, ("", ""))
            cat.add_page(run, seq, page, url=url, site=tp.site, host=tp.site, status=200,
                         error="", content_type="text/html", depth=1, page_score=0.9,
                         on_topic=True, n_bytes=100, elapsed=0.01, parent_url=src,
                         anchor=anchor)  # fmt: skip
            for u, a, _ in tp.links:
                parents.setdefault(u, (url, a))
            if tp.form:
                cat.add_form(run, seq, page, page.forms[0],
                             Verdict(True, 0.9, "airfare", 0.9, True), found_after_pages=seq,
                             path=[(url, "")])  # fmt: skip
        cat.commit()
    g = LinkGraph.from_catalogue(tmp_path / "c.duckdb", domain="airfare")
    assert sorted(g.targets) == sorted(u for u, p in web.items() if p.form)
    assert any(r.anchor == "Search flights" for r in g.backlinks(g.targets[0]))


def test_link_graph_from_files(tmp_path: Path) -> None:
    import pandas as pd

    pd.DataFrame([{"src": "http://a/", "dst": "http://b/", "anchor": "x"}]).to_json(
        tmp_path / "links.jsonl", orient="records", lines=True)  # fmt: skip
    pd.DataFrame([{"page_url": "http://b/", "relevant_domains": ["airfare"]}]).to_json(
        tmp_path / "forms.jsonl", orient="records", lines=True)  # fmt: skip
    g = LinkGraph.from_truth(tmp_path, domain="airfare")
    assert g.targets == ["http://b/"] and g.backlinks("http://b/")[0].parent_url == "http://a/"


# --------------------------------------------------------------------------- registry


@pytest.mark.parametrize("name", ["ache-online", "apprentice", "ache-apprentice", "cfc"])
def test_learners_build_from_the_registry(name: str) -> None:
    from formhunter import strategies

    learner: Any = strategies.build("learner", name, domain="airfare")
    assert isinstance(learner, Learner)


def test_link_memory_is_bounded() -> None:
    mem = LinkMemory(max_fetched=5, max_pending=7)
    web = toy_web(10)
    for i, (url, tp) in enumerate(web.items()):
        mem.observe(PageOutcome(toy_page(tp, 1), 0.5, [], [url]))
        assert len(mem.fetched) <= 5 and len(mem.pending) <= 7, i


def test_settings_default_threshold_is_the_learners_default() -> None:
    from formhunter.config import LearningSettings
    from formhunter.learners import DEFAULT_THRESHOLD

    assert LearningSettings().threshold == DEFAULT_THRESHOLD


def test_adaptive_learner_also_learns_on_a_page_schedule() -> None:
    """With a threshold the crawl never reaches, retrain_pages still brings iterations,
    each after a new relevant form; without it there is none."""
    web = toy_web(40)
    never = AdaptiveLinkLearner(threshold=1000, classifier={"min_df": 2}, retrain_pages=0)
    crawl(web, SEEDS, 400, ParentScoreScorer(), [never])
    assert not never.iterations
    sched = AdaptiveLinkLearner(threshold=1000, classifier={"min_df": 2}, retrain_pages=50)
    res = crawl(web, SEEDS, 400, ParentScoreScorer(), [sched])
    assert len(sched.iterations) >= 2 and res.swaps >= 1
    pages = [it.at_page for it in sched.iterations]
    assert all(b - a >= 50 for a, b in itertools.pairwise(pages))
    with pytest.raises(ValueError, match="retrain_pages"):
        AdaptiveLinkLearner(retrain_pages=-1)


def test_offline_instances_are_balanced_against_the_crawls_own() -> None:
    """initial_ratio caps the initial (offline) instances of each level at so many per
    instance the crawl found itself; 0 keeps them all."""
    import pandas as pd

    initial = (pd.DataFrame({"url": [f"http://o{i}.example/search" for i in range(300)],
                             "anchor": ["search flights"] * 300}),
               np.repeat(np.arange(3), 100))  # fmt: skip
    web = toy_web(6)
    url = next(u for u, p in web.items() if p.form)
    out = PageOutcome(toy_page(web[url], 3), 0.9, [Verdict(True, 0.9, "airfare", 0.9, True)],
                      ["s", "a", url])  # fmt: skip
    sizes = {}
    for ratio in (0.0, 2.0):
        learner = AdaptiveLinkLearner(threshold=100, initial=initial, initial_ratio=ratio,
                                      background=False)  # fmt: skip
        learner.observe(out)  # own instances: level 0 and level 1, one each
        _, levels = learner.training_set()
        sizes[ratio] = np.bincount(levels, minlength=3).tolist()
    assert sizes[0.0] == [101, 101, 100]
    assert sizes[2.0] == [3, 3, 2]  # 2 per own instance (at least 2 when none) + own


def test_a_stalled_model_learns_from_its_misses() -> None:
    """After ``stall_pages`` pages without a new relevant form, a learner with a model
    learns again, half its background taken from the links fetched since (its misses);
    without stall_pages it waits for the next form."""
    web = toy_web(40)
    forms = [u for u, p in web.items() if p.form][:3]
    misses = [u for u, p in web.items() if not p.form][:90]

    def feed(learner: AdaptiveLinkLearner, urls: list[str]) -> int:
        swaps = 0
        for u in urls:
            page = toy_page(web[u], 2)
            verdicts = [Verdict(True, 0.9, "airfare", 0.9, True) for _ in page.forms]
            swaps += learner.observe(PageOutcome(page, 0.5, verdicts, ["s", "p", u])) is not None
        return swaps

    waits = AdaptiveLinkLearner(threshold=3, classifier={"min_df": 1, "min_sites": 1},
                                stall_pages=0)  # fmt: skip
    stalls = AdaptiveLinkLearner(threshold=3, classifier={"min_df": 1, "min_sites": 1},
                                 stall_pages=40)  # fmt: skip
    for learner in (waits, stalls):
        assert feed(learner, forms) == 1 and learner.model is not None
    assert feed(waits, misses) == 0 and len(waits.iterations) == 1
    assert feed(stalls, misses) == 2  # at 40 and 80 pages without a form
    assert [it.at_page for it in stalls.iterations] == [3, 43, 83]
    frame, levels = stalls.training_set(misses=40)
    background = set(frame["url"][levels == stalls.n_levels])
    recent = set(misses[-40:])
    assert len(background & recent) >= len(background) // 2 > 0
