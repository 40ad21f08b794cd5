"""The learning strategies end to end: the real engine crawls the simulated web
through the proxy on loopback, learners observe, the frontier is re-ranked and
learning iterations land in the catalogue."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import crawl_once, loopback_settings

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.engine import CrawlResult
from formhunter.simweb import ProxyHandle, SimWeb
from formhunter.trainers import LinkGraph, build_offline_classifier, offline_dir, save_offline

DOMAIN = "hotel"  # the 40-site test web has only 5 airfare forms, a dozen hotel ones


def _settings(proxy: ProxyHandle, db: Path, **sections: dict[str, Any]) -> Settings:
    crawl = {"domain": DOMAIN, "max_pages": 250, "commit_every_pages": 100}
    return loopback_settings(proxy, db, {"crawl": crawl, "learning": {"threshold": 2}}, **sections)


_crawl = crawl_once


def _iterations(cat: Catalogue) -> list[tuple[Any, ...]]:
    return cat.con.execute(
        "SELECT iteration, learner, at_page, n_paths, seconds, features FROM learning_iterations"
        " ORDER BY iteration"
    ).fetchall()


@pytest.fixture(scope="module")
def ache_run(simweb_proxy: ProxyHandle, tmp_path_factory: pytest.TempPathFactory
             ) -> Iterator[tuple[CrawlResult, Path]]:  # fmt: skip
    db = tmp_path_factory.mktemp("ache") / "ache.duckdb"
    result, cat = _crawl(_settings(simweb_proxy, db, crawl={"strategy": "ache"}),
                         simweb_proxy.web.seeds(DOMAIN, 5))  # fmt: skip
    cat.close()
    yield result, db


def test_ache_learns_and_records_iterations(ache_run: tuple[CrawlResult, Path]) -> None:
    result, db = ache_run
    cat = Catalogue(db, read_only=True)
    try:
        assert not result.stats.faults, result.stats.faults
        assert result.stats.relevant >= 4
        rows = [r for r in _iterations(cat) if "features" in json.loads(r[5])]
        assert rows, "no learning iteration trained a classifier"
        assert rows[0][1] == "ache-online" and rows[0][3] >= 2
        assert result.stats.reranks >= 1
        feats = json.loads(rows[-1][5])["features"]
        assert set(feats) == {"url", "anchor", "around"}
        assert any(feats.values())
        # the learned classifier spreads links over its bands (3 levels + background)
        levels = {r[0] for r in cat.con.execute("SELECT DISTINCT level FROM frontier").fetchall()}
        assert len(levels) >= 2 and max(levels) <= 4
    finally:
        cat.close()


def test_offline_classifier_from_an_earlier_crawl(ache_run: tuple[CrawlResult, Path],
                                                  simweb_proxy: ProxyHandle,
                                                  tmp_path: Path) -> None:  # fmt: skip
    _, db = ache_run
    graph = LinkGraph.from_catalogue(db, domain=DOMAIN)
    assert graph.targets and len(graph) > 100
    model, frame, levels = build_offline_classifier(graph, min_df=1)
    save_offline(model, frame, levels, offline_dir(DOMAIN, tmp_path), domain=DOMAIN,
                 source=str(db))  # fmt: skip
    settings = _settings(simweb_proxy, tmp_path / "oo.duckdb",
                         crawl={"strategy": "ache-offline-online", "models_dir": str(tmp_path),
                                "max_pages": 150})  # fmt: skip
    result, cat = _crawl(settings, simweb_proxy.web.seeds(DOMAIN, 5))
    try:
        assert not result.stats.faults, result.stats.faults
        assert result.stats.relevant >= 1
        assert cat.run(result.run_id) is not None
    finally:
        cat.close()


@pytest.mark.parametrize("strategy,learner", [("ache-apprentice", "apprentice"),
                                              ("cfc", "cfc")])  # fmt: skip
def test_apprentice_and_cfc_learn_in_the_engine(simweb_proxy: ProxyHandle, tmp_path: Path,
                                                strategy: str, learner: str) -> None:  # fmt: skip
    # the apprentice learns in batches of 250 (u, v) pairs
    settings = _settings(simweb_proxy, tmp_path / f"{strategy}.duckdb",
                         crawl={"strategy": strategy, "max_pages": 500})  # fmt: skip
    result, cat = _crawl(settings, simweb_proxy.web.seeds(DOMAIN, 5))
    try:
        assert not result.stats.faults, result.stats.faults
        rows = _iterations(cat)
        assert learner in {r[1] for r in rows}
        assert result.stats.reranks >= 1
    finally:
        cat.close()


@pytest.mark.slow
def test_offline_classifier_from_simweb_truth_drives_a_crawl(
    simweb_small: SimWeb, simweb_proxy: ProxyHandle, tmp_path: Path
) -> None:
    graph = LinkGraph.from_truth(simweb_small.truth(), domain=DOMAIN)
    assert graph.targets
    model, frame, levels = build_offline_classifier(graph, max_targets=10, min_df=2)
    save_offline(model, frame, levels, offline_dir(DOMAIN, tmp_path), domain=DOMAIN,
                 source="simweb truth")  # fmt: skip
    for strategy in ("offline", "ache-offline-online"):
        settings = _settings(simweb_proxy, tmp_path / f"{strategy}.duckdb",
                             crawl={"strategy": strategy, "models_dir": str(tmp_path),
                                    "max_pages": 150})  # fmt: skip
        result, cat = _crawl(settings, simweb_proxy.web.seeds(DOMAIN, 5))
        try:
            assert not result.stats.faults, result.stats.faults
            assert result.stats.relevant >= 1
            if strategy == "ache-offline-online":
                assert {r[1] for r in _iterations(cat)} == {"ache-offline-online"}
        finally:
            cat.close()
