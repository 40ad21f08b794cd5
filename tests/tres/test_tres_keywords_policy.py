"""Keyword matching and expansion; features; the policy's save/load round trip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from formhunter.config import TresSettings
from formhunter.exceptions import ConfigError, ModelError
from formhunter.frontier import Entry, add_seeds
from formhunter.interfaces import LinkRecord
from formhunter.model import Link, Page, Verdict
from formhunter.tres import (
    FEATURES,
    KeywordExpansion,
    KeywordSet,
    LinkFeaturizer,
    PathStates,
    Tres,
    load_policy,
    reward,
)


def test_keyword_set_matches_stems_and_phrases() -> None:
    kw = KeywordSet(["flight", "round trip", "Airline"])
    assert kw.hits("Cheap FLIGHTS with our airlines") == 2
    assert kw.hits("a round trip to Rome") == 1 and kw.hits("trip round") == 0
    assert not kw.add("flights") and len(kw) == 3
    assert KeywordSet(["privacy"]).hits("our Privacy policy") == 1  # stem "privaci"
    assert kw.hits("") == 0 and KeywordSet().hits("flight") == 0


def test_expansion_adds_words_of_relevant_pages_not_template_words() -> None:
    kw = KeywordSet(["flight", "airline", "airport"])
    ex = KeywordExpansion(kw, max_keywords=200, min_df=3, max_new=10)
    rng = np.random.default_rng(0)
    for i in range(60):
        common = "home contact privacy"
        if i % 2 == 0:  # relevant: seed words plus 'aircraft' and 'boarding'
            words = ["flight", "airline", "airport", "aircraft", "boarding"]
            words = [w for w in words if rng.random() < 0.8]
            ex.observe(f"{common} {' '.join(words)} site{i}", True)
        else:
            ex.observe(f"{common} weather news sport site{i}", False)
    added = ex.expand()
    assert "aircraft" in added and "board" in added
    assert not {"home", "contact", "privaci", "weather"} & set(added)
    assert not any(a.startswith("site") for a in added)  # seen once each: below min_df
    assert kw.hits("Aircraft boarding") == 2
    assert ex.threshold_ > 0


def test_reward_is_forms_first() -> None:
    rel = Verdict(True, 0.9, "book", 0.9, True)
    other = Verdict(True, 0.9, "job", 0.9, False)
    assert reward([other, rel], False, 0.2) == 1.0
    assert reward([other], True, 0.2) == 0.2
    assert reward([other], False, 0.2) == 0.0


def test_features_follow_the_path() -> None:
    states = PathStates()
    f = LinkFeaturizer(KeywordSet(["book"]), states)
    states.observe("http://a.example/", "", "a.example", relevance=0.9, on_topic=True,
                   reward=0.2, searchable=False, relevant_forms=0)  # fmt: skip
    states.observe("http://a.example/x", "http://a.example/", "a.example", relevance=0.1,
                   on_topic=False, reward=0.0, searchable=True, relevant_forms=0)  # fmt: skip
    X = f([LinkRecord("http://a.example/books/search", "a.example", 2, "http://a.example/x",
                      "Find a book", "", 0.1),
           LinkRecord("http://b.example/", "b.example", 2, "http://a.example/x", "", "", 0.1)])
    row = dict(zip(FEATURES, X[0], strict=True))
    assert row["parent_relevance"] == pytest.approx(0.1)
    assert row["path_relevance"] == 0.5 and row["near_relevant"] == 0.5
    assert row["parent_searchable"] == 1.0 and row["near_form"] == 0.0
    assert row["kw_url"] == 1.0 and row["kw_anchor"] == 1.0 and row["kw_around"] == 0.0
    assert row["search_words"] == 1.0 and row["same_site"] == 1.0
    assert row["site_relevance"] == 0.5 and row["site_unknown"] == 0.0
    other = dict(zip(FEATURES, X[1], strict=True))
    assert other["site_unknown"] == 1.0 and other["same_site"] == 0.0
    assert ((X >= 0) & (X <= 1)).all()


def _page(url: str, n_links: int, text: str) -> Page:
    links = [Link(f"{url.rstrip('/')}/p{i}", f"book {i}", "") for i in range(n_links)]
    return Page(url, url, 200, "a.example", title="Books", text=text, links=links)


def _crawl(tres: Tres, pages: int) -> None:
    fr = tres.frontier
    add_seeds(fr, ["http://a.example/"])
    for k in range(pages):
        e = fr.next(0.0)
        assert e is not None
        page = _page(e.url, 5, "book author isbn " * (k % 2))
        rel = k % 3 == 0
        tres.observe(e, page, 0.9 if k % 2 else 0.1, bool(k % 2),
                     [Verdict(True, 0.9, "book", 0.9, rel)])  # fmt: skip
        recs = [LinkRecord(lk.url, "a.example", e.depth + 1, e.url, lk.anchor, "", 0.5)
                for lk in page.links]  # fmt: skip
        fr.add_scored(recs, ["a.example"] * len(recs))
        fr.done(e, "fetched")


def test_policy_round_trip(tmp_path: Path) -> None:
    s = TresSettings(rebuild_every=20, min_samples_leaf=3, warmup=8, expand_every=5,
                     max_keywords=100)
    tres = Tres("book", ["book", "author"], s, random_state=0)
    _crawl(tres, 120)
    assert tres.agent.updates > 0 and tres.frontier.rebuilds > 0
    d = tres.save(tmp_path / "pol")
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["kind"] == "tres" and manifest["params"]["gamma"] == 0.8
    assert len(manifest["data_hash"]) == 16 and manifest["metrics"]["pages"] == 120
    assert json.loads((d / "keywords.json").read_text())["keywords"][:2] == ["book", "author"]
    policy, _ = load_policy(d)
    X = np.random.default_rng(0).random((20, len(FEATURES)))
    np.testing.assert_allclose(policy.q_network.predict(X), tres.agent.online.predict(X))
    seeded = Tres("book", ["ignored"], s, policy=policy)
    np.testing.assert_allclose(seeded.agent.q_values(X), tres.agent.q_values(X))
    np.testing.assert_array_equal(seeded.frontier.router.route(X), tres.frontier.router.route(X))
    assert seeded.keywords.words == tres.keywords.words
    # the seeded crawl learns on its own copy, not the saved one
    _crawl(seeded, 40)
    np.testing.assert_allclose(policy.q_network.predict(X), tres.agent.online.predict(X))


def test_policy_with_other_features_is_refused(tmp_path: Path) -> None:
    tres = Tres("book", ["book"])
    pol = tres.policy()
    pol.features = ("a", "b")
    from formhunter.tres.policy import save_policy

    save_policy(pol, tmp_path / "p", data_hash="x", params={}, metrics={})
    with pytest.raises(ModelError, match="fresh crawl"):
        load_policy(tmp_path / "p")
    with pytest.raises(ModelError):
        load_policy(tmp_path / "nothing")


def test_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="page_reward"):
        TresSettings(page_reward=2.0)
    with pytest.raises(ConfigError, match="gamma"):
        TresSettings(gamma=1.0)


def test_expansion_is_off_by_default() -> None:
    tres = Tres("book", ["book", "author"], TresSettings(expand_every=1, warmup=4))
    _crawl(tres, 30)
    assert tres.keywords.words == ["book", "author"] and not tres.core.expansion.docs


def test_failed_page_earns_nothing() -> None:
    tres = Tres("book", ["book"])
    add_seeds(tres.frontier, ["http://a.example/"])
    e = tres.frontier.next(0.0)
    assert isinstance(e, Entry)
    assert tres.observe(e, None, 0.0, False, []) == 0.0 and tres.agent.steps == 1
