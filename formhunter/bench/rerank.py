"""The re-rank benchmark's parts: synthetic links, retraining, a stored frontier.

``formhunter bench rerank`` (``rerank_report``) prints the figures; this module holds what it
measures, so that tests run the same code at tiny sizes.

Links are synthetic but shaped like real ones (``synthetic_frame``): ~20k
sites, URL paths from a Zipf-distributed vocabulary with ids and file endings,
navigation anchors that repeat across pages and item titles that do not, 20-40
words of text around the anchor, and 20-60 ``term@d`` DOM-offset tokens.
``training_paths`` labels such links as paths to form pages (level 0 says
search/find, level 1 catalog/browse, ...) plus background links.

``retrainers`` gives, per learned scorer (ACHE's multi-level link classifier,
the apprentice layer, the CFC URL scorer), one learning iteration that returns
a new scorer. ``fill_frontier`` stores links in the frontier table of a new
on-disk catalogue; ``store_rerank`` then times what a crawl does at a learning
iteration: retrain, ``Frontier.rerank`` (every queued link read from DuckDB in
Arrow batches, scored, its level and score updated) and the first ``next()``
(memory refilled from the store).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from classifiers.apprentice import Apprentice
from classifiers.link_classifier import MultiLevelLinkClassifier
from classifiers.url_scorer import ConservativeURLScorer
from formhunter.catalogue import Catalogue
from formhunter.config import CrawlSettings, FrontierSettings
from formhunter.frontier import Entry, Frontier, FrontierStore, insert_queued
from formhunter.interfaces import LinkRecord, LinkScorer
from formhunter.learners import ApprenticeScorer, CFCScorer, LinkClassifierScorer

if TYPE_CHECKING:
    from classifiers.link_tokens import TokenizedLinks

WORDS = """
search flights hotel car rental book library catalog job career music album movie dvd
news sport weather recipe health software download forum blog about contact privacy
terms help login account cart shop product review price deal offer travel airline
airport fare ticket room guest city map store locator event calendar archive page
home index category tag author title isbn used new cheap best top list guide tips
advanced find browse results listing dealer model make year salary employer resume
artist song lyrics cinema showtime trailer cast genre edition paperback reserve
""".split()  # noqa: SIM905
NAV = ["Home", "About us", "Contact", "Search", "Advanced search", "Login", "Help", "News",
       "Privacy policy", "Terms of use", "Next", "Previous", "More", "Read more", "Jobs",
       "Flights", "Hotels", "Car rental", "Books", "Music", "Movies", "Browse catalog"]  # fmt: skip
ENDINGS = ["", ".html", ".php", ".aspx", "/", "?page=2", "?id=17&sort=asc"]


def synthetic_frame(n: int, seed: int) -> pd.DataFrame:
    """``n`` links shaped like a crawl frontier's (module doc)."""
    rng = np.random.default_rng(seed)
    V = len(WORDS)

    def zipf_words(k: int) -> np.ndarray:
        return np.minimum(rng.zipf(1.3, size=k) - 1, V - 1)

    sites = rng.integers(0, 20_000, size=n)
    seg = zipf_words(n * 2).reshape(n, 2)
    ids = rng.integers(1, 10_000_000, size=n)
    end = rng.integers(0, len(ENDINGS), size=n)
    urls = [f"https://www.site{s}.example/{WORDS[a]}/{WORDS[b]}-{i}{ENDINGS[e]}"
            for s, (a, b), i, e in zip(sites, seg, ids, end, strict=True)]  # fmt: skip
    nav = rng.random(n) < 0.6
    navpick = rng.integers(0, len(NAV), size=n)
    title_words = zipf_words(n * 4).reshape(n, 4)
    anchors = [NAV[p] if isn else " ".join(WORDS[w] for w in tw).title()
               for isn, p, tw in zip(nav, navpick, title_words, strict=True)]  # fmt: skip
    around_len = rng.integers(20, 41, size=n)
    around_words = zipf_words(int(around_len.sum()))
    cuts = np.cumsum(around_len)[:-1]
    arounds = [" ".join(WORDS[w] for w in chunk) for chunk in np.split(around_words, cuts)]
    dom_len = rng.integers(20, 61, size=n)
    dom_words = zipf_words(int(dom_len.sum()))
    dom_d = rng.integers(-6, 7, size=int(dom_len.sum()))
    dcuts = np.cumsum(dom_len)[:-1]
    doms = [" ".join(f"{WORDS[w]}@{d}" for w, d in zip(cw, cd, strict=True))
            for cw, cd in zip(np.split(dom_words, dcuts), np.split(dom_d, dcuts),
                              strict=True)]  # fmt: skip
    return pd.DataFrame({
        "lid": np.arange(n), "url": urls, "site": [f"site{s}.example" for s in sites],
        "depth": rng.integers(1, 8, size=n), "parent": [u.rsplit("/", 1)[0] for u in urls],
        "anchor": anchors, "around": arounds, "parent_score": rng.random(n), "dom_terms": doms,
    })  # fmt: skip


