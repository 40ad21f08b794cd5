"""Backlinks of the simulated web for the offline trainer (``SimWebBacklinks``):
harness code, it reads the web's ground truth."""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from formhunter.interfaces import LinkRecord


class SimWebBacklinks:
    """Backlinks of a simulated web (module doc).

    ``web``: a ``formhunter.simweb.SimWeb``; ``graph``: its ``TruthGraph`` (built or
    loaded from ``cache_dir`` when None); ``domain``: whose relevant forms are the
    targets; ``max_sources``: backlinks kept per page (a sample: a home page is
    linked from every page of its site); ``max_occurrences``: a form found on more
    pages than this is a header/sidebar box, its target is the site's home page (or
    its shortest URL).
    """

    def __init__(self, web: Any, graph: Any = None, *, domain: str | None = None,
                 cache_dir: str | Path | None = None, max_sources: int = 20,
                 max_occurrences: int = 5, random_state: int = 0,
                 cache_pages: int = 20_000) -> None:  # fmt: skip
        if graph is None:
            from formhunter.bench.oracle import load_or_build
            from formhunter.worlds import as_world

            graph = load_or_build(as_world(web), cache_dir)
        self.web = web
        self.graph = graph
        self.max_sources = max_sources
        self.random_state = random_state
        self.cache_pages = cache_pages
        self._pages: OrderedDict[int, dict[str, tuple[str, str]]] = OrderedDict()
        self.parsed = 0
        self.targets = self._targets(domain, max_occurrences) if domain else []

    def _targets(self, domain: str, max_occurrences: int) -> list[str]:
        g = self.graph
        rel = g.relevant_keys(domain)[g.occ_key]
        by_key: dict[int, list[int]] = defaultdict(list)
        for node, key in zip(g.occ_node[rel].tolist(), g.occ_key[rel].tolist(), strict=True):
            by_key[key].append(node)
        out: set[str] = set()
        for nodes in by_key.values():
            urls = sorted({g.urls[n] for n in nodes})
            if len(urls) <= max_occurrences:
                out.update(urls)
                continue
            homes = [u for u in urls if u.split("://", 1)[-1].count("/") <= 1
                     and u.endswith("/")]  # fmt: skip
            out.add(min(homes or urls, key=lambda u: (len(u), u)))
        return sorted(out)

    def _outlinks(self, node: int) -> dict[str, tuple[str, str]]:
        """{canonical target: (anchor, around)} of a source page, as the parser sees it."""
        got = self._pages.get(node)
        if got is not None:
            self._pages.move_to_end(node)
            return got
        from formhunter.exceptions import ParseError
        from formhunter.parse import parse_page
        from formhunter.simweb.urls import canonical_url

        url = self.graph.urls[node]
        links: dict[str, tuple[str, str]] = {}
        resp = self.web.fetch(url)
        if resp.status == 200 and "html" in resp.content_type:
            try:
                page = parse_page(url, resp.body, content_type=resp.content_type)
            except ParseError:
                page = None
            if page is not None:
                for lk in page.links:
                    links.setdefault(canonical_url(lk.url), (lk.anchor, lk.around))
        self.parsed += 1
        self._pages[node] = links
        while len(self._pages) > self.cache_pages:
            self._pages.popitem(last=False)
        return links

    def _record(self, src: int, dst_url: str) -> LinkRecord | None:
        got = self._outlinks(src).get(dst_url)
        if got is None:  # a redirect or a link the parser does not follow
            return None
        from formhunter.simweb.urls import site_of

        return LinkRecord(dst_url, site_of(dst_url), 0, self.graph.urls[src], got[0], got[1])

    def backlinks(self, url: str) -> list[LinkRecord]:
        g = self.graph
        node = g.node_of(url)
        if node < 0:
            return []
        indptr, indices = g.reverse()
        srcs = np.unique(indices[indptr[node]:indptr[node + 1]])
        srcs = srcs[g.in_truth[srcs] & (srcs != node)]
        if len(srcs) > self.max_sources:
            from formhunter.simweb.urls import site_of

            # Other sites' links first (they say how a site is entered), then a sample.
            rng = np.random.default_rng([self.random_state, node])
            site = site_of(g.urls[node])
            ext = np.asarray([site_of(g.urls[s]) != site for s in srcs.tolist()])
            order = np.concatenate([rng.permutation(srcs[ext]), rng.permutation(srcs[~ext])])
            srcs = order[: self.max_sources]
        dst = g.urls[node]
        out = [self._record(int(s), dst) for s in srcs.tolist()]
        return [r for r in out if r is not None]

    def sample(self, n: int, exclude: set[str], rng: np.random.Generator) -> list[LinkRecord]:
        """Up to ``n`` links of random pages of the web (one per page)."""
        g = self.graph
        pages = np.flatnonzero(g.in_truth & (np.diff(g.indptr) > 0))
        out: list[LinkRecord] = []
        for _ in range(4):  # a few rounds: some picks are excluded or unparsable
            if len(out) >= n or len(pages) == 0:
                break
            for src in rng.choice(pages, size=min(len(pages), n - len(out)), replace=False):
                links = [u for u in self._outlinks(int(src)) if u not in exclude]
                if links:
                    rec = self._record(int(src), links[int(rng.integers(len(links)))])
                    if rec is not None:
                        out.append(rec)
        return out[:n]
