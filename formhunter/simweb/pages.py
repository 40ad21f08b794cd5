"""Page builders: from a site plan and a page key to a ``PageSpec`` (links, text, forms)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from formhunter.simweb import vocab as vc
from formhunter.simweb.sites import Key, Site, item_title, stable_int
from formhunter.simweb.spec import BODY_ZONE, FOOT_ZONE, NAV_ZONE, SIDE_ZONE, PageSpec

if TYPE_CHECKING:
    from formhunter.simweb.webparts import WebParts

Link = tuple[str, str]
_STATIC_TITLES = {"members": "Members area", "suggest": "Suggest a site"}
_NAV_STATICS = ("about", "help", "login", "register", "cart", "contact")


def _rng(site: Site, key: Key, web: WebParts) -> random.Random:
    return random.Random(stable_int(web.seed, site.index, *key))


def _topic_domains(site: Site) -> tuple[str, tuple[str, ...]]:
    return site.topic, site.domains


def entry(site: Site, c: int) -> Link:
    """The first link on the way to chain c's form page: (url, anchor)."""
    ch = site.chains[c]
    if ch.hops:
        return site.url_of(("hop", c, 0)), ch.hops[0][1]
    return site.url_of(("form", c)), ch.form_anchor


def site_frame(web: WebParts, site: Site) -> tuple[list[Link], list[Link]]:
    """Navigation and footer links shared by every page of a site (cached)."""
    cached = web._frames.get(site.index)
    if cached is not None:
        return cached
    r = random.Random(stable_int("frame", web.seed, site.index))
    nav: list[Link] = [(site.home, r.choice(("Home", site.brand, "Start", "Main page")))]
    for s, sec in enumerate(site.sections):
        nav.append((site.url_of(("sec", s, 1)), sec.title))
    for c, ch in enumerate(site.chains):
        if ch.parent < 0 and ch.entry_in_nav:
            nav.append(entry(site, c))
    if site.calendar:
        nav.append(
            (site.url_of(("cal", 2024, 1)), r.choice(("Events calendar", "Calendar", "What's on")))
        )
    foot: list[Link] = []
    for name, (path, anchor) in site.statics.items():
        u = site.url(0, path)
        if name in _NAV_STATICS and r.random() < 0.6:
            nav.append((u, anchor))
        else:
            foot.append((u, anchor))
    for k, pi in enumerate(site.partners):
        t = web.sites[pi]
        if site.kind == "hub":
            continue  # hubs link out from their bodies, through /go/N
        foot.append((t.home, t.brand if k % 3 else f"Our partner {t.brand}"))
    for p in site.docs:
        foot.append((site.url(0, p), "Brochure (PDF)" if p.endswith(".pdf") else "Photo gallery"))
    for p in site.broken:
        foot.append((site.url(0, p), r.choice(("Old archive", "Previous site", "Archive"))))
    for p in site.errors:
        foot.append((site.url(0, p), r.choice(("Statistics", "Export", "Data feed"))))
    if site.huge:
        foot.append((site.url(0, site.huge), "Complete archive"))
    if site.redirect_chain:
        foot.append((site.url(0, "/r/1"), "Special offer"))
    if site.redirect_loop:
        foot.append((site.url(0, "/loop/a"), "Mirror site"))
    if ("redirect", "old-home") in site.paths:
        foot.append((site.url(*site.paths[("redirect", "old-home")]), "Classic home page"))
    secs = [s for s, sec in enumerate(site.sections) if sec.n_items]
    if secs and site.kind not in ("directory", "hub"):  # a site-wide "popular" block
        for _ in range(r.randint(6, 16)):
            s = r.choice(secs)
            foot.append(_item_link(site, s, r.randrange(site.sections[s].n_items)))
    web._frames[site.index] = (nav, foot)
    return nav, foot


def _sentences(web: WebParts, topic: str, r: random.Random, n: int) -> str:
    pool = web.pool(topic)
    return " ".join(pool[r.randrange(len(pool))] for _ in range(n))


def _paras(web: WebParts, topic: str, r: random.Random, lo: int, hi: int) -> list[str]:
    return [_sentences(web, topic, r, r.randint(2, 5)) for _ in range(r.randint(lo, hi))]


def _item_link(site: Site, s: int, i: int) -> Link:
    return site.url_of(("item", s, i)), item_title(site, s, i)


def _flag(site: Site, name: str, p: float) -> bool:
    return stable_int(site.name, name) % 1000 < p * 1000


def _chain_for(site: Site, domain: str) -> int:
    for c, ch in enumerate(site.chains):
        if ch.parent < 0 and ch.domain == domain:
            return c
    return -1