def training_paths(n_paths: int, n_levels: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Paths to form pages: level-0 links say search/find, level 1 catalog/browse, ...;
    plus as many background links."""
    rng = np.random.default_rng(seed)
    frame = synthetic_frame(n_paths * n_levels * 2, seed)
    levels = np.full(len(frame), n_levels, dtype=np.int64)
    hints = [("search", "Advanced search"), ("catalog", "Browse catalog"), ("category", "Books")]
    for lv in range(n_levels):
        idx = np.arange(lv * n_paths, (lv + 1) * n_paths)
        levels[idx] = lv
        word, anchor = hints[lv % len(hints)]
        frame.loc[idx, "url"] = [u.replace("/", f"/{word}/", 3).replace(f"/{word}/", "/", 2)
                                 for u in frame.loc[idx, "url"]]  # fmt: skip
        frame.loc[idx[rng.random(len(idx)) < 0.7], "anchor"] = anchor
    return frame, levels


def link_batches(n: int, batch: int) -> Iterator[pa.Table]:
    """``n`` distinct synthetic links as Arrow tables of ``batch`` rows (the last may be
    shorter), made as they are taken; each table's ``lid`` column counts from 0."""
    for i, start in enumerate(range(0, n, batch)):
        yield pa.Table.from_pandas(synthetic_frame(min(batch, n - start), seed=1000 + i))


def repeat_batches(pool: Sequence[pa.Table], n: int) -> Iterator[pa.Table]:
    """``n`` links: the tables of ``pool``, then their text again (URL, anchor, around,
    DOM terms) under distinct URLs (round k appends ``/k``, which adds no token), as
    long as needed; building a synthetic link costs ~50 us, so 10M distinct ones would
    take minutes."""
    if not pool:
        raise ValueError("an empty pool")
    left, k = n, 0
    while left > 0:
        for table in pool:
            if left <= 0:
                break
            t = table.slice(0, left)
            if k:
                col = t.column("url")
                url = pc.binary_join_element_wise(col, pa.scalar(f"/{k}", col.type),
                                                  pa.scalar("", col.type))  # fmt: skip
                t = t.set_column(t.schema.get_field_index("url"), "url", url)
            left -= t.num_rows
            yield t
        k += 1


def write_pool(tables: Sequence[pa.Table], path: Path) -> None:
    """Write ``tables`` (one schema) to an Arrow IPC file, one record batch each."""
    if not tables:
        raise ValueError("an empty pool")
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, tables[0].schema) as out:
        for t in tables:
            out.write_batch(t.combine_chunks().to_batches()[0] if t.num_rows else
                            pa.RecordBatch.from_pylist([], schema=t.schema))  # fmt: skip


def read_pool(path: Path) -> list[pa.Table]:
    """The tables ``write_pool`` wrote, memory-mapped (no copy)."""
    reader = pa.ipc.open_file(pa.memory_map(str(path)))
    return [pa.Table.from_batches([reader.get_batch(i)]) for i in range(reader.num_record_batches)]


