"""HTML rendering and responses: a ``PageSpec`` becomes bytes, exactly as served.

Six template families (``LAYOUTS``: div soup, HTML5 landmarks, an old table layout
with the sidebar first, a compact one, a grid framework with a navbar, cards with
drop-down menus and the sidebar first); each web uses some of them
(``dialect.Dialect.layouts``) with its own class prefixes. Absolute or root-relative
hrefs, optional session ids in internal links, the site's language in ``<html
lang>``, and a malformed variant.
"""

from __future__ import annotations

import zlib
from html import escape
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from formhunter.simweb.formspecs import render_form, render_js_form
from formhunter.simweb.sites import Site, stable_int
from formhunter.simweb.spec import (
    BODY_ZONE,
    FOOT_ZONE,
    NAV_ZONE,
    SIDE_ZONE,
    PageSpec,
    SimResponse,
    session_id,
    session_of,
    zone_order,
)

if TYPE_CHECKING:
    from formhunter.simweb.webparts import WebParts
    from formhunter.simweb.weight import Padder

_PREFIXES = ("site", "main", "pg", "x", "c", "wrap", "ui", "tpl", "v2", "lay")


def respond(web: WebParts, url: str) -> SimResponse:
    """The response to GET ``url`` (see SimWeb.fetch)."""
    hit = web.resolve(url)
    if hit is None:
        host = urlsplit(url).hostname or ""
        body = (
            f"<html><body><h1>502 Bad Gateway</h1><p>Unknown host {escape(host)}</p></body></html>"
        )
        return SimResponse(502, {"Content-Type": "text/html; charset=utf-8"}, body.encode(), url)
    site, h, key = hit
    if key[0] == "robots":
        txt = site.robots.get(h)
        if txt is None:
            return SimResponse(404, {"Content-Type": "text/plain"}, b"Not found\n", url)
        return SimResponse(200, {"Content-Type": "text/plain; charset=utf-8"}, txt.encode(), url)
    from formhunter.simweb.urls import canonical_url

    canon = canonical_url(url)
    if key == ("missing",) and "?" in canon:  # a form submission? (simweb.results)
        from formhunter.simweb import results

        asked = results.submission(web, site, canon)
        if asked is not None:
            if results.backend(site, asked[1]) == "static":
                same = respond(web, results.static_url(site, canon))
                return SimResponse(same.status, same.headers, same.body, url, same.delay)
            found = results.results_page(web, site, h, canon)
            if found is not None:
                headers = {"Content-Type": found.content_type, "Server": _server(site)}
                pad = web.padder
                return SimResponse(200, headers, render(found, "", pad).encode("utf-8"), url)
    spec = web.build(site, key, h, canon)
    headers = {"Content-Type": spec.content_type, "Server": _server(site)}
    if spec.redirect_to:
        headers["Location"] = spec.redirect_to
        body = (
            f'<html><head><title>Moved</title></head><body><p>Moved to <a href="'
            f'{escape(spec.redirect_to)}">{escape(spec.redirect_to)}</a></p></body></html>'
        )
        return SimResponse(spec.status, headers, body.encode(), url, spec.delay)
    if spec.kind == "doc":
        return SimResponse(200, headers, _doc_bytes(site, spec), url, spec.delay)
    if spec.status == 500:
        body = (
            "<html><head><title>500 Internal Server Error</title></head>"
            "<body><h1>Internal Server Error</h1></body></html>"
        )
        return SimResponse(500, headers, body.encode(), url, spec.delay)
    sid = ""
    if site.session:
        sid = session_of(url) or session_id(spec.url)
        if site.session == "jsessionid":
            headers["Set-Cookie"] = f"JSESSIONID={sid}; Path=/"
    pad = web.padder if spec.status == 200 and spec.kind != "huge" else None
    html = render(spec, sid, pad)
    return SimResponse(spec.status, headers, html.encode("utf-8"), url, spec.delay)


LAYOUTS = ("divs", "html5", "table", "compact", "grid", "cards")
_SERVERS = ("Apache/2.4.58", "nginx/1.24.0", "Microsoft-IIS/10.0", "Apache-Coyote/1.1",
            "nginx/1.25.3", "LiteSpeed")  # fmt: skip


def _server(site: Site) -> str:
    return _SERVERS[site.layout % len(_SERVERS)]


