"""Form submissions on the simulated web: result pages that depend on the query.

A GET request with a query string whose path is the action of one of the site's GET
forms (on the same host) is that form's submission (the HTML rule: a GET submission
replaces the action's query with the form data). Only requests that were answered 404
before reach this module, so the pages and links of the web do not change.

What a form does with a query (``backend``, also a ground-truth column):

* ``database``: it fronts a database, the site's items of the form's domain (for a
  site search of a non-database site, ``site``: the site's own articles). The result
  page lists the items that match the query (every filled field has a word in the
  item's title or its category's; an empty or default query lists everything), each
  with a sentence about it (a snippet), ``PAGE_SIZE`` per page with a next-page link
  (``page=N``) and a count ("Showing 1-10 of 37 results"); a query that matches
  nothing gets a "no results" page.
* ``static``: it looks searchable but fronts nothing: every query gets the same page
  (the action's own page without the query when there is one, else the home page).
  A deterministic share of domain forms (``STATIC_SHARE``) and of site-search boxes
  (``STATIC_SITE_SHARE``) are static; so is every GET form that is not searchable.
* ``""``: POST forms (the proxy answers their GET submissions 404, as before).

``holds`` says what the database holds: its domain (a database form), the site's topic
(a site search), or "" (static).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode, urlsplit

from formhunter.simweb import vocab as vc
from formhunter.simweb.formspecs import FormSpec
from formhunter.simweb.sites import Site, item_title, stable_int
from formhunter.simweb.spec import BODY_ZONE, FOOT_ZONE, NAV_ZONE, PageSpec

if TYPE_CHECKING:
    from formhunter.simweb.webparts import WebParts

#: Share of domain search forms that front no database (percent).
STATIC_SHARE = 15
#: Share of site-search boxes that search nothing (percent).
STATIC_SITE_SHARE = 30
PAGE_SIZE = 10
_WORD = re.compile(r"[a-z0-9]{2,}")
_COUNT_STYLES = ("Showing {a}-{b} of {n} results", "{n} results found", "Results {a} - {b} of {n}",
                 "We found {n} matches", "{n} items match your search")  # fmt: skip
_EMPTY_STYLES = ("No results found for your search.", "Sorry, nothing matched your query.",
                 "0 results. Try other words.", "Your search returned no matches.")  # fmt: skip


def backend(site: Site, form: FormSpec) -> str:
    """``database``, ``site``, ``static`` or ``""`` (module doc); deterministic."""
    if form.method != "GET":
        return ""
    if not form.searchable:
        return "static"
    roll = stable_int("backend", site.name, form.signature) % 100
    if form.kind == "site_search":
        return "static" if roll < STATIC_SITE_SHARE else "site"
    return "static" if roll < STATIC_SHARE else "database"


def holds(site: Site, form: FormSpec) -> str:
    """What the form's database holds: a domain, the site's topic, or "" (module doc)."""
    b = backend(site, form)
    if b == "database":
        return form.domain
    if b == "site":
        return site.topic
    return ""


def _host_path(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return (parts.hostname or "").lower(), parts.path or "/"


def _forms_at(web: WebParts, site: Site, host: str, path: str) -> list[int]:
    """Indexes of the site's GET forms whose action is ``host`` + ``path`` (cached)."""
    idx = web._actions.get(site.index)
    if idx is None:
        idx = web._actions[site.index] = {}
        for i, f in enumerate(site.forms):
            if f.method == "GET":
                idx.setdefault(_host_path(f.action), []).append(i)
    return idx.get((host, path), [])


def _items(site: Site, form: FormSpec) -> list[tuple[int, int]]:
    """(section, item) of every record the form's backend holds, in site order."""
    b = backend(site, form)
    if b == "database":
        secs = [s for s, sec in enumerate(site.sections) if sec.topic == form.domain]
        if not secs:
            secs = [s for s, sec in enumerate(site.sections) if form.domain in sec.domains]
    else:
        secs = list(range(len(site.sections)))
    return [(s, i) for s in secs for i in range(site.sections[s].n_items)]


Record = tuple[int, int, str, frozenset[str]]


def _records(web: WebParts, site: Site, form_index: int) -> list[Record]:
    """(section, item, title, title words) of what the form searches (cached)."""
    key = (site.index, form_index)
    out = web._records.get(key)
    if out is None:
        if len(web._records) > 256:
            web._records.clear()
        out = []
        for s, i in _items(site, site.forms[form_index]):
            title = item_title(site, s, i)
            # a search indexes the item's category too (its breadcrumb), not only its title
            words = _WORD.findall(f"{title} {site.sections[s].title}".lower())
            out.append((s, i, title, frozenset(words)))
        web._records[key] = out
    return out


def _defaults(form: FormSpec) -> dict[str, str]:
    """Each field's value when the user changes nothing ("" for free text)."""
    out = {}
    for f in form.fields:
        if f.kind == "select":
            out[f.name] = f.options[0] if f.options else ""
        elif f.kind == "radio":
            out[f.name] = f.value
        else:
            out[f.name] = ""
    return out