Retrain = Callable[[], LinkScorer]
"""One learning iteration: builds and returns a new scorer (new state per call)."""

N_LEVELS = 3


def link_classifier(frame: pd.DataFrame, levels: np.ndarray,
                    n_levels: int = N_LEVELS) -> MultiLevelLinkClassifier:  # fmt: skip
    """AFS + multi-level naive Bayes fitted on ``frame`` (25 features per space)."""
    return MultiLevelLinkClassifier(n_levels=n_levels, n_url=25, n_anchor=25,
                                    n_around=25).fit(frame, levels)  # fmt: skip


def retrainers(paths: Sequence[int] = (100, 300, 1000), n_levels: int = N_LEVELS
               ) -> dict[str, Retrain]:  # fmt: skip
    """One learning iteration per learned scorer, on ``training_paths(paths[-1])``:

    - ``link-classifier``: the link classifier fitted from scratch (ACHE
      retrains on all its paths);
    - ``apprentice-layer``: that, plus one apprentice ``partial_fit`` batch over
      an apprentice that learned the earlier ``paths`` (the iteration where both
      learners of ``ache-apprentice`` learned), layered over the new classifier;
    - ``cfc``: one ``partial_fit`` batch over a CFC model that learned the earlier
      ``paths`` (its token pools filled).

    The incremental models are deep-copied before their batch, which stands for
    the snapshot the learners take of them (``ApprenticeLearner.scorer``,
    ``CFCLearner.scorer``). Building the training data is not part of the call.
    """
    if not paths:
        raise ValueError("paths: at least one size")
    sets = [training_paths(n, n_levels, seed=n) for n in paths]
    frame, levels = sets[-1]
    y = (levels < n_levels).astype(float)
    app0, cfc0 = Apprentice(), ConservativeURLScorer()
    for f, lv in sets[:-1]:
        app0.partial_fit(f, (lv < n_levels).astype(float))
        cfc0.partial_fit(f, (lv < n_levels).astype(float))

    def link() -> LinkScorer:
        return LinkClassifierScorer(link_classifier(frame, levels, n_levels))

    def apprentice() -> LinkScorer:
        base = LinkClassifierScorer(link_classifier(frame, levels, n_levels))
        app = copy.deepcopy(app0)
        app.partial_fit(frame, y)
        return ApprenticeScorer(app, base)

    def cfc() -> LinkScorer:
        model = copy.deepcopy(cfc0)
        model.partial_fit(frame, y)
        return CFCScorer(model)

    return {"link-classifier": link, "apprentice-layer": apprentice, "cfc": cfc}


def fill_frontier(path: Path, tables: Iterable[pa.Table], n: int) -> int:
    """A new catalogue at ``path`` with one run whose frontier holds the first ``n``
    links of ``tables`` (queued, unscored; ``insert_queued``); returns the run id.
    ValueError if ``tables`` hold fewer than ``n`` links."""
    with Catalogue(path) as cat:
        run = cat.new_run(domain="airfare", strategy="bench-rerank", max_pages=0, config={},
                          seeds=[])  # fmt: skip
        lid = 1
        for table in tables:
            if lid > n:
                break
            lid = insert_queued(cat.con, run, table.slice(0, n - lid + 1), first_lid=lid)
    if lid <= n:
        raise ValueError(f"only {lid - 1} links for a frontier of {n}")
    return run