def _deep_link(web: WebParts, site: Site, r: random.Random) -> Link | None:
    if not site.deep_targets:
        return None
    t = web.sites[r.choice(site.deep_targets)]
    x = r.random()
    if x < 0.15 and t.chains:
        return entry(t, 0)
    if x < 0.25 and t.chains:
        obj = r.choice(vc.SEARCH_OBJECTS.get(t.domain or "airfare", ("it",)))
        return t.url_of(("form", 0)), f"{r.choice(vc.SEARCH_VERBS).lower()} {obj} at {t.brand}"
    if x < 0.5 and t.sections:
        s = r.randrange(len(t.sections))
        if t.sections[s].n_items:
            return _item_link(t, s, r.randrange(t.sections[s].n_items))
    return t.home, t.brand


def build_page(web: WebParts, site: Site, key: Key, host: int, url: str) -> PageSpec:
    k = key[0]
    spec = PageSpec(url=url, site=site, key=key, kind=k, host_index=host)
    if k == "bare":
        path = url.split("/", 3)[3] if url.count("/") >= 3 else ""
        spec.kind, spec.status, spec.redirect_to = "redirect", 301, f"http://{site.host}/{path}"
        return spec
    if k == "robots":
        spec.kind, spec.content_type = "robots", "text/plain"
        spec.status = 200 if site.robots.get(host) is not None else 404
        return spec
    if k == "redirect":
        return _redirect(web, site, key, spec)
    if k == "error":
        spec.status, spec.title = 500, "Internal Server Error"
        return spec
    if k == "doc":
        spec.content_type = "application/pdf" if key[1].endswith(".pdf") else "image/jpeg"
        spec.title = key[1].rsplit("/", 1)[-1]
        return spec
    r = _rng(site, key, web)
    nav, foot = site_frame(web, site)
    spec.nav, spec.foot = nav, foot
    for i in site.placements.get("header", ()):
        spec.forms.append((NAV_ZONE, i))
    for i in site.placements.get("footer", ()):
        spec.forms.append((FOOT_ZONE, i))
    topic, domains = _topic_domains(site)
    if k == "missing":
        spec.status, spec.title, spec.kind = 404, "Page not found", "missing"
        spec.text = ["Sorry, the page you asked for does not exist or has moved."]
        spec.body = [(site.home, "Back to the home page")]
        spec.nav, spec.foot, spec.forms = [], [], []
        return spec
    body: list[Link] = []
    side: list[Link] = []
    if k == "home":
        spec.title = f"{site.brand} - {_tagline(site, r)}"
        spec.text = _paras(web, topic, r, 2, 4)
        _home_body(web, site, r, body)
        for i in site.placements.get("home", ()):
            spec.forms.append((BODY_ZONE, i))
    elif k == "sec":
        s, n = key[1], key[2]
        sec = site.sections[s]
        topic, domains = sec.topic, sec.domains or (domains if site.kind != "directory" else ())
        if site.kind == "directory" and sec.topic == "travel":
            domains = ("airfare", "hotel", "rental")
        elif site.kind == "directory" and sec.topic == "library":
            domains = ("book",)
        spec.title = f"{sec.title} - {site.brand}" + (f" (page {n})" if n > 1 else "")
        spec.text = _paras(web, topic if topic in vc.NOUNS else "general", r, 1, 2)
        _section_body(web, site, s, n, r, body)
        _sidebar(site, sec.topic, r, side)
        if site.kind in ("database", "portal"):
            for i in site.placements.get("sidebar", ()):
                spec.forms.append((SIDE_ZONE, i))
    elif k == "item":
        s, i = key[1], key[2]
        sec = site.sections[s]
        topic, domains = sec.topic, sec.domains or (domains if site.kind != "directory" else ())
        spec.title = item_title(site, s, i)
        _item_body(web, site, s, i, r, body, spec)
        if site.kind in ("database", "portal") and _flag(site, "similar", 0.5):
            c = _chain_for(site, sec.topic) if site.kind == "portal" else 0
            if c >= 0:
                body.append(
                    (
                        site.url_of(("form", c)),
                        r.choice(
                            ("Search similar", "Find more like this", "New search", "Refine search")
                        ),
                    )
                )
        for fi in site.placements.get("item", ()):
            spec.forms.append((BODY_ZONE, fi))
        spec.topic = topic
    elif k == "static":
        name = key[1]
        spec.title = (
            site.statics[name][1] if name in site.statics else _STATIC_TITLES.get(name, name)
        )
        topic, domains = "general", ()
        spec.text = _paras(web, "general", r, 1, 3)
        for fi in site.placements.get(f"static:{name}", ()):
            spec.forms.append((BODY_ZONE, fi))
        if name == "login":
            for n2 in ("register", "forgot"):
                if n2 in site.statics:
                    body.append((site.url(0, site.statics[n2][0]), site.statics[n2][1]))
        if name == "about" and "careers" in site.statics:
            body.append((site.url(0, site.statics["careers"][0]), "We are hiring"))
    elif k == "hop":
        c, j = key[1], key[2]
        ch = site.chains[c]
        topic, domains = ch.domain, (ch.domain,)
        spec.title = f"{ch.hops[j][2]} - {site.brand}"
        spec.text = _paras(web, ch.domain, r, 1, 3)
        if j + 1 < len(ch.hops):
            body.append((site.url_of(("hop", c, j + 1)), ch.hops[j + 1][1]))
        else:
            body.append((site.url_of(("form", c)), ch.form_anchor))
        for c2, ch2 in enumerate(site.chains):  # portals: the other booking tools
            if c2 != c and ch2.parent < 0 and r.random() < 0.5:
                body.append(entry(site, c2))
        _random_items(site, r, body, 2)
    elif k == "form":
        c = key[1]
        ch = site.chains[c]
        topic, domains = ch.domain, (ch.domain,)
        spec.title = f"{ch.form_title} - {site.brand}"
        spec.text = _paras(web, ch.domain, r, 1, 2)
        for fi in ch.forms:
            spec.forms.append((BODY_ZONE, fi))
        for c2, ch2 in enumerate(site.chains):
            if ch2.parent == c:
                body.append((site.url_of(("form", c2)), ch2.form_anchor))
        if ch.parent >= 0:
            body.append(
                (
                    site.url_of(("form", ch.parent)),
                    r.choice(("Simple search", "Back to search", "Basic search")),
                )
            )
        _random_items(site, r, body, 2)
    elif k == "cal":
        y, m = key[1], key[2]
        spec.kind, spec.infinite = "calendar", True
        spec.title = f"Events - {_MONTHS[m - 1]} {y} - {site.brand}"
        spec.text = _paras(web, "general", r, 1, 2)
        _random_items(site, r, body, r.randint(2, 5))
        py, pm = (y, m - 1) if m > 1 else (y - 1, 12)
        ny, nm = (y, m + 1) if m < 12 else (y + 1, 1)
        if py >= 1900:
            body.append((site.url_of(("cal", py, pm)), f"« {_MONTHS[pm - 1]} {py}"))
        if ny <= 9999:
            body.append((site.url_of(("cal", ny, nm)), f"{_MONTHS[nm - 1]} {ny} »"))
        topic, domains = "general", ()
    elif k == "huge":
        spec.title = f"Complete archive - {site.brand}"
        pool = web.pool(topic if topic in vc.NOUNS else "general")
        size, paras, j = 0, [], 0
        while size < web.huge_bytes:
            p = " ".join(pool[(j * 7 + t) % len(pool)] for t in range(8))
            paras.append(p)
            size += len(p) + 9
            j += 1
        spec.text = paras
        for s, sec in enumerate(site.sections):
            for i in range(min(sec.n_items, 200)):
                body.append(_item_link(site, s, i))
    spec.topic = topic
    spec.domains = domains
    spec.body, spec.side = body, side
    return spec


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")  # fmt: skip


