"""The critic's inference files (``classifiers.linear_inference``), written beside its models.

``write_critic_inference(models_dir)`` writes ``inference.npz`` into the searchable,
domain and context model directories of ``models_dir``, each checked bit for bit
against scikit-learn (``classifiers.inference_export``) on the tuning split's labelled
forms (every pack's and the real ones) and the real pages (frozen sites left out), so
that ``formhunter judge`` scores them without importing scikit-learn. The training
commands call it after saving; ``scripts/export_inference.py`` runs it on a folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["KINDS", "write_critic_inference"]

KINDS = ("searchable", "domain", "context")


def _form_samples() -> list[Any]:
    import pandas as pd

    from classifiers.datasets import samples
    from formhunter.trainers.critic import domain_data, searchable_data

    real, curated, _, _ = domain_data()
    df, extra, _ = searchable_data()
    frames = [real, curated, df] + ([extra] if extra is not None else [])
    return samples(pd.concat(frames, ignore_index=True))


def _context_check(directory: Path, forms: list[Any]) -> Any:
    from classifiers.context_features import lexicon_text
    from classifiers.form_signals import keyword_box
    from classifiers.inference_export import ContextCheck
    from classifiers.lexicon import lexicon_scores
    from classifiers.page_classifier import real_pages
    from classifiers.persist import load_model

    bundle, _ = load_model(directory / "context", "context")
    domain, _ = load_model(directory / "domain", "domain")
    pages = real_pages()
    texts = list(pages.loc[~pages["frozen"], "text"])
    forms = forms[:2000]
    proba = domain.predict_proba(forms)
    topics = bundle.topics.scores(texts[:len(forms)])
    rows = np.arange(len(forms)) % max(1, len(topics))
    return ContextCheck(
        texts=texts, form_proba=proba, form_classes=[str(c) for c in domain.classes_],
        topics=topics[rows], boxes=np.array([keyword_box(s.form) for s in forms]),
        lexicon=lexicon_scores([lexicon_text(s) for s in forms], bundle.topics.domains_),
    )  # fmt: skip


def write_critic_inference(models_dir: Path | str,
                           kinds: tuple[str, ...] = KINDS) -> dict[str, Path | None]:  # fmt: skip
    """kind -> the inference file written (None: a model shape the format does not hold),
    for each of ``kinds`` whose model directory exists in ``models_dir``."""
    from classifiers.inference_export import write_inference

    d = Path(models_dir)
    todo = [k for k in kinds if (d / k / "manifest.json").is_file()]
    out: dict[str, Path | None] = {}
    if not todo:
        return out
    forms = _form_samples()
    for kind in todo:
        check = _context_check(d, forms) if kind == "context" else forms
        out[kind] = write_inference(d / kind, kind, check)
    return out
