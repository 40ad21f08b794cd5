"""``formhunter bench probe``: probing judged against the simulated web's ground truth.

For each web and domain: a crawl with ``crawl --probe`` (relevant forms probed during
the crawl, through its fetcher), then ``formhunter probe --forms searchable`` for the
other searchable forms, every request through one logging proxy. Then, from the
catalogue, the truth (``simweb.results.backend``/``holds`` of each (site, signature))
and the proxy's request log:

* precision and recall of "answers queries" (truth: backend ``database`` or ``site``)
  over the forms that got at least one submission (the others, and why: a POST form,
  robots.txt, are counted apart); forms left ``unknown`` count as not answering;
* domain accuracy of generic keyword boxes (one free-text field, nothing else but
  hidden fields and buttons) with the critic's domain and with the probed one (a
  probed domain overrides the critic's), against two truths: the form's labelled
  domain ("other" for a site search, as relevance counts it) and its content (what
  the database or the searched site holds: a site search of a car magazine holds
  cars);
* submissions per form and per site;
* politeness from the proxy log: requests that are not GET, requests to paths the
  host's robots.txt disallows (probe submissions and crawl pages alike), and the
  shortest time between two requests to one host against the crawl's delay.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from formhunter.catalogue import Catalogue
from formhunter.config import Settings, load_settings
from formhunter.directory import OTHER_DOMAIN
from formhunter.simweb import SimWeb, running_proxy
from formhunter.simweb.results import backend, holds
from formhunter.simweb.sites import robots_allowed
from formhunter.simweb.vocab import DOMAINS

ANSWERING = frozenset({"database", "site"})


@dataclass
class TruthForm:
    """What the simulated web says about one (site, signature)."""

    kind: str
    backend: str
    holds: str
    domain: str  # the labelled domain, "other" for a searchable form of no domain

    @property
    def content_domain(self) -> str:
        """What the results are about: the domain the form's database (or the site it
        searches) holds, else the labelled domain (a static form shows no results)."""
        if self.backend in ANSWERING:
            return self.holds if self.holds in DOMAINS else OTHER_DOMAIN
        return self.domain


def truth_forms(web: SimWeb) -> dict[tuple[str, str], TruthForm]:
    """Every form of the web by (site, signature), with its backend and domain."""
    out = {}
    for site in web.sites:
        for f in site.forms:
            out[(site.name, f.signature)] = TruthForm(
                f.kind, backend(site, f), holds(site, f),
                f.domain or (OTHER_DOMAIN if f.searchable else "not-searchable"))
    return out


def bench_probe_settings(domain: str, pages: int, db: Path, proxy: str, min_delay: float,
                         max_per_form: int) -> Settings:  # fmt: skip
    """A crawl with probing through the proxy, polite at ``min_delay`` seconds per host."""
    return load_settings(None, {
        "crawl": {"domain": domain, "max_pages": pages, "db": str(db), "strategy": "ache",
                  "commit_every_seconds": 5.0},
        "fetch": {"proxy": proxy, "allow_private": True, "min_delay": min_delay,
                  "read_timeout": 5.0, "total_timeout": 10.0, "retries": 1,
                  "backoff_base": 0.2, "max_crawl_delay": 2.0},
        "probe": {"in_crawl": True, "max_per_form": max_per_form},
    })  # fmt: skip


def keyword_box(fields: Sequence[tuple[str, str]]) -> bool:
    """One free-text field and nothing else but hidden fields and buttons."""
    kinds = [t for _, t in fields if t not in ("hidden", "submit", "button", "image", "reset")]
    return len(kinds) == 1 and kinds[0] in ("text", "search")


def politeness(log: Sequence[dict[str, Any]], web: SimWeb, min_delay: float,
               probe_urls: set[str]) -> dict[str, Any]:  # fmt: skip
    """Politeness figures of a proxy log (module doc)."""
    not_get = sum(1 for r in log if r["method"] not in ("GET", "HEAD"))
    disallowed = disallowed_probes = 0
    times: dict[str, list[float]] = defaultdict(list)
    for r in log:
        host, path = r["host"], r["path"]
        times[host].append(float(r["time"]))
        site = web.site_for_host(host)
        if site is None or host not in site.hosts or path == "/robots.txt":
            continue
        plain = urlsplit(path).path
        if not robots_allowed(site, site.hosts.index(host), plain):
            disallowed += 1
            if f"http://{host}{path}" in probe_urls:
                disallowed_probes += 1
    gaps: list[tuple[float, float]] = []  # (gap, the host's delay)
    for host, ts in times.items():
        delay = max(min_delay, _crawl_delay(web, host))
        ts.sort()
        gaps += [(b - a, delay) for a, b in itertools.pairwise(ts)]
    too_fast = sum(1 for g, d in gaps if g < d - 0.01)
    return {"requests": len(log), "not_get": not_get, "disallowed": disallowed,
            "disallowed_probes": disallowed_probes, "hosts": len(times),
            "min_gap_s": round(min((g for g, _ in gaps), default=0.0), 3),
            "gaps_faster_than_delay": too_fast, "probe_requests": sum(
                1 for r in log if f"http://{r['host']}{r['path']}" in probe_urls)}  # fmt: skip


def _crawl_delay(web: SimWeb, host: str) -> float:
    """The Crawl-delay the host's own robots.txt asks for (0 when none)."""
    site = web.site_for_host(host)
    if site is None or host not in site.hosts:
        return 0.0
    text = site.robots.get(site.hosts.index(host)) or ""
    asked = [line.split(":", 1)[1] for line in text.splitlines()
             if line.lower().startswith("crawl-delay:")]  # fmt: skip
    return max((float(x) for x in asked), default=0.0)


