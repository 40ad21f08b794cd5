"""The omniscient crawler on a tiny hand-made web: golden order and curves."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

import numpy as np

from formhunter.bench.oracle import INF, TruthGraph, distances, omniscient

Row = dict[str, Any]


def _web() -> list[tuple[Row, list[Row], list[Row]]]:
    """S -> A, B, H;  A -> C, D;  B -> E, Y;  C -> F;  F -> G.

    Relevant airfare forms: f2 on E, f1 on F *and* on Y (same site and signature: one
    form), f3 on G, f4 on H (robots.txt forbids H), f6 on C (js-only). f5 on D is a
    searchable book form. Truth pages about airfare: S, B, E.
    """
    links = {"S": "ABH", "A": "CD", "B": "EY", "C": "F", "F": "G"}
    forms: dict[str, list[tuple[str, str, bool]]] = {
        "E": [("f2", "airfare", False)], "F": [("f1", "airfare", False)],
        "Y": [("f1", "airfare", False)], "G": [("f3", "airfare", False)],
        "H": [("f4", "airfare", False)], "C": [("f6", "airfare", True)],
        "D": [("f5", "book", False)],
    }  # fmt: skip
    rows = []
    for p in "SABCDEFGHY":
        url = f"http://www.s.example/{p}"
        page = {"url": url, "domains": ["airfare"] if p in "SBE" else [],
                "robots_allowed": p != "H", "redirect_to": None}  # fmt: skip
        lrows = [{"src_url": url, "dst_url": f"http://www.s.example/{q}"} for q in links.get(p, "")]
        frows = [
            {
                "site": "s.example",
                "signature": sig,
                "searchable": True,
                "relevant_domains": [dom],
                "js_only": js,
            }
            for sig, dom, js in forms.get(p, [])
        ]
        rows.append((page, lrows, frows))
    return rows


def _names(g: TruthGraph, nodes: np.ndarray) -> str:
    return "".join(g.urls[i].rsplit("/", 1)[1] for i in nodes.tolist())


def test_golden_order_and_curves() -> None:
    g = TruthGraph.from_rows(_web())
    c = omniscient(g, "airfare", ["http://www.s.example/S"], 100)
    # E and Y first (nearest); finding f1 on Y makes F no target, so A, C, F lead to G only.
    assert _names(g, c.nodes) == "SBEYACFGD"
    assert c.relevant.tolist() == [0, 0, 1, 2, 2, 2, 2, 3, 3]
    assert c.searchable.tolist() == [0, 0, 1, 2, 2, 2, 2, 3, 4]
    assert c.on_topic.tolist() == [True, True, True, False, False, False, False, False, False]
    short = omniscient(g, "airfare", ["http://www.s.example/S"], 4)
    assert _names(g, short.nodes) == "SBEY" and short.relevant[-1] == 2
    assert g.totals("airfare") == {"pages": 10, "on_topic_pages": 3, "relevant_forms": 3,
                                   "searchable_forms": 4, "form_sites": 1}  # fmt: skip
    assert g.form_sites("airfare") == {"s.example"}


def test_distances_match_a_plain_bfs() -> None:
    rng = np.random.default_rng(3)
    n = 300
    rows = []
    for i in range(n):
        out = rng.choice(n, size=rng.integers(0, 4), replace=False)
        forms = ([{"site": "x", "signature": str(i), "searchable": True,
                   "relevant_domains": ["book"], "js_only": False}]
                 if rng.random() < 0.03 else [])  # fmt: skip
        rows.append(({"url": f"u{i}", "domains": [], "robots_allowed": rng.random() > 0.1},
                     [{"src_url": f"u{i}", "dst_url": f"u{j}"} for j in out], forms))  # fmt: skip
    g = TruthGraph.from_rows(rows)
    target = np.zeros(g.n, dtype=bool)
    target[g.occ_node] = True
    got = distances(g, target)
    # reference: BFS forward from every node
    adj = [g.indices[g.indptr[u] : g.indptr[u + 1]].tolist() for u in range(g.n)]
    for u in range(g.n):
        want = int(INF)
        if g.fetchable[u]:
            seen, q = {u}, deque([(u, 0)])
            while q:
                v, d = q.popleft()
                if target[v]:
                    want = d
                    break
                for w in adj[v]:
                    if w not in seen and g.fetchable[w]:
                        seen.add(w)
                        q.append((w, d + 1))
        assert got[u] == want, u


def test_save_and_load(tmp_path: Path) -> None:
    g = TruthGraph.from_rows(_web(), meta={"seed": 1})
    g.save(tmp_path / "g")
    h = TruthGraph.load(tmp_path / "g")
    assert h.urls == g.urls and h.meta == {"seed": 1}
    assert np.array_equal(h.indices, g.indices) and np.array_equal(h.occ_key, g.occ_key)
    assert h.keys[("s.example", "f1")] == g.keys[("s.example", "f1")]
    c1 = omniscient(g, "airfare", ["http://www.s.example/S"], 100)
    c2 = omniscient(h, "airfare", ["http://www.s.example/S"], 100)
    assert np.array_equal(c1.nodes, c2.nodes)
