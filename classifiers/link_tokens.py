"""Links as token ids: tokenise once, score with any later model by a sparse product.

A crawl re-scores its whole frontier each time a link model is retrained. The
models read the same tokens every time: the URL, anchor and around words of
``classifiers.link_features`` (lower-cased, split as ``tokenize_column`` splits
them, stop words and URL noise out) and the apprentice's ``term@d`` tokens
(``dom_terms`` split at whitespace). ``LinkTokenizer.tokenize`` turns link
texts into ids in two growing vocabularies (``WordVocabulary``,
``DomVocabulary``), kept as ``TokenizedLinks``: per space a CSR pair (row
pointer, token ids). A model then scores links without reading their text:
its per-token weights (``token_weights``: one row per vocabulary entry, built
once per model and vocabulary size) times the links' token counts.

What each entry needs beyond its string is computed once, when it joins the
vocabulary: a word's stem (``link_features.stem``), a ``term@d`` token's hash
(``murmurhash3_32`` of its lower-cased text) and its offset d.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp
from sklearn.utils import murmurhash3_32

from classifiers.link_features import _keep, stem, string_column, tokenize_column

#: Word spaces (``WordVocabulary``) and the apprentice's ``term@d`` space (``DomVocabulary``).
WORD_SPACES: tuple[str, ...] = ("url", "anchor", "around")
DOM_SPACE = "dom_terms"
SPACES: tuple[str, ...] = (*WORD_SPACES, DOM_SPACE)

#: The offset stored for a token without "@d" (never filtered by a d limit).
NO_OFFSET = np.iinfo(np.int32).min


class WordVocabulary:
    """Word token -> id (append-only), with each word's stem."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.stems: list[str] = []
        self._stems_arr: pa.Array | None = None

    def __len__(self) -> int:
        return len(self.stems)

    def ids(self, tokens: list[str]) -> np.ndarray:
        """The id of each token, new tokens added."""
        index, out = self.index, np.empty(len(tokens), np.int64)
        for i, tok in enumerate(tokens):
            j = index.get(tok)
            if j is None:
                j = index[tok] = len(self.stems)
                self.stems.append(stem(tok))
                self._stems_arr = None
            out[i] = j
        return out

    def stems_array(self) -> pa.Array:
        """Every entry's stem, by id."""
        if self._stems_arr is None or len(self._stems_arr) != len(self.stems):
            self._stems_arr = pa.array(self.stems, pa.string())
        return self._stems_arr


