"""The frontier's links as token ids, in memory, so that a re-rank does not tokenise again.

``LinkTokens`` keeps, per link (by ``lid``), its token ids in the spaces of
``classifiers.link_tokens`` that a re-rank's scorer read (``LinkScorer.token_spaces``),
in append-only chunks: per space a row pointer and the ids in the narrowest unsigned
type that holds the chunk's largest id. Spaces go in two groups (``GROUPS``), each
tokenised when a scorer first reads it: the URL, anchor and around words (one
vocabulary; the link classifier), and the apprentice's ``term@d`` tokens, which are
half of a link's ids, so a crawl whose scorers never read them (ACHE's default
learner) keeps half the memory and tokenises a fifth less. A link is tokenised in a
group once, the first time a re-rank whose scorer reads it meets the link
(``FrontierStore.rerank``); links fetched before any re-rank, or skipped, are
never tokenised. Nothing is written to the catalogue: after a resume, the first
re-rank tokenises the queued links again (from the stored text).

``take`` gives the ``TokenizedLinks`` of any lids; runs of consecutive rows are
sliced, so a batch of links tokenised together costs no copy beyond its ids.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from classifiers.link_features import string_column
from classifiers.link_tokens import (
    DOM_SPACE,
    SPACES,
    WORD_SPACES,
    LinkTokenizer,
    TokenizedLinks,
)


@dataclass(frozen=True)
class _Chunk:
    first_row: int
    n: int
    spaces: dict[str, tuple[np.ndarray, np.ndarray]]  # space -> (indptr, ids)


def _narrow(ids: np.ndarray) -> np.ndarray:
    top = int(ids.max()) if len(ids) else 0
    return ids.astype(np.uint16 if top < 1 << 16 else np.uint32)


class _Group:
    """The token ids of the spaces tokenised together (the word spaces, or the
    ``term@d`` space), in append-only chunks, by lid."""

    def __init__(self, spaces: tuple[str, ...]) -> None:
        self.spaces = spaces
        self.row_of = np.full(0, -1, np.int32)  # lid -> row, -1: not tokenised
        self.chunks: list[_Chunk] = []
        self.starts = np.zeros(0, np.int64)  # first row of each chunk
        self.n_rows = 0

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes + b.nbytes for c in self.chunks for a, b in c.spaces.values()) + \
            self.row_of.nbytes  # fmt: skip

    def known(self, lids: np.ndarray) -> np.ndarray:
        """Per lid, whether it is tokenised."""
        inside = lids < len(self.row_of)
        out = inside.copy()
        out[inside] = self.row_of[lids[inside]] >= 0
        return out

    def add(self, tokenizer: LinkTokenizer, lids: np.ndarray, table: pa.Table) -> None:
        spaces: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for space in self.spaces:
            indptr, ids = tokenizer.tokenize_space(string_column(table, space), space)
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

    def take(self, lids: np.ndarray, spaces: list[str],
             out: dict[str, tuple[np.ndarray, np.ndarray]]) -> None:  # fmt: skip
        """Put (indptr, ids) of ``spaces`` (of this group) of links ``lids`` in ``out``."""
        inside = lids < len(self.row_of)
        if inside.all():
            rows = self.row_of[lids]
        else:
            rows = np.full(len(lids), -1, np.int32)
            rows[inside] = self.row_of[lids[inside]]
        if len(rows) and rows.min() < 0:
            raise KeyError("links not tokenised: " + str(lids[rows < 0][:5].tolist()))
        k = np.searchsorted(self.starts, rows, side="right") - 1
        # runs of consecutive rows inside one chunk
        cut = np.flatnonzero((np.diff(rows) != 1) | (np.diff(k) != 0)) + 1
        bounds = np.concatenate([[0], cut, [len(rows)]]).tolist()
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


#: The spaces tokenised together: the word spaces (one vocabulary, the link classifier
#: reads all three) and the apprentice's ``term@d`` space.
GROUPS: tuple[tuple[str, ...], ...] = (WORD_SPACES, (DOM_SPACE,))


class LinkTokens:
    """Token ids of a run's links, by lid (module doc)."""

    def __init__(self) -> None:
        self.tokenizer = LinkTokenizer()
        self.groups = [_Group(spaces) for spaces in GROUPS]

    @property
    def nbytes(self) -> int:
        """Memory held by the token ids and row pointers."""
        return sum(g.nbytes for g in self.groups)

    @property
    def n_rows(self) -> int:
        """Links tokenised (in some space)."""
        return max(g.n_rows for g in self.groups)

    def _groups(self, spaces: Sequence[str]) -> list[_Group]:
        unknown = set(spaces) - set(SPACES)
        if unknown:
            raise KeyError(f"no token space {sorted(unknown)}")
        return [g for g in self.groups if set(g.spaces) & set(spaces)]

    @staticmethod
    def columns(spaces: Sequence[str]) -> list[str]:
        """The text columns that tokenising ``spaces`` reads (those of their groups)."""
        return [s for group in GROUPS if set(group) & set(spaces) for s in group]

    def missing(self, lids: np.ndarray, spaces: Sequence[str] = SPACES) -> np.ndarray:
        """Those of ``lids`` not tokenised yet in some of ``spaces``."""
        known = np.ones(len(lids), bool)
        for g in self._groups(spaces):
            known &= g.known(lids)
        return lids[~known]

    def add(self, lids: np.ndarray, texts: pa.Table | pa.RecordBatch,
            spaces: Sequence[str] = SPACES) -> None:  # fmt: skip
        """Tokenise links ``lids`` from ``texts`` (one row per lid, in the same order;
        the text columns of ``spaces``: ``columns``) in ``spaces``, where not yet."""
        if len(lids) == 0:
            return
        table = texts if isinstance(texts, pa.Table) else pa.Table.from_batches([texts])
        for g in self._groups(spaces):
            new = ~g.known(lids)
            if new.all():
                g.add(self.tokenizer, lids, table)
            elif new.any():
                g.add(self.tokenizer, lids[new], table.filter(pa.array(new)))

    def take(self, lids: np.ndarray, spaces: tuple[str, ...], depth: np.ndarray,
             parent_score: np.ndarray) -> TokenizedLinks:  # fmt: skip
        """The ``spaces`` of links ``lids`` (all tokenised in them), with their depth
        and parent score."""
        tok = self.tokenizer
        depth, parent_score = np.asarray(depth, np.float64), np.asarray(parent_score, np.float64)
        out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for g in self._groups(spaces):
            g.take(lids, [s for s in g.spaces if s in spaces], out)
        return TokenizedLinks(tok.words, tok.dom, out, depth, parent_score)