def _criteria(form: FormSpec, params: list[tuple[str, str]]) -> list[set[str]]:
    """One set of words per field the query fills with something other than its default."""
    defaults = _defaults(form)
    kinds = {f.name: f.kind for f in form.fields}
    out = []
    for name, value in params:
        if name not in kinds or kinds[name] in ("checkbox", "hidden", "submit"):
            continue
        if value.strip() == defaults.get(name, "").strip():
            continue
        words = set(_WORD.findall(value.lower()))
        out.append(words or {"\0"})  # punctuation only: matches nothing
    return out


def _pick_form(web: WebParts, site: Site, host: str, path: str, names: set[str]) -> int | None:
    best, best_n = None, 0
    for fi in _forms_at(web, site, host, path):
        n = len(names & {f.name for f in site.forms[fi].fields})
        if n > best_n:
            best, best_n = fi, n
    return best


Submission = tuple[int, FormSpec, list[tuple[str, str]]]


def submission(web: WebParts, site: Site, url: str) -> Submission | None:
    """(form index, form, query pairs) when ``url`` submits one of the site's GET forms."""
    parts = urlsplit(url)
    if not parts.query:
        return None
    host, path = _host_path(url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    fi = _pick_form(web, site, host, path, {k for k, _ in params})
    if fi is None:
        return None
    return fi, site.forms[fi], params


def results_page(web: WebParts, site: Site, host_index: int, url: str) -> PageSpec | None:
    """The page a form submission gets (module doc), or None when ``url`` is none."""
    hit = submission(web, site, url)
    if hit is None:
        return None
    fi, form, params = hit
    b = backend(site, form)
    if b == "static":
        return None  # the caller serves the same page whatever was asked
    page_param = "page" if "page" not in {f.name for f in form.fields} else "results_page"
    page_no = 1
    query = []
    for k, v in params:
        if k == page_param:
            page_no = int(v) if v.isdigit() and 0 < int(v) < 10_000 else 1
        else:
            query.append((k, v))
    crit = _criteria(form, query)
    hits = [(s, i, t) for s, i, t, words in _records(web, site, fi)
            if all(words & c for c in crit)]  # fmt: skip
    from formhunter.simweb import pages

    spec = PageSpec(url=url, site=site, key=("results", fi), kind="results", host_index=host_index)
    nav, foot = pages.site_frame(web, site)
    spec.nav, spec.foot = nav, foot
    for i in site.placements.get("header", ()):
        spec.forms.append((NAV_ZONE, i))
    for i in site.placements.get("footer", ()):
        spec.forms.append((FOOT_ZONE, i))
    if not form.js_only and (BODY_ZONE, fi) not in spec.forms and (NAV_ZONE, fi) not in spec.forms:
        spec.forms.append((BODY_ZONE, fi))
    style = stable_int("results", site.name) % len(_COUNT_STYLES)
    spec.title = f"Search results - {site.brand}"
    spec.topic = holds(site, form)
    spec.domains = (form.domain,) if b == "database" and form.domain else ()
    lo = (page_no - 1) * PAGE_SIZE
    shown = hits[lo : lo + PAGE_SIZE]
    if not shown:
        spec.text = [_EMPTY_STYLES[style % len(_EMPTY_STYLES)]]
        return spec
    spec.text = [_COUNT_STYLES[style].format(a=lo + 1, b=lo + len(shown), n=len(hits))]
    spec.text += [f"{t}: {_snippet(web, site, s, i)}" for s, i, t in shown]
    spec.body = [(site.url_of(("item", s, i)), t) for s, i, t in shown]
    base = f"{url.split('?', 1)[0]}?"
    if page_no > 1:
        spec.body.append((base + urlencode([*query, (page_param, str(page_no - 1))]),
                          vc.PREV_WORDS[style % len(vc.PREV_WORDS)]))  # fmt: skip
    if lo + PAGE_SIZE < len(hits):
        spec.body.append((base + urlencode([*query, (page_param, str(page_no + 1))]),
                          vc.NEXT_WORDS[style % len(vc.NEXT_WORDS)]))  # fmt: skip
    return spec


def _snippet(web: WebParts, site: Site, s: int, i: int) -> str:
    """A sentence about the item, as result lists show under each hit."""
    topic = site.sections[s].topic
    pool = web.pool(topic if topic in vc.NOUNS else "general")
    return pool[stable_int("snippet", site.name, s, i) % len(pool)]


def static_url(site: Site, url: str) -> str:
    """The URL whose page a static form's submission gets: the action without its query
    when that is a page of the site, else the home page."""
    host, path = _host_path(url)
    h = site.hosts.index(host) if host in site.hosts else 0
    key = site.key_of(h, path)
    if key is not None and key[0] not in ("missing", "error", "doc"):
        return f"http://{host}{path}"
    return site.home
