"""The real pages of the page classifier (domains/*/pages_real.jsonl, issue 24): their
provenance, the frozen split, and that training never sees a frozen page."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from classifiers.page_classifier import (
    FROZEN_FILE,
    OFF,
    PageTopicClassifier,
    frozen_page_sites,
    real_page_files,
    real_pages,
    train_page_classifier,
)

ROOT = Path(__file__).resolve().parents[2]
RESERVED = (
    "swde", "wren", "readability", "article-extraction-benchmark", "fathom-login-forms",
    "trafilatura", "metascraper", "booking-scraper", "aile", "extruct", "extract-html-diff",
    "ifix", "mfix", "html-similarity", "vgmdb", "ds_proj_1", "web-scrapper-trip-advisor",
    "josemolinag/scraping", "southwest-checkin", "letterboxdnew", "parse-apple-music",
)  # fmt: skip


def test_records_carry_provenance_and_come_from_no_reserved_source() -> None:
    files = real_page_files()
    assert {f.parent.name for f in files} >= {"_offtopic", "movie", "music", "book", "hotel"}
    for f in files:
        label = OFF if f.parent.name == "_offtopic" else f.parent.name
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            assert rec["label"] == label and rec["real"] is True and rec["site"]
            assert rec["url"].startswith("http") and len(rec["text"]) >= 200
            src = rec["source"]
            assert src["licence"] and src["path"] and (src.get("commit") or src.get("version"))
            origin = str(src.get("repo") or src.get("package")).lower()
            assert not any(r in origin for r in RESERVED), origin


def test_frozen_split_is_a_quarter_of_the_sites_per_label_and_holds_the_forms_split() -> None:
    doc = json.loads(FROZEN_FILE.read_text(encoding="utf-8"))
    frozen = frozen_page_sites()
    sites: dict[str, set[str]] = defaultdict(set)
    for f in real_page_files():
        for line in f.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            sites[rec["label"]].add(rec["site"])
    for label, s in sites.items():
        assert len(s & frozen) >= math.ceil(0.25 * len(s)), label
    forms = ROOT / "data" / "splits" / "forms_frozen.json"
    if forms.is_file():
        form_sites = set(json.loads(forms.read_text(encoding="utf-8"))["sites"])
        every = set().union(*sites.values())
        assert form_sites & every <= frozen
    assert set(doc["sites"]) == frozen


def test_training_leaves_the_frozen_pages_out() -> None:
    real = real_pages()
    seen: list[list[str]] = []
    fit = PageTopicClassifier.fit

    def spy(self: PageTopicClassifier, X: list[str], y: np.ndarray) -> PageTopicClassifier:
        seen.append(list(X))
        return fit(self, X, y)

    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(PageTopicClassifier, "fit", spy)
    try:
        train_page_classifier("movie", "nb", evaluate=False)
    finally:
        mp.undo()
    trained = set(seen[-1])
    frozen_texts = set(real.loc[real["frozen"], "text"])
    assert frozen_texts and not trained & frozen_texts
    assert set(real.loc[~real["frozen"] & (real["label"] == "movie"), "text"]) <= trained
