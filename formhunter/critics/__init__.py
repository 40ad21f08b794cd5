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
from typing import TYPE_CHECKING, Any

from formhunter.critics.keywords import KeywordCritic
from formhunter.keywords import domain_keywords
from formhunter.registry import register

if TYPE_CHECKING:
    from formhunter.critics.trained import FormCritic, HeuristicCritic

__all__ = ["KeywordCritic", "describe_models"]

# ``trained`` (scikit-learn, NLTK: ~2 CPU seconds to import) is imported when a trained
# critic is made, not with this package: every CLI command imports ``judge``, and
# ``judge`` starts its parse workers before the models' libraries load.


@register("critic", "default")
def _default(domain: str, models_dir: Path | None = None, model: str | None = None) -> FormCritic:
    from formhunter.critics.trained import FormCritic

    return FormCritic(domain, models_dir, model=model)


@register("critic", "heuristic")
def _heuristic(domain: str) -> HeuristicCritic:
    from formhunter.critics.trained import HeuristicCritic

    return HeuristicCritic(domain)


@register("critic", "keywords")
def _keywords(domain: str, **_: Any) -> KeywordCritic:
    return KeywordCritic(domain, domain_keywords(domain))


def describe_models(models: dict[str, Any]) -> str:
    """One line naming the models a critic used (``FormCritic.models``)."""
    if not models:
        return "no trained model (rules)"
    return "; ".join(f"{role} model {m.get('name', '?')} ({m.get('path', '')}, manifest "
                     f"sha256 {str(m.get('manifest_sha256', ''))[:12]})"
                     for role, m in sorted(models.items()))  # fmt: skip
