"""The frontier's links as token ids, in memory, so that a re-rank does not tokenise again.

``LinkTokens`` keeps, per link (by ``lid``), its token ids in every space of
``classifiers.link_tokens`` (URL, anchor and around words, the apprentice's
``term@d`` tokens), in append-only chunks: per space a row pointer and the ids in
the narrowest unsigned type that holds the chunk's largest id. A link is
tokenised once, the first time a re-rank with a token scorer meets it
(``FrontierStore.rerank``); links fetched before any re-rank, or skipped, are
never tokenised. Nothing is written to the catalogue: after a resume, the first
re-rank tokenises the queued links again (from the stored text).

``take`` gives the ``TokenizedLinks`` of any lids; runs of consecutive rows are
sliced, so a batch of links tokenised together costs no copy beyond its ids.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from classifiers.link_features import string_column
from classifiers.link_tokens import SPACES, LinkTokenizer, TokenizedLinks


@dataclass(frozen=True)
class _Chunk:
    first_row: int
    n: int
    spaces: dict[str, tuple[np.ndarray, np.ndarray]]  # space -> (indptr, ids)


def _narrow(ids: np.ndarray) -> np.ndarray:
    top = int(ids.max()) if len(ids) else 0
    return ids.astype(np.uint16 if top < 1 << 16 else np.uint32)


class LinkTokens:
    """Token ids of a run's links, by lid (module doc)."""

    def __init__(self) -> None:
        self.tokenizer = LinkTokenizer()
        self.row_of = np.full(0, -1, np.int32)  # lid -> row, -1: not tokenised
        self.chunks: list[_Chunk] = []
        self.starts = np.zeros(0, np.int64)  # first row of each chunk
        self.n_rows = 0

    @property
    def nbytes(self) -> int:
        """Memory held by the token ids and row pointers."""
        return sum(a.nbytes + b.nbytes for c in self.chunks for a, b in c.spaces.values()) + \
            self.row_of.nbytes  # fmt: skip

    def missing(self, lids: np.ndarray) -> np.ndarray:
        """Those of ``lids`` not tokenised yet."""
        known = lids < len(self.row_of)
        out = ~known
        out[known] = self.row_of[lids[known]] < 0
        return lids[out]

    def add(self, lids: np.ndarray, texts: pa.Table | pa.RecordBatch) -> None:
        """Tokenise links ``lids`` from ``texts`` (columns url, anchor, around,
        dom_terms; one row per lid, in the same order)."""
        if len(lids) == 0:
            return
        table = texts if isinstance(texts, pa.Table) else pa.Table.from_batches([texts])
        spaces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for space in SPACES:
            indptr, ids = self.tokenizer.tokenize_space(string_column(table, space), space)
            ptr = indptr.astype(np.uint32) if indptr[-1] < 1 << 32 else indptr
            spaces[space] = (ptr, _narrow(ids))
        top = int(lids.max()) + 1
        if top > len(self.row_of):
            grown = np.full(max(top, 2 * len(self.row_of)), -1, np.int32)
            grown[: len(self.row_of)] = self.row_of
            self.row_of = grown
        self.row_of[lids] = np.arange(self.n_rows, self.n_rows + len(lids))
        self.chunks.append(_Chunk(self.n_rows, len(lids), spaces))
        self.starts = np.append(self.starts, self.n_rows)
        self.n_rows += len(lids)

    def take(self, lids: np.ndarray, spaces: tuple[str, ...], depth: np.ndarray,
             parent_score: np.ndarray) -> TokenizedLinks:  # fmt: skip
        """The ``spaces`` of links ``lids`` (all tokenised), with their depth and
        parent score."""
        tok = self.tokenizer
        depth, parent_score = np.asarray(depth, np.float64), np.asarray(parent_score, np.float64)
        if not spaces:
            return TokenizedLinks(tok.words, tok.dom, {}, depth, parent_score)
        rows = self.row_of[lids]
        if len(rows) and rows.min() < 0:
            raise KeyError("links not tokenised: " + str(lids[rows < 0][:5].tolist()))
        k = np.searchsorted(self.starts, rows, side="right") - 1
        # runs of consecutive rows inside one chunk
        cut = np.flatnonzero((np.diff(rows) != 1) | (np.diff(k) != 0)) + 1
        bounds = np.concatenate([[0], cut, [len(rows)]]).tolist()
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for space in spaces:
            lengths: list[np.ndarray] = []
            parts: list[np.ndarray] = []
            for a, b in itertools.pairwise(bounds):
                if a == b:
                    continue
                chunk = self.chunks[int(k[a])]
                ptr, ids = chunk.spaces[space]
                lo, hi = int(rows[a]) - chunk.first_row, int(rows[b - 1]) - chunk.first_row + 1
                seg = ptr[lo : hi + 1].astype(np.int64)
                lengths.append(np.diff(seg))
                parts.append(ids[seg[0] : seg[-1]])
            indptr = np.zeros(len(rows) + 1, np.int64)
            if lengths:
                np.cumsum(np.concatenate(lengths), out=indptr[1:])
            ids_out = (np.concatenate(parts) if len(parts) > 1 else parts[0]) if parts \
                else np.zeros(0, np.uint16)  # fmt: skip
            out[space] = (indptr, ids_out)
        return TokenizedLinks(tok.words, tok.dom, out, depth, parent_score)
