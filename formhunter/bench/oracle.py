"""The simulated web's ground truth as arrays, and the omniscient crawler (the ceiling).

``TruthGraph`` holds every page of the truth (plus link targets outside it) as a
node, the link graph as CSR arrays, each page's topics as a bit mask over
``DOMAINS``, and the forms: one *key* per distinct (site, signature) -- the
catalogue's notion of one form -- with its labels, and the occurrences of each
key on pages. An occurrence is *findable* when a crawler without a browser can
see it: the form is not js-only and robots.txt allows its page. Building from a
world (``formhunter.worlds``) walks the whole truth once (about a minute for the
default web), so ``load_or_build`` caches it on disk, keyed by the world's name,
seed, size and the hash of its generator's sources.

``omniscient(graph, domain, seeds, max_pages)`` crawls like a crawler that knows
the whole web: it starts from the seeds, can only fetch discovered links, never
fetches a robots-disallowed page, and always fetches the discovered page nearest
(in links) to a relevant form it has not found yet -- so it walks shortest paths
to the remaining forms, one after another. Ties go to the page discovered first;
pages from which no unfound relevant form is reachable come last, in discovery
order. Distances come from a backward multi-source BFS over the truth graph
(vectorised); when forms are found, targets disappear and distances can only
grow, so stale distances are lower bounds, checked lazily when popped (a bounded
forward search, or a full recompute when the nearest target is far).
"""

from __future__ import annotations

import heapq
import json
import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from formhunter.exceptions import UsageError

if TYPE_CHECKING:
    from formhunter.worlds import World

DOMAINS: tuple[str, ...] = (
    "airfare", "auto", "book", "hotel", "job", "movie", "music", "rental",
)  # fmt: skip
INF = np.int32(2**30)
#: Forward search depth used to re-check a stale distance before a full recompute.
CHECK_DEPTH = 3

Row = dict[str, Any]


def domain_bit(domain: str) -> int:
    """The bit of ``domain`` in topic and relevance masks."""
    try:
        return 1 << DOMAINS.index(domain)
    except ValueError:
        raise UsageError(f"unknown domain {domain!r} (known: {', '.join(DOMAINS)})") from None


def _mask(domains: Iterable[str]) -> int:
    m = 0
    for d in domains:
        if d in DOMAINS:
            m |= 1 << DOMAINS.index(d)
    return m