@dataclass
class ProbeRun:
    """One web x domain: the probed forms joined with the truth, and the log's figures."""

    web: int
    domain: str
    forms: list[dict[str, Any]] = field(default_factory=list)
    per_site: dict[str, int] = field(default_factory=dict)
    polite: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


Truth = dict[tuple[str, str], TruthForm]


def judge_catalogue(cat: Catalogue, truth: Truth) -> list[dict[str, Any]]:
    """Each searchable form of the catalogue with its probe, critic verdict and truth."""
    rows = cat.con.execute(
        "SELECT f.form_id, f.site, f.signature, f.domain, f.relevant, p.verdict, p.domain,"
        " p.submissions, s.sent, p.note, p.results_estimate,"
        " list(ff.type ORDER BY ff.position)"
        " FROM forms f LEFT JOIN form_probes p USING (form_id)"
        " LEFT JOIN (SELECT form_id, count(*) FILTER (WHERE status > 0) AS sent FROM probes"
        "            GROUP BY form_id) s USING (form_id)"
        " LEFT JOIN form_fields ff USING (form_id) WHERE f.searchable"
        " GROUP BY ALL ORDER BY f.form_id").fetchall()  # fmt: skip
    out = []
    for fid, site, sig, critic, relevant, verdict, pdom, subs, sent, note, est, types in rows:
        t = truth.get((site, sig))
        out.append({
            "form_id": fid, "site": site, "critic_domain": critic or OTHER_DOMAIN,
            "relevant": bool(relevant), "verdict": verdict, "probe_domain": pdom,
            "submissions": subs, "sent": int(sent or 0), "note": note or "",
            "results_estimate": est,
            "keyword_box": keyword_box([("", x) for x in types or []]),
            "truth_kind": t.kind if t else None, "truth_backend": t.backend if t else None,
            "truth_holds": t.holds if t else None, "truth_domain": t.domain if t else None,
            "truth_content": t.content_domain if t else None,
        })  # fmt: skip
    return out


def run_one(web: SimWeb, domain: str, pages: int, min_delay: float, max_per_form: int,
            workdir: Path) -> ProbeRun:  # fmt: skip
    """Crawl one domain with ``--probe``, probe the other searchable forms, judge."""
    from formhunter.engine import Engine
    from formhunter.probing import CrawlProbing, probe_catalogue

    db = workdir / f"web{web.seed}-{domain}.duckdb"
    log_file = workdir / f"web{web.seed}-{domain}-proxy.jsonl"
    for p in (db, log_file):
        p.unlink(missing_ok=True)
    seeds = web.seeds(domain, 20)
    t0 = time.perf_counter()
    with running_proxy(web=web, log_file=str(log_file)) as proxy:
        settings = bench_probe_settings(domain, pages, db, proxy.url, min_delay, max_per_form)
        with Catalogue(db) as cat:
            engine = Engine(settings, cat, seeds=seeds)
            engine.accompany(CrawlProbing(settings))
            asyncio.run(engine.run())
            # the crawl's fetcher again: its politeness remembers the hosts just asked
            probe_catalogue(cat, settings, which="searchable", fetcher=engine.fetcher)
    seconds = time.perf_counter() - t0
    log = [json.loads(x) for x in log_file.read_text().splitlines() if x.strip()]
    run = ProbeRun(web.seed, domain, seconds=seconds)
    with Catalogue(db, read_only=True) as cat:
        run.forms = judge_catalogue(cat, truth_forms(web))
        probe_urls = {u for (u,) in cat.con.execute(
            "SELECT url FROM probes WHERE status > 0").fetchall()}  # fmt: skip
        run.per_site = {s: int(n) for s, n in cat.con.execute(
            "SELECT site, count(*) FROM probes WHERE status > 0 GROUP BY site").fetchall()}
    run.polite = politeness(log, web, min_delay, probe_urls)
    return run


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f} ({a}/{b})" if b else "n/a (0/0)"


