"""Re-ranking from the token ids the frontier keeps equals re-ranking through the text.

Every scorer that re-ranks from token ids (``token_spaces`` not None) is run both ways on
copies of one stored frontier (a real DuckDB file): the levels are equal and the scores
equal to float rounding; so is the link the refill gives first. Also after links were
fetched, added, requeued and kept in reserve, and after a resume (the ids are rebuilt).
"""

from __future__ import annotations

import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from classifiers.apprentice import Apprentice
from formhunter.bench.rerank import TextOnly, fill_frontier, link_batches, retrainers
from formhunter.catalogue import Catalogue
from formhunter.config import FrontierSettings
from formhunter.frontier import Frontier, FrontierStore
from formhunter.interfaces import LinkRecord, LinkScorer
from formhunter.learners import ApprenticeScorer, CFCScorer, LinkClassifierScorer
from formhunter.scorers.keyword_rule import KeywordRuleScorer
from formhunter.scorers.simple import BreadthFirstScorer, ParentScoreScorer, RandomScorer

N = 3000
BATCH = 700  # several batches, each small enough for the scorers' small-frame path


@pytest.fixture(scope="module")
def frontier_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    db = tmp_path_factory.mktemp("tokens") / "frontier.duckdb"
    run = fill_frontier(db, link_batches(N, 1000), N)
    return db, run


@pytest.fixture(scope="module")
def learned() -> dict[str, Callable[[], LinkScorer]]:
    train = retrainers((20, 50))
    fitted = {name: train[name]() for name in ("link-classifier", "apprentice-layer")}
    app = fitted["apprentice-layer"]
    assert isinstance(app, ApprenticeScorer) and app.apprentice is not None
    unfitted = Apprentice().partial_fit(pa.table({"dom_terms": pa.array([], pa.string())}), [])
    return {
        "link-classifier": lambda: fitted["link-classifier"],
        "apprentice-layer": lambda: app,
        "apprentice alone": lambda: ApprenticeScorer(app.apprentice, None),
        "apprentice before its first batch": lambda: ApprenticeScorer(
            unfitted, fitted["link-classifier"]),
        "bfs": BreadthFirstScorer,
        "parent": ParentScoreScorer,
        "keyword": KeywordRuleScorer,
        "random": lambda: RandomScorer(7),
    }


Rows = dict[str, np.ndarray]


def _rerank(db: Path, run: int, scorer: LinkScorer, *, promote_below: int = 0,
            before: Callable[[Frontier, Catalogue], None] | None = None
            ) -> tuple[Rows, int | None]:  # fmt: skip
    """Open the catalogue, optionally change the frontier, re-rank, take the first link;
    the stored rows (lid order) and that link's lid."""
    with Catalogue(db) as cat:
        store = FrontierStore(cat.con, run)
        cat.add_flusher(store.flush)
        fr = Frontier(store, FrontierSettings(rerank_batch=BATCH, refill_per_level=20),
                      n_levels=scorer.n_levels + 1)  # fmt: skip
        if before is not None:
            before(fr, cat)
        fr.rerank(scorer, promote_below)
        first = fr.next(0.0)
        cat.commit()
        rows = cat.con.execute("SELECT lid, level, score, state FROM frontier WHERE run_id = ?"
                               " ORDER BY lid", [run]).fetchnumpy()  # fmt: skip
    return rows, (first.lid if first is not None else None)


def _both(tmp_path: Path, db: Path, run: int, make: Callable[[], LinkScorer],
          **kw: object) -> None:  # fmt: skip
    """The text path and the token path on copies of ``db``: equal results."""
    a, b = tmp_path / "text.duckdb", tmp_path / "tokens.duckdb"
    shutil.copy(db, a)
    shutil.copy(db, b)
    text, first_text = _rerank(a, run, TextOnly(make()), **kw)  # type: ignore[arg-type]
    scorer = make()
    assert scorer.token_spaces is not None
    tokens, first_tokens = _rerank(b, run, scorer, **kw)  # type: ignore[arg-type]
    assert np.array_equal(text["lid"], tokens["lid"])
    assert np.array_equal(text["state"], tokens["state"])
    assert np.array_equal(text["level"], tokens["level"])
    assert np.allclose(text["score"], tokens["score"], rtol=1e-9, atol=1e-12, equal_nan=True)
    assert first_text == first_tokens
    assert len(set(tokens["level"].tolist())) > 1 or scorer.n_levels == 1


NAMES = ["link-classifier", "apprentice-layer", "apprentice alone",
         "apprentice before its first batch", "bfs", "parent", "keyword", "random"]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_token_rerank_equals_text_rerank(tmp_path: Path, frontier_db: tuple[Path, int],
                                         learned: dict[str, Callable[[], LinkScorer]],
                                         name: str) -> None:  # fmt: skip
    _both(tmp_path, *frontier_db, learned[name])


