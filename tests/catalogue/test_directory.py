"""The form directory (issue 26): one row per (site, signature) across runs, labels that
hold for every copy, the log with --all-rows, the forms command's filters, and a
catalogue written by the code before the directory migrating without loss."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from directory_helpers import two_runs

from formhunter.catalogue import SCHEMA_VERSION, Catalogue
from formhunter.cli import main
from formhunter.directory import forms_table
from formhunter.labels import add_label, read_labels
from formhunter.trainers.labels import labelled_forms, unlabelled_forms

OLD = Path(__file__).parents[1] / "data" / "catalogue_schema5.duckdb.gz"

@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "two.duckdb"
    two_runs(path)
    return path


def test_one_row_per_distinct_form_across_runs(db: Path) -> None:
    with Catalogue(db, read_only=True) as cat:
        log = cat.forms_table(all_rows=True).to_pylist()
        rows = {r["action_url"]: r for r in cat.forms_table().to_pylist()}
    assert len(log) == 3 and len(rows) == 2
    book = rows["http://www.lib.example/find"]
    assert book["copies"] == 2 and book["runs"] == [1, 2]
    assert book["pages"] == ["http://www.lib.example/p1", "http://www.lib.example/p2"]
    assert book["first_seen"] <= book["last_seen"]
    copies = [r["form_id"] for r in log if r["action_url"] == book["action_url"]]
    assert book["form_id"] == max(copies)
    assert book["judged_by"] == "run 2" and book["page_title"] == "Search 2"


def test_a_label_holds_for_every_copy_and_overrides_the_verdict(db: Path, tmp_path: Path) -> None:
    with Catalogue(db) as cat:
        first_book = 1  # the copy of run 1
        add_label(cat.con, first_book, verdict_ok=True)
        film = cat.con.execute("SELECT form_id FROM forms WHERE action_url LIKE '%films'"
                               ).fetchall()[0][0]  # fmt: skip
        add_label(cat.con, film, verdict_ok=False, true_domain="movie", note="films")
        rows = {r["action_url"]: r for r in cat.forms_table().to_pylist()}
        log = cat.forms_table(all_rows=True).to_pylist()
        labels = read_labels(cat.con)
        candidates = unlabelled_forms(cat.con)
        training = labelled_forms(cat.con)
    book, movie = rows["http://www.lib.example/find"], rows["http://www.lib.example/films"]
    assert book["labelled"] and book["label_ok"] and book["label_domain"] == "book"
    assert book["form_id"] != first_book  # the newest copy carries the label of the first
    assert all(r["labelled"] for r in log if r["action_url"] == book["action_url"])
    # the label overrides the verdict: the film form is a movie form, so not relevant to book
    assert movie["verdict_domain"] == "book" and movie["verdict_relevant"]
    assert movie["domain"] == "movie" and not movie["relevant"] and movie["label_note"] == "films"
    assert len(labels) == 2 and {lab["copies"] for lab in labels} == {1, 2}
    assert candidates.empty  # every identity is labelled: nothing offered again
    assert sorted(training["label"]) == ["book", "movie"]  # one training row per identity
    out = tmp_path / "d.json"
    assert main(["forms", "--db", str(db), "--format", "json", "--out", str(out)]) == 0
    exported = {r["action_url"]: r for r in json.loads(out.read_text())}
    assert exported["http://www.lib.example/films"]["label_domain"] == "movie"


def test_label_next_offers_one_copy_per_unlabelled_form(db: Path) -> None:
    with Catalogue(db, read_only=True) as cat:
        candidates = unlabelled_forms(cat.con)
    assert len(candidates) == 2  # three copies, two forms
    assert candidates["form_id"].is_unique
    with Catalogue(db) as cat:
        add_label(cat.con, 1, verdict_ok=True)
        again = unlabelled_forms(cat.con)
    assert list(again["url"]) == ["http://www.lib.example/p2"] and len(again) == 1
    assert "find" not in str(list(again["form"]))


def test_forms_command_filters(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Catalogue(db) as cat:
        add_label(cat.con, 1, verdict_ok=True)

    def ids(*flags: str) -> list[str]:
        assert main(["forms", "--db", str(db), "--format", "json", *flags]) == 0
        return [r["action_url"].rsplit("/", 1)[1] for r in json.loads(capsys.readouterr().out)]

    assert ids() == ["find", "films"]
    assert len(ids("--all-rows")) == 3
    assert ids("--labelled") == ["find"] and ids("--unlabelled") == ["films"]
    assert ids("--min-score", "0.5") == ["find"] and ids("--max-score", "0.5") == ["films"]
    assert ids("--run", "1") == ["find"] and len(ids("--run", "2")) == 2
    assert ids("--site", "nowhere.example") == []
    assert ids("--domain", "book", "--relevant") != []
    assert ids("--not-relevant") == []
    assert main(["forms", "--db", str(db), "--labelled", "--unlabelled"]) == 2
    assert main(["forms", "--db", str(db), "--min-score", "2"]) == 2
    capsys.readouterr()
    assert main(["forms", "--db", str(db)]) == 0
    table = capsys.readouterr().out
    assert "2 forms" in table and "one row per distinct form" in table and "right:book" in table


def _old_copy(tmp_path: Path) -> Path:
    db = tmp_path / "old.duckdb"
    with gzip.open(OLD) as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return db


def test_a_catalogue_of_the_code_before_migrates_without_loss(tmp_path: Path) -> None:
    db = _old_copy(tmp_path)
    con = duckdb.connect(str(db), read_only=True)
    tables = ("runs", "pages", "forms", "form_fields", "form_paths", "form_labels")
    before = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    assert con.execute("SELECT max(version) FROM schema_version").fetchall()[0][0] == 5
    con.close()
    # read-only, not migrated: the directory reads it all the same
    with Catalogue(db, read_only=True) as cat:
        assert cat.version == 5
        old_view = cat.forms_table().to_pylist()
    with Catalogue(db) as cat:
        assert cat.version == SCHEMA_VERSION
        for t in tables:
            after = cat.con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall()
            width = len(before[t][0]) if before[t] else 0
            assert [r[:width] for r in after] == before[t], t  # new columns come last
        assert cat.con.execute("SELECT page_score FROM forms WHERE form_id = 1"
                               ).fetchall() == [(None,)]  # fmt: skip
        rows = forms_table(cat.con)
        from_view = cat.con.execute("SELECT count(*) FROM form_directory").fetchall()[0][0]
    new_view = rows.to_pylist()
    assert len(new_view) == from_view == 3 and len(before["forms"]) == 5
    assert new_view == old_view
    book = next(r for r in new_view if r["action_url"].endswith("/find"))
    assert book["copies"] == 2 and book["labelled"] and book["label_domain"] == "book"
    music = next(r for r in new_view if r["site"] == "tunes.example")
    assert music["domain"] == "music" and not music["relevant"]
