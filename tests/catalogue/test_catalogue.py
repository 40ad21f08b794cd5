"""The DuckDB catalogue: schema, migrations, version refusal, one form per site, exports."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from formhunter.catalogue import SCHEMA_VERSION, Catalogue, migrate
from formhunter.exceptions import CatalogueError, SchemaVersionError
from formhunter.model import Field, Form, Page, Verdict

SEARCH = Verdict(True, 0.9, "book", 0.8, True)
LOGIN = Verdict(False, 0.1, "", 0.0, False)


def _page(url: str, site: str = "lib.example") -> Page:
    return Page(url=url, final_url=url, status=200, site=site, title="Library")


def _form(action: str, *names: str) -> Form:
    return Form(action=action, method="get", fields=[Field(n, "text", label=n) for n in names],
                text="Search the catalogue", html="<form>...</form>")  # fmt: skip


def _fill(cat: Catalogue) -> int:
    run = cat.new_run(domain="book", strategy="bfs", max_pages=10, config={"a": 1},
                      seeds=["http://www.lib.example/"])  # fmt: skip
    p1, p2 = _page("http://www.lib.example/"), _page("http://www.lib.example/about")
    for seq, page in ((1, p1), (2, p2)):
        cat.add_page(run, seq, page, url=page.url, site=page.site, host="www.lib.example",
                     status=200, error="", content_type="text/html", depth=seq - 1,
                     page_score=0.9, on_topic=True, n_bytes=100, elapsed=0.01,
                     parent_url="", anchor="")  # fmt: skip
    path = [("http://www.lib.example/", "")]
    assert cat.add_form(run, 1, p1, _form("http://www.lib.example/s?x=1", "q", "author"),
                        SEARCH, found_after_pages=1, path=path) == 1  # fmt: skip
    # the same form on another page of the same site is the same form
    assert cat.add_form(run, 2, p2, _form("http://www.lib.example/s", "author", "q"), SEARCH,
                        found_after_pages=2, path=path) is None  # fmt: skip
    assert cat.add_form(run, 2, p2, _form("http://www.lib.example/login", "user"), LOGIN,
                        found_after_pages=2, path=path) == 2  # fmt: skip
    return run


def test_new_catalogue_has_current_schema_and_commits_atomically(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    with Catalogue(db) as cat:
        assert cat.version == SCHEMA_VERSION
        run = _fill(cat)
        assert cat.pending() == 4
        cat.record_learning(run, at_page=2, n_paths=3, seconds=0.5,
                            features={"url": ["isbn"], "anchor": ["search"]}, learner="ache")
        cat.update_run(run, status="finished")
    with Catalogue(db) as cat:  # closed without commit: nothing but the run row was written
        assert cat.stats(run)["pages"] == 0
        assert cat.run(run).status == "running"  # type: ignore[union-attr]
        run2 = _fill(cat)
        cat.record_learning(run2, at_page=2, n_paths=3, seconds=0.5, features={"url": ["isbn"]})
        cat.commit()
        assert cat.stats(run2) == {
            "pages": 2, "forms": 2, "searchable_forms": 1, "relevant_forms": 1,
            "harvest_relevant": 0.5, "harvest_searchable": 0.5,
        }  # fmt: skip
        fields = cat.con.execute(
            "SELECT name, label FROM form_fields WHERE form_id = 1 ORDER BY position"
        ).fetchall()
        assert fields == [("q", "q"), ("author", "author")]
        assert cat.con.execute("SELECT hop, url FROM form_paths WHERE form_id = 1").fetchall() == [
            (0, "http://www.lib.example/")
        ]
        row = cat.con.execute("SELECT iteration, features FROM learning_iterations").fetchall()
        assert row == [(1, json.dumps({"url": ["isbn"]}))]


def test_migration_from_version_1_keeps_data(tmp_path: Path) -> None:
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    migrate(con, 1)
    con.execute("INSERT INTO runs (run_id, domain, strategy, status) VALUES (1, 'job', 'bfs',"
                " 'finished')")  # fmt: skip
    con.close()
    with Catalogue(db) as cat:
        assert cat.version == SCHEMA_VERSION
        info = cat.run(1)
        assert info is not None and info.domain == "job"
        versions = [r[0] for r in cat.con.execute("SELECT version FROM schema_version").fetchall()]
        assert versions == list(range(1, SCHEMA_VERSION + 1))
        cat.con.execute("SELECT stage_seconds FROM runs").fetchall()
        cat.con.execute("SELECT * FROM learning_iterations").fetchall()
        cat.con.execute("SELECT end_reason FROM runs").fetchall()


def test_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    Catalogue(db).close()
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO schema_version VALUES (?, now(), 'from the future')",
                [SCHEMA_VERSION + 5])  # fmt: skip
    con.close()
    with pytest.raises(SchemaVersionError, match=r"schema version \d+.*upgrade formhunter"):
        Catalogue(db)
    with pytest.raises(SchemaVersionError):
        Catalogue(db, read_only=True)


def test_files_that_are_not_catalogues(tmp_path: Path) -> None:
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE t (x INT)")
    con.close()
    with pytest.raises(CatalogueError, match="not a formhunter catalogue"):
        Catalogue(other)
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CatalogueError, match="cannot open"):
        Catalogue(junk)
    with pytest.raises(CatalogueError, match="no catalogue"):
        Catalogue(tmp_path / "missing.duckdb", read_only=True)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_exports(tmp_path: Path, fmt: str) -> None:
    db = tmp_path / "c.duckdb"
    with Catalogue(db) as cat:
        _fill(cat)
        cat.commit()
    out = tmp_path / f"forms.{fmt}"
    with Catalogue(db, read_only=True) as cat:
        assert cat.export_forms(fmt, out, relevant=True) == 1
        assert cat.export_forms(fmt, tmp_path / f"all.{fmt}") == 2
    if fmt == "json":
        rows = json.loads(out.read_text())
        assert rows[0]["action_url"] == "http://www.lib.example/s?x=1" and rows[0]["relevant"]
    elif fmt == "parquet":
        assert pq.read_table(out).column("signature").to_pylist()[0]
    else:
        lines = out.read_text().splitlines()
        assert lines[0].startswith("form_id,site,signature") and len(lines) == 2
        with Catalogue(db, read_only=True) as cat:  # the log: one row per copy, with its run
            assert cat.export_forms(fmt, tmp_path / "log.csv", all_rows=True) == 2
        assert (tmp_path / "log.csv").read_text().startswith("form_id,run_id")


def test_a_resumed_run_takes_the_new_budget_and_settings(tmp_path: Path) -> None:
    """A `--resume --max-pages N` killed at start-up, then a plain `--resume`: the run
    row and its stored settings agree on N (scripts/kill_soak.py found them apart)."""
    db = tmp_path / "r.duckdb"
    with Catalogue(db) as cat:
        run_id, _ = cat.open_run(domain="book", strategy="bfs", max_pages=10,
                                 config={"crawl": {"max_pages": 10}}, seeds=["http://a.example/"],
                                 resume=False)  # fmt: skip
        cat.commit()
        again, run = cat.open_run(domain="book", strategy="bfs", max_pages=25,
                                  config={"crawl": {"max_pages": 25}}, seeds=[], resume=True)
        cat.commit()
        assert again == run_id and run is not None
        stored = cat.run(run_id)
        assert stored is not None and stored.max_pages == 25
        assert stored.config["crawl"]["max_pages"] == 25
        assert stored.seeds == ["http://a.example/"]


def test_the_duckdb_memory_limit_is_the_one_asked_for(tmp_path: Path) -> None:
    """A crawl's connection gets ``[crawl] db_memory_mb``; 0 leaves DuckDB's own."""
    from formhunter.config import CrawlSettings
    from formhunter.exceptions import ConfigError

    with Catalogue(tmp_path / "c.duckdb", memory_mb=300) as cat:
        assert cat.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0] \
            == "300.0 MiB"  # fmt: skip
    with Catalogue(tmp_path / "c.duckdb") as cat:
        assert "GiB" in cat.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    assert CrawlSettings().db_memory_mb > 0
    with pytest.raises(ConfigError, match="db_memory_mb"):
        CrawlSettings(db_memory_mb=-1)