def _doc_bytes(site: Site, spec: PageSpec) -> bytes:
    seed = stable_int(site.name, spec.url)
    if spec.content_type == "application/pdf":
        text = f"{site.brand} brochure".encode()
        stream = b"BT /F1 18 Tf 72 720 Td (" + text + b") Tj ET"
        objs = [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
            b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        ]
        out = b"%PDF-1.4\n"
        for i, o in enumerate(objs, 1):
            out += f"{i} 0 obj\n".encode() + o + b"\nendobj\n"
        out += zlib.compress(seed.to_bytes(8, "big") * 200)  # binary padding
        return out + b"\n%%EOF\n"
    head = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    body = bytes((seed >> (i % 56)) & 0xFF ^ (i * 31 & 0xFF) for i in range(6000))
    return head + body + b"\xff\xd9"


# ------------------------------------------------------------------- HTML


class _Hrefs:
    """Turns canonical URLs into the hrefs a site writes (session ids, relative paths)."""

    def __init__(self, spec: PageSpec, sid: str) -> None:
        site = spec.site
        self.hosts = set(site.hosts)
        self.own = urlsplit(spec.url).netloc
        self.abs = site.abs_links
        self.session = site.session
        self.sid = sid

    def __call__(self, url: str) -> str:
        parts = urlsplit(url)
        if parts.netloc not in self.hosts:
            return escape(url)
        path, query = parts.path, parts.query
        if self.session == "jsessionid":
            path = f"{path};jsessionid={self.sid}"
        elif self.session == "sid":
            query = f"{query}&sid={self.sid}" if query else f"sid={self.sid}"
        rel = path + (f"?{query}" if query else "")
        if self.abs or parts.netloc != self.own:
            return escape(f"http://{parts.netloc}{rel}")
        return escape(rel)


def _links(links: list[tuple[str, str]], href: _Hrefs, style: int, bad: bool) -> str:
    """Links in document order: 0 a list, 3 inline with bars, 4 drop-down menus of up to
    five links, 5 cards."""
    if not links:
        return ""
    if style == 4 and not bad:
        groups = [links[i : i + 5] for i in range(0, len(links), 5)]
        return '<ul class="menu">' + "".join(
            f'<li class="has-sub"><span>{escape(g[0][1])}</span><ul class="sub">'
            + "".join(f'<li><a href="{href(u)}">{escape(a)}</a></li>' for u, a in g)
            + "</ul></li>" for g in groups) + "</ul>"  # fmt: skip
    if style == 5 and not bad:
        return '<div class="cards">' + "".join(
            f'<div class="card"><a class="card-link" href="{href(u)}">{escape(a)}</a></div>'
            for u, a in links) + "</div>"  # fmt: skip
    if style == 3:
        return " | ".join(f'<a href="{href(u)}">{escape(a)}</a>' for u, a in links)
    if bad:
        return (
            "<ul>" + "".join(f"<li><a href={href(u)}>{escape(a)}</a>" for u, a in links) + "</ul>"
        )
    return (
        "<ul>"
        + "".join(f'<li><a href="{href(u)}">{escape(a)}</a></li>' for u, a in links)
        + "</ul>"
    )


