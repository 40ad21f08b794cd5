"""``formhunter forms`` exports carry every field attribute, the path, page title,
context, found-at times, runs, label and judging model; csv writes the nested columns
as JSON text; the table shows the page URL; ``--run N`` of a run the catalogue does
not hold is a usage error."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.model import Field, Form, Page, Verdict


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "c.duckdb"
    with Catalogue(path) as cat:
        run = cat.new_run(domain="airfare", strategy="bfs", max_pages=5, config={}, seeds=[])
        page = Page(url="http://www.fly.example/deals", final_url="http://www.fly.example/deals",
                    status=200, site="fly.example", title="Deals")  # fmt: skip
        form = Form("http://www.fly.example/search", "get",
                    [Field("from", "text", label="From", placeholder="City or airport"),
                     Field("cabin", "select", label="Cabin", options=["Economy", "Business"],
                           value="Economy"),
                     Field("sid", "hidden", value="s-42")],
                    context="Find cheap flights")
        cat.add_form(run, 2, page, form, Verdict(True, 0.9, "airfare", 0.8, True),
                     found_after_pages=2,
                     path=[("http://dir.example/", ""), (page.url, "Cheap flights")])  # fmt: skip
        cat.commit()
    return path


def test_nested_and_flattened_exports(db: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["forms", "--db", str(db), "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    fields = [
        {"position": 0, "name": "from", "type": "text", "label": "From", "options": [],
         "value": "", "placeholder": "City or airport"},
        {"position": 1, "name": "cabin", "type": "select", "label": "Cabin",
         "options": ["Economy", "Business"], "value": "Economy", "placeholder": ""},
        {"position": 2, "name": "sid", "type": "hidden", "label": "", "options": [],
         "value": "s-42", "placeholder": ""},
    ]  # fmt: skip
    path = [{"url": "http://dir.example/", "anchor": ""},
            {"url": "http://www.fly.example/deals", "anchor": "Cheap flights"}]
    assert row["fields"] == fields and row["path"] == path
    assert row["page_title"] == "Deals" and row["context"] == "Find cheap flights"
    assert row["runs"] == [1] and row["first_seen"] and row["judged_by"] == "run 1"
    for fmt in ("json", "parquet"):
        out = tmp_path / f"f.{fmt}"
        assert main(["forms", "--db", str(db), "--format", fmt, "--out", str(out)]) == 0
        rows = (json.loads(out.read_text()) if fmt == "json"
                else pq.read_table(out).to_pylist())  # fmt: skip
        assert rows[0]["fields"] == fields and rows[0]["path"] == path
        assert rows[0]["runs"] == [1] and rows[0]["pages"] == ["http://www.fly.example/deals"]
    out = tmp_path / "f.csv"
    assert main(["forms", "--db", str(db), "--format", "csv", "--out", str(out)]) == 0
    (flat,) = csv.DictReader(io.StringIO(out.read_text()))
    assert json.loads(flat["fields"]) == fields and json.loads(flat["path"]) == path
    assert json.loads(flat["runs"]) == [1]
    capsys.readouterr()
    assert main(["forms", "--db", str(db), "--format", "csv"]) == 0
    (flat_stdout,) = csv.DictReader(io.StringIO(capsys.readouterr().out))
    assert flat_stdout["fields"] == flat["fields"]


def test_table_shows_the_page_url_and_unknown_runs_are_usage_errors(
        db: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    assert main(["forms", "--db", str(db)]) == 0
    assert "http://www.fly.example/deals" in capsys.readouterr().out
    assert main(["forms", "--db", str(db), "--run", "7"]) == 2
    assert "no run 7" in capsys.readouterr().err
    assert main(["forms", "--db", str(db), "--run", "1", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 1
