"""The frozen test split of the real labelled forms (issue 24).

A site-disjoint part of the REAL labelled forms (``domains/*/real*.jsonl``) is set
aside before any tuning: training, ``formhunter evaluate`` and every cross-validation
leave its sites out, and it is scored once, at the end
(``formhunter evaluate domain --frozen``). The sites were chosen by a seeded hash,
never by looking at results (``choose_frozen_sites``; ``scripts/freeze_split.py``
wrote ``data/splits/forms_frozen.json`` and says how).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["FROZEN_FILE", "choose_frozen_sites", "frozen_sites", "site_hash"]

FROZEN_FILE = Path(__file__).resolve().parents[1] / "data" / "splits" / "forms_frozen.json"


def site_hash(site: str, seed: int) -> float:
    """A uniform number in [0, 1) fixed by (seed, site): sha256 of "seed:site"."""
    digest = hashlib.sha256(f"{seed}:{site.lower()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


def choose_frozen_sites(
    sites_by_label: Mapping[str, Iterable[str]], seed: int, share: float
) -> list[str]:
    """Per label, its ``ceil(share * n_sites)`` sites of smallest ``site_hash``; the union.

    A site chosen through one label is frozen for every label it has forms of, so
    each label gets at least its share (a site never sits on both sides).
    """
    chosen: set[str] = set()
    for sites in sites_by_label.values():
        ranked = sorted(set(sites), key=lambda s: (site_hash(s, seed), s))
        chosen.update(ranked[: math.ceil(share * len(ranked))])
    return sorted(chosen)


def frozen_sites(path: Path | str | None = None) -> frozenset[str]:
    """The frozen sites (registered domains); empty when the file is missing."""
    src = Path(path) if path is not None else FROZEN_FILE
    if not src.is_file():
        return frozenset()
    return frozenset(json.loads(src.read_text(encoding="utf-8"))["sites"])