def summarise(runs: Sequence[ProbeRun]) -> dict[str, Any]:
    """The figures of the module doc over all runs (and per web x domain)."""
    forms = [dict(f, web=r.web, domain=r.domain) for r in runs for f in r.forms]
    probed = [f for f in forms if f["sent"] and f["truth_backend"] is not None]
    not_probed = Counter(
        f"{f['truth_backend'] or 'post'}: "
        f"{'robots.txt' if 'robots' in f['note'] else f['note'] or 'not probed'}"
        for f in forms if not f["sent"] and f["truth_backend"] is not None)
    tp = sum(1 for f in probed if f["verdict"] == "answers" and f["truth_backend"] in ANSWERING)
    pred = sum(1 for f in probed if f["verdict"] == "answers")
    pos = sum(1 for f in probed if f["truth_backend"] in ANSWERING)
    verdicts = Counter((f["verdict"], f["truth_backend"]) for f in probed)
    boxes = [f for f in forms if f["keyword_box"] and f["truth_domain"] is not None]

    def domain_with(f: dict[str, Any]) -> str:
        if f["verdict"] == "answers" and f["probe_domain"]:
            return str(f["probe_domain"])
        return str(f["critic_domain"])

    def accuracy(sub: list[dict[str, Any]], truth: str) -> dict[str, str]:
        return {"without": _ratio(sum(f["critic_domain"] == f[truth] for f in sub), len(sub)),
                "with": _ratio(sum(domain_with(f) == f[truth] for f in sub), len(sub))}

    by_kind: dict[str, dict[str, dict[str, str]]] = {}
    for kind in sorted({str(f["truth_kind"]) for f in boxes}):
        sub = [f for f in boxes if f["truth_kind"] == kind]
        by_kind[kind] = {"label": accuracy(sub, "truth_domain"),
                         "content": accuracy(sub, "truth_content")}
    subs = [int(f["sent"]) for f in probed]
    site_counts = [n for r in runs for n in r.per_site.values()]
    polite: dict[str, float] = {k: sum(int(r.polite.get(k, 0)) for r in runs)
              for k in ("requests", "probe_requests", "not_get", "disallowed",
                        "disallowed_probes", "gaps_faster_than_delay")}  # fmt: skip
    polite["min_gap_s"] = min((float(r.polite["min_gap_s"]) for r in runs), default=0.0)
    return {
        "runs": [f"web {r.web} {r.domain}: {len(r.forms)} searchable forms, "
                 f"{sum(1 for f in r.forms if f['verdict'])} probed, {r.seconds:.0f}s"
                 for r in runs],
        "answers_precision": _ratio(tp, pred), "answers_recall": _ratio(tp, pos),
        "verdict_by_truth": {f"{v} / {b}": n for (v, b), n in sorted(verdicts.items())},
        "searchable_not_probed_by_truth": dict(sorted(not_probed.items())),
        "keyword_boxes": len(boxes),
        "keyword_box_domain_accuracy_vs_label": accuracy(boxes, "truth_domain"),
        "keyword_box_domain_accuracy_vs_content": accuracy(boxes, "truth_content"),
        "keyword_box_by_kind": by_kind,
        "submissions_per_form": {
            "forms": len(subs), "mean": round(statistics.mean(subs), 2) if subs else 0,
            "median": statistics.median(subs) if subs else 0, "max": max(subs, default=0)},
        "submissions_per_site": {
            "sites": len(site_counts),
            "mean": round(statistics.mean(site_counts), 2) if site_counts else 0,
            "max": max(site_counts, default=0)},
        "politeness": polite,
    }  # fmt: skip


def bench_probe(webs: Sequence[int], domains: Sequence[str], pages: int, sites: int,
                min_delay: float, max_per_form: int,
                out: Path | None) -> dict[str, Any]:  # fmt: skip
    """Run every web x domain and summarise; the runs' rows go to ``out`` if given."""
    runs: list[ProbeRun] = []
    with tempfile.TemporaryDirectory(prefix="bench-probe-") as tmp:
        work = out if out is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for w in webs:
            web = SimWeb(seed=w, n_sites=sites)
            for d in domains:
                run = run_one(web, d, pages, min_delay, max_per_form, work)
                runs.append(run)
                print(f"web {w} {d}: {len(run.forms)} searchable forms, "
                      f"{sum(1 for f in run.forms if f['verdict'])} probed, "
                      f"{run.seconds:.0f}s", flush=True)  # fmt: skip
        summary = summarise(runs)
        if out is not None:
            rows = [dict(f, web=r.web, domain=r.domain) for r in runs for f in r.forms]
            (out / "forms.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
            (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary
