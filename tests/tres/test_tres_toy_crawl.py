"""TRES end to end on a toy web, without the engine: the agent and the Tree-Frontier
find relevant pages far more often than random choice among the leaves (the paper's
Tree-Random) and than random choice over the frontier (Random)."""

from __future__ import annotations

import numpy as np

from formhunter.config import TresSettings
from formhunter.frontier import add_seeds
from formhunter.interfaces import LinkRecord
from formhunter.model import Link, Page, Verdict
from formhunter.tres import Tres

N_PAGES = 20_000


def _web(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Relevant pages (10%), 12 outlinks per page; topical locality: 40% of a relevant
    page's outlinks lead to relevant pages, 5% of another page's."""
    rng = np.random.default_rng(seed)
    relevant = rng.random(N_PAGES) < 0.1
    rel_ids, other_ids = np.flatnonzero(relevant), np.flatnonzero(~relevant)
    to_rel = rng.random((N_PAGES, 12)) < np.where(relevant, 0.4, 0.05)[:, None]
    out = np.where(to_rel, rng.choice(rel_ids, (N_PAGES, 12)),
                   rng.choice(other_ids, (N_PAGES, 12)))  # fmt: skip
    return relevant, out


def _anchor(target: int, relevant: np.ndarray, rng: np.random.Generator) -> str:
    # the anchor says "hotel" for 80% of links into relevant pages, 5% of the others
    if rng.random() < (0.8 if relevant[target] else 0.05):
        return f"hotel rooms {target}"
    return f"news item {target}"


def _crawl(mode: str, steps: int = 600, seed: int = 0) -> float:
    relevant, out = _web(seed)
    rng = np.random.default_rng(seed + 1)
    s = TresSettings(rebuild_every=50, min_samples_leaf=5, warmup=32, epsilon_steps=300)
    tres = Tres("hotel", ["hotel"], s, random_state=seed)
    if mode == "tree-random":
        tres.frontier.chooser = tres.frontier._random_choice
    fr = tres.frontier
    for p in range(5):
        add_seeds(fr, [f"http://w{p}.example/{p}"])
    hits = 0
    for _ in range(steps):
        if mode == "random":  # one leaf whatever was learnt: a uniform draw from the frontier
            fr.router = type(fr.router)()
            fr.leaves = {0: [s for lst in fr.leaves.values() for s in lst]}
            for i, slot in enumerate(fr.leaves[0]):
                fr._leaf[slot], fr._pos[slot] = 0, i
            fr.chooser = fr._random_choice
        e = fr.next(0.0)
        if e is None:
            break
        i = int(e.url.rsplit("/", 1)[1])
        rel = bool(relevant[i])
        hits += rel
        links = [Link(f"http://w{j % 50}.example/{j}", _anchor(j, relevant, rng)) for j in out[i]]
        page = Page(e.url, e.url, 200, e.site, title="page", text="hotel" if rel else "news",
                    links=links)  # fmt: skip
        tres.observe(e, page, 0.9 if rel else 0.1, rel, [Verdict(True, 0.9, "hotel", 0.9, rel)])
        recs = [LinkRecord(lk.url, lk.url.split("/")[2], e.depth + 1, e.url, lk.anchor, "", 0.5)
                for lk in links]  # fmt: skip
        fr.add_scored(recs, [r.site for r in recs])
        fr.done(e, "fetched")
    return hits / steps


def test_tres_beats_tree_random_and_random() -> None:
    tres = _crawl("tres")
    tree_random = _crawl("tree-random")
    rand = _crawl("random")
    assert rand < 0.2, rand  # the web's base rate is 10%
    assert tree_random > rand, (tree_random, rand)
    assert tres > 0.5 and tres > 1.5 * tree_random, (tres, tree_random, rand)
