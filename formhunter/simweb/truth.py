"""Ground truth of the simulated web: every page, link and form, with labels.

Rows are plain dicts built from the same ``PageSpec`` the HTML is rendered from.

pages(url, site, host, site_kind, site_domain, site_topic, page_kind, topic, domains,
      on_topic, status, content_type, redirect_to, robots_allowed, slow, infinite,
      n_links, n_forms, relevant_domains)
links(src_url, dst_url, anchor, external)             every http(s) <a href>, canonical
forms(page_url, site, form_index, signature, action, method, form_kind, searchable,
      domain, relevant_domains, js_only, n_fields, field_names, robots_allowed,
      backend, holds)

``domains`` are the ACHE domains a page is about; ``on_topic`` = bool(domains).
``relevant_domains`` of a form: the domains for which it is a relevant (searchable,
in-domain) form; a site-search box is searchable with no domain. URLs are canonical
(``canonical_url``). ``form_index`` counts static forms in document order, then
js-only forms. Calendar pages are listed for CALENDAR_WINDOW months around the base
month only (the calendar itself never ends). robots.txt answers are not pages.
``backend`` of a form: what its submissions get (``simweb.results``): ``database``
(results that depend on the query, from a database of ``holds``: a domain), ``site``
(a site search over the site's pages; ``holds`` the site's topic), ``static`` (the same
page whatever is asked) or "" (a POST form).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from formhunter.exceptions import UsageError
from formhunter.simweb import results
from formhunter.simweb.urls import site_of

if TYPE_CHECKING:
    from formhunter.simweb.spec import PageSpec
    from formhunter.simweb.webparts import WebParts

Row = dict[str, Any]


class Truth:
    """Iterates the ground truth of a SimWeb (regenerated on each call, not stored)."""

    def __init__(self, web: WebParts) -> None:
        self.web = web

    def specs(self) -> Iterator[PageSpec]:
        web = self.web
        for site in web.sites:
            for key in web.site_keys(site):
                host, _ = site.path_of(key)  # type: ignore[misc]
                yield web.build(site, key, host)
            if site.host.startswith("www."):
                yield web.build(site, ("bare",), -1, f"http://{site.name}/")

    def rows(self) -> Iterator[tuple[Row, list[Row], list[Row]]]:
        """(page row, link rows, form rows) per page, in one pass."""
        for spec in self.specs():
            yield page_row(spec), link_rows(spec), form_rows(spec)

    def pages(self) -> Iterator[Row]:
        for spec in self.specs():
            yield page_row(spec)

    def links(self) -> Iterator[Row]:
        for spec in self.specs():
            yield from link_rows(spec)

    def forms(self) -> Iterator[Row]:
        for spec in self.specs():
            yield from form_rows(spec)

    def export(
        self, out_dir: str | Path, fmt: str = "jsonl", batch: int = 50_000
    ) -> dict[str, int]:
        """Write pages/links/forms as ``.jsonl`` or ``.parquet`` files; returns row counts."""
        if fmt not in ("jsonl", "parquet"):
            raise UsageError(f"unknown format {fmt!r} (jsonl or parquet)")
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        names = ("pages", "links", "forms")
        counts = dict.fromkeys(names, 0)
        if fmt == "jsonl":
            files = {n: (out / f"{n}.jsonl").open("w", encoding="utf-8") for n in names}
            try:
                for p, ls, fs in self.rows():
                    for n, rows in (("pages", [p]), ("links", ls), ("forms", fs)):
                        fh = files[n]
                        for row in rows:
                            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                        counts[n] += len(rows)
            finally:
                for fh in files.values():
                    fh.close()
            return counts
        import pyarrow as pa
        import pyarrow.parquet as pq

        buffers: dict[str, list[Row]] = {n: [] for n in names}
        writers: dict[str, pq.ParquetWriter] = {}

        def flush(n: str) -> None:
            rows = buffers[n]
            if not rows:
                return
            table = pa.Table.from_pylist(rows, schema=SCHEMAS[n]())
            if n not in writers:
                writers[n] = pq.ParquetWriter(out / f"{n}.parquet", table.schema)
            writers[n].write_table(table)
            counts[n] += len(rows)
            buffers[n] = []

        try:
            for p, ls, fs in self.rows():
                buffers["pages"].append(p)
                buffers["links"] += ls
                buffers["forms"] += fs
                for n in names:
                    if len(buffers[n]) >= batch:
                        flush(n)
            for n in names:
                flush(n)
                if n not in writers:  # empty table: still write the file
                    pq.write_table(
                        pa.Table.from_pylist([], schema=SCHEMAS[n]()), out / f"{n}.parquet"
                    )
        finally:
            for w in writers.values():
                w.close()
        return counts


def page_row(spec: PageSpec) -> Row:
    site = spec.site
    host = spec.url.split("/", 3)[2]
    rel = sorted({d for f in spec.ordered_forms() for d in f.relevant_domains})
    return {
        "url": spec.url, "site": site.name, "host": host, "site_kind": site.kind,
        "site_domain": site.domain, "site_topic": site.topic, "page_kind": spec.kind,
        "topic": spec.topic, "domains": list(spec.domains), "on_topic": bool(spec.domains),
        "status": spec.status, "content_type": spec.content_type.split(";")[0],
        "redirect_to": spec.redirect_to, "robots_allowed": spec.robots_allowed,
        "slow": spec.delay > 0, "infinite": spec.infinite, "n_links": len(spec.links),
        "n_forms": len(spec.forms), "relevant_domains": rel,
    }  # fmt: skip


def link_rows(spec: PageSpec) -> list[Row]:
    src_site = spec.site.name
    return [
        {"src_url": spec.url, "dst_url": u, "anchor": a, "external": site_of(u) != src_site}
        for u, a in spec.links
    ]


def form_rows(spec: PageSpec) -> list[Row]:
    site = spec.site
    return [
        {
            "page_url": spec.url,
            "site": site.name,
            "form_index": i,
            "signature": f.signature,
            "action": f.action,
            "method": f.method,
            "form_kind": f.kind,
            "searchable": f.searchable,
            "domain": f.domain,
            "relevant_domains": list(f.relevant_domains),
            "js_only": f.js_only,
            "n_fields": len(f.fields),
            "field_names": [x.name for x in f.fields],
            "robots_allowed": spec.robots_allowed,
            "backend": results.backend(site, f),
            "holds": results.holds(site, f),
        }
        for i, f in enumerate(spec.ordered_forms())
    ]


def _schema_pages() -> Any:
    import pyarrow as pa

    s, b, i, ls = pa.string(), pa.bool_(), pa.int32(), pa.list_(pa.string())
    return pa.schema([
        ("url", s), ("site", s), ("host", s), ("site_kind", s), ("site_domain", s),
        ("site_topic", s), ("page_kind", s), ("topic", s), ("domains", ls), ("on_topic", b),
        ("status", i), ("content_type", s), ("redirect_to", s), ("robots_allowed", b),
        ("slow", b), ("infinite", b), ("n_links", i), ("n_forms", i), ("relevant_domains", ls),
    ])  # fmt: skip


def _schema_links() -> Any:
    import pyarrow as pa

    s = pa.string()
    return pa.schema([("src_url", s), ("dst_url", s), ("anchor", s), ("external", pa.bool_())])


def _schema_forms() -> Any:
    import pyarrow as pa

    s, b, i, ls = pa.string(), pa.bool_(), pa.int32(), pa.list_(pa.string())
    return pa.schema([
        ("page_url", s), ("site", s), ("form_index", i), ("signature", s), ("action", s),
        ("method", s), ("form_kind", s), ("searchable", b), ("domain", s),
        ("relevant_domains", ls), ("js_only", b), ("n_fields", i), ("field_names", ls),
        ("robots_allowed", b), ("backend", s), ("holds", s),
    ])  # fmt: skip


SCHEMAS = {"pages": _schema_pages, "links": _schema_links, "forms": _schema_forms}
