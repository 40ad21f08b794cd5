"""A TRES policy that lasts: Q-network + Tree-Frontier tree + keywords, with a manifest.

``save_policy`` writes a model directory through ``classifiers.persist`` (kind
"tres": ``model.npz``, in ``classifiers.safe_format``, + ``manifest.json`` with
library versions, the parameters, a hash of the replay data it learnt from and the
crawl's figures) plus ``keywords.json`` (readable: the initial keywords and those
the crawl added). ``load_policy`` reads it back and refuses a policy whose feature layout
differs from this version's (``ModelError`` saying to run a fresh crawl). Like
every model file, a policy loads without running code of its own.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from classifiers.q_network import QNetwork
from formhunter.exceptions import ModelError
from formhunter.tres.features import FEATURES

__all__ = ["KIND", "TresPolicy", "load_policy", "replay_hash", "save_policy"]

KIND = "tres"

#: the types a saved TRES state holds beyond ``classifiers.safe_format``'s allowlist
POLICY_TYPES: frozenset[str] = frozenset({"formhunter.tres.policy.TresPolicy"})


@dataclass
class TresPolicy:
    """What one TRES crawl learnt."""

    q_network: QNetwork
    tree: DecisionTreeRegressor | None
    keywords: list[str]
    added_keywords: list[str] = field(default_factory=list)
    features: tuple[str, ...] = FEATURES
    domain: str = ""


def replay_hash(X: np.ndarray, r: np.ndarray) -> str:
    """A short hash of the experience a policy learnt from."""
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    h.update(np.ascontiguousarray(r, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def save_policy(policy: TresPolicy, directory: str | Path, *, data_hash: str,
                params: dict[str, Any], metrics: dict[str, Any]) -> Path:  # fmt: skip
    """Write the policy's model directory (module doc); returns it."""
    from classifiers.persist import save_model

    d = save_model(policy, directory, kind=KIND, data_hash=data_hash, params=params,
                   trusted=POLICY_TYPES, metrics=metrics, extra={"domain": policy.domain,
                                           "features": list(policy.features)})  # fmt: skip
    (d / "keywords.json").write_text(json.dumps(
        {"keywords": policy.keywords, "added": policy.added_keywords}, indent=2) + "\n",
        encoding="utf-8")  # fmt: skip
    return d


def load_policy(directory: str | Path) -> tuple[TresPolicy, dict[str, Any]]:
    """(policy, manifest) from ``save_policy``'s directory; ModelError if unusable."""
    from classifiers.persist import load_model

    policy, manifest = load_model(directory, KIND, trusted=POLICY_TYPES)
    if not isinstance(policy, TresPolicy):
        raise ModelError(f"{directory} does not hold a TRES policy")
    if tuple(policy.features) != FEATURES:
        raise ModelError(
            f"the TRES policy in {directory} uses other link features "
            f"({len(policy.features)} vs {len(FEATURES)}); run a fresh crawl to make a new one"
        )
    return policy, manifest
