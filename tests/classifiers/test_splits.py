"""Issue 24: the frozen test split of the real forms is site-disjoint, seeded, a quarter+."""

from __future__ import annotations

import json
from collections import defaultdict

from classifiers.datasets import read_jsonl, real_files
from classifiers.splits import FROZEN_FILE, choose_frozen_sites, frozen_sites, site_hash


def test_choice_is_seeded_and_gives_each_label_its_share() -> None:
    by_label = {"a": [f"s{i}.com" for i in range(10)], "b": ["s1.com", "t.org", "u.net"]}
    first = choose_frozen_sites(by_label, seed=3, share=0.3)
    assert first == choose_frozen_sites(by_label, seed=3, share=0.3)
    assert first != choose_frozen_sites(by_label, seed=4, share=0.3)
    for sites in by_label.values():
        assert len(set(sites) & set(first)) >= 0.3 * len(sites)
    assert 0.0 <= site_hash("x.com", 1) < 1.0


def test_the_shipped_split_holds_a_quarter_of_every_labels_real_sites() -> None:
    doc = json.loads(FROZEN_FILE.read_text())
    frozen = frozen_sites()
    assert frozen == set(doc["sites"]) and doc["seed"] == 24
    by_label: dict[str, set[str]] = defaultdict(set)
    for path in real_files():
        for rec in read_jsonl(path):
            if rec.get("searchable", True):
                by_label[str(rec["label"])].add(str(rec["site"]))
    for label, sites in by_label.items():
        assert len(sites & frozen) >= len(sites) / 4, label
