"""Issue 12: real labelled forms, the site's context, navigation menus, batch judging."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import lxml.html
import numpy as np
import pandas as pd
import pytest

from classifiers.datasets import real_files, samples
from classifiers.domain import DomainFormClassifier, cross_validate_domain
from classifiers.fast_inference import compile_proba
from classifiers.form_features import (
    STRUCTURE_FEATURES,
    FormSample,
    FormText,
    HostWords,
    host_tokens,
    structure_vector,
)
from formhunter.cli import main
from formhunter.forms import extract_forms
from formhunter.parse import parse_page
from formhunter.trainers.packs import load_pack_forms, load_real_forms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"
COL = {n: i for i, n in enumerate(STRUCTURE_FEATURES)}

SITE_PAGE = b"""<html><head><title>Used cars for sale</title>
<meta property="og:site_name" content="Auto Trader"></head><body>
<header><a href="/">Home</a><a href="/cars">Used cars</a></header>
<nav><a href="/vans">Vans</a><a href="/cars">Used cars</a><a href="/bikes">Motorbikes</a></nav>
<form action="/search"><input name="q"><button>Search</button></form></body></html>"""

LANGUAGE_PICKER = """<form action="/lang"><select name="lang" onchange="this.form.submit()">
<option value="/en/">English</option><option value="/de/">Deutsch</option>
<option value="/fr/">Français</option><option value="/ja/">日本語</option>
<option value="/es/">Español</option></select><input type="submit" value="Go"></form>"""
JUMP_SELECT = """<form><select name="cat"><option>Select Category</option>
<option value="3">Breads</option><option value="4">Desserts</option>
<option value="5">Soups</option></select></form>"""
SEARCH_FILTERS = """<form action="/cars/search"><select name="make"><option>Any make</option>
<option>Ford</option><option>Audi</option></select><select name="year"><option>2024</option>
<option>2023</option></select><button>Search cars</button></form>"""


def _form(html: str) -> FormSample:
    (form,) = extract_forms(lxml.html.fromstring(html), "http://ex.com/")
    return FormSample(form)


def test_parse_page_keeps_site_name_and_navigation() -> None:
    page = parse_page("https://www.autotrader.co.uk/", SITE_PAGE)
    assert page.site_name == "Auto Trader"
    assert page.nav == "Home | Used cars | Vans | Motorbikes"  # document order, no repeats
    bare = parse_page("http://ex.com/", b"<html><body><a href=/a>About</a><a href=/b>Shop</a>"
                                        b"<form><input name=q></form></body></html>")  # fmt: skip
    assert bare.site_name == "" and bare.nav == "About | Shop"  # no menu: the first links
    huge = b"<html><body>" + b"<nav><a href=/x>x</a></nav><form></form>" * 20_000
    assert len(parse_page("http://ex.com/", huge).nav) <= 800


def test_host_words_split_the_site_name() -> None:
    assert host_tokens("https://www.auto-trader.co.uk/x") == ["auto", "trader"]
    assert host_tokens("") == []
    words = [FormSample(_form(SEARCH_FILTERS).form, "Auto trader: used cars and vans", "u")]
    hw = HostWords(min_count=1).fit(words)
    out = hw.transform([FormSample(words[0].form, "", "https://www.autotrader.co.uk/", "AT")])
    assert out == ["autotrader auto trader AT"]
    assert hw.split("cars") == []  # too short to split


def test_navigation_menus_are_features() -> None:
    lang, jump, search = (structure_vector(_form(h)) for h in
                          (LANGUAGE_PICKER, JUMP_SELECT, SEARCH_FILTERS))  # fmt: skip
    assert lang[COL["lang_options"]] == 1 and lang[COL["onchange_nav"]] == 1
    assert lang[COL["link_options"]] == 1 and lang[COL["menu_select"]] == 1
    assert jump[COL["select_no_submit"]] == 1 and jump[COL["prompt_option"]] == 1
    assert jump[COL["menu_select"]] == 1
    assert search[COL["select_only"]] == 1 and search[COL["menu_select"]] == 0
    assert search[COL["lang_options"]] == 0


def _real_pack(tmp_path: Path) -> Path:
    root = tmp_path / "domains"
    shutil.copytree(FIXTURES, root)
    curated = load_pack_forms(root=root)
    rows = []
    for i, (_, r) in enumerate(curated.iterrows()):
        if i % 3:
            continue
        rows.append({
            "site": f"real{i}.example", "url": "", "title": r["title"], "label": r["label"],
            "searchable": True, "html": r["form"].html, "nav": ["Home", f"{r['label']} deals"],
            "site_name": f"Real {i}", "real": True,
            "source": {"kind": "github", "repo": "o/r", "path": f"p{i}.html", "licence": "MIT"},
        })  # fmt: skip
    rows.append({"site": "nav.example", "url": "http://nav.example/", "label": "other",
                 "searchable": False, "html": LANGUAGE_PICKER, "real": True})  # fmt: skip
    for pack in ("airfare", "book", "_other"):
        chosen = [r for r in rows if r["label"] == ("other" if pack == "_other" else pack)]
        (root / pack / "real.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
    return root


def test_real_forms_load_with_provenance(tmp_path: Path) -> None:
    root = _real_pack(tmp_path)
    assert [p.parent.name for p in real_files(root)] == ["airfare", "book", "_other"]
    real = load_real_forms(root)
    assert real["real"].all() and len(real) == 13
    first = real.iloc[0]
    assert first["url"] == f"http://{first['site']}/"  # no URL: the site's host stands in
    assert first["nav"].startswith("Home | ") and first["site_name"].startswith("Real")
    assert "repo=o/r" in first["source"] and "licence=MIT" in first["source"]
    assert (~real["searchable"]).sum() == 1
    sample = samples(real)[0]
    assert sample.nav == first["nav"] and sample.site_name == first["site_name"]
    assert not load_pack_forms(root=root)["real"].any()


def test_domain_cv_scores_real_forms_only(tmp_path: Path) -> None:
    root = _real_pack(tmp_path)
    real = load_real_forms(root)
    real = real[real["searchable"]].reset_index(drop=True)
    curated = load_pack_forms(root=root)
    report = cross_validate_domain(real, DomainFormClassifier(), n_splits=3, extra=curated)
    assert report["n"] == len(real) and report["extra_n"] == len(curated)
    assert len(report["pred"]) == len(real)
    # the site signals are part of the model, and the compiled path gives the same floats
    both = pd.concat([real, curated], ignore_index=True)
    model = DomainFormClassifier().fit(samples(both), both["label"].to_numpy())
    assert {"host", "nav"} <= set(model.signals_)
    fast = compile_proba(model)
    assert fast is not None
    X = samples(real)
    assert np.array_equal(fast(X), model.predict_proba(X))
    # without navigation in the training data the signal is left out, not an error
    alone = DomainFormClassifier().fit(samples(curated), curated["label"].to_numpy())
    assert "nav" not in alone.signals_ and "host" in alone.signals_
    assert FormText("nav").fit_transform(X[:1]) == [X[0].nav]


def test_judge_many_files_one_process(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    (pages / "a.html").write_bytes(SITE_PAGE)
    (pages / "sub" / "b.htm").write_text(f"<html><body>{LANGUAGE_PICKER}</body></html>")
    (pages / "c.html").write_bytes(b"no markup at all")
    (pages / "notes.txt").write_text("not a page")
    missing = tmp_path / "gone.html"
    code = main(["judge", str(pages), str(missing), "--critic", "heuristic",
                 "--url", "https://www.autotrader.co.uk/"])  # fmt: skip
    assert code == 1  # some pages failed
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [Path(r["file"]).name for r in rows] == ["a.html", "c.html", "b.htm", "gone.html"]
    assert rows[0]["form_index"] == 0 and rows[0]["searchable"] is True
    assert rows[2]["form_index"] == 0 and "searchable" in rows[2]
    assert "no markup" in rows[1]["error"] and "cannot read" in rows[3]["error"]
    assert "Traceback" not in captured.err and "2 of 4 pages" in captured.err
    # worker processes give the same lines
    assert main(["judge", str(pages), "--critic", "heuristic", "--jobs", "2"]) == 1
    par = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"] for r in par] == [r["file"] for r in rows[:3]]
    assert main(["judge", str(tmp_path / "empty-dir-none")]) == 1
    (tmp_path / "empty").mkdir()
    assert main(["judge", str(tmp_path / "empty")]) == 2  # nothing to judge: usage error


def test_site_keywords_count_the_sites_words() -> None:
    from classifiers.form_features import SiteKeywords

    sk = SiteKeywords({"auto": ["car", "auto"], "book": ["book", "isbn"]}).fit([])
    box = _form("<form><input name=q><button>Search</button></form>").form
    X = sk.transform([
        FormSample(box, "Used cars for sale", "https://www.autotrader.example/", "AutoTrader"),
        FormSample(box, "Library", "http://lib.example/", "", "Books | Ebooks | ISBN search"),
        FormSample(box),
    ])  # fmt: skip
    assert X[0, 0] > 0 and X[0, 1] == 0  # "auto" in the host and the name, "car" in the title
    assert X[1, 1] == pytest.approx(np.log1p(3)) and X[1, 0] == 0
    assert not X[2].any()


def test_keyword_boxes_carry_their_sites_words() -> None:
    """A keyword box's own words rarely say what it searches: the keyword_site signal
    gives it the page title and host words; a form with fields of its own gets none."""
    box = _form('<form action="/s"><input name="q"><select name="in"><option>All</option>'
                '</select><button>Go</button></form>').form  # fmt: skip
    page = ("Used cars for sale | Bob's Autos", "https://www.bobsautos.com/", "Bob's Autos")
    text = FormText("keyword_site").fit([]).transform([FormSample(box, *page),
                                                       FormSample(_form(SEARCH_FILTERS).form,
                                                                  *page)])  # fmt: skip
    assert text[0] == "Used cars for sale | Bob's Autos bobsautos Bob's Autos" and text[1] == ""
