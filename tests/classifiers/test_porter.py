"""``classifiers.porter`` stems every word exactly as NLTK's ``PorterStemmer`` does."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from nltk.stem.porter import PorterStemmer as NltkPorter

from classifiers.porter import PorterStemmer

_ROOT = Path(__file__).resolve().parents[2]
_WORD = re.compile(r"[^\W_]+")
_TRICKY = [
    "sky", "skies", "dying", "lying", "tying", "news", "innings", "outings", "cannings",
    "howe", "proceed", "exceed", "succeed", "caresses", "ponies", "ties", "cats", "feed",
    "agreed", "plastered", "motoring", "sing", "conflated", "troubled", "sized", "hopping",
    "falling", "hissing", "filing", "happy", "sky", "relational", "conditional", "valenci",
    "hesitanci", "digitizer", "conformabli", "radicalli", "differentli", "vileli",
    "analogousli", "vietnamization", "predication", "operator", "feudalism", "decisiveness",
    "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti", "triplicate",
    "formative", "formalize", "electriciti", "electrical", "hopeful", "goodness", "revival",
    "allowance", "inference", "airliner", "gyroscopic", "adjustable", "defensible",
    "irritant", "replacement", "adjustment", "dependent", "adoption", "homologou",
    "communism", "activate", "angulariti", "homologous", "effective", "bowdlerize",
    "probate", "rate", "cease", "controll", "roll", "generously", "ied", "ies", "a", "ab",
    "İstanbul", "straße", "ǅ", "ﬁsh", "naïve", "café", "x2", "mp3", "łódź", "ςς",
]  # fmt: skip


def _words() -> list[str]:
    """Distinct words of the domain packs and real pages, and some hand-picked ones."""
    words: set[str] = set()
    for f in sorted((_ROOT / "domains").rglob("*.jsonl")):
        words.update(_WORD.findall(f.read_text(encoding="utf-8", errors="replace")))
        if len(words) > 150_000:
            break
    rng = random.Random(7)
    sample = sorted(words)
    rng.shuffle(sample)
    return _TRICKY + sample[:60_000]


def test_the_same_stems_as_nltk() -> None:
    ours, nltk = PorterStemmer(), NltkPorter()
    words = _words()
    assert len(words) > 20_000
    for word in words:
        for low in (word, word.lower()):
            for to_lowercase in (True, False):
                assert ours.stem(low, to_lowercase) == nltk.stem(low, to_lowercase), low


def test_stemming_imports_neither_nltk_nor_scikit_learn() -> None:
    code = ("import sys; from classifiers.text import stem_terms; stem_terms('Running cars'); "
            "print(sorted(m for m in ('nltk', 'sklearn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"


def test_the_stop_words_are_scikit_learns() -> None:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from classifiers.text import stop_words

    assert stop_words() == ENGLISH_STOP_WORDS
