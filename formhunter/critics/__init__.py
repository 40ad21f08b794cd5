"""Form critics (``interfaces.FormCritic``), registered here by name:

- ``default``: the trained critic (``trained.FormCritic``: searchable tree, then
  the domain SVM), models from data/models/ unless ``models_dir``;
- ``heuristic``: keyword rules on the form plus the target pack's keywords
  (``trained.HeuristicCritic``, no model);
- ``keywords``: a structural heuristic plus the domain's keywords
  (``keywords.KeywordCritic``, no model).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from formhunter.critics.keywords import KeywordCritic
from formhunter.critics.trained import FormCritic, HeuristicCritic
from formhunter.keywords import domain_keywords
from formhunter.registry import register

__all__ = ["FormCritic", "HeuristicCritic", "KeywordCritic"]


@register("critic", "default")
def _default(domain: str, models_dir: Path | None = None, model: str | None = None) -> FormCritic:
    return FormCritic(domain, models_dir, model=model)


@register("critic", "heuristic")
def _heuristic(domain: str) -> HeuristicCritic:
    return HeuristicCritic(domain)


@register("critic", "keywords")
def _keywords(domain: str, **_: Any) -> KeywordCritic:
    return KeywordCritic(domain, domain_keywords(domain))
