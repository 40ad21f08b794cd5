"""What 30 labels do to the domain model: the experiment behind
``scripts/bench_label_retrain.py`` (tests run it at a tiny size).

A catalogue is filled the way a crawl fills it: every distinct form of a
simulated web (seed 5 by default; 7 and 8 are the benchmarks' webs, kept out of
any training) is parsed from its served page and judged by the shipped critic.
The simulated web's ground truth gives each form's true domain. Sites are split
in two halves: on one, ``n_labels`` forms get a label (chosen least-sure-first by
the shipped domain model, the page's active learning; at random; or wrong first,
as a person browsing and correcting does) and are written to the catalogue's
``form_labels``; the other half's forms are the held-back labelled forms. The
domain model is retrained on the packs plus the catalogue's labels
(``formhunter.trainers.labels``, as ``train domain --from-catalogue`` does) and
the held-back forms' verdicts compared before and after: how many wrong verdicts
flip to right, how many right ones to wrong. ``unknown`` leaves one pack out of
both models: a domain the shipped model does not know, taught by labels alone.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from formhunter.catalogue import Catalogue
from formhunter.directory import OTHER_DOMAIN
from formhunter.labels import add_label


def fill_catalogue(db: Path, *, seed: int, n_sites: int, domain: str, max_forms: int = 5000,
                   models_dir: Path | None = None) -> pd.DataFrame:  # fmt: skip
    """Judge every distinct truly searchable form of the web into a new catalogue at ``db``;
    returns form_id, site, truth (true domain or "other"), verdict (stored domain)."""
    from formhunter.critics.trained import FormCritic
    from formhunter.parse import parse_page
    from formhunter.simweb import SimWeb

    web = SimWeb(seed=seed, n_sites=n_sites)
    critic = FormCritic(domain, models_dir)
    seen: set[tuple[str, str]] = set()
    rows: list[dict[str, Any]] = []
    with Catalogue(db) as cat:
        run = cat.new_run(domain=domain, strategy="truth", max_pages=0, config={}, seeds=[])
        for spec in web.truth().specs():
            truth = {f.signature: f.domain or OTHER_DOMAIN for f in spec.ordered_forms()
                     if f.searchable and not f.js_only
                     and (spec.site.name, f.signature) not in seen}  # fmt: skip
            if not truth:
                continue
            page = parse_page(spec.url, web.fetch(spec.url).body)
            forms = [f for f in page.forms if f.signature in truth]
            for form, verdict in zip(forms, critic.judge(forms, page), strict=True):
                seen.add((spec.site.name, form.signature))
                fid = cat.add_form(run, 1, page, form, verdict, found_after_pages=1,
                                   path=[(spec.url, "")])  # fmt: skip
                if fid is not None and verdict.searchable:
                    rows.append({"form_id": fid, "site": page.site,
                                 "truth": truth[form.signature], "verdict": verdict.domain})
            if len(rows) >= max_forms:
                break
        cat.commit()
    return pd.DataFrame(rows, columns=["form_id", "site", "truth", "verdict"])


def choose_labels(db: Path, pool: pd.DataFrame, n: int, how: str, rng: np.random.Generator,
                  models_dir: Path | None = None) -> pd.DataFrame:  # fmt: skip
    """``n`` forms of ``pool`` to label: least sure first (shipped model), at random, or
    wrong first (a reviewer who corrects the wrong verdicts she meets, then confirms
    right ones: the labels a person gives when browsing the forms)."""
    if how == "random":
        return pool.iloc[rng.permutation(len(pool))[:n]]
    if how == "wrong-first":
        shuffled = pool.iloc[rng.permutation(len(pool))]
        wrong = shuffled["truth"] != shuffled["verdict"]
        return pd.concat([shuffled[wrong], shuffled[~wrong]]).head(n)
    from classifiers.persist import load_model, model_path
    from formhunter.trainers.labels import least_sure, unlabelled_forms

    model, _ = load_model(model_path("domain", models_dir), "domain")
    with Catalogue(db, read_only=True) as cat:
        candidates = unlabelled_forms(cat.con, limit=100_000)
    candidates = candidates[candidates["form_id"].isin(pool["form_id"])]
    order = [r["form_id"] for r in least_sure(model, candidates, n)]
    return pool.set_index("form_id").loc[order].reset_index()


def retrained_verdicts(db: Path, form_ids: list[int], *, with_labels: bool,
                       random_state: int = 0, root: Path | None = None) -> list[str]:  # fmt: skip
    """Domains a model fitted on the packs (plus the catalogue's labels) gives these forms."""
    from classifiers.datasets import samples
    from classifiers.domain import MIN_FORMS, DomainFormClassifier
    from formhunter.trainers.labels import _frame, labelled_forms
    from formhunter.trainers.packs import load_pack_forms

    df = load_pack_forms(root=root)
    df = df[df["searchable"].astype(bool)]
    cols = ["site", "url", "title", "label", "form"]
    with Catalogue(db, read_only=True) as cat:
        if with_labels:
            df = pd.concat([df[cols], labelled_forms(cat.con)[cols]], ignore_index=True)
        counts = df["label"].value_counts()
        df = df[df["label"].isin([k for k, v in counts.items() if v >= MIN_FORMS])]
        model = DomainFormClassifier(random_state=random_state).fit(
            samples(df), df["label"].to_numpy(dtype=object).astype(str))
        marks = ",".join("?" * len(form_ids))
        cur = cat.con.execute(
            "SELECT form_id, site, page_url AS url, coalesce(page_title, '') AS title, html,"
            f" coalesce(context, '') AS context FROM forms WHERE form_id IN ({marks})", form_ids)
        test = _frame(cur.fetchall(), [d[0] for d in cur.description]).set_index("form_id")
    test = test.loc[form_ids]
    return [str(p) for p in model.predict(samples(test))]


def without_pack(workdir: Path, drop: str) -> tuple[Path, Path]:
    """Packs without ``drop`` and a model directory whose domain model never saw it (the
    shipped searchable model beside it): a domain the shipped model does not know."""
    from classifiers.datasets import domains_root
    from classifiers.persist import DEFAULT_MODELS
    from formhunter.trainers.critic import train_domain_model

    root = workdir / f"domains-without-{drop}"
    models = workdir / f"models-without-{drop}"
    if not (models / "domain" / "manifest.json").is_file():
        shutil.rmtree(root, ignore_errors=True)
        shutil.copytree(domains_root(), root, ignore=shutil.ignore_patterns(drop))
        shutil.copytree(DEFAULT_MODELS / "searchable", models / "searchable", dirs_exist_ok=True)
        train_domain_model(models / "domain", root=root, n_splits=2)
    return root, models


def label_experiment(workdir: Path, *, seed: int = 5, n_sites: int = 120, domain: str = "airfare",
                     n_labels: int = 30, hows: tuple[str, ...] = ("least-sure",),
                     random_state: int = 0, max_forms: int = 5000,
                     unknown: str = "") -> list[dict[str, Any]]:  # fmt: skip
    """Run the experiment (module doc) in ``workdir``, once per way of choosing labels.
    ``unknown``: leave this pack out (of the stored verdicts' model and the retrained
    one), as for a domain whose forms only the labels teach."""
    t0 = time.perf_counter()
    root, models = without_pack(workdir, unknown) if unknown else (None, None)
    base = workdir / f"labels-{seed}-{n_sites}-{unknown or 'all'}.duckdb"
    base.unlink(missing_ok=True)
    forms = fill_catalogue(base, seed=seed, n_sites=n_sites, domain=domain,
                           max_forms=max_forms, models_dir=models)  # fmt: skip
    rng = np.random.default_rng(random_state)
    sites = sorted(set(forms["site"]))
    pool_sites = set(rng.permutation(sites)[: len(sites) // 2].tolist())
    pool = forms[forms["site"].isin(pool_sites)]
    held = forms[~forms["site"].isin(pool_sites)]
    ids = [int(x) for x in held["form_id"]]
    before = held["verdict"].astype(str).tolist()
    truth = held["truth"].astype(str).tolist()
    packs_only = retrained_verdicts(base, ids, with_labels=False, random_state=random_state,
                                    root=root)  # fmt: skip
    setup = round(time.perf_counter() - t0, 1)

    def acc(pred: list[str]) -> float:
        return round(float(np.mean([p == t for p, t in zip(pred, truth, strict=True)])), 4)

    results = []
    for how in hows:
        t1 = time.perf_counter()
        db = workdir / f"{base.stem}-{how}.duckdb"
        shutil.copy(base, db)
        chosen = choose_labels(db, pool, n_labels, how, np.random.default_rng(random_state),
                               models)  # fmt: skip
        with Catalogue(db) as cat:
            for r in chosen.itertuples():
                add_label(cat.con, int(r.form_id), verdict_ok=r.truth == r.verdict,
                          true_domain=str(r.truth))  # fmt: skip
        after = retrained_verdicts(db, ids, with_labels=True, random_state=random_state,
                                   root=root)  # fmt: skip
        fixed = sum(b != t and a == t for b, a, t in zip(before, after, truth, strict=True))
        broken = sum(b == t and a != t for b, a, t in zip(before, after, truth, strict=True))
        results.append({
            "seed": seed, "n_sites": n_sites, "unknown_domain": unknown or None, "how": how,
            "forms": len(forms), "labels": len(chosen),
            "labels_correcting": int((chosen["truth"] != chosen["verdict"]).sum()),
            "label_domains": dict(Counter(chosen["truth"])), "held_back": len(held),
            "held_back_wrong_before": sum(b != t for b, t in zip(before, truth, strict=True)),
            "accuracy_before": acc(before), "accuracy_packs_retrained": acc(packs_only),
            "accuracy_with_labels": acc(after), "flipped_to_right": fixed,
            "flipped_to_wrong": broken, "setup_seconds": setup,
            "seconds": round(time.perf_counter() - t1, 1), "catalogue": str(db),
        })  # fmt: skip
    return results
