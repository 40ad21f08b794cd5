"""The simulated web: ``SimWeb`` builds site plans from a seed and produces pages on request.

Sites (``Site.kind``)
    database  a site of one ACHE domain with a searchable database (airline, car dealer,
              bookstore, hotel, job board, film database, record store, car rental)
    topical   a magazine/review/fan site about a domain, no database
    portal    a travel portal: airfare, hotel and car-rental forms side by side
    library   a library: www host + catalogue host whose search counts as book
    offtopic  news, sport, health, software, recipes, government, shopping, forums, ...
    directory a web directory: categories per domain and topic, site reviews
    hub       a links page that links everywhere (through /go/N redirects)
    blog      a blog about a domain or an off-topic subject, linking to other sites

Pages (``PageSpec.kind``): home, section (listing page n), item (detail/article), static
(about, contact, login, ...), hop (a page on the way to a search form), form (a page with
a search form), calendar, missing (404), error (500), doc (PDF/JPEG), redirect, huge.

Hostile parts (``SimWeb.hostile()`` gives example URLs of each)
    robots       every host serves /robots.txt: most disallow some paths (/cgi-bin/,
                 /private/, carts, calendars, even a search page), some answer 404, a
                 few ask ``Crawl-delay: 1``; truth has ``robots_allowed`` per page.
    redirects    bare hosts (foo.example) 301 to www.foo.example; old home URLs
                 (/index.html ...) 301 to /; hubs link through /go/N (302 to another
                 site); /r/1 -> /r/2 -> /r/3 -> / is a redirect chain; /loop/a <-> /loop/b
                 is a redirect loop.
    errors       linked URLs that answer 404 (kind missing) or 500 (kind error).
    slow         a few pages answer after ``slow_delay`` seconds (SimResponse.delay;
                 the proxy sleeps, fetch() does not).
    malformed    some sites write unquoted attributes, unclosed <p>/<li>/<td>/<option>,
                 mis-nested <b><i>, stray '<' and no </body></html>; lxml still recovers
                 the same links and forms.
    non-HTML     PDF (application/pdf) and JPEG (image/jpeg) documents linked from pages.
    calendar     an events calendar whose "next month" link never ends (years up to 9999);
                 truth lists only CALENDAR_WINDOW months around January 2024.
    sessions     some sites add ;jsessionid=... or sid=... to every internal link, so one
                 page has many URLs; canonical_url() removes them. The id is kept from the
                 request URL, or derived from the page when the request had none.
    huge         one page of several MB (``huge_bytes``, default 5,000,000).
    weight       off by default: ``page_kb=N`` pads every 200 HTML page (not the huge
                 one) to about N KB with boilerplate markup (``formhunter.simweb.weight``:
                 style, inline scripts, sprites, consent banner); same links, forms, truth.
    queries      a GET request submitting one of a site's GET forms (its action's path
                 with a query string) gets a result page that depends on the query, or,
                 for forms that front nothing, the same page whatever is asked
                 (``formhunter.simweb.results``; truth: ``backend``, ``holds``).
    js_only      some search forms exist only after a <script> builds them with
                 document.createElement into an empty container (<div id="search-app">);
                 truth marks them js_only and gives them form_index after the static forms.

Truth rows (``formhunter.simweb.truth``) are built from the same ``PageSpec`` the HTML
is rendered from, so served pages and truth always agree.
"""

from __future__ import annotations

import random
from urllib.parse import quote, urlsplit

from formhunter.exceptions import UsageError
from formhunter.simweb import pages, templates
from formhunter.simweb import vocab as vc
from formhunter.simweb.sites import (
    Key,
    Section,
    Site,
    _Names,
    allocate_kinds,
    build_site,
    item_title,
    robots_allowed,
    stable_int,
)
from formhunter.simweb.spec import (
    CALENDAR_BASE,
    CALENDAR_WINDOW,
    PageSpec,
    SimResponse,
)
from formhunter.simweb.transport import SimTransport
from formhunter.simweb.truth import Truth
from formhunter.simweb.urls import canonical_url
from formhunter.simweb.weight import Padder, check_page_kb


