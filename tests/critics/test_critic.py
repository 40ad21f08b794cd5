"""The form critic: features, estimators, model directories, critics, commands."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import lxml.html
import numpy as np
import pytest
from sklearn.base import clone

from classifiers import persist
from classifiers.datasets import iter_packs, load_pack, samples
from classifiers.domain import DomainFormClassifier
from classifiers.form_features import (
    STRUCTURE_FEATURES,
    FormSample,
    FormStructure,
    FormText,
    StemTokenizer,
    text_pipeline,
)
from classifiers.searchable import SearchableFormClassifier
from formhunter import registry
from formhunter.cli import main
from formhunter.critics.trained import FormCritic, HeuristicCritic
from formhunter.exceptions import ModelError, UsageError
from formhunter.forms import extract_forms
from formhunter.model import Page
from formhunter.trainers.critic import train_domain_model
from formhunter.trainers.packs import load_pack_forms

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "domains"

PAGE = b"""<html><head><title>Cheap flights</title></head><body><h1>Find flights</h1>
<form action="/search"><label>From airport <input name=origin></label>
<label>To airport <input name=destination></label>
<label>Passengers <select name=adults><option>1</option><option>2</option></select></label>
<button>Search flights</button></form>
<form method=post action=/login><input name=user><input type=password name=pw>
<input type=submit value="Log in"></form>
<form action="/books" class="search"><label>Author <input name=author></label>
<label>ISBN <input name=isbn></label><input type=submit value="Search books"></form>
</body></html>"""


def _forms(html: bytes | str = PAGE) -> list:
    return extract_forms(lxml.html.fromstring(html), "http://ex.com/")


def _page() -> Page:
    return Page(url="http://ex.com/", final_url="http://ex.com/", status=200, site="ex.com",
                title="Cheap flights")  # fmt: skip


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real searchable model (formasaurus data) and a domain model on fixture packs."""
    base = tmp_path_factory.mktemp("models")
    from formhunter.trainers.critic import train_searchable_model

    train_searchable_model(base / "searchable", n_splits=2)
    train_domain_model(base / "domain", root=FIXTURES, n_splits=3)
    return base


def test_structure_features() -> None:
    search, login, books = _forms()
    fs = FormStructure().fit([search])
    X = fs.transform([search, login, FormSample(books, "t", "u")])
    assert X.shape == (3, len(STRUCTURE_FEATURES))
    col = dict(zip(STRUCTURE_FEATURES, range(X.shape[1]), strict=True))
    assert X[0, col["n_text"]] == 2 and X[0, col["n_select"]] == 1
    assert X[0, col["submit_search"]] == 1 and X[1, col["submit_search"]] == 0
    assert X[1, col["has_password"]] == 1 and X[1, col["method_post"]] == 1
    assert X[2, col["attr_search"]] == 1 and X[0, col["action_search"]] == 1
    assert list(fs.get_feature_names_out()) == list(STRUCTURE_FEATURES)


def test_multilingual_search_terms() -> None:
    html = "<form><input name=x><button>{}</button></form>"
    for word in ["Suche", "Buscar", "Rechercher", "Cerca", "Zoeken", "Поиск", "検索", "搜索"]:
        (form,) = _forms(html.format(word))
        v = FormStructure().fit_transform([form])
        assert v[0, STRUCTURE_FEATURES.index("submit_search")] == 1, word


def test_text_signals_and_stemming() -> None:
    search = _forms()[0]
    assert FormText("labels").fit_transform([search]) == ["From airport To airport Passengers"]
    assert "destination" in FormText("names").fit_transform([search])[0]
    tok = StemTokenizer()
    assert tok("The Departing flights and departureDate") == [
        "depart",
        "flight",
        "departur",
        "date",
    ]
    assert pickle.loads(pickle.dumps(tok))("flights") == ["flight"]
    with pytest.raises(ValueError):
        FormText("nope").fit([search])
    m = text_pipeline("labels").fit([search, _forms()[2]])
    assert m.transform([search]).shape[0] == 1


def test_estimator_contract() -> None:
    df = load_pack_forms(root=FIXTURES)
    X, y = samples(df), df["label"].to_numpy()
    for est in (SearchableFormClassifier(max_depth=3), DomainFormClassifier(C=2.0)):
        params = est.get_params()
        twin = clone(est)
        assert twin.get_params() == params and not hasattr(twin, "classes_")
    d = DomainFormClassifier()
    assert d.fit(X, y) is d
    assert set(d.classes_) == {"airfare", "book", "other"}
    proba = d.predict_proba(X[:5])
    assert proba.shape == (5, 3) and np.allclose(proba.sum(axis=1), 1)
    s = SearchableFormClassifier(max_depth=3)
    ys = np.arange(len(X)) % 2 == 0
    assert s.fit(X, ys) is s and list(s.classes_) == [False, True]
    assert s.predict_proba([]).shape == (0, 2)
    nocal = DomainFormClassifier(calibrate=False).fit(X, y)
    assert np.allclose(nocal.predict_proba(X[:3]).sum(axis=1), 1)


