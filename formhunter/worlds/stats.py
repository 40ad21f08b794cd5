"""Counts of a world from its truth rows (``simweb stats``) and a plain export (``simweb truth``).

A *form* here is what the catalogue and the benchmark count: one distinct
(site, signature). It is *findable* when a crawler without a browser can see it
somewhere: on a page robots.txt allows, not written by a script.
"""

from __future__ import annotations

import json
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from formhunter.bench.oracle import DOMAINS
from formhunter.exceptions import UsageError
from formhunter.worlds import World

Row = dict[str, Any]


def world_stats(world: World) -> dict[str, Any]:
    """Pages, sites and forms of ``world`` (module doc); one pass over its truth."""
    t0 = time.perf_counter()
    pages = 0
    status: Counter[int] = Counter()
    kind_pages: Counter[str] = Counter()
    site_kind: dict[str, str] = {}
    site_lang: dict[str, str] = {}
    blocked = slow = 0
    on_topic: Counter[str] = Counter()
    forms: dict[tuple[str, str], Row] = {}
    findable: set[tuple[str, str]] = set()
    n_links = 0
    for page, links, frows in world.truth_rows():
        pages += 1
        status[int(page["status"])] += 1
        kind_pages[page["site_kind"]] += 1
        site_kind[page["site"]] = page["site_kind"]
        if page.get("lang"):
            site_lang[page["site"]] = page["lang"]
        blocked += not page["robots_allowed"]
        slow += bool(page.get("slow"))
        n_links += len(links)
        for d in page["domains"]:
            on_topic[d] += 1
        for f in frows:
            k = (f["site"], f["signature"])
            forms.setdefault(k, f)
            if page["robots_allowed"] and not f["js_only"]:
                findable.add(k)
    per_domain: dict[str, dict[str, int]] = {}
    for d in DOMAINS:
        rel = [k for k, f in forms.items() if d in f["relevant_domains"]]
        per_domain[d] = {
            "sites_with_relevant_form": len({k[0] for k in rel}),
            "relevant_forms": len(rel),
            "findable_relevant_forms": sum(k in findable for k in rel),
            "sites_with_findable_form": len({k[0] for k in rel if k in findable}),
            "js_only_relevant_forms": sum(bool(forms[k]["js_only"]) for k in rel),
            "answering_relevant_forms": sum(bool(forms[k].get("answers_queries")) for k in rel),
            "on_topic_pages": on_topic[d],
        }
    kinds: Counter[str] = Counter(
        f.get("form_kind") or ("search" if f["searchable"] else "other") for f in forms.values()
    )
    return {
        "world": world.name,
        "seed": world.seed,
        "n_sites": world.n_sites,
        "sites": len(site_kind),
        "pages": pages,
        "links": n_links,
        "status": {str(k): v for k, v in sorted(status.items())},
        "robots_disallowed_pages": blocked,
        "slow_pages": slow,
        "sites_by_kind": dict(sorted(Counter(site_kind.values()).items())),
        "pages_by_kind": dict(sorted(kind_pages.items())),
        "sites_by_language": dict(sorted(Counter(site_lang.values()).items())),
        "forms": len(forms),
        "forms_by_kind": dict(sorted(kinds.items())),
        "domains": per_domain,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def format_stats(st: dict[str, Any]) -> str:
    """``world_stats`` as text: a summary and a table per domain."""
    lines = [
        f"{st['world']} seed {st['seed']}: {st['sites']} sites, {st['pages']:,} pages, "
        f"{st['links']:,} links, {st['forms']:,} distinct forms ({st['seconds']}s)",
        f"status: {st['status']}; robots-disallowed pages: {st['robots_disallowed_pages']}; "
        f"slow pages: {st['slow_pages']}",
        f"sites by kind: {st['sites_by_kind']}",
        f"pages by kind: {st['pages_by_kind']}",
    ]
    if st["sites_by_language"]:
        lines.append(f"sites by language: {st['sites_by_language']}")
    lines.append(f"forms by kind: {st['forms_by_kind']}")
    cols = (
        "sites_with_relevant_form",
        "relevant_forms",
        "findable_relevant_forms",
        "sites_with_findable_form",
        "js_only_relevant_forms",
        "answering_relevant_forms",
        "on_topic_pages",
    )
    short = (
        "sites",
        "forms",
        "findable",
        "sites findable",
        "js-only",
        "answer GET",
        "on-topic pages",
    )
    lines += ["", "| domain | " + " | ".join(short) + " |", "|---" * (len(cols) + 1) + "|"]
    for d, row in st["domains"].items():
        lines.append(f"| {d} | " + " | ".join(f"{row[c]:,}" for c in cols) + " |")
    return "\n".join(lines)


def export_rows(
    rows: Iterable[tuple[Row, list[Row], list[Row]]], out: str | Path, fmt: str = "parquet"
) -> dict[str, int]:
    """Write pages, links and forms (``jsonl`` or ``parquet``) to ``out``; the counts."""
    if fmt not in ("jsonl", "parquet"):
        raise UsageError(f"--format must be jsonl or parquet, not {fmt!r}")
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    tables: dict[str, list[Row]] = defaultdict(list)
    for page, links, forms in rows:
        tables["pages"].append(page)
        tables["links"].extend(links)
        tables["forms"].extend(forms)
    counts = {}
    for name in ("pages", "links", "forms"):
        data = tables[name]
        counts[name] = len(data)
        if fmt == "jsonl":
            with open(d / f"{name}.jsonl", "w", encoding="utf-8") as fh:
                for r in data:
                    fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.Table.from_pylist(data), d / f"{name}.parquet")
    return counts
