"""The bazaar world: fetch, seeds, truth rows (see the package doc)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from classifiers.sites import site_of_host
from formhunter.exceptions import UsageError
from formhunter.simweb import SimResponse
from formhunter.urls import canonicalize
from formhunter.worlds.bazaar.lexicon import CITIES, paragraph
from formhunter.worlds.bazaar.model import DOMAINS, FormSpec, Link, Page, SitePlan, stable_int
from formhunter.worlds.bazaar.opac import KINDS, opac_host
from formhunter.worlds.bazaar.plan import DEFAULT_SITES, plan_sites
from formhunter.worlds.bazaar.render import not_found, render
from formhunter.worlds.bazaar.sitemodel import SiteModel
from formhunter.worlds.bazaar.vocab import DOMAIN, OFF, ui

Row = dict[str, Any]
_HTML = "text/html; charset=utf-8"
#: kinds of hub whose pages are seeds, in the order seeds are dealt
_SEED_KINDS = ("directory", "portal", "blog", "news", "forum")


class Bazaar:
    """A bazaar web of ``n_sites`` sites (default ``DEFAULT_SITES``) from ``seed``."""

    name = "bazaar"

    def __init__(self, seed: int, n_sites: int | None = None, *, slow_delay: float = 2.0) -> None:
        n = DEFAULT_SITES if n_sites is None else n_sites
        if n < 8:
            raise UsageError("the bazaar world needs at least 8 sites (one per domain)")
        self.seed = seed
        self.n_sites = n
        self.slow_delay = slow_delay
        self.plans = plan_sites(seed, n)
        self._models: dict[int, SiteModel] = {}
        self._landing: dict[int, list[Link]] = {}
        self._signatures: dict[tuple[str, str], tuple[str, str]] = {}

    # -- structure ------------------------------------------------------------------

    @cached_property
    def hosts(self) -> dict[str, tuple[SitePlan, str]]:
        """host -> (site plan, role): "main", "bare" (redirects to the main host) or "sub"."""
        out: dict[str, tuple[SitePlan, str]] = {}
        for p in self.plans:
            out[p.host] = (p, "main")
            if p.host != p.site:
                out[p.site] = (p, "bare")
            if "catalogue" in p.flags and p.topic in KINDS:
                out[opac_host(p.site, p.topic)] = (p, "sub")
        return out

    @cached_property
    def categories(self) -> dict[str, list[SitePlan]]:
        """Directory categories: each domain (its databases, portals and institutions with
        a database of it), each other subject, and the blogs, news sites and forums."""
        out: dict[str, list[SitePlan]] = {d: [] for d in DOMAINS}
        for p in self.plans:
            if p.kind in ("database", "portal"):
                out[p.domain].append(p)
            elif p.kind in ("shop", "institution"):
                out.setdefault(p.topic, []).append(p)
                if "catalogue" in p.flags and p.topic in KINDS:
                    out[KINDS[p.topic][0]].append(p)
            elif p.kind in ("blog", "news", "forum"):
                out.setdefault(p.kind, []).append(p)
        return out

    def model(self, plan: SitePlan) -> SiteModel:
        m = self._models.get(plan.idx)
        if m is None:
            if len(self._models) > 2000:
                self._models.clear()
            m = self._models[plan.idx] = SiteModel(self, plan)
        return m

    def landing(self, plan: SitePlan) -> list[Link]:
        """Where other sites link into ``plan``'s site (home first)."""
        out = self._landing.get(plan.idx)
        if out is None:
            out = list(self.model(plan).landing)
            if plan.host != plan.site and stable_int(self.seed, plan.idx, "bare") % 3 == 0:
                out[0] = (f"http://{plan.site}/", out[0][1])  # people drop the www (a 301)
            self._landing[plan.idx] = out
        return out

    def text(self, rng: random.Random, lang: str, subject: str, n: int, city: str = "") -> str:
        if subject in DOMAINS:
            nouns = [DOMAIN[f"{subject}.{k}"][lang] for k in ("noun", "noun2")]
        elif subject in OFF:
            nouns = [OFF[f"{subject}.noun"][lang], OFF[subject][lang]]
        else:
            nouns = [ui("news", lang), ui("links", lang), ui("services", lang)]
        return paragraph(rng, lang, nouns, city or rng.choice(CITIES[lang]), n)

    # -- serving --------------------------------------------------------------------

    def fetch(self, url: str) -> SimResponse:
        """What a GET of ``url`` returns (the proxy serves exactly this)."""
        canon = canonicalize(url)
        if canon is None:
            return SimResponse(400, {"Content-Type": "text/plain"}, b"bad request\n", url)
        parts = urlsplit(canon)
        host = (parts.hostname or "").lower()
        entry = self.hosts.get(host)
        if entry is None:
            return SimResponse(502, {"Content-Type": "text/plain"}, b"unknown host\n", url)
        plan, role = entry
        path = parts.path or "/"
        if path == "/robots.txt":
            body = self.model(plan).robots_txt.encode()
            return SimResponse(200, {"Content-Type": "text/plain; charset=utf-8"}, body, url)
        if role == "bare":
            loc = f"http://{plan.host}{path}" + (f"?{parts.query}" if parts.query else "")
            return SimResponse(301, {"Location": loc, "Content-Type": _HTML}, b"", url)
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        pg = self.model(plan).lookup(canon, path, params)
        if pg is None:
            return SimResponse(404, {"Content-Type": _HTML}, not_found(plan), url)
        headers = {"Content-Type": _HTML}
        if pg.redirect_to:
            headers["Location"] = pg.redirect_to
        return SimResponse(pg.status, headers, render(pg, self.seed), url, pg.delay)

    def seeds(self, domain: str, n: int = 20) -> list[str]:
        """Topical pages of ``domain`` on hubs: directory categories, portal and blog
        categories, articles, forum boards; dealt round-robin over hub kinds."""
        if domain not in DOMAINS:
            raise UsageError(f"unknown domain {domain!r} (known: {', '.join(DOMAINS)})")
        queues: dict[str, list[str]] = {k: [] for k in _SEED_KINDS}
        for p in self.plans:
            if p.kind in queues:
                m = self.model(p)
                for part in m.parts:
                    queues[p.kind].extend(u for u in part.seeds(domain) if m.allowed(u))
        out: list[str] = []
        i = 0
        while len(out) < n and any(i < len(q) for q in queues.values()):
            for k in _SEED_KINDS:
                if i < len(queues[k]) and len(out) < n:
                    out.append(queues[k][i])
            i += 1
        return out

    # -- truth ----------------------------------------------------------------------

    def pages(self) -> Iterator[Page]:
        """Every page of the truth, site by site (a site's bare host: one redirect)."""
        for plan in self.plans:
            m = self.model(plan)
            for key in m.keys():  # noqa: SIM118 - a SiteModel, not a dict
                yield m.page(key)
            if plan.host != plan.site:
                pg = Page(
                    f"http://{plan.site}/",
                    plan,
                    "redirect",
                    "Moved",
                    status=301,
                    redirect_to=f"http://{plan.host}/",
                )
                pg.robots_allowed = m.allowed(pg.url)
                yield pg
            self._models.pop(plan.idx, None)  # built again on demand; keeps memory flat

    def signature(self, page_url: str, form: FormSpec) -> tuple[str, str]:
        """(signature, action) of ``form`` as formhunter's own extractor sees it."""
        host = urlsplit(page_url).hostname or ""
        key = (host, form.html)
        got = self._signatures.get(key)
        if got is None:
            from formhunter.parse import parse_page

            doc = (
                f"<!DOCTYPE html><html><head><title>f</title></head><body>{form.html}</body></html>"
            )
            parsed = parse_page(page_url, doc.encode("utf-8"))
            if len(parsed.forms) != 1:
                raise ValueError(f"{page_url}: a form snippet gave {len(parsed.forms)} forms")
            f = parsed.forms[0]
            got = self._signatures[key] = (f.signature, f.action)
        return got

    def rows(self, pg: Page) -> tuple[Row, list[Row], list[Row]]:
        plan = pg.plan
        host = urlsplit(pg.url).hostname or ""
        site = site_of_host(host)
        forms: list[Row] = []
        for i, f in enumerate(pg.ordered_forms()):
            sig, action = self.signature(pg.url, f)
            forms.append(
                {
                    "page_url": pg.url,
                    "site": site,
                    "form_index": i,
                    "signature": sig,
                    "action": action,
                    "method": f.method,
                    "searchable": f.searchable,
                    "domain": f.domain,
                    "relevant_domains": [f.domain] if f.relevant else [],
                    "js_only": f.js_only,
                    "answers_queries": f.answers_queries,
                    "form_kind": f.kind,
                }
            )
        rel = sorted({d for r in forms for d in r["relevant_domains"]})
        page = {
            "url": pg.url,
            "site": site,
            "host": host,
            "site_kind": plan.kind,
            "site_domain": plan.domain,
            "page_kind": pg.kind,
            "domains": list(pg.domains),
            "on_topic": bool(pg.domains),
            "status": pg.status,
            "redirect_to": pg.redirect_to,
            "robots_allowed": pg.robots_allowed,
            "lang": plan.lang,
            "slow": pg.delay > 0,
            "relevant_domains": rel,
        }
        jsnav = "jsnav" in plan.flags or plan.archetype == "jsapp"
        links = [{"src_url": pg.url, "dst_url": u, "anchor": a, "js": jsnav} for u, a in pg.nav]
        links += [
            {"src_url": pg.url, "dst_url": u, "anchor": a, "js": False}
            for u, a in [*pg.links, *pg.footer]
        ]
        return page, links, forms

    def truth_rows(self) -> Iterator[tuple[Row, list[Row], list[Row]]]:
        for pg in self.pages():
            yield self.rows(pg)

    def source_hash(self) -> str:
        h = hashlib.sha256(b"bazaar-1")
        for p in sorted(Path(__file__).parent.glob("*.py")):
            h.update(p.name.encode())
            h.update(p.read_bytes())
        return h.hexdigest()[:12]

    def describe(self) -> str:
        return f"{self.n_sites} sites, seed {self.seed}"