def test_packs_loading(tmp_path: Path) -> None:
    assert iter_packs(FIXTURES) == ["airfare", "book"]
    pack = load_pack("book", FIXTURES)
    assert pack.curated and "isbn" in pack.keywords and len(pack.forms) == 12
    df = load_pack_forms(root=FIXTURES)
    assert set(df["label"]) == {"airfare", "book", "other"} and len(df) == 36
    with pytest.raises(UsageError, match="formhunter domains new"):
        load_pack("nope", FIXTURES)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "pack.toml").write_text('name = "bad"\n')
    (bad / "forms.jsonl").write_text('{"site": 1}\nnot json\n')
    with pytest.raises(UsageError, match=r"forms\.jsonl:2"):
        load_pack("bad", tmp_path)


def test_critic_judges_a_page(models: Path) -> None:
    critic = registry.create("critic", "default", domain="airfare", models_dir=models)
    assert isinstance(critic, FormCritic)
    v = critic.judge(_forms(), _page())
    assert [x.searchable for x in v] == [True, False, True]
    assert v[0].domain == "airfare" and v[0].relevant
    assert v[1].domain == "" and not v[1].relevant
    assert v[2].domain == "book" and not v[2].relevant
    assert 0 <= v[0].domain_score <= 1 and 0 <= v[1].searchable_score <= 1
    assert critic.judge([], _page()) == []
    with pytest.raises(ModelError, match="train domain --domain hotel"):
        FormCritic("hotel", models)


def test_judge_many_equals_judge_per_page(models: Path) -> None:
    """Batching across pages changes nothing: judge_many == judge page by page."""
    from formhunter.critics.keywords import KeywordCritic

    other = Page(url="http://books.example/", final_url="http://books.example/", status=200,
                 site="books.example", title="Books and authors")  # fmt: skip
    forms = _forms()
    batch = [(forms, _page()), ([], _page()), (forms[::-1], other), (forms[1:2], other),
             (forms[2:], _page())]  # fmt: skip
    critics = [FormCritic("airfare", models), FormCritic("", models),
               HeuristicCritic("book", FIXTURES), KeywordCritic("airfare", ("flight", "airport"))]
    for critic in critics:
        many = critic.judge_many(batch)
        assert many == [critic.judge(f, p) for f, p in batch]
        assert [len(v) for v in many] == [len(f) for f, _ in batch]
        assert critic.judge_many([]) == [] and critic.judge_many([([], other)]) == [[]]
    assert any(v.relevant for v in critics[0].judge_many(batch)[0])


def test_compiled_proba_equals_scikit_learn(models: Path, tmp_path: Path) -> None:
    """The critic's compiled predict_proba gives scikit-learn's floats exactly, on the
    shipped models and on fixture-trained ones, over every pack form, in small and
    large batches; the critic takes that path once its first call agreed."""
    from classifiers.fast_inference import compile_proba

    df = load_pack_forms(root=FIXTURES)
    X = samples(df)
    trained = [persist.load_model(models / k, k)[0] for k in ("searchable", "domain")]
    shipped = [persist.load_model(persist.DEFAULT_MODELS / k, k)[0]
               for k in ("searchable", "domain")
               if (persist.DEFAULT_MODELS / k / "manifest.json").is_file()]  # fmt: skip
    assert shipped, "the default models are committed"
    for model in trained + shipped:
        fast = compile_proba(model)
        assert fast is not None, type(model).__name__
        for batch in (X[:1], X[:7], X):
            want, got = model.predict_proba(batch), fast(batch)
            assert got.dtype == want.dtype and np.array_equal(got, want)
    # training wrote the models' inference files (classifiers.linear_inference), which the
    # critic uses; without them it takes the compiled path
    from classifiers.linear_inference import FILE, FormScorer

    assert isinstance(FormCritic("airfare", models).searchable_model, FormScorer)
    plain = tmp_path / "models"
    shutil.copytree(models, plain)
    for f in plain.rglob(FILE):
        f.unlink()
    critic = FormCritic("airfare", plain)
    critic.judge(_forms(), _page())
    assert all(c.checked and c.fast is not None for c in critic._checked.values())
    assert set(critic._checked) == {"searchable", "domain"}
    # swapping a model in rebuilds its compiled path
    critic.searchable_model = trained[0]
    critic.judge(_forms(), _page())
    assert critic._checked["searchable"].est is trained[0]


