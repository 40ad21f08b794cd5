"""Words, stopwords and stems: the one tokenizer every text feature uses.

``tokenize``: lower-case words made of letters and digits (Unicode aware),
without English stopwords (scikit-learn's ``ENGLISH_STOP_WORDS``) and without
one-character words. ``stem_terms``: the same words Porter-stemmed (NLTK's
``PorterStemmer``, from ``classifiers.porter``: the stemmer without the rest of NLTK,
which would import scikit-learn too). Stems are cached.

scikit-learn takes about a second to import, so its stop word list is loaded on first
use, not when this module is imported (the CLI starts fast).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from typing import Any

from classifiers.form_types import PageLike

__all__ = ["page_text", "stem", "stem_terms", "stop_words", "tokenize"]

_WORD = re.compile(r"[^\W_]+")


@cache
def stop_words() -> frozenset[str]:
    """English stopwords (scikit-learn's list), read from scikit-learn's own module file
    when it is where scikit-learn 1.x keeps it (importing scikit-learn costs a second)."""
    import importlib.util
    from pathlib import Path

    found = importlib.util.find_spec("sklearn")  # finds the package, imports nothing
    if found is not None and found.origin:
        path = Path(found.origin).parent / "feature_extraction" / "_stop_words.py"
        spec = importlib.util.spec_from_file_location("classifiers._sklearn_stop_words", path)
        if path.is_file() and spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            words = vars(module).get("ENGLISH_STOP_WORDS")
            if isinstance(words, frozenset) and words:
                return frozenset(str(w) for w in words)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@cache
def _stemmer() -> Any:
    from classifiers.porter import PorterStemmer

    return PorterStemmer()


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Porter stem of one lower-case word (cached)."""
    return str(_stemmer().stem(word, to_lowercase=False))


def tokenize(text: str) -> list[str]:
    """Lower-case words of letters/digits, stopwords and 1-character words removed."""
    stops = stop_words()
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in stops]


class _Terms(dict[str, str]):
    """word -> its stem, or "" for a word ``tokenize`` drops (stopword, one character);
    filled on first sight, so ``stem_terms`` costs one C-level lookup per token."""

    def __missing__(self, word: str) -> str:
        term = stem(word) if len(word) > 1 and word not in stop_words() else ""
        if len(self) < _TERMS_MAX:
            self[word] = term
        return term


_TERMS_MAX = 200_000
_TERMS = _Terms()


def stem_terms(text: str) -> list[str]:
    """``tokenize(text)``, Porter-stemmed (equal to ``[stem(w) for w in tokenize(text)]``)."""
    return [t for t in map(_TERMS.__getitem__, _WORD.findall(text.lower())) if t]


def page_text(page: PageLike | dict[str, Any], max_chars: int = 50_000) -> str:
    """What the classifier reads: the title (twice, it says most) and the text."""
    if isinstance(page, dict):
        title, text = str(page.get("title", "")), str(page.get("text", ""))
    else:
        title, text = page.title, page.text
    return f"{title}\n{title}\n{text[:max_chars]}"