def _crawl_a_little(fr: Frontier, cat: Catalogue) -> None:
    """Re-rank (every link tokenised), then fetch some links, find new ones (some kept
    in reserve), skip some: the next re-rank meets links tokenised or not, in runs."""
    fr.rerank(BreadthFirstScorer())
    for _ in range(40):
        e = fr.next(0.0)
        assert e is not None
        fr.done(e, "fetched")
    recs = [LinkRecord(f"https://new{i % 50}.example/search/flight-{i}.html", f"new{i % 50}",
                       2, "https://www.site1.example/book", "Advanced search" if i % 3 else "Next",
                       "find cheap flights hotel", 0.25 * (i % 4), f"search@{i % 7 - 3} book@1")
            for i in range(300)]  # fmt: skip
    hosts = [r.site for r in recs]
    fr.add_scored(recs[:200], hosts[:200], np.zeros(200), np.zeros(200))
    fr.add_scored(recs[200:], hosts[200:], np.zeros(100), np.zeros(100), state="reserve")
    fr.store.add_skipped(LinkRecord("https://new1.example/x/search", "new1", 3), "new1",
                         "site-closed")  # fmt: skip
    cat.commit()
    fr.store.requeue_skipped(["new1"], "site-closed")
    for _ in range(5):  # fetched since the last commit: a state change still buffered
        e = fr.next(0.0)
        assert e is not None
        fr.done(e, "fetched")


@pytest.mark.parametrize("name", ["link-classifier", "apprentice-layer", "random"])
def test_after_fetches_new_links_reserve_and_requeue(
        tmp_path: Path, frontier_db: tuple[Path, int],
        learned: dict[str, Callable[[], LinkScorer]], name: str) -> None:  # fmt: skip
    _both(tmp_path, *frontier_db, learned[name], before=_crawl_a_little, promote_below=1)


def test_resume_rebuilds_the_token_ids(tmp_path: Path, frontier_db: tuple[Path, int],
                                       learned: dict[str, Callable[[], LinkScorer]]) -> None:
    db, run = frontier_db
    shutil.copy(db, tmp_path / "f.duckdb")
    scorer = learned["apprentice-layer"]()
    _rerank(tmp_path / "f.duckdb", run, scorer, before=_crawl_a_little)  # closed: "killed"
    shutil.copy(tmp_path / "f.duckdb", tmp_path / "resumed.duckdb")
    _both(tmp_path, tmp_path / "resumed.duckdb", run, learned["link-classifier"])


def test_scorers_that_need_the_text_say_so_and_scorers_pickle(
        tmp_path: Path, learned: dict[str, Callable[[], LinkScorer]],
        frontier_db: tuple[Path, int]) -> None:  # fmt: skip
    from classifiers.url_scorer import ConservativeURLScorer

    assert CFCScorer(ConservativeURLScorer()).token_spaces is None  # parents by URL: text path
    assert ApprenticeScorer(None, CFCScorer(ConservativeURLScorer())).token_spaces is None
    db, run = frontier_db
    shutil.copy(db, tmp_path / "f.duckdb")
    scorer = learned["apprentice-layer"]()
    with Catalogue(tmp_path / "f.duckdb") as cat:
        store = FrontierStore(cat.con, run)
        lids = np.arange(1, 101)
        store._tokenise(lids, 50)
        links = store.tokens.take(lids, scorer.token_spaces or (), np.ones(100), np.zeros(100))
    before = scorer.score_tokens(links)
    again = pickle.loads(pickle.dumps(scorer))  # a Ray shard gets scorers pickled
    assert isinstance(again, ApprenticeScorer) and isinstance(again.base, LinkClassifierScorer)
    after = again.score_tokens(links)
    assert np.array_equal(before[0], after[0]) and np.allclose(before[1], after[1])


def test_scorers_of_depth_and_parent_score_tokenise_nothing(
        tmp_path: Path, frontier_db: tuple[Path, int]) -> None:  # fmt: skip
    db, run = frontier_db
    shutil.copy(db, tmp_path / "f.duckdb")
    with Catalogue(tmp_path / "f.duckdb") as cat:
        store = FrontierStore(cat.con, run)
        assert store.rerank(KeywordRuleScorer(), 2, batch=BATCH) == N
        assert store.tokens.n_rows == 0 and store.tokens.nbytes == 0


def test_each_space_is_tokenised_when_a_scorer_first_reads_it(
        tmp_path: Path, frontier_db: tuple[Path, int],
        learned: dict[str, Callable[[], LinkScorer]]) -> None:  # fmt: skip
    """A link-classifier re-rank keeps the word ids only (no ``term@d`` ids: less than
    half the memory); an apprentice re-rank after it, with links fetched and new ones
    found in between, tokenises the ``term@d`` space of the links it re-ranks and the
    words of the new ones only, and equals the text path."""
    seen: list[tuple[Frontier, int]] = []

    def before(fr: Frontier, cat: Catalogue) -> None:
        fr.rerank(learned["link-classifier"]())
        words, dom = fr.store.tokens.groups
        assert (words.n_rows, dom.n_rows) == (N, 0)
        seen.append((fr, fr.store.tokens.nbytes))
        _crawl_a_little(fr, cat)

    _both(tmp_path, *frontier_db, learned["apprentice-layer"], before=before)
    fr, words_only = seen[-1]  # the token path's frontier
    words, dom = fr.store.tokens.groups
    assert N < words.n_rows <= N + 301  # the new links' words, once
    assert 0 < dom.n_rows < words.n_rows  # no term@d ids for the links fetched before
    assert fr.store.tokens.nbytes > 2 * words_only
