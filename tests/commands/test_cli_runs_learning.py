"""``formhunter runs`` and ``formhunter learning``: contents, formats, run selection, errors."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path

import duckdb
import pytest

from formhunter.catalogue import Catalogue, migrate
from formhunter.cli import main
from formhunter.commands import learning, runs
from formhunter.config import load_settings
from formhunter.engine import Engine
from formhunter.model import Field, Form, Page, Verdict
from formhunter.simweb import ProxyHandle

SEARCH = Verdict(True, 0.9, "book", 0.8, True)
SEARCHABLE = Verdict(True, 0.8, "", 0.1, False)
LOGIN = Verdict(False, 0.1, "", 0.0, False)
URL_TERMS = ["isbn", "search", "book", "catalog", "author", "titl", "advanc", "find", "librari",
             "queri", "opac", "browse"]  # fmt: skip
ACHE = {"features": {"url": URL_TERMS, "anchor": ["search", "find"], "around": ["book"]},
        "instances": {"0": 3, "1": 2, "3": 5}}  # fmt: skip
APPRENTICE = {"pairs": 250, "batches": 1, "on_topic_share": 0.5}
CFC = {"depth": 2, "pool_sizes": {"url_pos": 126, "url_neg": 789}, "in_domain_share": 0.2}


def _page(cat: Catalogue, run: int, seq: int, url: str) -> Page:
    page = Page(url=url, final_url=url, status=200, site="lib.example", title="Library")
    cat.add_page(run, seq, page, url=url, site=page.site, host="www.lib.example", status=200,
                 error="", content_type="text/html", depth=0, page_score=0.9, on_topic=True,
                 n_bytes=100, elapsed=0.01, parent_url="", anchor="")  # fmt: skip
    return page


def _form(action: str, name: str) -> Form:
    return Form(action=action, method="get", fields=[Field(name, "text", label=name)])


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Run 1 (ache, finished): 4 pages, 3 forms (2 searchable, 1 relevant), 3 iterations
    (ache-online twice, apprentice once); run 2 (cfc, running): no page, 1 iteration."""
    path = tmp_path / "c.duckdb"
    with Catalogue(path) as cat:
        r1 = cat.new_run(domain="book", strategy="ache", max_pages=100, config={}, seeds=[])
        pages = [_page(cat, r1, i, f"http://www.lib.example/{i}") for i in range(1, 5)]
        for i, (action, verdict) in enumerate(
            [("/s", SEARCH), ("/find", SEARCHABLE), ("/login", LOGIN)]
        ):
            cat.add_form(r1, 1, pages[i], _form(f"http://www.lib.example{action}", "q"), verdict,
                         found_after_pages=i + 1, path=[])  # fmt: skip
        cat.record_learning(r1, at_page=2, n_paths=3, seconds=0.01, features=ACHE,
                            learner="ache-online", note="3 relevant forms")  # fmt: skip
        cat.record_learning(r1, at_page=3, n_paths=250, seconds=0.02, features=APPRENTICE,
                            learner="apprentice", note="apprentice batch")  # fmt: skip
        cat.record_learning(r1, at_page=4, n_paths=4, seconds=0.5, features={},
                            learner="ache-online", note="not trained: one class")  # fmt: skip
        cat.update_run(r1, status="finished")
        cat.commit()
        r2 = cat.new_run(domain="book", strategy="cfc", max_pages=50, config={}, seeds=[])
        cat.record_learning(r2, at_page=0, n_paths=116, seconds=0.01, features=CFC,
                            learner="cfc", note="cfc depth batch")  # fmt: skip
        cat.commit()
    return path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    assert main([*argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _csv(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, str]]:
    assert main([*argv, "--format", "csv"]) == 0
    reader = csv.DictReader(io.StringIO(capsys.readouterr().out))
    rows = list(reader)
    assert tuple(reader.fieldnames or ()) == (runs.COLUMNS if argv[0] == "runs"
                                              else learning.COLUMNS)  # fmt: skip
    return rows


def test_runs_counts_and_formats(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, "runs", "--db", str(db))
    assert [tuple(r) for r in rows] == [runs.COLUMNS] * 2
    r1, r2 = rows
    assert (r1["run_id"], r1["strategy"], r1["max_pages"], r1["status"]) == (1, "ache", 100,
                                                                           "finished")
    assert (r1["pages"], r1["forms"], r1["searchable_forms"], r1["relevant_forms"]) == (4, 3, 2, 1)
    assert r1["harvest_rate"] == 0.25 and r1["learning_iterations"] == 3
    # one site, on topic, its relevant form found: nothing left behind there
    assert (r1["sites"], r1["sites_relevant"], r1["domain_sites_without"],
            r1["pages_per_site"]) == (1, 1, 0, 4.0)  # fmt: skip
    assert r1["started_at"] and r1["finished_at"] is None  # the engine sets it, not this test
    assert (r2["pages"], r2["forms"], r2["harvest_rate"], r2["learning_iterations"],
            r2["status"]) == (0, 0, 0.0, 1, "running")  # fmt: skip
    rows_csv = _csv(capsys, "runs", "--db", str(db))
    assert [(r["run_id"], r["relevant_forms"], r["harvest_rate"]) for r in rows_csv] == [
        ("1", "1", "0.25"), ("2", "0", "0")]  # fmt: skip
    assert main(["runs", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "2 runs in" in out and "0.2500" in out and "finished" in out and "cfc" in out


def test_runs_count_the_domain_sites_left_without_a_form(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    path = tmp_path / "s.duckdb"
    with Catalogue(path) as cat:
        r = cat.new_run(domain="book", strategy="ache", max_pages=10, config={}, seeds=[])
        lib = _page(cat, r, 1, "http://www.lib.example/")
        _page(cat, r, 2, "http://www.lib.example/find")
        for i, site in enumerate(("shop.example", "news.example")):
            url = f"http://www.{site}/"
            page = Page(url=url, final_url=url, status=200, site=site, title=site)
            cat.add_page(r, 3 + i, page, url=url, site=site, host=f"www.{site}", status=200,
                         error="", content_type="text/html", depth=1, page_score=0.2,
                         on_topic=site == "shop.example", n_bytes=100, elapsed=0.01,
                         parent_url="", anchor="")  # fmt: skip
        cat.add_form(r, 1, lib, _form("http://www.lib.example/s", "q"), SEARCH,
                     found_after_pages=1, path=[])  # fmt: skip
        cat.commit()
    (row,) = _json(capsys, "runs", "--db", str(path))
    # lib.example gave its form; shop.example was on topic and gave none; news is off topic
    assert (row["sites"], row["sites_relevant"], row["domain_sites_without"],
            row["pages_per_site"]) == (3, 1, 1, pytest.approx(4 / 3))  # fmt: skip


def test_learning_terms_per_space(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _json(capsys, "learning", "--db", str(db), "--run", "1")
    assert [tuple(r) for r in rows] == [learning.COLUMNS] * 3
    assert [(r["run_id"], r["iteration"], r["learner"], r["at_page"], r["n_paths"])
            for r in rows] == [(1, 1, "ache-online", 2, 3), (1, 2, "apprentice", 3, 250),
                               (1, 3, "ache-online", 4, 4)]  # fmt: skip
    ache, apprentice, untrained = rows
    assert (ache["url"], ache["anchor"], ache["around"]) == (URL_TERMS, ["search", "find"],
                                                            ["book"])  # fmt: skip
    assert ache["details"] == {"instances": {"0": 3, "1": 2, "3": 5}}
    assert apprentice["url"] == [] and apprentice["details"] == APPRENTICE
    assert untrained["details"] == {} and untrained["note"] == "not trained: one class"

    rows_csv = _csv(capsys, "learning", "--db", str(db), "--run", "1")
    assert rows_csv[0]["url"].split(", ") == URL_TERMS  # every term
    assert rows_csv[0]["details"] == "instances.0=3, instances.1=2, instances.3=5"
    assert rows_csv[1]["url"] == "" and rows_csv[1]["details"] == (
        "pairs=250, batches=1, on_topic_share=0.5")  # fmt: skip

    assert main(["learning", "--db", str(db), "--run", "1"]) == 0
    out = capsys.readouterr().out
    assert "3 learning iterations of run 1 (ache, book)" in out
    assert "isbn, search, book" in out and "(+4)" in out and "opac" not in out  # first 8 terms
    assert "pairs=250" in out
    assert main(["learning", "--db", str(db), "--run", "1", "--terms", "0"]) == 0
    assert "opac" in capsys.readouterr().out


def test_learning_run_and_learner_selection(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    latest = _json(capsys, "learning", "--db", str(db))
    assert [(r["run_id"], r["learner"]) for r in latest] == [(2, "cfc")]
    assert latest[0]["details"] == CFC
    assert _csv(capsys, "learning", "--db", str(db))[0]["details"] == (
        "depth=2, pool_sizes.url_pos=126, pool_sizes.url_neg=789, in_domain_share=0.2")
    only = _json(capsys, "learning", "--db", str(db), "--run", "1", "--learner", "ache-online")
    assert [r["iteration"] for r in only] == [1, 3]
    assert main(["learning", "--db", str(db), "--learner", "ache-online"]) == 0
    err = capsys.readouterr().err
    assert "run 2 has no learning iteration by learner 'ache-online' (its learners: cfc)" in err
    assert _json(capsys, "learning", "--db", str(db), "--learner", "nobody") == []


def test_errors(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = str(tmp_path / "missing.duckdb")
    for cmd in ("runs", "learning", "forms"):
        assert main([cmd, "--db", missing]) == 2
        assert f"no catalogue at {missing}" in capsys.readouterr().err
    assert main(["learning", "--db", str(db), "--run", "9"]) == 2
    err = capsys.readouterr().err
    assert "no run 9 in" in err and "its runs: 1, 2" in err
    empty = tmp_path / "empty.duckdb"
    Catalogue(empty).close()
    assert main(["learning", "--db", str(empty)]) == 2
    assert "holds no run" in capsys.readouterr().err
    assert _json(capsys, "runs", "--db", str(empty)) == []
    not_catalogue = tmp_path / "junk.duckdb"
    not_catalogue.write_bytes(b"not a database" * 100)
    assert main(["runs", "--db", str(not_catalogue)]) == 1
    assert "cannot open" in capsys.readouterr().err


def test_split_features_shapes() -> None:
    assert learning.split_features(json.dumps(ACHE)) == (
        ACHE["features"], {"instances": ACHE["instances"]})  # fmt: skip
    assert learning.split_features('{"url": ["isbn"], "n": 1}') == ({"url": ["isbn"]}, {"n": 1})
    assert learning.split_features(None) == ({}, {})
    assert learning.split_features("[1, 2]") == ({}, {"features": [1, 2]})
    assert learning.key_values({"a": 1, "b": {"c": 2, "d": {}}, "e": ["x", "y"]}) == (
        "a=1, b.c=2, e=x|y")  # fmt: skip


def test_after_a_real_ache_crawl(simweb_proxy: ProxyHandle, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    db = tmp_path / "ache.duckdb"
    settings = load_settings(None, {
        "crawl": {"domain": "hotel", "max_pages": 200, "db": str(db), "strategy": "ache"},
        "fetch": {"proxy": simweb_proxy.url, "min_delay": 0.0, "concurrency": 16, "retries": 0,
                  "read_timeout": 0.5, "total_timeout": 3.0},
        "learning": {"threshold": 2},
    })  # fmt: skip
    with Catalogue(db) as cat:
        result = asyncio.run(Engine(settings, cat, seeds=simweb_proxy.web.seeds("hotel", 5)).run())
    (row,) = _json(capsys, "runs", "--db", str(db))
    st = result.stats
    assert (row["pages"], row["forms"], row["searchable_forms"], row["relevant_forms"]) == (
        st.pages, st.forms, st.searchable, st.relevant)  # fmt: skip
    assert row["status"] == "finished" and row["finished_at"]
    assert row["end_reason"] == result.reason in ("budget", "exhausted")
    assert row["harvest_rate"] == pytest.approx(st.harvest_rate)
    assert row["learning_iterations"] == len(_json(capsys, "learning", "--db", str(db))) >= 1
    rows = _json(capsys, "learning", "--db", str(db), "--learner", "ache-online")
    trained = [r for r in rows if r["url"] or r["anchor"] or r["around"]]
    assert trained and "instances" in trained[0]["details"]
    assert main(["learning", "--db", str(db)]) == 0
    assert "url" in capsys.readouterr().out


def test_runs_of_a_version_2_catalogue(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """``runs`` opens read-only, so an older file is not migrated: no end_reason, no error."""
    db = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(db))
    migrate(con, 2)
    con.execute("INSERT INTO runs (run_id, domain, strategy, status) VALUES (1, 'job', 'bfs',"
                " 'finished')")  # fmt: skip
    con.close()
    (row,) = _json(capsys, "runs", "--db", str(db))
    assert (row["run_id"], row["status"], row["end_reason"]) == (1, "finished", None)