class SimWeb:
    """A deterministic simulated web (see module docstring).

    ``SimWeb(seed, n_sites)`` builds only the site plans (fast, small); pages are
    generated on request by ``fetch``/``page``. Same seed and size: same bytes.
    ``page_kb`` (0 = off, at most ``PAGE_KB_MAX``) pads HTML pages to about that many
    KB without changing their links, forms or truth (``formhunter.simweb.weight``).
    """

    def __init__(
        self,
        seed: int = 7,
        n_sites: int = 500,
        slow_delay: float = 2.0,
        huge_bytes: int = 5_000_000,
        page_kb: int = 0,
    ) -> None:
        if n_sites < 1:
            raise UsageError("n_sites must be >= 1")
        self.seed = seed
        self.n_sites = n_sites
        self.slow_delay = slow_delay
        self.huge_bytes = huge_bytes
        self.page_kb = check_page_kb(page_kb)
        self.padder: Padder | None = Padder(seed, page_kb) if page_kb else None
        rng = random.Random(stable_int("web", seed, n_sites))
        names = _Names()
        self.sites: list[Site] = [
            build_site(i, kind, subject, seed, names)
            for i, (kind, subject) in enumerate(allocate_kinds(n_sites, rng))
        ]
        self._dir_members: dict[tuple[int, str], list[int]] = {}
        self._frames: dict[int, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {}
        # form submissions (``simweb.results``): GET actions per site, searched records
        self._actions: dict[int, dict[tuple[str, str], list[int]]] = {}
        self._records: dict[tuple[int, int], list[tuple[int, int, str, frozenset[str]]]] = {}
        self._hosts: dict[str, tuple[Site, int]] = {}
        self._bare: dict[str, Site] = {}
        for s in self.sites:
            for h, host in enumerate(s.hosts):
                self._hosts[host] = (s, h)
            if s.host.startswith("www."):
                self._bare[s.name] = s
        self._link_sites(rng)
        self._showcase(rng)
        self._pools: dict[str, list[str]] = {}

    # ----------------------------------------------------------- cross-site plan

    def _link_sites(self, rng: random.Random) -> None:
        by: dict[str, list[int]] = {}
        for s in self.sites:
            for d in s.domains:
                by.setdefault(f"d:{d}", []).append(s.index)
                if s.kind in ("database", "portal", "library"):
                    by.setdefault(f"db:{d}", []).append(s.index)
            by.setdefault(f"k:{s.kind}", []).append(s.index)
            by.setdefault(f"t:{s.topic}", []).append(s.index)
        every = [s.index for s in self.sites]
        off = by.get("k:offtopic", every)
        for s in self.sites:
            r = random.Random(stable_int("links", self.seed, s.index))
            pool: list[int] = []
            if s.domains:
                for d in s.domains:
                    pool += by.get(f"d:{d}", [])
            same = [i for i in dict.fromkeys(pool) if i != s.index]
            if s.kind == "hub":
                s.partners = r.sample(every, min(len(every), r.randint(20, 60)))
            elif s.kind == "blog":
                s.partners = r.sample(same, min(len(same), r.randint(2, 6))) + r.sample(
                    off, min(len(off), r.randint(1, 3))
                )
            elif same:
                s.partners = r.sample(same, min(len(same), r.randint(2, 5))) + r.sample(
                    off, min(len(off), r.randint(0, 2))
                )
            else:
                topical = [i for i in by.get(f"t:{s.topic}", []) if i != s.index]
                s.partners = r.sample(topical, min(len(topical), r.randint(1, 3))) + r.sample(
                    off, min(len(off), r.randint(1, 4))
                )
                if r.random() < 0.12:
                    s.partners.append(r.choice(every))
            s.partners = [p for p in dict.fromkeys(s.partners) if p != s.index]
            if s.domains:
                dbs = [i for d in s.domains for i in by.get(f"db:{d}", []) if i != s.index]
                s.deep_targets = r.sample(dbs, min(len(dbs), r.randint(3, 8)))
            else:
                s.deep_targets = r.sample(off, min(len(off), r.randint(2, 6)))
            if s.kind == "hub":
                e = s.ext
                for k in range(len(s.partners)):
                    s.add_fixed(("redirect", f"go{k}"), f"/go/{k}{e if e != '/' else ''}")
        # directories list a subset of the sites of each category
        dirs = by.get("k:directory", [])
        for di in dirs:
            r = random.Random(stable_int("dir", self.seed, di))
            for sec in self.sites[di].sections:
                cat = sec.topic
                if cat in vc.DOMAINS:
                    members = by.get(f"d:{cat}", [])
                elif cat == "travel":
                    members = by.get("k:portal", [])
                elif cat == "library":
                    members = by.get("k:library", [])
                else:
                    members = [i for i in by.get(f"t:{cat}", [])]
                members = [m for m in members if self.sites[m].kind not in ("directory", "hub")]
                chosen = [m for m in members if r.random() < 0.65]
                for m in chosen:
                    self.sites[m].listed_in.append(di)
                sec.n_items = len(chosen)
                self._dir_members[(di, sec.slug)] = chosen
        # every site is listed somewhere, so everything is reachable from the directories
        if dirs:
            for s in self.sites:
                if not s.listed_in and s.kind not in ("directory",):
                    di = dirs[s.index % len(dirs)]
                    cat = (
                        s.domains[0] if s.domains else ("travel" if s.kind == "portal" else s.topic)
                    )
                    for sec in self.sites[di].sections:
                        if sec.topic == cat:
                            self._dir_members[(di, sec.slug)].append(s.index)
                            sec.n_items += 1
                            s.listed_in.append(di)
                            break
        for s in self.sites:
            if s.kind == "directory":
                for sec in s.sections:
                    sec.per_page = max(sec.per_page, 1)

    def _showcase(self, rng: random.Random) -> None:
        """Guarantee every hostile part exists at least once, on deterministic sites."""
        off = [s for s in self.sites if s.kind == "offtopic"] or self.sites
        pick = random.Random(stable_int("showcase", self.seed)).sample(off, min(len(off), 6))
        while len(pick) < 6:
            pick.append(pick[-1])
        a, b, c, d, e, f = pick
        a.add_fixed(("redirect", "r1"), "/r/1")
        a.add_fixed(("redirect", "r2"), "/r/2")
        a.add_fixed(("redirect", "r3"), "/r/3")
        a.add_fixed(("redirect", "loop-a"), "/loop/a")
        a.add_fixed(("redirect", "loop-b"), "/loop/b")
        a.redirect_chain = a.redirect_loop = True
        if not any(s.calendar for s in self.sites):
            b.calendar = "/events/calendar/{y}/{m}"
        c.huge = c.add_fixed(("huge",), "/archive/everything.html")
        if not any(s.session for s in self.sites):
            d.session = "jsessionid"
            for fs in d.forms:  # an empty action would carry the session id
                if not fs.action_raw:
                    fs.action_raw = urlsplit(fs.action).path
        if not any(s.malformed for s in self.sites):
            e.malformed = True
        if not any(s.errors for s in self.sites):
            f.errors.append("/cgi-bin/counter.pl")
            f.add_fixed(("error", "/cgi-bin/counter.pl"), "/cgi-bin/counter.pl")
        if not any(s.slow and not s.crawl_delay for s in self.sites):
            # a slow page a crawler reaches without waiting for a Crawl-delay
            g = next((s for s in (f, e, d, c, b, a) if not s.crawl_delay), f)
            g.slow.add(("static", "about"))
        if not any(s.docs for s in self.sites):
            f.docs.append("/docs/annual-report.pdf")
            f.add_fixed(("doc", "/docs/annual-report.pdf"), "/docs/annual-report.pdf")
        if not any(fs.js_only for s in self.sites for fs in s.forms):
            for s in self.sites:
                if s.kind == "database" and s.chains:
                    s.forms[s.chains[0].forms[0]].js_only = True
                    break
        del rng

    # --------------------------------------------------------------- lookups

    def site_for_host(self, host: str) -> Site | None:
        hit = self._hosts.get(host.lower())
        return hit[0] if hit else self._bare.get(host.lower())

    def is_sim_host(self, host: str) -> bool:
        h = host.lower().split(":")[0]
        return h in self._hosts or h in self._bare

    def count_pages(self) -> int:
        """Number of pages in the truth (finite part), from the plans, without rendering."""
        return sum(1 for s in self.sites for _ in self.site_keys(s))

    def site_keys(self, site: Site) -> list[Key]:
        """Every key of the site's finite page set (truth order)."""
        keys: list[Key] = [("home",)]
        for s, sec in enumerate(site.sections):
            keys += [("sec", s, n) for n in range(1, sec.n_pages + 1)]
            keys += [("item", s, i) for i in range(sec.n_items)]
        keys += list(site.paths)
        if site.calendar:
            by, bm = CALENDAR_BASE
            for k in range(-CALENDAR_WINDOW, CALENDAR_WINDOW + 1):
                y, m = divmod(by * 12 + bm - 1 + k, 12)
                keys.append(("cal", y, m + 1))
        return list(dict.fromkeys(keys))

    # --------------------------------------------------------------- seeds

    def seeds(self, domain: str, n: int = 20) -> list[str]:
        """Seed URLs for a domain: directory category pages first, then topical articles
        of topical sites and blogs (pages that talk about the topic, never a form page)."""
        if domain not in vc.DOMAINS:
            raise UsageError(f"unknown domain {domain!r}; known: {', '.join(vc.DOMAINS)}")
        out: list[str] = []
        for s in self.sites:
            if s.kind == "directory":
                for k, sec in enumerate(s.sections):
                    if sec.topic == domain and sec.n_items:
                        out.append(s.url_of(("sec", k, 1)))
        r = random.Random(stable_int("seeds", self.seed, domain))
        extra: list[str] = []
        for s in self.sites:
            if s.kind in ("topical", "blog") and domain in s.domains:
                secs = [k for k, sec in enumerate(s.sections) if sec.n_items]
                for k in r.sample(secs, min(3, len(secs))):
                    extra.append(s.url_of(("item", k, r.randrange(s.sections[k].n_items))))
            elif s.kind == "directory":  # more listing pages and site reviews of the category
                for k, sec in enumerate(s.sections):
                    if sec.topic == domain:
                        extra += [s.url_of(("sec", k, p)) for p in range(2, sec.n_pages + 1)]
                        extra += [s.url_of(("item", k, i)) for i in range(min(3, sec.n_items))]
        r.shuffle(extra)
        return (out + extra)[:n]

    # --------------------------------------------------------------- pages

    def resolve(self, url: str) -> tuple[Site, int, Key] | None:
        """(site, host index, key) of a URL; None for unknown hosts. Unknown paths: ("missing",)."""
        canon = canonical_url(url)
        parts = urlsplit(canon)
        host = (parts.hostname or "").lower()
        hit = self._hosts.get(host)
        if hit is None:
            bare = self._bare.get(host)
            if bare is None:
                return None
            return bare, -1, ("bare",)
        site, h = hit
        pathq = parts.path + (f"?{parts.query}" if parts.query else "")
        if pathq == "/robots.txt":
            return site, h, ("robots",)
        key = site.key_of(h, pathq)
        return site, h, key if key is not None else ("missing",)

    def page(self, url: str) -> PageSpec | None:
        """The structured page at ``url`` (None for hosts outside the simulated web)."""
        hit = self.resolve(url)
        if hit is None:
            return None
        site, h, key = hit
        return self.build(site, key, h, canonical_url(url))

    def outlinks(self, url: str) -> list[tuple[str, str]]:
        spec = self.page(url)
        return spec.links if spec else []

    def build(self, site: Site, key: Key, host: int = 0, url: str = "") -> PageSpec:
        """Build the PageSpec of a key (the single source of HTML and truth)."""
        if not url:
            url = site.url_of(key)
        spec = pages.build_page(self, site, key, host, url)
        if spec.status == 200 and spec.kind not in ("doc",):
            path = urlsplit(url).path
            spec.robots_allowed = robots_allowed(site, max(host, 0), path)
        else:
            spec.robots_allowed = robots_allowed(site, max(host, 0), urlsplit(url).path)
        if key in site.slow:
            spec.delay = self.slow_delay
        return spec

    def pool(self, topic: str) -> list[str]:
        """200 sentences about a topic (deterministic from the seed)."""
        p = self._pools.get(topic)
        if p is None:
            r = random.Random(stable_int("pool", self.seed, topic))
            nouns = vc.NOUNS.get(topic) or vc.NOUNS["general"]
            p = []
            for _ in range(200):
                n, m = r.sample(nouns, 2)
                p.append(
                    r.choice(vc.SENTENCES).format(
                        n=n, m=m, a=r.choice(vc.ADJECTIVES), p=r.choice(vc.PLACES)
                    )
                )
            self._pools[topic] = p
        return p

    # --------------------------------------------------------------- fetching

    def fetch(self, url: str) -> SimResponse:
        """Answer a GET for ``url`` exactly as the proxy does (without sleeping)."""
        return templates.respond(self, url)

    async def afetch(self, url: str) -> SimResponse:
        return self.fetch(url)

    def transport(self) -> SimTransport:
        """An async in-process client (see ``formhunter.simweb.transport``)."""
        return SimTransport(self)

    def truth(self) -> Truth:
        return Truth(self)

    def hostile(self) -> dict[str, list[str]]:
        """Example URLs of every hostile part (see module docstring)."""
        out: dict[str, list[str]] = {
            k: []
            for k in (
                "robots_disallow",
                "robots_missing",
                "crawl_delay",
                "redirect",
                "redirect_chain",
                "redirect_loop",
                "bare_host",
                "notfound",
                "error500",
                "slow",
                "malformed",
                "pdf",
                "image",
                "calendar",
                "session",
                "huge",
                "js_form",
            )
        }
        for s in self.sites:
            for h, rules in s.disallow.items():
                if rules:
                    out["robots_disallow"].append(f"http://{s.hosts[h]}{rules[0]}")
            for h, txt in s.robots.items():
                if txt is None:
                    out["robots_missing"].append(f"http://{s.hosts[h]}/robots.txt")
            if s.crawl_delay:
                out["crawl_delay"].append(s.home)
            for key, (h, p) in s.paths.items():
                k = key[0]
                u = f"http://{s.hosts[h]}{p}"
                if k == "redirect" and key[1] in ("r1",):
                    out["redirect_chain"].append(u)
                elif k == "redirect" and key[1] == "loop-a":
                    out["redirect_loop"].append(u)
                elif k == "redirect":
                    out["redirect"].append(u)
                elif k == "missing":
                    out["notfound"].append(u)
                elif k == "error":
                    out["error500"].append(u)
                elif k == "doc":
                    out["pdf" if p.endswith(".pdf") else "image"].append(u)
                elif k == "huge":
                    out["huge"].append(u)
            if s.host.startswith("www."):
                out["bare_host"].append(f"http://{s.name}/")
            for key in s.slow:
                out["slow"].append(s.url_of(key))
            if s.malformed:
                out["malformed"].append(s.home)
            if s.calendar:
                out["calendar"].append(s.url_of(("cal", *CALENDAR_BASE)))
            if s.session:
                out["session"].append(s.home)
            for c, ch in enumerate(s.chains):
                if any(s.forms[i].js_only for i in ch.forms):
                    out["js_form"].append(s.url_of(("form", c)))
        return out


def quote_url(u: str) -> str:
    return quote(u, safe="")


__all__ = ["PageSpec", "Section", "SimResponse", "SimWeb", "item_title"]