def _tagline(site: Site, r: random.Random) -> str:
    nouns = vc.NOUNS.get(site.topic, vc.NOUNS["general"])
    return f"{r.choice(vc.ADJECTIVES).capitalize()} {r.choice(nouns)}"


def _redirect(web: WebParts, site: Site, key: Key, spec: PageSpec) -> PageSpec:
    name = key[1]
    spec.kind, spec.status = "redirect", 301
    if name == "old-home":
        spec.redirect_to = site.home
    elif name in ("r1", "r2"):
        spec.status, spec.redirect_to = 302, site.url(0, f"/r/{int(name[1]) + 1}")
    elif name == "r3":
        spec.status, spec.redirect_to = 302, site.home
    elif name == "loop-a":
        spec.status, spec.redirect_to = 302, site.url(0, "/loop/b")
    elif name == "loop-b":
        spec.status, spec.redirect_to = 302, site.url(0, "/loop/a")
    elif name.startswith("go"):
        spec.status, spec.redirect_to = 302, web.sites[site.partners[int(name[2:])]].home
    return spec


def _home_body(web: WebParts, site: Site, r: random.Random, body: list[Link]) -> None:
    for c, ch in enumerate(site.chains):
        if ch.parent < 0:
            body.append(entry(site, c))
            if r.random() < 0.3:
                body.append((site.url_of(("form", c)), ch.form_anchor))
    if site.kind == "hub":
        _go_links(web, site, range(len(site.partners)), body)
        return
    if site.kind == "directory":
        for s, sec in enumerate(site.sections):
            members = web._dir_members.get((site.index, sec.slug), [])
            if members and r.random() < 0.3:
                body.append(
                    (
                        site.url_of(("item", s, r.randrange(len(members)))),
                        web.sites[members[0]].brand,
                    )
                )
        return
    _random_items(site, r, body, r.randint(6, 14))
    if site.kind in ("blog", "topical") or r.random() < 0.2:
        d = _deep_link(web, site, r)
        if d:
            body.append(d)