@dataclass(frozen=True)
class StoreRerank:
    """One learning iteration on a stored frontier (``StoredFrontier.iteration``)."""

    scorer: LinkScorer  # the retrained scorer
    links: int  # queued links re-scored
    retrain_s: float
    rerank_s: float  # Frontier.rerank: commit, read, score, UPDATE
    refill_s: float  # the first next(): commit, load the best links of each level
    first: Entry | None  # what that next() returned
    peak_rss: int  # the process's peak resident bytes during the iteration (0: unknown)
    rerank_cpu_s: float = 0.0  # CPU seconds of the re-rank, every thread (DuckDB's too)
    start_rss: int = 0  # the process's resident bytes when the iteration began (0: unknown)
    refill_cpu_s: float = 0.0  # CPU seconds of the first next(), every thread

    @property
    def total_s(self) -> float:
        return self.retrain_s + self.rerank_s + self.refill_s


class TextOnly:
    """A scorer re-ranking through the links' text (``score_frame``), as before the
    frontier kept token ids: the figures before and after on the same frontier."""

    token_spaces: tuple[str, ...] | None = None

    def __init__(self, scorer: LinkScorer) -> None:
        self.scorer = scorer
        self.n_levels = scorer.n_levels

    def score(self, links: Sequence[LinkRecord]) -> tuple[np.ndarray, np.ndarray]:
        return self.scorer.score(links)

    def score_frame(self, frame: Any) -> tuple[np.ndarray, np.ndarray]:
        return self.scorer.score_frame(frame)

    def score_tokens(self, links: TokenizedLinks) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError("re-ranks through the text")


def reset_peak_rss() -> bool:
    """Start measuring the peak resident memory anew (Linux); False if not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def peak_rss() -> int:
    """The process's peak resident bytes since start or ``reset_peak_rss`` (0 if unknown)."""
    return _status("VmHWM")


def current_rss() -> int:
    """The process's resident bytes now (0 if unknown)."""
    return _status("VmRSS")


def _status(key: str) -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class StoredFrontier:
    """Run ``run_id``'s frontier in the catalogue at ``path``, opened as a crawl opens it
    (reading the seen URLs is not timed; DuckDB's memory limit ``memory_mb``, None: a
    crawl's, ``[crawl] db_memory_mb``), for several learning iterations in a row: the
    token ids the frontier keeps from one re-rank serve the next. Close it."""

    def __init__(self, path: Path, run_id: int, settings: FrontierSettings | None = None,
                 memory_mb: int | None = None) -> None:  # fmt: skip
        self.settings = settings or FrontierSettings()
        mb = CrawlSettings().db_memory_mb if memory_mb is None else memory_mb
        self.cat = Catalogue(path, memory_mb=mb)
        self.store = FrontierStore(self.cat.con, run_id)
        self.cat.add_flusher(self.store.flush)

    def close(self) -> None:
        self.cat.close()

    def __enter__(self) -> StoredFrontier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def iteration(self, retrain: Retrain, *, text: bool = False) -> StoreRerank:
        """Time one learning iteration: ``retrain()``, ``Frontier.rerank`` with the
        scorer it returns (``text``: through the links' text, ``TextOnly``), then the
        first ``next()``; and the peak memory meanwhile."""
        fs = self.settings
        fr = Frontier(self.store, fs, n_levels=fs.levels + 1)
        measured = reset_peak_rss()
        start = current_rss()
        t0 = time.perf_counter()
        scorer = retrain()
        t1, c1 = time.perf_counter(), time.process_time()
        n = fr.rerank(TextOnly(scorer) if text else scorer)
        t2, c2 = time.perf_counter(), time.process_time()
        first = fr.next(0.0)
        t3, c3 = time.perf_counter(), time.process_time()
        if first is not None:
            fr.abandon(first)
        return StoreRerank(scorer, n, t1 - t0, t2 - t1, t3 - t2, first,
                           peak_rss() if measured else 0, c2 - c1, start, c3 - c2)  # fmt: skip


def store_rerank(path: Path, run_id: int, retrain: Retrain,
                 settings: FrontierSettings | None = None) -> StoreRerank:  # fmt: skip
    """One learning iteration (``StoredFrontier.iteration``) on a frontier just opened
    (its links not tokenised yet: the first re-rank after a resume)."""
    with StoredFrontier(path, run_id, settings) as sf:
        return sf.iteration(retrain)
