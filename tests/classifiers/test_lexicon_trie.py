"""The lexicon's regex trie finds exactly what one branch per entry (longest first) finds."""

from __future__ import annotations

import random
import re

from classifiers.lexicon import _UNSPACED, CONCEPT_CHARS, LEXICON, lexicon_hits
from classifiers.page_classifier import page_text, real_pages


def _listed(words: tuple[str, ...]) -> re.Pattern[str]:
    """The pattern before the trie (59c40fc): one branch per entry, longest first."""
    alts = []
    for w in sorted(set(words), key=len, reverse=True):
        s = w.strip()
        if _UNSPACED.search(w):
            alts.append(re.escape(s))
            continue
        tail = r"\b" if w.endswith(" ") else ""
        alts.append(rf"{re.escape(s[0])}(?<!\w.){re.escape(s[1:])}{tail}")
    return re.compile("|".join(alts))


_LISTED = {d: _listed(w) for d, w in LEXICON.items()}


def _hits(text: str) -> dict[str, int]:
    low = text.lower()
    return {d: len({m.group(0) for m in rx.finditer(low)}) for d, rx in _LISTED.items()}


def _fuzz(rng: random.Random, n: int) -> list[str]:
    """Texts of lexicon words, their prefixes and extensions glued by random separators."""
    words = [w for ws in LEXICON.values() for w in ws]
    seps = [" ", "", "-", ".", "_", "a", "s", "\n", "é", "x ", "'"]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 12)):
            w = rng.choice(words)
            cut = rng.randint(1, len(w)) if rng.random() < 0.3 else len(w)
            parts.append(rng.choice(seps) + w[:cut] + rng.choice(seps))
        text = "".join(parts)
        out.append(text.upper() if rng.random() < 0.1 else text)
    return out


def test_trie_hits_equal_the_listed_pattern() -> None:
    pages = real_pages()
    texts = [page_text(r)[:CONCEPT_CHARS] for r in
             pages[~pages["frozen"]].to_dict("records")]  # fmt: skip
    texts += _fuzz(random.Random(24), 4000)
    assert len(texts) > 4500
    differ = [t for t in texts if lexicon_hits(t) != _hits(t)]
    assert not differ, differ[:3]
