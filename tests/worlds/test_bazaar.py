"""The bazaar world: determinism, truth against what is served, forms, seeds, the proxy."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from engine_helpers import crawl_once, loopback_settings

from formhunter.bench.oracle import DOMAINS, TruthGraph, load_or_build, omniscient
from formhunter.parse import parse_page
from formhunter.simweb.server import ProxyHandle, running_proxy
from formhunter.urls import canonicalize
from formhunter.worlds import World, open_world
from formhunter.worlds.bazaar import Bazaar
from formhunter.worlds.bazaar.plan import plan_sites

SEED, SITES = 5, 40
Rows = list[tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]]


@pytest.fixture(scope="module")
def world() -> Bazaar:
    return Bazaar(SEED, SITES)


@pytest.fixture(scope="module")
def rows(world: Bazaar) -> Rows:
    return list(world.truth_rows())


_DIGEST = """
import hashlib, json, sys
from formhunter.worlds.bazaar import Bazaar

def digest(seed, n, urls):
    w = Bazaar(seed, n)
    h = hashlib.sha256()
    for u in urls:
        r = w.fetch(u)
        h.update(f"{r.status} {sorted(r.headers.items())} {r.delay}".encode())
        h.update(r.body)
    return h.hexdigest()
"""


def _digest(seed: int, urls: list[str]) -> str:
    scope: dict[str, Any] = {}
    exec(_DIGEST, scope)
    return str(scope["digest"](seed, SITES, urls))


def test_same_seed_same_bytes_in_another_process(rows: Rows) -> None:
    import json

    urls = [p["url"] for p, _, _ in rows[:: max(1, len(rows) // 300)]]
    here = _digest(SEED, urls)
    code = _DIGEST + f"\nprint(digest({SEED}, {SITES}, json.loads(sys.stdin.read())))"
    out = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(urls), capture_output=True, text=True,
        check=True, cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert out.stdout.strip() == here
    assert _digest(SEED + 1, urls[:20]) != _digest(SEED, urls[:20])  # another web


def test_size_and_kinds(rows: Rows) -> None:
    urls = [p["url"] for p, _, _ in rows]
    assert len(urls) == len(set(urls)), "a URL twice in the truth"
    assert len(urls) > 5_000  # 40 sites; the default 500 give > 100,000 (slow test)
    assert all(canonicalize(u) == u for u in urls[:: 7])
    kinds = {p["site_kind"] for p, _, _ in rows}
    assert {"database", "directory", "portal", "blog", "forum", "shop", "institution"} <= kinds
    status = {p["status"] for p, _, _ in rows}
    assert {200, 301, 404} <= status
    assert any(not p["robots_allowed"] for p, _, _ in rows)
    assert any(p["slow"] for p, _, _ in rows)
    assert len({p["lang"] for p, _, _ in rows}) >= 6


def test_links_are_served_with_the_truths_status(world: Bazaar, rows: Rows) -> None:
    status = {p["url"]: (p["status"], p["redirect_to"]) for p, _, _ in rows}
    rng = random.Random(0)
    targets = {lk["dst_url"] for _, links, _ in rng.sample(rows, 400) for lk in links}
    checked = 0
    for url in sorted(targets):
        if url not in status:
            continue  # beyond the truth: calendar months, deeper result pages, robots-blocked
        r = world.fetch(url)
        want, to = status[url]
        assert r.status == want, url
        if to:
            assert r.headers["Location"] == to
        checked += 1
    assert checked > 1000


def test_served_pages_hold_the_truths_forms_and_links(world: Bazaar, rows: Rows) -> None:
    rng = random.Random(1)
    for page, links, forms in rng.sample(rows, 600):
        r = world.fetch(page["url"])
        assert r.status == page["status"]
        if r.status != 200:
            continue
        parsed = parse_page(page["url"], r.body)
        want = sorted(f["signature"] for f in forms if not f["js_only"])
        assert sorted(f.signature for f in parsed.forms) == want, page["url"]
        static = {lk["dst_url"] for lk in links if not lk["js"]}
        assert static <= {lk.url for lk in parsed.links}, page["url"]
        assert 1_000 < len(r.body) < 200_000


def test_js_only_forms_and_menus(world: Bazaar, rows: Rows) -> None:
    js_forms = [(p, f) for p, _, fs in rows for f in fs if f["js_only"]]
    js_links = [lk for _, links, _ in rows for lk in links if lk["js"]]
    assert js_links
    for page, f in js_forms[:20]:
        body = world.fetch(page["url"]).body
        assert f["signature"] not in {x.signature for x in parse_page(page["url"], body).forms}
        assert b"innerHTML=" in body


def test_every_database_site_holds_a_relevant_form(rows: Rows) -> None:
    kind = {p["site"]: (p["site_kind"], p["site_domain"]) for p, _, _ in rows}
    holders: dict[str, set[str]] = defaultdict(set)
    for _, _, forms in rows:
        for f in forms:
            for d in f["relevant_domains"]:
                holders[d].add(f["site"])
                assert f["searchable"]
    for site, (k, d) in kind.items():
        if k == "database":
            assert site in holders[d], site
    assert set(holders) == set(DOMAINS)
    # the default web: at least 15 database sites per domain
    plans = plan_sites(SEED, 500)
    for d in DOMAINS:
        assert sum(p.kind == "database" and p.domain == d for p in plans) >= 15


def test_form_kinds_and_answers(world: Bazaar, rows: Rows) -> None:
    forms = {(f["site"], f["signature"]): (p["url"], f) for p, _, fs in rows for f in fs}
    kinds = {f["form_kind"] for _, f in forms.values()}
    assert {"search", "site-search", "login", "contact", "near-miss"} <= kinds
    for _, f in forms.values():
        if f["form_kind"] in ("login", "contact", "newsletter", "near-miss", "comment"):
            assert not f["searchable"] and not f["relevant_domains"]
        if f["form_kind"] == "site-search":
            assert f["searchable"] and not f["relevant_domains"]
    # a database search answers: results depend on the query, nonsense finds nothing
    page_url, f = next((u, f) for u, f in forms.values()
                       if f["answers_queries"] and f["relevant_domains"])  # fmt: skip
    parsed = parse_page(page_url, world.fetch(page_url).body)
    form = next(x for x in parsed.forms if x.signature == f["signature"])
    name = next(x.name for x in form.fields if x.type in ("text", "search", ""))
    nonsense = world.fetch(f"{form.action}?{name}=zzqxv").body
    other = world.fetch(f"{form.action}?{name}=a").body
    assert nonsense != other


def test_seeds_for_every_domain(world: Bazaar, rows: Rows) -> None:
    by_url = {p["url"]: (p, fs) for p, _, fs in rows}
    for d in DOMAINS:
        seeds = world.seeds(d, 10)
        assert seeds, d
        assert seeds == Bazaar(SEED, SITES).seeds(d, 10)
        for s in seeds:
            page, forms = by_url[s]
            assert page["robots_allowed"] and page["status"] == 200
            assert not any(f["relevant_domains"] for f in forms), f"{s} holds a form"


def test_oracle_reaches_the_forms(world: Bazaar, rows: Rows, tmp_path: Path) -> None:
    graph = TruthGraph.from_rows(iter(rows))
    found = 0
    for d in ("hotel", "book"):
        curve = omniscient(graph, d, world.seeds(d, 10), 500)
        found += int(curve.relevant[-1])
    assert found >= 4
    cached = load_or_build(world, tmp_path)
    assert cached.n == graph.n
    assert any(p.name.startswith(f"bazaar-{SEED}-{SITES}-") for p in tmp_path.iterdir())


def test_registry() -> None:
    from formhunter.exceptions import UsageError

    with pytest.raises(UsageError, match="simweb, bazaar"):
        open_world("nope", 1)
    w = open_world("simweb", 3, 20)
    assert isinstance(w, World) and w.name == "simweb" and w.seeds("hotel", 3)
    assert w.fetch(w.seeds("hotel", 1)[0]).status == 200
    b = open_world("bazaar", 3, 20)
    assert isinstance(b, World) and b.n_sites == 20 and len(b.source_hash()) == 12
    with pytest.raises(UsageError):
        open_world("bazaar", 3, 20, page_kb=50)


@pytest.fixture(scope="module")
def proxy() -> Iterator[ProxyHandle]:
    with running_proxy(web=Bazaar(SEED, SITES, slow_delay=0.2)) as px:
        yield px


def test_crawl_through_the_proxy_finds_forms_and_obeys_robots(
    proxy: ProxyHandle, rows: Rows, tmp_path: Path
) -> None:
    seeds = proxy.web.seeds("hotel", 5)
    test = {"crawl": {"domain": "hotel", "strategy": "bfs", "max_pages": 300}}
    result, cat = crawl_once(loopback_settings(proxy, tmp_path / "c.duckdb", test), seeds)
    fetched = [u for (u,) in cat.con.execute("SELECT url FROM pages").fetchall()]
    forms = cat.con.execute("SELECT site, signature FROM forms").fetchall()
    cat.close()
    assert result.stats.pages >= 250 and forms
    truth_forms = {(f["site"], f["signature"]) for _, _, fs in rows for f in fs}
    assert sum(tuple(f) in truth_forms for f in forms) >= 0.9 * len(forms)
    blocked = {p["url"] for p, _, _ in rows if not p["robots_allowed"]}
    assert not blocked & set(fetched)
    hosts = {r["host"] for r in proxy.log}
    assert all(any(r["host"] == h and r["path"] == "/robots.txt" for r in proxy.log) for h in hosts)


def test_serve_command_in_a_child_process() -> None:
    import urllib.request

    from formhunter.simweb.server import proxy_process

    w = Bazaar(SEED, 12)
    host = w.plans[0].host
    with proxy_process(SEED, 12, 0.1, world="bazaar") as url:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": url}))
        with opener.open(f"http://{host}/robots.txt", timeout=30) as r:
            assert r.read() == w.fetch(f"http://{host}/robots.txt").body
        with opener.open(f"http://{host}/", timeout=30) as r:
            assert r.status == 200 and r.read() == w.fetch(f"http://{host}/").body


@pytest.mark.slow
def test_default_size_world() -> None:
    from formhunter.worlds.stats import world_stats

    st = world_stats(open_world("bazaar", 2))
    assert 400 <= st["sites"] <= 600 and st["pages"] >= 100_000
    for d in DOMAINS:
        assert st["domains"][d]["sites_with_relevant_form"] >= 15, d
        assert st["domains"][d]["sites_with_findable_form"] >= 15, d