class DomVocabulary:
    """``term@d`` token -> id (append-only), with each token's hash and offset."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self._hashes: list[int] = []
        self._offsets: list[int] = []
        self._arrays: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._hashes)

    def ids(self, tokens: list[str]) -> np.ndarray:
        index, out = self.index, np.empty(len(tokens), np.int64)
        for i, tok in enumerate(tokens):
            j = index.get(tok)
            if j is None:
                j = index[tok] = len(self._hashes)
                self._hashes.append(int(murmurhash3_32(tok.lower(), seed=0, positive=True)))
                self._offsets.append(_offset(tok))
                self._arrays = None
            out[i] = j
        return out

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """(hash, offset) of every entry by id; offset ``NO_OFFSET`` when it has none."""
        if self._arrays is None or len(self._arrays[0]) != len(self._hashes):
            self._arrays = (np.asarray(self._hashes, np.int64),
                            np.asarray(self._offsets, np.int64))  # fmt: skip
        return self._arrays


def _offset(token: str) -> int:
    at = token.rfind("@")
    if at < 0:
        return int(NO_OFFSET)
    try:
        d = int(token[at + 1 :])
    except ValueError:
        return int(NO_OFFSET)
    return max(min(d, 1 << 30), -(1 << 30))  # beyond any d limit either way


@dataclass
class TokenizedLinks:
    """Links as token ids: ``spaces[space] = (indptr, ids)``, a CSR over the
    vocabulary of that space (``words`` or ``dom``); ``depth`` and
    ``parent_score`` per link (as stored: NaN where unknown)."""

    words: WordVocabulary
    dom: DomVocabulary
    spaces: dict[str, tuple[np.ndarray, np.ndarray]]
    depth: np.ndarray
    parent_score: np.ndarray
    n: int = field(init=False)

    def __post_init__(self) -> None:
        self.n = len(self.parent_score)

    def vocabulary_size(self, space: str) -> int:
        return len(self.dom) if space == DOM_SPACE else len(self.words)

    def counts(self, space: str) -> sp.csr_matrix:
        """Token counts (links x vocabulary) of one space."""
        indptr, ids = self.spaces[space]
        return sp.csr_matrix((np.ones(len(ids)), ids, indptr),
                             shape=(self.n, self.vocabulary_size(space)))  # fmt: skip

    def product(self, space: str, weights: np.ndarray) -> np.ndarray:
        """Per link, the sum of ``weights[token]`` over its tokens in ``space``
        (``weights``: one row per entry of the space's vocabulary as it is now)."""
        indptr, ids = self.spaces[space]
        if len(weights) != self.vocabulary_size(space):
            raise ValueError(f"{len(weights)} token weights for a vocabulary of "
                             f"{self.vocabulary_size(space)}")  # fmt: skip
        x = sp.csr_matrix((np.ones(len(ids)), ids, indptr), shape=(self.n, len(weights)))
        return np.asarray(x @ weights)


def class_probabilities(jll: np.ndarray) -> np.ndarray:
    """Rows of joint log-likelihoods as class probabilities (naive Bayes'
    ``predict_proba``, up to float rounding)."""
    e = np.exp(jll - jll.max(axis=1, keepdims=True))
    e /= e.sum(axis=1, keepdims=True)
    return e


class LinkTokenizer:
    """Tokenises link texts into ids of its two vocabularies (module doc)."""

    def __init__(self) -> None:
        self.words = WordVocabulary()
        self.dom = DomVocabulary()

    def tokenize_space(self, texts: pa.Array, space: str) -> tuple[np.ndarray, np.ndarray]:
        """(indptr, ids) of one space's texts (one string per link)."""
        n = len(texts)
        if space == DOM_SPACE:
            split = pc.utf8_split_whitespace(texts)
            parents = pc.list_parent_indices(split).to_numpy(zero_copy_only=False)
            flat = pc.list_flatten(split)
            if len(flat):
                nonempty = pc.greater(pc.utf8_length(flat), 0).to_numpy(zero_copy_only=False)
                enc = pc.dictionary_encode(flat)
                codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
                gid = self.dom.ids(enc.dictionary.to_pylist())
                keep = nonempty
                rows, ids = parents[keep], gid[codes[keep]]
            else:
                rows, ids = np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            parents, codes, uniques = tokenize_column(texts, url=space == "url")
            if uniques:
                arr = pa.array(uniques, pa.string())
                useless = pc.or_(pc.less(pc.utf8_length(arr), 2), pc.utf8_is_digit(arr))
                skip = useless.to_numpy(zero_copy_only=False)
                ok = np.fromiter((not s and _keep(t, False) for t, s in zip(uniques, skip,
                                                                            strict=True)),
                                 bool, len(uniques))  # fmt: skip
                kept = [t for t, k in zip(uniques, ok, strict=True) if k]
                gid = np.full(len(uniques), -1, np.int64)
                gid[ok] = self.words.ids(kept)
                keep = ok[codes]
                rows, ids = parents[keep], gid[codes[keep]]
            else:
                rows, ids = np.zeros(0, np.int64), np.zeros(0, np.int64)
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
        return indptr, ids

    def tokenize(self, frame: pa.Table | pa.RecordBatch) -> TokenizedLinks:
        """Every space of the links in ``frame`` (columns url, anchor, around,
        dom_terms, depth, parent_score; missing text columns read as "")."""
        table = frame if isinstance(frame, pa.Table) else pa.Table.from_batches([frame])
        spaces = {s: self.tokenize_space(string_column(table, s), s) for s in SPACES}
        n = table.num_rows

        def num(name: str) -> np.ndarray:
            if name not in table.column_names:
                return np.zeros(n)
            return np.asarray(table.column(name).to_numpy(), dtype=np.float64)

        return TokenizedLinks(self.words, self.dom, spaces, num("depth"), num("parent_score"))
