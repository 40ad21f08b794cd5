"""Page classifiers (``interfaces.PageClassifier``), registered here by name:

- ``default`` / ``svm``: calibrated linear SVM on the page text, ``nb``: naive Bayes
  (``text.TextPageClassifier``), from ``<models>/page/<domain>/<model>/`` or
  trained from the domain pack;
- ``real``: the calibrated SVM trained on the real pages too (``<models>/page/<domain>/
  svm-real/``, shipped in data/models; domains/REALPAGES.md). Not yet the crawl's
  default: making it so needs a full test and harvest run that issue 24's session
  could not finish (its notes);
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
    # The calibrated SVM: on the simulated web it keeps recall near 1 with almost no
    # false positives in every domain; NB ranks as well but is worse calibrated.
    return page_classifier_for(domain, "svm", models_dir, random_state)


@register("page_classifier", "real")
def _real(domain: str, random_state: int, models_dir: Any = None,
          **_: Any) -> TextPageClassifier:  # fmt: skip
    return page_classifier_for(domain, "svm", models_dir, random_state, real=True)


@register("page_classifier", "svm")
def _svm(domain: str, random_state: int, models_dir: Any = None,
         **_: Any) -> TextPageClassifier:  # fmt: skip
    return page_classifier_for(domain, "svm", models_dir, random_state)
