"""Page classifiers (``interfaces.PageClassifier``), registered here by name:

- ``default`` / ``real``: the calibrated linear SVM on the page text trained on the
  real pages and the pack's pages (``<models>/page/<domain>/svm-real/``, shipped in
  data/models; domains/REALPAGES.md). It became the default because it is better on
  both things it is used for, in site-grouped CV on the tuning data: Pr(on topic) of
  real pages (macro-F1 0.787 -> 0.823, off-topic pages called on topic 1.9% -> 1.2%)
  and, read by the critic's second stage, the domain of real forms (macro-F1 0.854 ->
  0.864; keyword boxes 0.815 -> 0.879);
- ``svm``: the same SVM trained on the pack's hand-written pages only, ``nb``: naive
  Bayes (``text.TextPageClassifier``), from ``<models>/page/<domain>/<model>/`` or
  trained from the domain pack;
- ``keywords``: share of the domain's keywords in the page (``keywords``, no model).
"""

from __future__ import annotations

from typing import Any

from formhunter.keywords import domain_keywords
from formhunter.page_classifiers.keywords import KeywordPageClassifier
from formhunter.page_classifiers.text import TextPageClassifier, page_classifier_for
from formhunter.registry import register

__all__ = ["KeywordPageClassifier", "TextPageClassifier", "page_classifier_for"]


@register("page_classifier", "keywords")
def _keywords(domain: str, **_: Any) -> KeywordPageClassifier:
    return KeywordPageClassifier(domain_keywords(domain))


@register("page_classifier", "nb")
def _nb(domain: str, random_state: int, models_dir: Any = None,
        **_: Any) -> TextPageClassifier:  # fmt: skip
    return page_classifier_for(domain, "nb", models_dir, random_state)


@register("page_classifier", "default")
def _default(domain: str, random_state: int, models_dir: Any = None,
             **_: Any) -> TextPageClassifier:  # fmt: skip
    # The calibrated SVM (on the simulated web it keeps recall near 1 with almost no
    # false positives in every domain; NB ranks as well but is worse calibrated),
    # trained on the real pages too (module doc).
    return page_classifier_for(domain, "svm", models_dir, random_state, real=True)


@register("page_classifier", "real")
def _real(domain: str, random_state: int, models_dir: Any = None,
          **_: Any) -> TextPageClassifier:  # fmt: skip
    return page_classifier_for(domain, "svm", models_dir, random_state, real=True)


@register("page_classifier", "svm")
def _svm(domain: str, random_state: int, models_dir: Any = None,
         **_: Any) -> TextPageClassifier:  # fmt: skip
    return page_classifier_for(domain, "svm", models_dir, random_state)
