"""Shared parts of the learners: link frames, the link memory, learning records.

``links_frame`` turns LinkRecords into the columnar frame every learned scorer
reads (``score_frame``); the frontier's re-rank passes its own frame whose
parent column is called ``parent`` -- both spellings are accepted.

``LinkMemory`` answers "through which link (URL, anchor, around, DOM terms)
was this fetched page reached?". The engine tells learners about pages, not
links, so the memory learns hop links from two sources, best first:

1. ``PageOutcome.link`` when the engine provides it (a LinkRecord of the hop);
2. the outlinks of pages observed earlier (``Page.links`` carry anchor and
   around), kept in a bounded first-in-first-out map.

A hop that neither knows gets a URL-only record (URL features still work).
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence, Sized
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
import pandas as pd
import pyarrow as pa

from formhunter.exceptions import StateFormatError
from formhunter.interfaces import LinkRecord, PageOutcome

if TYPE_CHECKING:
    from classifiers.link_tokens import TokenizedLinks

V = TypeVar("V", bound=Sized)
W = TypeVar("W")

FRAME_COLUMNS = ("url", "site", "depth", "parent_url", "anchor", "around", "parent_score",
                 "dom_terms")  # fmt: skip


def links_frame(links: Sequence[LinkRecord]) -> pd.DataFrame:
    """The columnar form of LinkRecords (one column per field)."""
    return pd.DataFrame(
        {
            "url": [lk.url for lk in links],
            "site": [lk.site for lk in links],
            "depth": np.fromiter((lk.depth for lk in links), np.int64, len(links)),
            "parent_url": [lk.parent_url for lk in links],
            "anchor": [lk.anchor for lk in links],
            "around": [lk.around for lk in links],
            "parent_score": np.fromiter((lk.parent_score for lk in links), np.float64, len(links)),
            "dom_terms": [lk.dom_terms for lk in links],
        },
        columns=list(FRAME_COLUMNS),
    )


def normalise_frame(frame: Any) -> pd.DataFrame:
    """A frame with ``parent_url`` (the frontier store calls it ``parent``)."""
    if not isinstance(frame, pd.DataFrame):
        frame = (frame.to_pandas() if isinstance(frame, pa.Table | pa.RecordBatch)
                 else pd.DataFrame(frame))  # fmt: skip
    if "parent_url" not in frame.columns and "parent" in frame.columns:
        frame = frame.rename(columns={"parent": "parent_url"})
    return frame


class FrameScorer:
    """Base of the learned scorers: ``score`` goes through ``score_frame``; re-ranks
    read the links' text unless a subclass scores token ids (``token_spaces``, with
    its ``weights`` cache, which is neither saved nor pickled)."""

    n_levels: int = 1
    weights: TokenWeights

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("weights", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.weights = TokenWeights()

    @property
    def token_spaces(self) -> tuple[str, ...] | None:
        return None

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError("scores links from their text (token_spaces is None)")

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        if not links:
            return np.zeros(0, np.int64), np.zeros(0)
        return self.score_frame(links_frame(links))

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError


_RECORD_FIELDS = ("url", "site", "depth", "parent_url", "anchor", "around", "parent_score",
                  "dom_terms")  # fmt: skip


def _columns(records: OrderedDict[str, LinkRecord]) -> dict[str, list[Any]]:
    values = list(records.values())
    return {"key": list(records), **{f: [getattr(r, f) for r in values] for f in _RECORD_FIELDS}}


def _records(columns: dict[str, list[Any]]) -> OrderedDict[str, LinkRecord]:
    rows = zip(*(columns[f] for f in _RECORD_FIELDS), strict=True)
    return OrderedDict(zip(columns["key"], (LinkRecord(*row) for row in rows), strict=True))


class TokenWeights:
    """A model's per-token weights for one vocabulary, rebuilt only when the vocabulary
    is another or has grown (a re-rank scores many batches over one vocabulary). A
    cache: it holds no copy of the vocabulary, and scorers do not save it."""

    def __init__(self) -> None:
        self._for: tuple[weakref.ref[Any], int, Any] | None = None

    def get(self, vocabulary: V, build: Callable[[V], W]) -> W:
        got = self._for
        if got is None or got[0]() is not vocabulary or got[1] != len(vocabulary):
            got = self._for = (weakref.ref(vocabulary), len(vocabulary), build(vocabulary))
        return cast(W, got[2])


class LinkMemory:
    """Hop links of fetched pages (module doc). Bounded: ``max_fetched`` hops,
    ``max_pending`` outlinks of observed pages waiting to be fetched."""

    def __init__(self, max_fetched: int = 1_000_000, max_pending: int = 200_000) -> None:
        self.max_fetched = max_fetched
        self.max_pending = max_pending
        self.fetched: OrderedDict[str, LinkRecord] = OrderedDict()
        self.pending: OrderedDict[str, LinkRecord] = OrderedDict()
        self.from_engine = 0
        self.from_pending = 0
        self.url_only = 0

    def observe(self, outcome: PageOutcome) -> LinkRecord:
        """Remember how ``outcome.page`` was reached (and its outlinks); return the hop."""
        page = outcome.page
        hop: LinkRecord | None = outcome.link  # the pipeline hands us the hop
        if hop is not None:
            self.from_engine += 1
        else:
            hop = self.pending.pop(page.url, None)
            if hop is not None:
                self.from_pending += 1
            else:
                parent = outcome.path[-2] if len(outcome.path) > 1 else ""
                hop = LinkRecord(page.url, page.site, page.depth, parent_url=parent)
                self.url_only += 1
            # Only needed when the caller does not hand us the hop itself.
            for lk in page.links:
                if lk.url not in self.pending and lk.url not in self.fetched:
                    self.pending[lk.url] = LinkRecord(
                        lk.url, "", page.depth + 1, page.url, lk.anchor, lk.around,
                        outcome.page_score,
                    )  # fmt: skip
            while len(self.pending) > self.max_pending:
                self.pending.popitem(last=False)
        self.fetched[page.url] = hop
        if page.final_url and page.final_url != page.url:
            self.fetched[page.final_url] = hop
        while len(self.fetched) > self.max_fetched:
            self.fetched.popitem(last=False)
        return hop

    def hop(self, url: str) -> LinkRecord | None:
        return self.fetched.get(url)

    def __getstate__(self) -> dict[str, Any]:
        """Columns, not one object per record: a memory of a million hops saves fast."""
        return {**{k: v for k, v in self.__dict__.items() if k not in ("fetched", "pending")},
                "fetched": _columns(self.fetched), "pending": _columns(self.pending)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        self.fetched = _records(state.pop("fetched"))
        self.pending = _records(state.pop("pending"))
        self.__dict__.update(state)

    def stats(self) -> dict[str, int]:
        return {"hops_from_engine": self.from_engine, "hops_from_outlinks": self.from_pending,
                "hops_url_only": self.url_only, "fetched": len(self.fetched),
                "pending": len(self.pending)}  # fmt: skip


#: Tag of the learners' saved states (``dump_state``); a state of another tag is refused.
STATE_TAG = "formhunter-learner-state-2"

#: formhunter's own types a learner state may hold, beyond ``classifiers.safe_format``'s
#: allowlist (each stores data only).
STATE_TYPES: frozenset[str] = frozenset({
    "formhunter.config.TresSettings",
    "formhunter.interfaces.LinkRecord",  # states saved before it moved to model.py
    "formhunter.model.LinkRecord",
    "formhunter.learners.adaptive.LinkClassifierScorer",
    "formhunter.learners.adaptive.PathRepository",
    "formhunter.learners.base.LearningIteration",
    "formhunter.learners.base.LinkMemory",
    "formhunter.learners.cfc.CFCScorer",
    "formhunter.learners.cfc.FetchSavings",
    "formhunter.learners.cfc.ParentIndex",
    "formhunter.tres.agent.DDQNAgent",
    "formhunter.tres.crawler.TresCore",
    "formhunter.tres.features.LinkFeaturizer",
    "formhunter.tres.features.PageState",
    "formhunter.tres.features.PathStates",
    "formhunter.tres.keywords.KeywordExpansion",
    "formhunter.tres.keywords.KeywordSet",
    "formhunter.tres.lite.TresScorer",
})


def dump_state(kind: str, values: dict[str, Any]) -> bytes:
    """A learner's state as bytes (``Learner.state``) in ``classifiers.safe_format``:
    arrays and JSON with a version, read back without running code (a catalogue is
    data, whoever made it)."""
    from classifiers.safe_format import dumps

    return dumps({"tag": STATE_TAG, "kind": kind, "values": values}, trusted=_state_types())


def load_state(kind: str, state: bytes) -> dict[str, Any]:
    """The values ``dump_state(kind, ...)`` saved. StateFormatError for a state in an
    older format (a pickle, never unpickled) or another learner's."""
    from classifiers.safe_format import UnsafeFormatError, is_safe_format, loads

    if not is_safe_format(state):
        raise StateFormatError(f"the saved state of {kind} is in an older format (a pickle, "
                               "not read: it could run code)")  # fmt: skip
    try:
        saved = loads(state, trusted=_state_types())
    except UnsafeFormatError as exc:  # damaged, or names a type outside the allowlist
        raise StateFormatError(f"the saved state of {kind} is refused: {exc}") from None
    if not isinstance(saved, dict) or saved.get("tag") != STATE_TAG or saved.get("kind") != kind:
        got = saved.get("kind") if isinstance(saved, dict) else None
        raise StateFormatError(f"a saved state of {got!r}, not of {kind!r}")
    return dict(saved["values"])