def _go_links(web: WebParts, site: Site, ks: range | list[int], body: list[Link]) -> None:
    for k in ks:
        t = web.sites[site.partners[k]]
        body.append((site.url_of(("redirect", f"go{k}")), f"{t.brand} - {t.topic}"))


def _random_items(site: Site, r: random.Random, body: list[Link], n: int) -> None:
    secs = [s for s, sec in enumerate(site.sections) if sec.n_items]
    if not secs or site.kind in ("directory",):
        return
    for _ in range(n):
        s = r.choice(secs)
        body.append(_item_link(site, s, r.randrange(site.sections[s].n_items)))


def _section_body(
    web: WebParts, site: Site, s: int, n: int, r: random.Random, body: list[Link]
) -> None:
    sec = site.sections[s]
    lo, hi = (n - 1) * sec.per_page, min(sec.n_items, n * sec.per_page)
    if site.kind == "directory":
        members = web._dir_members.get((site.index, sec.slug), [])
        for i in range(lo, hi):
            t = web.sites[members[i]]
            body.append((site.url_of(("item", s, i)), t.brand))
            body.append((t.home, t.host))
    else:
        more = r.random() < 0.4
        for i in range(lo, hi):
            body.append(_item_link(site, s, i))
            if more:
                body.append((site.url_of(("item", s, i)), r.choice(vc.LOREM_TAIL)))
    # pagination
    if n > 1:
        body.append((site.url_of(("sec", s, n - 1)), r.choice(vc.PREV_WORDS)))
    for p in range(max(1, n - 4), min(sec.n_pages, n + 5) + 1):
        if p != n:
            body.append((site.url_of(("sec", s, p)), str(p)))
    if n < sec.n_pages:
        body.append((site.url_of(("sec", s, n + 1)), r.choice(vc.NEXT_WORDS)))


def _sidebar(site: Site, topic: str, r: random.Random, side: list[Link]) -> None:
    if site.kind in ("database", "portal", "library") and _flag(site, "sidebar", 0.6):
        c = _chain_for(site, topic) if site.kind == "portal" else 0
        if c >= 0 and site.chains:
            obj = r.choice(vc.SEARCH_OBJECTS.get(site.chains[c].domain, ("it",)))
            verb = vc.SEARCH_VERBS[stable_int(site.name, "verb") % len(vc.SEARCH_VERBS)]
            side.append((site.url_of(("form", c)), f"{verb} {obj}"))


def _item_body(
    web: WebParts, site: Site, s: int, i: int, r: random.Random, body: list[Link], spec: PageSpec
) -> None:
    sec = site.sections[s]
    if site.kind == "directory":
        members = web._dir_members.get((site.index, sec.slug), [])
        t = web.sites[members[i]] if i < len(members) else site
        spec.text = [
            f"{t.brand} ({t.host}) is listed in our {sec.title} category.",
            *_paras(web, t.topic if t.topic in vc.NOUNS else "general", r, 1, 2),
        ]
        body.append((t.home, f"Visit {t.brand}"))
        if t.chains and r.random() < 0.3:
            body.append(entry(t, 0))
        elif t.sections and t.sections[0].n_items:
            body.append((t.url_of(("sec", 0, 1)), t.sections[0].title))
        body.append((site.url_of(("sec", s, 1 + i // sec.per_page)), f"Back to {sec.title}"))
        return
    if site.kind == "hub":
        n = len(site.partners)
        ks = [(i * 7 + j) % n for j in range(min(n, 10))] if n else []
        _go_links(web, site, list(dict.fromkeys(ks)), body)
        spec.text = _paras(web, "general", r, 1, 2)
        return
    top = sec.topic if sec.topic in vc.NOUNS else "general"
    spec.text = _paras(web, top, r, 4, 10)
    for _ in range(r.randint(3, 7)):
        if sec.n_items > 1:
            j = r.randrange(sec.n_items)
            if j != i:
                body.append(_item_link(site, s, j))
    body.append(
        (
            site.url_of(("sec", s, 1 + i // sec.per_page)),
            r.choice((sec.title, f"More {sec.title.lower()}", "Back")),
        )
    )
    n_ext = {"blog": 3, "topical": 2}.get(site.kind, 1 if r.random() < 0.25 else 0)
    for _ in range(
        r.randint(0, n_ext) if site.kind not in ("blog", "topical") else r.randint(1, n_ext)
    ):
        d = _deep_link(web, site, r)
        if d:
            body.append(d)
