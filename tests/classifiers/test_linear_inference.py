"""The inference files: the shipped models' scorers give scikit-learn's floats without
importing it; a file that does not stand for its model, or is damaged, is passed over
(scikit-learn loads the model) and runs nothing."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from classifiers import linear_inference as li
from classifiers.persist import DEFAULT_MODELS, MANIFEST, load_model

_ROOT = Path(__file__).resolve().parents[2]


def _forms(n: int) -> list[Any]:
    from formhunter.trainers.critic import domain_data

    real, curated, _, _ = domain_data()
    from classifiers.datasets import samples

    rows = samples(real)[: n // 2] + samples(curated)[: n // 2]
    assert len(rows) >= n // 2
    return rows


def _pages(n: int) -> list[str]:
    from classifiers.page_classifier import real_pages

    pages = real_pages()
    return list(pages.loc[~pages["frozen"], "text"])[:n]


def test_the_shipped_models_score_as_scikit_learn_does() -> None:
    forms = _forms(400)
    for kind in ("searchable", "domain"):
        scorer, _ = li.load_scorer(DEFAULT_MODELS / kind, kind)
        model, _ = load_model(DEFAULT_MODELS / kind, kind)
        assert isinstance(scorer, li.FormScorer), kind
        assert list(scorer.classes_) == list(model.classes_)
        for start in range(0, len(forms), 64):
            part = forms[start:start + 64]
            fast, slow = scorer.predict_proba(part), model.predict_proba(part)
            assert fast.dtype == slow.dtype and np.array_equal(fast, slow), (kind, start)
    context, _ = li.load_scorer(DEFAULT_MODELS / "context", "context")
    bundle, _ = load_model(DEFAULT_MODELS / "context", "context")
    assert isinstance(context, li.ContextScorer)
    texts = _pages(150)
    topics = context.topics.scores(texts)
    assert np.array_equal(topics, bundle.topics.scores(texts))
    domain, _ = load_model(DEFAULT_MODELS / "domain", "domain")
    proba = domain.predict_proba(forms[:150])
    boxes = np.arange(150) % 2
    lex = np.random.default_rng(1).integers(0, 3, (150, len(context.topics.domains_)))
    args = (proba, [str(c) for c in domain.classes_], topics, boxes, lex.astype(float))
    assert np.array_equal(context.proba(*args), bundle.proba(*args))


def _copy(tmp_path: Path, kind: str = "searchable") -> Path:
    d = tmp_path / kind
    shutil.copytree(DEFAULT_MODELS / kind, d)
    return d


def _spec(d: Path) -> dict[str, Any]:
    spec, _ = li.read_inference(d / li.FILE)
    return spec


def _rewrite(d: Path, spec: dict[str, Any]) -> None:
    _, arrays = li.read_inference(d / li.FILE)
    raw = np.frombuffer(json.dumps(spec).encode(), np.uint8)
    with open(d / li.FILE, "wb") as f:
        np.savez(f, spec=raw, **arrays)  # type: ignore[arg-type]


@pytest.mark.parametrize("change", ["model_sha256", "data_hash", "versions", "step", "array",
                                    "patch"])
def test_a_file_that_does_not_stand_for_its_model_is_passed_over(tmp_path: Path,
                                                                 change: str) -> None:  # fmt: skip
    from classifiers.searchable import SearchableFormClassifier

    d = _copy(tmp_path)
    spec = _spec(d)
    if change == "versions":
        spec["versions"] = {**spec["versions"], "numpy": "0.0.1"}
    elif change == "patch":  # a patch release of numpy: still used
        major, minor, *_ = spec["versions"]["numpy"].split(".")
        spec["versions"] = {**spec["versions"], "numpy": f"{major}.{minor}.999"}
    elif change == "step":
        spec["model"]["final"]["type"] = "os.system"
    elif change == "array":
        spec["model"]["final"]["coef"] = "nowhere"
    else:
        spec[change] = "0" * 16
    _rewrite(d, spec)
    model, manifest = li.load_scorer(d, "searchable")
    if change == "patch":
        assert isinstance(model, li.FormScorer)
        return
    assert isinstance(model, SearchableFormClassifier)  # scikit-learn's, from model.npz
    assert manifest["kind"] == "searchable"


def test_a_pickle_in_the_file_is_never_unpickled(tmp_path: Path) -> None:
    from classifiers.searchable import SearchableFormClassifier

    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self) -> tuple[Any, ...]:
            return (os.system, (f"touch {marker}",))

    d = _copy(tmp_path)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, arr in (("spec", np.frombuffer(b"{}", np.uint8)),
                          ("a0", np.array([Evil()], dtype=object))):  # fmt: skip
            member = io.BytesIO()
            np.save(member, arr, allow_pickle=True)
            z.writestr(name + ".npy", member.getvalue())
    (d / li.FILE).write_bytes(buf.getvalue())
    model, _ = li.load_scorer(d, "searchable")
    assert isinstance(model, SearchableFormClassifier) and not marker.exists()


def test_an_incompatible_model_is_refused_as_before(tmp_path: Path) -> None:
    """The inference file does not lift load_model's version checks."""
    from classifiers.exceptions import ModelError

    d = _copy(tmp_path)
    manifest = json.loads((d / MANIFEST).read_text())
    manifest["versions"]["scikit-learn"] = "0.1.0"
    (d / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ModelError, match="incompatible"):
        li.load_scorer(d, "searchable")


def test_write_inference_checks_then_writes(tmp_path: Path) -> None:
    from classifiers.inference_export import write_inference

    d = _copy(tmp_path)
    (d / li.FILE).unlink()
    assert not isinstance(li.load_scorer(d, "searchable")[0], li.FormScorer)
    assert write_inference(d, "searchable", _forms(120)) == d / li.FILE
    assert isinstance(li.load_scorer(d, "searchable")[0], li.FormScorer)
    assert not (d / (li.FILE + ".tmp")).exists()


def test_l2_rows_as_scikit_learn() -> None:
    from scipy import sparse
    from sklearn.utils.sparsefuncs_fast import inplace_csr_row_normalize_l2

    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        for _ in range(50):
            X = sparse.random(6, 2000, density=float(rng.uniform(0.001, 0.2)), format="csr",
                              dtype=dtype, random_state=int(rng.integers(1 << 30)))
            X.data = (rng.random(X.data.shape) * rng.choice([1e-3, 1.0, 40.0])).astype(dtype)
            a, b = X.copy(), X.copy()
            inplace_csr_row_normalize_l2(a)
            li.l2_normalize_rows(b)
            assert np.array_equal(a.data, b.data)


def test_judge_imports_no_scikit_learn(tmp_path: Path) -> None:
    """``formhunter judge`` with the shipped models: no scikit-learn, NLTK, pandas,
    scipy.stats, DuckDB or pyarrow in the process, and page scores in every line."""
    page = tmp_path / "p.html"
    page.write_text("<title>Used cars</title><form action=/s><input name=q type=text>"
                    "<input type=submit value=Search></form>")  # fmt: skip
    code = ("import sys; from formhunter.cli import main; "
            f"main(['judge', {str(page)!r}, '--domain', 'auto']); "
            "print(sorted(m for m in ('sklearn', 'nltk', 'pandas', 'scipy.stats', 'duckdb', "
            "'pyarrow') if m in sys.modules))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=_ROOT)  # fmt: skip
    *lines, modules = out.stdout.strip().splitlines()
    assert modules == "[]", out.stderr
    assert len(lines) == 1 and json.loads(lines[0])["page_score"] is not None
