"""Probing for real: the simulated web's proxy on loopback, a DuckDB catalogue, the
crawl's fetcher. Every submission recorded, verdicts right, GET only, robots.txt on
the action URL, per-host politeness, caps per form and per site, the export's probe."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest

from formhunter.catalogue import Catalogue
from formhunter.cli import main
from formhunter.config import ProbeSettings, load_settings
from formhunter.fetch import Fetcher
from formhunter.model import Verdict
from formhunter.parse import parse_page
from formhunter.probing import domain_reader, load_forms
from formhunter.probing.plan import ProbeForm, read_inputs, refusal
from formhunter.probing.prober import Prober
from formhunter.simweb import ProxyHandle, SimWeb
from formhunter.simweb.results import backend
from formhunter.simweb.sites import robots_allowed

DELAY = 0.2


def _assert_spaced(log: list[dict[str, Any]], delay: float) -> None:
    """No host of the proxy's log was asked twice within ``delay`` seconds."""
    by_host: dict[str, list[float]] = {}
    for r in log:
        by_host.setdefault(r["host"], []).append(r["time"])
    for times in by_host.values():
        times.sort()
        assert all(b - a >= delay - 0.01 for a, b in itertools.pairwise(times))


def _page_of(site: Any, index: int) -> str:
    """A page of the site showing its form ``index``."""
    for place, forms in site.placements.items():
        if index in forms:
            if place.startswith("chain:"):
                return str(site.url_of(("form", int(place[6:]))))
            if place in ("home", "header", "footer"):
                return str(site.home)
            if place == "sidebar":
                return str(site.url_of(("sec", 0, 1)))
    raise AssertionError("form not placed")


def _pick(web: SimWeb) -> dict[str, tuple[Any, Any]]:
    """One form of each case: answering (a keyword box and a form with selects),
    static, POST, and one whose action robots.txt disallows."""
    want: dict[str, tuple[Any, Any]] = {}
    for site in web.sites:
        for i, f in enumerate(site.forms):
            if f.js_only or not f.searchable:
                continue
            h = site.hosts.index(f.action.split("/")[2])
            allowed = robots_allowed(site, h, "/" + f.action.split("/", 3)[3].split("?")[0])
            b = backend(site, f)
            case = ("robots" if f.method == "GET" and not allowed else
                    "post" if f.method == "POST" else
                    "box" if b == "database" and len(f.fields) == 1 else
                    "selects" if b == "database" and any(x.kind == "select" for x in f.fields)
                    else "static" if b == "static" and allowed else "")  # fmt: skip
            if case and case not in want:
                want[case] = (site, i)
    return want


def _catalogue(web: SimWeb, db: Path) -> dict[str, int]:
    """A catalogue holding the picked forms as a crawl would record them."""
    ids = {}
    with Catalogue(db) as cat:
        run = cat.new_run(domain="auto", strategy="bfs", max_pages=1, config={}, seeds=[])
        for case, (site, i) in _pick(web).items():
            spec = site.forms[i]
            url = _page_of(site, i)
            resp = web.fetch(url)
            page = parse_page(url, resp.body)
            form = next(f for f in page.forms if f.signature == spec.signature)
            # the critic's guess: right for some, "other" for the keyword box
            dom = "other" if case == "box" else (spec.domain or "other")
            fid = cat.add_form(run, 1, page, form, Verdict(True, 0.9, dom, 0.8, True),
                               found_after_pages=1, path=[(url, "")])  # fmt: skip
            assert fid is not None
            ids[case] = fid
        cat.commit()
    return ids