def _state_types() -> frozenset[str]:
    from formhunter.tres.policy import POLICY_TYPES

    return STATE_TYPES | POLICY_TYPES


@dataclass
class LearningIteration:
    """One learning iteration, as ``Catalogue.record_learning`` stores it."""

    iteration: int
    learner: str
    at_page: int
    n_paths: int
    seconds: float
    features: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    at: float = field(default_factory=time.time)

    def as_record(self) -> dict[str, Any]:
        """Keyword arguments of ``Catalogue.record_learning(run_id, **...)``."""
        return {"at_page": self.at_page, "n_paths": self.n_paths, "seconds": self.seconds,
                "features": self.features, "learner": self.learner, "note": self.note}  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def learning_table(iterations: Sequence[LearningIteration], top: int = 5) -> str:
    """A text table like ACHE's Table 2: features chosen per space and iteration."""
    lines = ["iter  at_page  paths  seconds  space   features"]
    for it in iterations:
        head = f"{it.iteration:>4}  {it.at_page:>7}  {it.n_paths:>5}  {it.seconds:>7.2f}"
        feats = it.features.get("features", {})
        rows = [(s, feats[s]) for s in ("url", "anchor", "around") if s in feats]
        if not rows:
            lines.append(f"{head}  {it.note}")
        for n, (space, terms) in enumerate(rows):
            lines.append(f"{head if n == 0 else ' ' * len(head)}  {space:<6}  "
                         f"{', '.join(list(terms)[:top])}")  # fmt: skip
    return "\n".join(lines)
