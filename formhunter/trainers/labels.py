"""The domain model retrained on the packs plus users' labels from a catalogue, and the
forms it is least sure of (the next ones worth labelling: active learning).

A label's ``true_domain`` becomes a training example of that class (``other`` for
a searchable form of no domain); forms labelled ``not-searchable`` are left out
(they are no domain's example). Labelled forms are grouped by site in the
cross-validation like pack forms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pandas as pd

from formhunter.directory import NOT_SEARCHABLE, Schema, directory_sql, labels_sql
from formhunter.labels import has_labels_table
from formhunter.reads import open_catalogue

#: the pseudo pack name of labelled catalogue forms in a training frame
LABELS_PACK = "_labels"
_FORM_SQL = ("SELECT f.form_id, f.site, f.page_url AS url, coalesce(f.page_title, '') AS title,"
             " f.html, coalesce(f.context, '') AS context, d.domain, d.domain_score,"
             " d.searchable{extra} FROM forms f JOIN ({rows}) d ON {on}")  # fmt: skip


def _frame(rows: list[tuple[Any, ...]], names: list[str]) -> pd.DataFrame:
    from formhunter.trainers.packs import form_from_html

    out = []
    for row in rows:
        rec = dict(zip(names, row, strict=True))
        form = form_from_html(rec.pop("html") or "", rec["url"] or "", rec.pop("context"))
        if form is not None:
            out.append(rec | {"form": form})
    return pd.DataFrame(out, columns=[n for n in names if n not in ("html", "context")] + ["form"])


def labelled_forms(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Labelled forms as training rows, one per identity (site, signature: the latest
    label given to any copy, with the labelled copy's HTML): site, url, title, label,
    form, form_id, verdict_ok, domain (the stored verdict's), searchable, pack."""
    if not has_labels_table(con):
        return pd.DataFrame(columns=["site", "url", "title", "label", "form", "pack"])
    sql = _FORM_SQL.format(
        extra=", d.true_domain AS label, d.verdict_ok", on="f.form_id = d.label_form_id",
        rows=f"SELECT l.*, f.domain, f.domain_score, f.searchable FROM ({labels_sql(Schema(con))})"
        " l JOIN forms f ON f.form_id = l.label_form_id",
    ) + " WHERE d.true_domain <> ? ORDER BY f.form_id"  # fmt: skip
    cur = con.execute(sql, [NOT_SEARCHABLE])
    df = _frame(cur.fetchall(), [d[0] for d in cur.description])
    df["pack"] = LABELS_PACK
    df["searchable"] = True
    return df


def unlabelled_forms(con: duckdb.DuckDBPyConnection, limit: int = 2000) -> pd.DataFrame:
    """The newest ``limit`` searchable forms of the directory without a label
    (candidates to label): one row per identity, its newest copy, never a form whose
    any copy is labelled."""
    sql = _FORM_SQL.format(extra="", on="f.form_id = d.form_id",
                           rows=directory_sql(Schema(con)))  # fmt: skip
    cur = con.execute(f"{sql} WHERE NOT d.labelled AND d.verdict_searchable"
                      " ORDER BY f.form_id DESC LIMIT ?", [limit])  # fmt: skip
    return _frame(cur.fetchall(), [d[0] for d in cur.description])


def least_sure(model: Any, df: pd.DataFrame, n: int = 20) -> list[dict[str, Any]]:
    """The ``n`` forms of ``df`` whose two best domains ``model`` scores closest (margin)."""
    from classifiers.datasets import samples

    if df.empty:
        return []
    proba = model.predict_proba(samples(df))
    order = np.argsort(-proba, axis=1)
    rows = np.arange(len(df))
    best, second = proba[rows, order[:, 0]], proba[rows, order[:, 1]]
    margin = best - second
    classes = [str(c) for c in model.classes_]
    out = []
    for i in np.argsort(margin, kind="stable")[:n]:
        out.append({
            "form_id": int(df["form_id"].iloc[i]), "site": str(df["site"].iloc[i]),
            "url": str(df["url"].iloc[i]), "stored_domain": str(df["domain"].iloc[i] or ""),
            "best": classes[order[i, 0]], "best_p": round(float(best[i]), 3),
            "second": classes[order[i, 1]], "second_p": round(float(second[i]), 3),
            "margin": round(float(margin[i]), 3),
        })  # fmt: skip
    return out


def train_with_labels(catalogue: str | Path, out: Path | None, *, root: Path | str | None = None,
                      n_splits: int = 5, **params: Any) -> tuple[Any, dict[str, Any]]:  # fmt: skip
    """``train_domain_model`` on the packs plus the catalogue's labelled forms."""
    from formhunter.trainers.critic import train_domain_model

    with open_catalogue(catalogue) as cat:
        extra = labelled_forms(cat.con)
    model, metrics = train_domain_model(out, root=root, n_splits=n_splits, extra=extra,
                                        extra_note=f"labels of {Path(catalogue).resolve()}",
                                        **params)  # fmt: skip
    metrics["labelled_forms"] = len(extra)
    return model, metrics