def test_probe_command_records_judges_and_exports(
    simweb_small: SimWeb, simweb_proxy: ProxyHandle, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    db = tmp_path / "c.duckdb"
    ids = _catalogue(simweb_small, db)
    assert set(ids) == {"box", "selects", "static", "post", "robots"}
    cfg = tmp_path / "p.toml"
    cfg.write_text('[probe]\npage_classifier = "keywords"\nmin_domain_score = 0.3\n')
    since = time.time()
    assert main(["probe", "--db", str(db), "--proxy", simweb_proxy.url, "--allow-private",
                 "--min-delay", str(DELAY), "--max-per-form", "5", "--config", str(cfg),
                 "--forms", "searchable"]) == 0  # fmt: skip
    assert "5 forms probed" in capsys.readouterr().out
    with Catalogue(db, read_only=True) as cat:
        verdicts = {fid: (v, n, note) for fid, v, n, note in cat.con.execute(
            "SELECT form_id, verdict, submissions, note FROM form_probes").fetchall()}
        rows = cat.con.execute("SELECT form_id, url, status, error FROM probes").fetchall()
    assert verdicts[ids["box"]][0] == "answers" and verdicts[ids["selects"]][0] == "answers"
    assert verdicts[ids["static"]][0] == "static"
    assert verdicts[ids["post"]] == ("unknown", 0, "not probed: method POST")
    assert verdicts[ids["robots"]][0] == "unknown" and "robots" in verdicts[ids["robots"]][2]
    per_form: dict[int, int] = {}
    for fid, _, _, _ in rows:
        per_form[fid] = per_form.get(fid, 0) + 1
    assert max(per_form.values()) <= 5
    assert all(per_form.get(fid, 0) == n for fid, (_, n, _) in verdicts.items())
    # the request log: only GET; nothing under the disallowed action; hosts spaced
    log = [r for r in simweb_proxy.log if r["time"] >= since]
    probe_urls = {u for _, u, s, _ in rows if s}
    sent = [r for r in log if f"http://{r['host']}{r['path']}" in probe_urls]
    assert len(sent) == len(probe_urls) and all(r["method"] == "GET" for r in log)
    robots_site, i = _pick(simweb_small)["robots"]
    action_path = robots_site.forms[i].action.split("/", 3)[3].split("?")[0]
    assert not any(r["path"].lstrip("/").startswith(action_path) for r in log)
    _assert_spaced(log, DELAY)
    # the export: a probe object per form (null for none), the probed domain says so
    out = tmp_path / "f.json"
    assert main(["forms", "--db", str(db), "--format", "json", "--out", str(out)]) == 0
    forms = {f["form_id"]: f for f in json.loads(out.read_text())}
    box = forms[ids["box"]]
    assert box["probe"]["verdict"] == "answers" and box["probe"]["submissions"] >= 3
    assert box["probe"]["results_estimate"] and box["critic_domain"] == "other"
    assert box["domain_source"] == "probe" and box["domain"] == box["probe"]["domain"] != "other"
    assert forms[ids["static"]]["domain_source"] == "critic"
    _web_page_shows_the_probe(db, ids["box"], box["probe"]["domain"])
    # probed forms are skipped next time unless --again
    assert main(["probe", "--db", str(db), "--proxy", simweb_proxy.url, "--allow-private",
                 "--forms", "searchable", "--config", str(cfg)]) == 0  # fmt: skip
    assert "0 forms probed" in capsys.readouterr().out


def test_caps_per_form_and_per_site(simweb_small: SimWeb, simweb_proxy: ProxyHandle,
                                    tmp_path: Path) -> None:  # fmt: skip
    db = tmp_path / "c.duckdb"
    _catalogue(simweb_small, db)
    with Catalogue(db, read_only=True) as cat:
        form = next(f for f in load_forms(cat, which="searchable") if not refusal(f))
    settings = load_settings(None, {"fetch": {"proxy": simweb_proxy.url, "allow_private": True,
                                              "min_delay": 0.05},
                                    "probe": {"page_classifier": "keywords"}})  # fmt: skip
    twin = ProbeForm(form.form_id + 1, form.site, form.signature + "x", form.action, "GET",
                     True, form.domain, form.html, inputs=read_inputs(form.html))  # fmt: skip

    async def run(cap: ProbeSettings) -> tuple[list[int], int]:
        async with Fetcher(settings.fetch) as fetcher:
            prober = Prober(fetcher, cap, domain_reader(settings))
            a = await prober.probe(form, ["word", "other", "third"])
            b = await prober.probe(twin, ["word", "other", "third"])
            return [len(a.answers), len(b.answers)], prober.site_spent[form.site]

    counts, spent = asyncio.run(run(ProbeSettings(max_per_form=2, max_per_site=100)))
    assert counts == [2, 2] and spent == 4
    counts, spent = asyncio.run(run(ProbeSettings(max_per_form=6, max_per_site=3)))
    assert sum(counts) == 3 and spent == 3 and counts[1] == 0


def test_crawl_with_probe_probes_relevant_forms_within_its_politeness(
    simweb_small: SimWeb, simweb_proxy: ProxyHandle, tmp_path: Path,
) -> None:  # fmt: skip
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("\n".join(simweb_small.seeds("hotel", 10)))
    db = tmp_path / "c.duckdb"
    since = time.time()
    assert main(["crawl", "--domain", "hotel", "--seeds", str(seeds), "--db", str(db),
                 "--max-pages", "80", "--proxy", simweb_proxy.url, "--allow-private",
                 "--min-delay", str(DELAY), "--probe", "--quiet"]) == 0  # fmt: skip
    with Catalogue(db, read_only=True) as cat:
        relevant = {r[0] for r in cat.con.execute(
            "SELECT form_id FROM forms WHERE relevant").fetchall()}  # fmt: skip
        probed = dict(cat.con.execute("SELECT form_id, verdict FROM form_probes").fetchall())
        urls = {r[0] for r in cat.con.execute("SELECT url FROM probes WHERE status > 0").fetchall()}
    assert relevant and set(probed) == relevant and "answers" in probed.values()
    log = [r for r in simweb_proxy.log if r["time"] >= since]
    assert urls <= {f"http://{r['host']}{r['path']}" for r in log}
    _assert_spaced(log, DELAY)


def _web_page_shows_the_probe(db: Path, form_id: int, domain: str) -> None:
    from aiohttp.test_utils import TestClient, TestServer

    from formhunter.web import FileStore, WebSettings, make_app

    async def go() -> None:
        app = make_app(WebSettings(store=FileStore(db), token="t"))
        async with TestClient(TestServer(app)) as c:
            data = await (await c.get(f"/api/forms/{form_id}")).json()
            assert data["probe"]["verdict"] == "answers" and data["probe"]["domain"] == domain
            assert [x["n"] for x in data["submissions"]] == list(
                range(1, data["probe"]["submissions"] + 1))
            assert data["submissions"][0]["kind"] == "control"
            html = await (await c.get(f"/forms/{form_id}")).text()
            assert "answers queries" in html and "overrides" in html
            assert 'id="submissions"' in html

    asyncio.run(asyncio.wait_for(go(), 60))


def test_private_addresses_are_refused_without_a_request() -> None:
    html = '<form action="http://127.0.0.1:9/find"><input name="q"></form>'
    form = ProbeForm(1, "127.0.0.1", "s", "http://127.0.0.1:9/find", "GET", True, "book",
                     html, inputs=read_inputs(html))  # fmt: skip
    settings = load_settings(None, {"probe": {"page_classifier": "keywords"}})

    async def run() -> Any:
        async with Fetcher(settings.fetch) as fetcher:
            prober = Prober(fetcher, settings.probe, domain_reader(settings))
            return await prober.probe(form, ["word"]), fetcher.stats.requests

    result, requests = asyncio.run(run())
    assert [a.error for a in result.answers] == ["forbidden-address"]
    assert requests == 0 and result.verdict == "unknown" and "forbidden" in result.note
