"""Tree-Frontier (TRES §3.7, Algorithm 2): the frontier as the leaves of a regression tree.

Experience samples (the features of fetched links and the reward their pages
earned) train a regression tree that splits by variance reduction of the
reward (scikit-learn's ``DecisionTreeRegressor``, squared error; with
``max_leaf_nodes`` it grows best first, as the paper's online tree does). Each
frontier link is routed to a leaf by its features and kept in that leaf's list.

- ``add``: O(depth) per link (a vectorised walk of the tree's arrays per batch);
- ``next``: draws one candidate per leaf at random (a few draws when the drawn
  link's host must wait), asks the ``chooser`` (the agent: Q-values, epsilon-
  greedy) which candidate to take, and returns it -- O(leaves), never a scan of
  the frontier;
- ``learn(x, reward)``: one experience sample; every ``rebuild_every`` samples
  the tree is refit on the experience kept (bounded) and every link re-routed
  (one vectorised pass, O(frontier x depth)).

A selector (``formhunter.interfaces.CrawlFrontier``) like ``formhunter.frontier.Frontier``
(registered as frontier "tree"; the strategy ``tres`` uses it), with politeness
through the same ``ready_in(url)`` callback and ``per_host`` limit. What the crawl
provides (``formhunter.tres.learner.TreeLearner`` does the TRES part):

1. the features of new links: ``featurize(records) -> (n, d)`` is given at
   construction and called in ``add_scored`` (levels are ignored; a seed, scored
   ``math.inf``, has zero features, as in the paper);
2. after each fetched page, the reward and the features of the link it was
   reached by: ``features_of(lid)`` (kept from ``next`` until ``done``) and
   ``learn(x, reward)`` -- the TRES learner does this from the outcome;
3. per-site budgets stay the engine's (``SiteBudget``): it skips a taken link
   of a closed site with ``done(entry, "skipped", reason)`` as today;
4. persistence: with a ``FrontierStore`` every link is written there too (level
   0, no score, marked loaded: the tree holds it), so commits, ``forms``/``runs``
   and resume work unchanged; ``restore()`` reloads the queued links of a resumed
   run (their state features then come from ``parent_score`` only). All queued
   links live in memory (~0.3 KB each: 100,000 links ~ 30 MB); there is no refill.
   Links bound for the reserve stay in the store's reserve; when the tree is empty,
   the links the store queued again -- a reopened site's skipped links, the opened
   reserve (the crawl policy's dry rules, ``frontier.policy``) -- are taken back into
   the tree (``takes_back``), so a tres crawl uses its budget as the levels frontier
   does.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.tree import DecisionTreeRegressor

from formhunter.config import FrontierSettings, TresSettings
from formhunter.frontier import FrontierStore
from formhunter.frontier.levels import ReadyIn
from formhunter.interfaces import LinkScorer, RoutesFirst
from formhunter.model import Entry, LinkRecord

log = logging.getLogger(__name__)

__all__ = ["TreeFrontier", "TreeRouter"]

#: Fetched links whose features wait for the learner (a batch's worth is plenty).
MAX_DONE = 4096

Featurize = Callable[[Sequence[LinkRecord]], np.ndarray]
Chooser = Callable[[np.ndarray], int]


def _never_wait(url: str) -> float:
    return 0.0


def _never_reserved(url: str) -> bool:
    return False


class TreeRouter:
    """A fitted regression tree as plain arrays: route rows to leaves in O(depth)."""

    def __init__(self, tree: DecisionTreeRegressor | None = None) -> None:
        self.tree = tree
        if tree is None:
            self.left = np.array([-1])
            self.right = np.array([-1])
            self.feature = np.array([0])
            self.threshold = np.array([0.0])
            self.value = np.array([0.0])
            self.depth = 0
        else:
            t = tree.tree_
            self.left = t.children_left.copy()
            self.right = t.children_right.copy()
            self.feature = t.feature.copy()
            self.threshold = t.threshold.copy()
            self.value = t.value[:, 0, 0].copy()
            self.depth = int(tree.get_depth())
        self.leaves = np.flatnonzero(self.left < 0)

    @property
    def n_leaves(self) -> int:
        return len(self.leaves)

    def route(self, X: np.ndarray) -> np.ndarray:
        """Leaf node id of each row (scikit-learn's ``apply``, without its checks)."""
        node = np.zeros(len(X), dtype=np.int64)
        if self.depth == 0 or not len(X):
            return node
        rows = np.arange(len(X))
        for _ in range(self.depth):
            inner = self.left[node] >= 0
            if not inner.any():
                break
            r, nd = rows[inner], node[inner]
            go_left = X[r, self.feature[nd]] <= self.threshold[nd]
            node[r] = np.where(go_left, self.left[nd], self.right[nd])
        return node

    def route_one(self, x: np.ndarray) -> int:
        node = 0
        left, right, feature, threshold = self.left, self.right, self.feature, self.threshold
        while left[node] >= 0:
            node = left[node] if x[feature[node]] <= threshold[node] else right[node]
        return int(node)


class TreeFrontier:
    """The Tree-Frontier of one crawl (module doc).

    ``chooser(X)`` picks the row of X (one candidate per leaf) to fetch; the
    default picks at random (the paper's Tree-Random baseline). The tree's sizes
    and schedule come from ``tres`` (``max_leaves``, ``min_samples_leaf``,
    ``rebuild_every``, ``max_experience``, ``draws_per_leaf``).
    """

    def __init__(self, featurize: Featurize, n_features: int, *,
                 chooser: Chooser | None = None, store: FrontierStore | None = None,
                 settings: FrontierSettings | None = None, ready_in: ReadyIn | None = None,
                 per_host: int = 1, tres: TresSettings | None = None,
                 random_state: int = 0) -> None:  # fmt: skip
        self.featurize = featurize
        self.n_features = n_features
        self.store = store
        self.takes_back = store is not None  # the store's queued-again links (module doc)
        self.settings = settings if settings is not None else FrontierSettings()
        self.ready_in = ready_in if ready_in is not None else _never_wait
        self.per_host = per_host
        t = tres if tres is not None else TresSettings()
        self.max_leaves = t.max_leaves
        self.min_samples_leaf = t.min_samples_leaf
        self.rebuild_every = t.rebuild_every
        self.draws_per_leaf = t.draws_per_leaf
        max_experience = t.max_experience
        self.random_state = random_state
        self.rng = np.random.default_rng(random_state)
        self.chooser = chooser if chooser is not None else self._random_choice
        self.router = TreeRouter()
        # links: one slot each; a leaf holds the slots routed to it
        cap = 1024
        self._X = np.zeros((cap, n_features), dtype=np.float64)
        self._leaf = np.full(cap, -1, dtype=np.int64)
        self._pos = np.zeros(cap, dtype=np.int64)
        self._entries: list[Entry | None] = [None] * cap
        self._free: list[int] = list(range(cap - 1, -1, -1))
        self.leaves: dict[int, list[int]] = {}
        self._n = 0
        # experience: (features, reward), a ring buffer
        self._ex_X = np.zeros((max_experience, n_features), dtype=np.float64)
        self._ex_r = np.zeros(max_experience, dtype=np.float64)
        self._ex_n = 0
        self._ex_i = 0
        self._since_rebuild = 0
        self.rebuilds = 0
        # in flight, hosts, bookkeeping
        self.inflight: dict[int, Entry] = {}
        self._inflight_x: dict[int, np.ndarray] = {}
        # features of links fetched (``done``) whose page the learner has not seen yet
        self._done_x: dict[int, np.ndarray] = {}
        self.busy: dict[str, int] = {}
        self._seen: set[str] = set()
        self._next_lid = 1
        self._wait = math.inf
        self.candidates_scored = 0
        self.selections = 0
        self.rebuild_seconds = 0.0  # CPU seconds of all rebuilds (this thread)
        self.last_rerank_seconds = 0.0

    # -- the Frontier's shape ------------------------------------------------------------

    @property
    def n_levels(self) -> int:
        return 1

    def resize(self, n_levels: int) -> None:
        """No levels here (kept for the Frontier's shape)."""

    @property
    def seen_urls(self) -> set[str]:
        return self.store.seen if self.store is not None else self._seen

    def __len__(self) -> int:
        """Links waiting to be fetched (all in memory)."""
        return self._n

    @property
    def n_leaves(self) -> int:
        return self.router.n_leaves

    def _new_lid(self, rec: LinkRecord, host: str, at_page: int, score: float = math.nan) -> int:
        if self.store is not None:
            return self.store.add(rec, host, 0, score, at_page=at_page, loaded=True)
        lid = self._next_lid
        self._next_lid += 1
        self._seen.add(rec.url)
        return lid

    def add_scored(self, records: Sequence[LinkRecord], hosts: Sequence[str],
                   levels: np.ndarray | None = None, scores: np.ndarray | None = None, *,
                   at_page: int | Sequence[int] = 0, state: str = "queued") -> int:  # fmt: skip
        """Add new links (levels are ignored: the tree places them; a seed, scored
        ``math.inf``, is stored with that score and has zero features). ``state``
        "reserve": kept in the store's reserve, not in the tree (none without a store;
        how many, as queued ones); a queued link that waits in reserve leaves it for the
        tree."""
        pages = [at_page] * len(records) if isinstance(at_page, int) else list(at_page)
        store = self.store
        if state == "reserve":
            if store is None:
                return 0
            seen, n = store.seen, 0
            for rec, host, p in zip(records, hosts, pages, strict=True):
                if rec.url not in seen:
                    n += bool(store.add(rec, host, 0, math.nan, state="reserve", at_page=p))
            return n
        seed = np.isinf(np.asarray(scores, dtype=np.float64)) if scores is not None \
            else np.zeros(len(records), dtype=bool)  # fmt: skip
        new: list[LinkRecord] = []
        entries: list[Entry] = []
        seeds: list[bool] = []
        seen = self.seen_urls
        in_reserve = store.in_reserve if store is not None else _never_reserved
        for rec, host, p, is_seed in zip(records, hosts, pages, seed.tolist(), strict=True):
            if rec.url in seen and not in_reserve(rec.url):
                continue
            score = math.inf if is_seed else math.nan
            lid = self._new_lid(rec, host, p, score)
            new.append(rec)
            entries.append(Entry(lid, host, 0, score, rec))
            seeds.append(is_seed)
        if new:
            X = np.zeros((len(new), self.n_features))
            other = [i for i, s in enumerate(seeds) if not s]
            if other:
                X[other] = np.asarray(self.featurize([new[i] for i in other]), dtype=np.float64)
            self._insert(entries, X)
        return len(new)

    def add(self, records: Sequence[LinkRecord], hosts: Sequence[str], *,
            at_page: int | Sequence[int] = 0) -> int:  # fmt: skip
        """``add_scored`` without the scorer's arrays."""
        return self.add_scored(records, hosts, at_page=at_page)

    def restore(self) -> int:
        """Load the queued links the store holds and the tree does not (a resumed run's,
        or those the store queued again); how many."""
        if self.store is None or self.store.n_unloaded <= 0:
            return 0
        entries = self.store.load(64, 1 << 40, exclude=set(self.inflight))
        if not entries:
            return 0
        X = np.asarray(self.featurize([e.link for e in entries]), dtype=np.float64)
        for e in entries:
            e.level = 0
        self._insert(entries, X)
        return len(entries)

    # -- slots and leaves -----------------------------------------------------------------

    def _grow(self) -> None:
        cap = len(self._entries)
        self._X = np.vstack([self._X, np.zeros((cap, self.n_features))])
        self._leaf = np.concatenate([self._leaf, np.full(cap, -1, dtype=np.int64)])
        self._pos = np.concatenate([self._pos, np.zeros(cap, dtype=np.int64)])
        self._entries.extend([None] * cap)
        self._free.extend(range(2 * cap - 1, cap - 1, -1))

    def _insert(self, entries: Sequence[Entry], X: np.ndarray) -> None:
        while len(self._free) < len(entries):
            self._grow()
        slots = np.array([self._free.pop() for _ in entries], dtype=np.int64)
        self._X[slots] = X
        leaves = self.router.route(X)
        for slot, leaf, e in zip(slots.tolist(), leaves.tolist(), entries, strict=True):
            self._entries[slot] = e
            self._put(slot, leaf)
        self._n += len(entries)

    def _put(self, slot: int, leaf: int) -> None:
        lst = self.leaves.get(leaf)
        if lst is None:
            lst = self.leaves[leaf] = []
        self._leaf[slot] = leaf
        self._pos[slot] = len(lst)
        lst.append(slot)

    def _take(self, slot: int) -> Entry:
        """Remove a slot from its leaf (swap with the leaf's last) and free it."""
        leaf = int(self._leaf[slot])
        lst = self.leaves[leaf]
        i = int(self._pos[slot])
        last = lst.pop()
        if last != slot:
            lst[i] = last
            self._pos[last] = i
        if not lst:
            del self.leaves[leaf]
        entry = self._entries[slot]
        assert entry is not None
        self._entries[slot] = None
        self._leaf[slot] = -1
        self._free.append(slot)
        self._n -= 1
        return entry

    # -- taking ---------------------------------------------------------------------------

    def _random_choice(self, X: np.ndarray) -> int:
        return int(self.rng.integers(len(X)))

    def _ready(self, entry: Entry) -> float:
        """0 if the entry's host may be contacted now, else seconds to wait (inf: busy)."""
        if self.busy.get(entry.host, 0) >= self.per_host:
            return math.inf
        return max(self.ready_in(entry.url), 0.0)

    def candidates(self) -> list[int]:
        """One ready link per leaf (slots), drawn at random; sets the wait hint.

        Up to ``draws_per_leaf`` draws per leaf (a leaf with no more links than
        that is checked whole); a leaf whose draws all hit hosts that must wait
        offers no candidate this time."""
        out: list[int] = []
        wait = math.inf
        entries = self._entries
        draws = self.draws_per_leaf
        # all uniform draws at once: one numpy call instead of one per leaf and try
        u = self.rng.random((len(self.leaves), draws)).tolist()
        for lst, ur in zip(self.leaves.values(), u, strict=True):
            n = len(lst)
            for k in range(min(draws, n)):
                slot = lst[k] if n <= draws else lst[int(ur[k] * n)]  # a small leaf: all
                e = entries[slot]
                assert e is not None
                w = self._ready(e)
                if w <= 0.0:
                    out.append(slot)
                    break
                wait = min(wait, w)
        self._wait = wait
        return out

    def next(self, now: float = 0.0) -> Entry | None:
        """The link to fetch now (its host becomes busy), or None (see ``wait_hint``).
        An empty tree first takes back the links the store queued again (``restore``)."""
        if not self._n and not self.restore():
            return None
        slots = self.candidates()
        if not slots:
            return None
        X = self._X[slots]
        pick = int(self.chooser(X)) if len(slots) > 1 else 0
        self.candidates_scored += len(slots)
        self.selections += 1
        slot = slots[pick]
        x = self._X[slot].copy()
        entry = self._take(slot)
        self.busy[entry.host] = self.busy.get(entry.host, 0) + 1
        self.inflight[entry.lid] = entry
        self._inflight_x[entry.lid] = x
        return entry

    def features_of(self, lid: int) -> np.ndarray | None:
        """The features of an in-flight link, or of a fetched one not asked for yet (then
        forgotten: the pipeline marks a link done before its learners see the page);
        None if unknown."""
        x = self._inflight_x.get(lid)
        return x if x is not None else self._done_x.pop(lid, None)

    def _release(self, entry: Entry) -> None:
        self.inflight.pop(entry.lid, None)
        self._inflight_x.pop(entry.lid, None)
        n = self.busy.get(entry.host, 0) - 1
        if n > 0:
            self.busy[entry.host] = n
        else:
            self.busy.pop(entry.host, None)

    def done(self, entry: Entry, state: str, reason: str = "", now: float = 0.0) -> None:
        """The fetch of ``entry`` ended with ``state`` (fetched/failed/skipped)."""
        x = self._inflight_x.get(entry.lid)
        if x is not None and state != "skipped":
            if len(self._done_x) >= MAX_DONE:  # never asked for: drop the oldest
                del self._done_x[next(iter(self._done_x))]
            self._done_x[entry.lid] = x
        self._release(entry)
        if self.store is not None:
            self.store.mark(entry.lid, state, reason)

    def abandon(self, entry: Entry, now: float = 0.0) -> None:
        """``entry`` was taken but not fetched: it goes back into the tree."""
        x = self._inflight_x.get(entry.lid)
        self._release(entry)
        self._insert([entry], (x if x is not None else np.zeros(self.n_features))[None, :])

    def wait_hint(self, now: float = 0.0) -> float | None:
        """Seconds until a drawn link's host is due, None if all drawn hosts were busy."""
        return None if math.isinf(self._wait) else self._wait

    # -- learning -------------------------------------------------------------------------

    def learn(self, x: np.ndarray, reward: float) -> bool:
        """One experience sample; True when it triggered a rebuild."""
        i = self._ex_i
        self._ex_X[i] = x
        self._ex_r[i] = reward
        self._ex_i = (i + 1) % len(self._ex_r)
        self._ex_n = min(self._ex_n + 1, len(self._ex_r))
        self._since_rebuild += 1
        if self._since_rebuild >= self.rebuild_every:
            return self.rebuild()
        return False

    def rebuild(self) -> bool:
        """Refit the tree on the experience and re-route every link; False if it cannot
        split yet (too few samples or a single reward value)."""
        self._since_rebuild = 0
        n = self._ex_n
        if n < 2 * self.min_samples_leaf or np.ptp(self._ex_r[:n]) == 0:
            return False
        t0, c0 = time.perf_counter(), time.thread_time()
        tree = DecisionTreeRegressor(max_leaf_nodes=self.max_leaves,
                                     min_samples_leaf=self.min_samples_leaf,
                                     random_state=self.random_state)  # fmt: skip
        tree.fit(self._ex_X[:n], self._ex_r[:n])
        self.router = TreeRouter(tree)
        live = np.flatnonzero(self._leaf >= 0)
        leaves = self.router.route(self._X[live])
        self.leaves = {}
        for slot, leaf in zip(live.tolist(), leaves.tolist(), strict=True):
            self._put(slot, leaf)
        self.rebuilds += 1
        self.rebuild_seconds += time.thread_time() - c0
        self.last_rerank_seconds = time.perf_counter() - t0
        return True

    @property
    def dry(self) -> bool:
        """Nothing in the tree, nothing in flight, nothing queued in the store to take."""
        return (not self.inflight and self._n == 0
                and (self.store is None or self.store.n_unloaded <= 0))  # fmt: skip

    def rerank(self, scorer: LinkScorer | None = None, promote_below: int = 0,
               routes: RoutesFirst | None = None) -> int:  # fmt: skip
        """The Frontier's re-rank: here a rebuild of the tree (``scorer`` and ``routes``
        are not used: the chooser scores the candidates). Returns the links re-routed."""
        self.rebuild()
        return self._n

    def experience(self) -> tuple[np.ndarray, np.ndarray]:
        """The experience kept: (features, rewards), oldest first."""
        n = self._ex_n
        if n < len(self._ex_r):
            return self._ex_X[:n].copy(), self._ex_r[:n].copy()
        order = np.r_[self._ex_i : n, 0 : self._ex_i]
        return self._ex_X[order], self._ex_r[order]

    def leaf_sizes(self) -> dict[int, int]:
        return {leaf: len(lst) for leaf, lst in self.leaves.items()}