def render(spec: PageSpec, sid: str = "", pad: Padder | None = None) -> str:
    """The HTML of a page; with ``pad``, padded to its weight (formhunter.simweb.weight)."""
    site = spec.site
    bad = site.malformed
    lay = site.layout
    px = site.px or _PREFIXES[stable_int(site.name, "px") % len(_PREFIXES)]
    href = _Hrefs(spec, sid)
    forms: dict[int, list[str]] = {NAV_ZONE: [], BODY_ZONE: [], SIDE_ZONE: [], FOOT_ZONE: []}
    js_n = 0
    for zone, fi in spec.forms:
        f = site.forms[fi]
        if f.js_only:
            js_n += 1
            cid = "search-app" if js_n == 1 else f"search-app-{js_n}"
            forms[zone].append(render_js_form(f, cid, href.own))
        else:
            forms[zone].append(render_form(f, f"f{fi}", bad, href.own))
    title = escape(spec.title)
    out: list[str] = []
    if not bad:
        out.append("<!DOCTYPE html>")
    out.append(f'<html lang="{site.lang}"><head><meta charset="utf-8"><title>{title}</title>')
    out.append(f'<meta name="description" content="{escape(spec.title)} at {escape(site.brand)}">')
    head_at = len(out)
    out.append(f'<link rel="stylesheet" href="/css/{px}.css"></head>')
    out.append(f'<body class="{px}-{spec.kind}"><a name="top"></a>')
    text = "".join(
        (f"<p>{escape(p)}" if bad and i % 2 else f"<p>{escape(p)}</p>")
        for i, p in enumerate(spec.text)
    )
    if bad:
        text += "<p><b><i>Prices < $100 this week!</b></i></p>"
    body_links = _links(spec.body, href, 5 if lay == 5 else 0, bad)
    heading = f"<h1>{title}</h1>"
    zones = {
        NAV_ZONE: _nav(spec, href, px, lay, bad) + "".join(forms[NAV_ZONE]),
        BODY_ZONE: heading + text + body_links + "".join(forms[BODY_ZONE]),
        SIDE_ZONE: (_links(spec.side, href, 0, bad) + "".join(forms[SIDE_ZONE])),
        FOOT_ZONE: _footer(spec, href, px, lay, bad) + "".join(forms[FOOT_ZONE]),
    }
    if lay == 0:
        wrap = {
            NAV_ZONE: f'<div id="{px}-header">{{}}</div>',
            BODY_ZONE: f'<div id="{px}-content">{{}}</div>',
            SIDE_ZONE: f'<div id="{px}-sidebar" class="col">{{}}</div>',
            FOOT_ZONE: f'<div id="{px}-footer">{{}}</div>',
        }
    elif lay == 1:
        wrap = {
            NAV_ZONE: "<header>{}</header>",
            BODY_ZONE: "<main><article>{}</article></main>",
            SIDE_ZONE: "<aside>{}</aside>",
            FOOT_ZONE: "<footer>{}</footer>",
        }
    elif lay == 2:
        td_end = "" if bad else "</td>"
        wrap = {
            NAV_ZONE: '<table width="100%"><tr><td colspan="2">{}</td></tr><tr>',
            SIDE_ZONE: '<td width="20%" valign="top">{}' + td_end,
            BODY_ZONE: '<td valign="top">{}' + td_end,
            FOOT_ZONE: ("</tr>" if not bad else "") + '<tr><td colspan="2">{}</td></tr></table>',
        }
    elif lay == 3:
        wrap = {
            NAV_ZONE: f'<div class="{px}-top">{{}}</div><hr>',
            BODY_ZONE: '<div class="content">{}</div>',
            SIDE_ZONE: '<div class="extra">{}</div>',
            FOOT_ZONE: "<hr><small>{}</small>",
        }
    elif lay == 4:
        wrap = {
            NAV_ZONE: f'<nav class="navbar {px}-navbar"><div class="container">{{}}</div></nav>',
            BODY_ZONE: f'<div class="container {px}-main"><div class="row">'
            '<div class="col-md-9">{}</div>',
            SIDE_ZONE: '<div class="col-md-3 {px}-aside">{}</div></div></div>'.replace(
                "{px}", px),
            FOOT_ZONE: f'<footer class="{px}-footer"><div class="container">{{}}</div></footer>',
        }  # fmt: skip
    else:
        wrap = {
            NAV_ZONE: f'<div class="{px}-shell"><div class="{px}-bar" role="navigation">{{}}</div>',
            SIDE_ZONE: f'<section class="{px}-rail">{{}}</section>',
            BODY_ZONE: f'<section class="{px}-stage">{{}}</section>',
            FOOT_ZONE: f'<div class="{px}-end">{{}}</div></div>',
        }  # fmt: skip
    for z in zone_order(lay):
        out.append(wrap[z].replace("{}", zones[z]))
    out.append(
        '<p><a href="mailto:info@' + escape(site.name) + '">Email us</a> '
        '<a href="javascript:void(0)" onclick="window.print()">Print</a></p>'
    )
    if not bad:
        out.append("</body></html>")
    html = "\n".join(out)
    if pad is None:
        return html
    head, tail = pad.pad(site, px, len(html))
    if tail:
        out.insert(len(out) if bad else len(out) - 1, tail)
    if head:
        out.insert(head_at, head)
    return "\n".join(out) if head or tail else html


def _nav(spec: PageSpec, href: _Hrefs, px: str, lay: int, bad: bool) -> str:
    site = spec.site
    brand = escape(site.brand)
    logo = f'<div class="{px}-logo"><img src="/images/logo.png" alt="{brand}"> {brand}</div>'
    return (
        logo
        + f'<nav class="{px}-menu">'
        + _links(spec.nav, href, {3: 3, 5: 4}.get(lay, 0), bad)
        + "</nav>"
    )


def _footer(spec: PageSpec, href: _Hrefs, px: str, lay: int, bad: bool) -> str:
    site = spec.site
    year = 1990 + stable_int(site.name, "year") % 30
    return (
        _links(spec.foot, href, 3 if lay in (2, 3) else 0, bad)
        + f"<p>© {year}-2024 {escape(site.brand)}. All rights reserved.</p>"
    )