def test_compiled_proba_falls_back(models: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A compiled path that disagrees with scikit-learn is dropped for good, with a
    warning; unsupported estimators are not compiled."""
    from sklearn.naive_bayes import MultinomialNB

    from classifiers.fast_inference import Checked, compile_proba

    model, _ = persist.load_model(models / "searchable", "searchable")
    checked = Checked(model, "searchable")
    assert checked.fast is not None
    checked.fast = lambda X: np.zeros((len(X), 2))
    X = [FormSample(f) for f in _forms()]
    with caplog.at_level("WARNING"):
        assert np.array_equal(checked(X), model.predict_proba(X))
    assert checked.fast is None and "differs" in caplog.text
    assert np.array_equal(checked(X), model.predict_proba(X))
    assert checked([]).shape == (0, 2)
    assert compile_proba(MultinomialNB()) is None
    assert compile_proba(SearchableFormClassifier(learner="tree")) is None


def test_heuristic_critic() -> None:
    name = iter_packs()[0]
    critic = registry.create("critic", "heuristic", domain=name)
    assert isinstance(critic, HeuristicCritic)
    with pytest.raises(UsageError, match="no domain pack"):
        registry.create("critic", "heuristic", domain="no-such-pack")


def test_heuristic_critic_fixture_packs() -> None:
    critic = HeuristicCritic("book", FIXTURES)
    v = critic.judge(_forms(), _page())
    assert v[1].searchable is False
    assert v[2].searchable and v[2].domain == "book" and v[2].relevant
    assert v[0].domain == "airfare" and not v[0].relevant


def test_model_dir_manifest_and_version_refusal(models: Path, tmp_path: Path) -> None:
    manifest = persist.read_manifest(models / "searchable")
    assert manifest["kind"] == "searchable" and manifest["data_hash"]
    assert manifest["versions"]["scikit-learn"] and "f1" in manifest["metrics"]
    model, _ = persist.load_model(models / "domain", "domain")
    assert "book" in model.classes_
    # a model made with another scikit-learn is refused with what to do
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(models / "searchable", copy)
    m = json.loads((copy / "manifest.json").read_text())
    m["versions"]["scikit-learn"] = "0.24.2"
    (copy / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(ModelError, match=r"scikit-learn 0\.24\.2.*formhunter train searchable"):
        persist.load_model(copy, "searchable")
    with pytest.raises(ModelError, match="not 'domain'"):
        persist.load_model(copy, "domain")
    with pytest.raises(ModelError, match="missing"):
        persist.load_model(tmp_path / "none", "domain")


def test_default_models_load() -> None:
    """The committed default models load and judge (needs data/models/)."""
    if not (persist.DEFAULT_MODELS / "domain" / "manifest.json").is_file():
        pytest.skip("no default domain model committed yet")
    classes = persist.read_manifest(persist.DEFAULT_MODELS / "domain")["classes"]
    target = next(c for c in classes if c != "other")
    critic = FormCritic(target)
    assert len(critic.judge(_forms(), _page())) == 3


def test_cli_judge_train_domains(
    models: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "p.html"
    page.write_bytes(PAGE)
    args = ["judge", str(page), "--url", "http://ex.com/", "--domain", "book"]
    assert main([*args, "--models", str(models)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["form_index"] for r in rows] == [0, 1, 2]
    assert set(rows[0]) == {"file", "url", "form_index", "action", "method", "searchable",
                            "searchable_score", "domain", "domain_score", "relevant",
                            "page_score", "page_topic"}  # fmt: skip
    assert {r["url"] for r in rows} == {"http://ex.com/"}  # the page's URL (WARC pages: each own)
    assert rows[2]["relevant"] and rows[2]["action"] == "http://ex.com/books"
    # issue 12: a page that cannot be read gets an error line, and the exit code says so
    assert main(["judge", str(tmp_path / "missing.html"), "--models", str(models)]) == 1
    (err,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert err["file"].endswith("missing.html") and "cannot read" in err["error"]

    root = tmp_path / "domains"
    import shutil

    shutil.copytree(FIXTURES, root)
    assert main(["domains", "new", "hotel", "--domains-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "formhunter train domain --domain hotel" in out
    assert (root / "hotel" / "pack.toml").is_file()
    assert main(["domains", "new", "hotel", "--domains-dir", str(root)]) == 2
    assert main(["domains", "new", "Bad Name", "--domains-dir", str(root)]) == 2
    # an empty pack cannot be trained for; the error says what to add
    out_dir = tmp_path / "m"
    train = ["train", "domain", "--domain", "hotel", "--domains-dir", str(root)]
    assert main([*train, "--out", str(out_dir)]) == 2
    assert "add at least" in capsys.readouterr().err
    # label forms for it, retrain, and the critic accepts the domain
    rows_book = (root / "book" / "forms.jsonl").read_text().splitlines()
    hotel = [
        json.dumps(json.loads(r) | {"label": "hotel", "site": f"h{i}.example",
                                    "html": json.loads(r)["html"].replace("book", "hotel room")
                                    .replace("Title", "Check-in").replace("Author", "Guests")})
        for i, r in enumerate(rows_book)
    ]  # fmt: skip
    (root / "hotel" / "forms.jsonl").write_text("\n".join(hotel) + "\n")
    assert main([*train, "--out", str(out_dir / "domain"), "--folds", "3"]) == 0
    shutil.copytree(models / "searchable", out_dir / "searchable")
    FormCritic("hotel", out_dir)
    assert main(["domains", "list", "--domains-dir", str(root)]) == 0
    assert "hotel" in capsys.readouterr().out
