"""``formhunter rejudge``: the current models judge every stored form again from its
stored HTML and page context; the verdicts are recorded beside the crawl's with the
models used, the directory shows the latest, and the command prints what changed."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from directory_helpers import two_runs

from classifiers import persist
from formhunter.catalogue import Catalogue
from formhunter.cli import main


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "two.duckdb"
    two_runs(path)
    return path


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_rejudge_records_the_new_verdicts_and_prints_what_changed(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    # the crawl judged the film form "book" (relevant to the book run); the shipped
    # models say movie
    report = _json(capsys, "rejudge", "--db", str(db), "--format", "json")
    assert isinstance(report, dict)
    assert report["judged"] == 3 and report["distinct"] == 2 and report["skipped"] == 0
    assert report["counts"] == {"newly_relevant": 0, "no_longer_relevant": 1,
                                "domain_changed": 1}  # fmt: skip
    (change,) = report["changes"]["no_longer_relevant"]
    assert change["action_url"].endswith("/films") and change["old_domain"] == "book"
    assert change["new_domain"] == "movie" and not change["new_relevant"]
    domain = report["models"]["domain"]
    assert domain["name"] == persist.SHIPPED and len(domain["manifest_sha256"]) == 64
    assert domain["path"] == str((persist.DEFAULT_MODELS / "domain").resolve())
    assert domain["metrics"]["macro_f1"] > 0.5
    rows = _json(capsys, "forms", "--db", str(db), "--format", "json")
    assert isinstance(rows, list)
    film = next(r for r in rows if r["action_url"].endswith("/films"))
    assert film["domain"] == "movie" and not film["relevant"] and film["judged_by"] == "rejudge 1"
    assert film["model"] == f"shipped@{domain['manifest_sha256'][:12]}"
    # the log keeps what the crawl said
    log = _json(capsys, "forms", "--db", str(db), "--format", "json", "--all-rows")
    assert isinstance(log, list)
    assert {r["domain"] for r in log if r["action_url"].endswith("/films")} == {"book"}
    with duckdb.connect(str(db), read_only=True) as con:
        stored = con.execute("SELECT count(*), count(*) FILTER (WHERE prev_domain = 'book'"
                             " AND domain = 'movie') FROM form_verdicts").fetchall()  # fmt: skip
        models = json.loads(con.execute("SELECT models FROM rejudgings").fetchall()[0][0])
    assert stored == [(3, 1)] and models["domain"]["manifest_sha256"] == domain["manifest_sha256"]
    # the same models again: nothing changes
    again = _json(capsys, "rejudge", "--db", str(db), "--format", "json")
    assert isinstance(again, dict) and again["rejudge_id"] == 2
    assert sum(again["counts"].values()) == 0
    capsys.readouterr()
    assert main(["rejudge", "--db", str(db)]) == 0
    out = capsys.readouterr()
    assert "no longer relevant: 0" in out.out and "domain model shipped" in out.err


def test_rejudge_usage_errors(db: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["rejudge", "--db", str(tmp_path / "none.duckdb")]) == 2
    assert main(["rejudge", "--db", str(db), "--model", "nope"]) != 0
    assert "no domain model named 'nope'" in capsys.readouterr().err
    assert main(["rejudge", "--db", str(db), "--models", "x", "--model", "y"]) == 2


def test_rejudge_with_the_crawls_models_reproduces_its_verdicts(db: Path) -> None:
    """Judged again by the same (shipped) models from what the catalogue stores, the
    book form gets the verdict a crawl's critic gives it on its page."""
    from formhunter.critics.trained import FormCritic
    from formhunter.rejudge import rejudge

    with Catalogue(db) as cat:
        report = rejudge(cat, lambda d: FormCritic(d), critic="default")
        verdicts = cat.con.execute(
            "SELECT f.action_url, v.domain, v.relevant FROM form_verdicts v"
            " JOIN forms f USING (form_id) ORDER BY form_id").fetchall()  # fmt: skip
    assert report.judged == 3
    assert [v for v in verdicts if v[0].endswith("/find")] == [
        ("http://www.lib.example/find", "book", True)] * 2  # fmt: skip