def gather(indptr: np.ndarray, indices: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Concatenated CSR rows of ``nodes`` (neighbours), vectorised."""
    starts = indptr[nodes]
    lens = indptr[nodes + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, dtype=indices.dtype)
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return indices[offsets + np.arange(total)]


def _csr(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(src, kind="stable")
    indices = dst[order].astype(np.int32)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    return indptr, indices


@dataclass
class TruthGraph:
    """Ground truth as arrays (module doc). Node ids index ``urls``; key ids ``key_site``."""

    urls: list[str]
    indptr: np.ndarray  # forward CSR over nodes
    indices: np.ndarray
    fetchable: np.ndarray  # bool: robots.txt allows it (unknown URLs: True)
    in_truth: np.ndarray  # bool: a page of the truth (not only a link target)
    topics: np.ndarray  # uint16 mask over DOMAINS
    key_site: list[str]
    key_signature: list[str]
    key_searchable: np.ndarray  # bool
    key_relevant: np.ndarray  # uint16 mask over DOMAINS
    occ_node: np.ndarray  # findable occurrences: node id ...
    occ_key: np.ndarray  # ... and key id
    meta: dict[str, Any] = field(default_factory=dict)
    _index: dict[str, int] | None = field(default=None, repr=False)
    _keys: dict[tuple[str, str], int] | None = field(default=None, repr=False)
    _rev: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)

    # -- building -------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[Row, list[Row], list[Row]]],
                  meta: dict[str, Any] | None = None) -> TruthGraph:  # fmt: skip
        """Build from (page row, link rows, form rows) triples, as ``Truth.rows()`` yields.

        Page rows need ``url``, ``domains``, ``robots_allowed`` (``redirect_to`` is
        an extra link); link rows ``src_url``/``dst_url``; form rows ``site``,
        ``signature``, ``searchable``, ``relevant_domains``, ``js_only``.
        """
        index: dict[str, int] = {}
        urls: list[str] = []

        def node(u: str) -> int:
            i = index.get(u)
            if i is None:
                i = index[u] = len(urls)
                urls.append(u)
            return i

        src: list[int] = []
        dst: list[int] = []
        page_info: dict[int, tuple[int, bool]] = {}
        keys: dict[tuple[str, str], int] = {}
        k_search: list[bool] = []
        k_rel: list[int] = []
        occ: list[tuple[int, int]] = []
        for page, links, forms in rows:
            u = node(page["url"])
            allowed = bool(page.get("robots_allowed", True))
            page_info[u] = (_mask(page.get("domains") or ()), allowed)
            targets = [node(lk["dst_url"]) for lk in links]
            if page.get("redirect_to"):
                targets.append(node(page["redirect_to"]))
            src.extend([u] * len(targets))
            dst.extend(targets)
            for f in forms:
                kk = (f["site"], f["signature"])
                k = keys.get(kk)
                if k is None:
                    k = keys[kk] = len(k_search)
                    k_search.append(bool(f["searchable"]))
                    k_rel.append(_mask(f.get("relevant_domains") or ()))
                if allowed and not f.get("js_only", False):
                    occ.append((u, k))
        n = len(urls)
        fetchable = np.ones(n, dtype=bool)
        in_truth = np.zeros(n, dtype=bool)
        topics = np.zeros(n, dtype=np.uint16)
        for u, (m, allowed) in page_info.items():
            topics[u], fetchable[u], in_truth[u] = m, allowed, True
        indptr, indices = _csr(np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int32), n)
        occ_arr = np.asarray(sorted(set(occ)), dtype=np.int32).reshape(-1, 2)
        key_list = sorted(keys, key=keys.__getitem__)
        g = cls(
            urls=urls, indptr=indptr, indices=indices, fetchable=fetchable, in_truth=in_truth,
            topics=topics, key_site=[k[0] for k in key_list],
            key_signature=[k[1] for k in key_list],
            key_searchable=np.asarray(k_search, dtype=bool),
            key_relevant=np.asarray(k_rel, dtype=np.uint16),
            occ_node=occ_arr[:, 0].copy(), occ_key=occ_arr[:, 1].copy(), meta=dict(meta or {}),
        )  # fmt: skip
        g._index, g._keys = index, keys
        return g

    @classmethod
    def from_web(cls, web: World) -> TruthGraph:
        """Walk ``web.truth_rows()`` once (slow: about a minute for 500 sites)."""
        return cls.from_rows(web.truth_rows(), meta={"world": web.name, "seed": web.seed,
                                                     "n_sites": web.n_sites})  # fmt: skip

    # -- persistence ----------------------------------------------------------

    def save(self, path: str | Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        d = Path(path)
        d.mkdir(parents=True, exist_ok=True)
        np.savez(d / "arrays.npz", indptr=self.indptr, indices=self.indices,
                 fetchable=self.fetchable, in_truth=self.in_truth, topics=self.topics,
                 key_searchable=self.key_searchable, key_relevant=self.key_relevant,
                 occ_node=self.occ_node, occ_key=self.occ_key)  # fmt: skip
        pq.write_table(pa.table({"url": self.urls}), d / "nodes.parquet")
        pq.write_table(pa.table({"site": self.key_site, "signature": self.key_signature}),
                       d / "keys.parquet")  # fmt: skip
        (d / "meta.json").write_text(json.dumps(self.meta, indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> TruthGraph:
        import pyarrow.parquet as pq

        d = Path(path)
        with np.load(d / "arrays.npz") as a:
            arrays = {k: a[k] for k in a.files}
        keys = pq.read_table(d / "keys.parquet")
        return cls(urls=pq.read_table(d / "nodes.parquet").column("url").to_pylist(),
                   key_site=keys.column("site").to_pylist(),
                   key_signature=keys.column("signature").to_pylist(),
                   meta=json.loads((d / "meta.json").read_text(encoding="utf-8")),
                   **arrays)  # fmt: skip

    # -- look-ups -------------------------------------------------------------

    @property
    def n(self) -> int:
        return len(self.urls)

    @property
    def index(self) -> dict[str, int]:
        if self._index is None:
            self._index = {u: i for i, u in enumerate(self.urls)}
        return self._index

    @property
    def keys(self) -> dict[tuple[str, str], int]:
        if self._keys is None:
            self._keys = {k: i for i, k in enumerate(zip(self.key_site, self.key_signature,
                                                         strict=True))}  # fmt: skip
        return self._keys

    def reverse(self) -> tuple[np.ndarray, np.ndarray]:
        """Backward CSR (cached)."""
        if self._rev is None:
            src = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.indptr))
            self._rev = _csr(self.indices.astype(np.int64), src.astype(np.int32), self.n)
        return self._rev

    def node_of(self, url: str) -> int:
        """Node id of a URL (canonicalised the simweb's way); -1 if unknown."""
        from formhunter.simweb.urls import canonical_url

        i = self.index.get(url)
        if i is None:
            i = self.index.get(canonical_url(url), -1)
        return i

    def relevant_keys(self, domain: str) -> np.ndarray:
        """Bool per key: relevant for ``domain``."""
        return (self.key_relevant & domain_bit(domain)) != 0

    def findable(self) -> np.ndarray:
        """Bool per key: has a findable occurrence."""
        out = np.zeros(len(self.key_site), dtype=bool)
        out[self.occ_key] = True
        return out

    def form_sites(self, domain: str) -> set[str]:
        """Sites holding a findable relevant form of ``domain`` (site coverage's denominator)."""
        rel = self.relevant_keys(domain)[self.occ_key]
        return {self.key_site[k] for k in np.unique(self.occ_key[rel]).tolist()}

    def totals(self, domain: str) -> dict[str, int]:
        """Counts of the web for ``domain``: pages, on-topic pages, findable forms and
        the sites holding a findable relevant form."""
        f = self.findable()
        bit = domain_bit(domain)
        return {"pages": int(self.in_truth.sum()),
                "on_topic_pages": int(((self.topics & bit) != 0).sum()),
                "relevant_forms": int((f & self.relevant_keys(domain)).sum()),
                "searchable_forms": int((f & self.key_searchable).sum()),
                "form_sites": len(self.form_sites(domain))}  # fmt: skip


def load_or_build(web: World, cache_dir: str | Path | None) -> TruthGraph:
    """The web's TruthGraph from ``cache_dir`` (built and saved there when missing)."""
    if cache_dir is None:
        return TruthGraph.from_web(web)
    d = Path(cache_dir) / f"{web.name}-{web.seed}-{web.n_sites}-{web.source_hash()}"
    if (d / "meta.json").exists():
        return TruthGraph.load(d)
    g = TruthGraph.from_web(web)
    tmp = d.with_name(f"{d.name}.tmp{os.getpid()}")
    g.save(tmp)
    if d.exists():  # built meanwhile by another process
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        tmp.replace(d)
    return g


# -- the omniscient crawler ------------------------------------------------------


@dataclass
class Curve:
    """A crawl, page by page: node ids fetched and cumulative counts after each page."""

    nodes: np.ndarray
    relevant: np.ndarray
    searchable: np.ndarray
    on_topic: np.ndarray
    recomputes: int = 0

    @property
    def pages(self) -> int:
        return len(self.nodes)


def distances(graph: TruthGraph, target: np.ndarray) -> np.ndarray:
    """Links from each node to the nearest ``target`` node over fetchable nodes (INF: none)."""
    rptr, ridx = graph.reverse()
    dist = np.full(graph.n, INF, dtype=np.int32)
    front = np.flatnonzero(target & graph.fetchable)
    dist[front] = 0
    d = 0
    while front.size:
        nb = gather(rptr, ridx, front)
        nb = nb[(dist[nb] == INF) & graph.fetchable[nb]]
        if not nb.size:
            break
        front = np.unique(nb)
        d += 1
        dist[front] = d
    return dist


def _forward(graph: TruthGraph, u: int, target: np.ndarray, depth: int) -> int:
    """Exact distance from ``u`` to a target if at most ``depth``, else ``depth + 1``."""
    if target[u]:
        return 0
    seen = {u}
    front = np.asarray([u], dtype=np.int64)
    for d in range(1, depth + 1):
        nb = gather(graph.indptr, graph.indices, front)
        nb = np.unique(nb[graph.fetchable[nb]])
        if target[nb].any():
            return d
        nb = np.asarray([v for v in nb.tolist() if v not in seen], dtype=np.int64)
        if not nb.size:
            return int(INF)
        seen.update(nb.tolist())
        front = nb
    return depth + 1


def omniscient(graph: TruthGraph, domain: str, seeds: Sequence[str], max_pages: int) -> Curve:
    """The omniscient crawl of ``domain`` from ``seeds`` for ``max_pages`` pages (module doc)."""
    bit = domain_bit(domain)
    n = graph.n
    rel_key = graph.relevant_keys(domain)
    # occurrences by node and by key (CSR), findable only
    nk = len(graph.key_site)
    by_node = _csr(graph.occ_node.astype(np.int64), graph.occ_key, n)
    by_key = _csr(graph.occ_key.astype(np.int64), graph.occ_node, nk)
    occ_rel = rel_key[graph.occ_key]
    remaining = np.bincount(graph.occ_node[occ_rel], minlength=n).astype(np.int32)
    target = remaining > 0
    dist = distances(graph, target)
    version = 0
    exact_at = np.zeros(n, dtype=np.int64)  # version at which dist[u] was exact
    recomputes = 1
    found = np.zeros(nk, dtype=bool)
    fetched = np.zeros(n, dtype=bool)
    discovered = np.zeros(n, dtype=bool)
    heap: list[tuple[int, int, int]] = []
    counter = 0
    for s in seeds:
        u = graph.node_of(s)
        if u < 0 or discovered[u] or not graph.fetchable[u]:
            continue
        discovered[u] = True
        heap.append((int(dist[u]), counter, u))
        counter += 1
    heapq.heapify(heap)
    order: list[int] = []
    rel_curve: list[int] = []
    srch_curve: list[int] = []
    topic: list[bool] = []
    n_rel = n_srch = 0
    while heap and len(order) < max_pages:
        d, disc, u = heapq.heappop(heap)
        if fetched[u]:
            continue
        if d < dist[u]:
            heapq.heappush(heap, (int(dist[u]), disc, u))
            continue
        if exact_at[u] != version and dist[u] < INF:
            got = _forward(graph, u, target, CHECK_DEPTH)
            if got <= CHECK_DEPTH or got == INF:
                dist[u] = got
                exact_at[u] = version
            elif dist[u] > CHECK_DEPTH:  # far from every target: recompute everything
                dist = distances(graph, target)
                exact_at[:] = version
                recomputes += 1
            else:
                dist[u] = CHECK_DEPTH + 1  # a better lower bound, checked when popped again
            if dist[u] != d:
                heapq.heappush(heap, (int(dist[u]), disc, u))
                continue
        # fetch u
        fetched[u] = True
        order.append(u)
        topic.append(bool(graph.topics[u] & bit))
        changed = False
        for k in by_node[1][by_node[0][u] : by_node[0][u + 1]].tolist():
            if found[k]:
                continue
            found[k] = True
            n_srch += bool(graph.key_searchable[k])
            if rel_key[k]:
                n_rel += 1
                holders = by_key[1][by_key[0][k] : by_key[0][k + 1]]
                remaining[holders] -= 1
                target[holders] = remaining[holders] > 0
                changed = True
        if changed:
            version += 1
        rel_curve.append(n_rel)
        srch_curve.append(n_srch)
        for v in graph.indices[graph.indptr[u] : graph.indptr[u + 1]].tolist():
            if not discovered[v] and graph.fetchable[v]:
                discovered[v] = True
                heapq.heappush(heap, (int(dist[v]), counter, v))
                counter += 1
    return Curve(np.asarray(order, dtype=np.int64), np.asarray(rel_curve, dtype=np.int64),
                 np.asarray(srch_curve, dtype=np.int64), np.asarray(topic, dtype=bool),
                 recomputes)  # fmt: skip
