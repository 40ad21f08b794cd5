"""User models: ``train`` writes to the user model directory, never into data/models;
loading looks there first; small packs get a warning; ``train domain
--from-catalogue`` learns from the labels of a catalogue and suggests the next ones."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from classifiers import persist
from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.labels import add_label
from formhunter.model import Field, Form, Page, Verdict

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "domains"
BOATS = [("Marina berth finder", "berth_length", "marina", ["Harbour", "Lake", "River"]),
         ("Find a mooring", "boat_length", "harbour", ["North", "South"]),
         ("Search yachts for charter", "yacht_type", "port", ["Sail", "Motor", "Catamaran"]),
         ("Boat slip search", "slip_size", "dock", ["Small", "Medium", "Large"])]  # fmt: skip


def _boat_form(i: int) -> tuple[str, list[Field], str]:
    title, length, place, options = BOATS[i % len(BOATS)]
    opts = "".join(f"<option>{o}</option>" for o in options)
    html = (f'<form action="/boats/search"><label>{title}</label>'
            f'<label>Boat length <input name="{length}"></label>'
            f'<label>Marina <select name="{place}">{opts}</select></label>'
            "<label>Arrival <input name=arrival></label><button>Search boats</button></form>")
    fields = [Field(length, "text", label="Boat length"),
              Field(place, "select", label="Marina", options=options),
              Field("arrival", "text", label="Arrival")]  # fmt: skip
    return title, fields, html


def _data_models_digest() -> str:
    h = hashlib.sha256()
    for p in sorted((ROOT / "data" / "models").rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(ROOT)).encode() + p.read_bytes())
    return h.hexdigest()


def _pack_with_boats(tmp_path: Path, n: int) -> Path:
    root = tmp_path / "domains"
    shutil.copytree(FIXTURES, root)
    assert main(["domains", "new", "boats", "--domains-dir", str(root)]) == 0
    lines = []
    for i in range(n):
        title, _, html = _boat_form(i)
        lines.append(json.dumps({"site": f"boats{i}.example", "url": f"https://boats{i}.example/",
                                 "title": title, "lang": "en", "kind": "simple",
                                 "label": "boats", "searchable": True, "html": html}))
    (root / "boats" / "forms.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_train_as_the_readme_says_leaves_data_models_alone(
        tmp_path: Path, user_models: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    before = _data_models_digest()
    root = _pack_with_boats(tmp_path, 12)
    printed = capsys.readouterr().out
    assert "at least 40" in printed and "fewer than 10" in printed  # domains new
    readme = (ROOT / "domains" / "README.md").read_text()
    assert "at least 40 forms" in readme and "fewer than 10" in readme  # they agree
    assert main(["train", "domain", "--domain", "boats", "--domains-dir", str(root),
                 "--folds", "2"]) == 0  # fmt: skip
    out, err = capsys.readouterr()
    assert "warning: domain 'boats' has 12 labelled forms" in err and "40" in err
    assert str(user_models / "domain") in out
    assert _data_models_digest() == before
    if shutil.which("git") and (ROOT / ".git").exists():
        status = subprocess.run(["git", "status", "--porcelain", "--", "data/models"], cwd=ROOT,
                                capture_output=True, text=True, check=True)  # fmt: skip
        assert status.stdout == ""
    # loading looks in the user directory first: the crawl's critic now knows boats
    first = persist.model_path("domain")
    assert first.parent == user_models / "domain" and first.name in out
    from formhunter.critics.trained import FormCritic

    critic = FormCritic("boats")
    assert "boats" in critic.classes_
    assert persist.model_path("searchable") == persist.DEFAULT_MODELS / "searchable"
    # --models DIR writes elsewhere, still not into data/models
    other = tmp_path / "elsewhere"
    assert main(["train", "domain", "--domains-dir", str(root), "--folds", "2",
                 "--models", str(other)]) == 0  # fmt: skip
    (elsewhere,) = (other / "domain").glob("*/manifest.json")
    assert persist.model_path("domain", other) == elsewhere.parent
    assert _data_models_digest() == before
    # a second training keeps the first model: both are listed, the newest is the default
    assert main(["train", "domain", "--domain", "boats", "--domains-dir", str(root),
                 "--folds", "2", "--C", "0.1"]) == 0  # fmt: skip
    second = persist.model_path("domain")
    assert second != first and (first / "manifest.json").is_file() and second.name > first.name
    assert persist.model_path("domain", name=first.name) == first
    assert persist.model_path("domain", name=persist.SHIPPED) == persist.DEFAULT_MODELS / "domain"
    with pytest.raises(persist.ModelError, match="no domain model named 'nope'"):
        persist.model_path("domain", name="nope")
    capsys.readouterr()
    assert main(["models", "list", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    mine = [r for r in rows if r["kind"] == "domain" and r["name"] != persist.SHIPPED]
    assert [r["name"] for r in mine] == [first.name, second.name]
    assert [r["default"] for r in mine] == ["", "yes"]
    assert FormCritic("boats", model=first.name).models()["domain"]["name"] == first.name


def test_user_models_dir_defaults(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FORMHUNTER_MODELS")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert persist.user_models_dir() == tmp_path / "xdg" / "formhunter" / "models"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert persist.user_models_dir() == tmp_path / ".local" / "share" / "formhunter" / "models"
    assert persist.model_path("domain", tmp_path / "m") == tmp_path / "m" / "domain"


def test_from_catalogue_flips_the_verdicts_the_labels_corrected(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """Boat forms the packs know nothing of are judged "other"; 12 labels saying "boats"
    (on 6 sites) teach the model, and the held-back boat forms (6 other sites) flip."""
    db = tmp_path / "c.duckdb"
    ids: dict[str, list[int]] = {"labelled": [], "held": []}
    with Catalogue(db) as cat:
        run = cat.new_run(domain="boats", strategy="bfs", max_pages=1, config={}, seeds=[])
        for i in range(24):
            site = f"marina{i % 12}.example"
            title, fields, html = _boat_form(i)
            page = Page(url=f"http://www.{site}/p{i}", final_url=f"http://www.{site}/p{i}",
                        status=200, site=site, title=title)  # fmt: skip
            form = Form(f"http://www.{site}/boats/search{i}", "get", fields, html=html)
            fid = cat.add_form(run, i, page, form, Verdict(True, 0.9, "other", 0.6, False),
                               found_after_pages=i, path=[(page.url, "")])  # fmt: skip
            ids["labelled" if i % 12 < 6 else "held"].append(int(fid or 0))
        cat.commit()
        for fid in ids["labelled"]:
            add_label(cat.con, fid, verdict_ok=False, true_domain="boats")
    out_dir = tmp_path / "model"
    assert main(["train", "domain", "--from-catalogue", str(db), "--domains-dir", str(FIXTURES),
                 "--folds", "2", "--out", str(out_dir), "--suggest", "5"]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert '"labelled_forms": 12' in printed
    assert "label these next" in printed
    suggested = [int(line.split()[1]) for line in printed.splitlines()
                 if line.startswith("  form ")]  # fmt: skip
    assert len(suggested) == 5 and not set(suggested) & set(ids["labelled"])
    model, manifest = persist.load_model(out_dir, "domain")
    assert "boats" in manifest["classes"] and manifest["extra_forms"] == 12
    from classifiers.form_features import FormSample
    from formhunter.trainers.packs import form_from_html

    with Catalogue(db, read_only=True) as cat:
        rows = cat.con.execute(
            f"SELECT html, page_url, page_title FROM forms WHERE form_id IN "
            f"({','.join(map(str, ids['held']))})").fetchall()  # fmt: skip
    samples = [FormSample(form_from_html(h, u), t, u) for h, u, t in rows]  # type: ignore[arg-type]
    assert list(model.predict(samples)).count("boats") >= 10  # of 12 held-back forms


def test_a_model_of_the_layout_before_names_is_kept_not_replaced(tmp_path: Path) -> None:
    root = tmp_path / "models"
    legacy = root / "domain"
    legacy.mkdir(parents=True)
    (legacy / "manifest.json").write_text(json.dumps(
        {"kind": "domain", "created": "2026-01-02T03:04:05Z", "data_hash": "abcdef0123456789"}))
    (legacy / "model.joblib").write_bytes(b"old")
    assert persist.model_path("domain", root) == legacy
    built = persist.new_model_dir(root, "domain")
    built.mkdir()
    (built / "manifest.json").write_text(json.dumps(
        {"kind": "domain", "created": "2026-11-28T02:15:00Z", "data_hash": "ffff0000eeee"}))
    kept = persist.keep_model(built, root, "domain")
    assert kept == legacy / "20261128-021500-ffff0000"
    old = legacy / "20260102-030405-abcdef01"
    assert (old / "model.joblib").read_bytes() == b"old"
    assert not (legacy / "manifest.json").exists()
    assert persist.model_path("domain", root) == kept
    assert persist.model_path("domain", root, "20260102-030405-abcdef01") == old
    names = [(m["kind_path"], m["name"]) for m in persist.list_models(root)]
    assert names[:2] == [("domain", old.name), ("domain", kept.name)]
