"""HTML of a bazaar page: head, header (logo, header forms, nav), main, footer, scripts.

Sites differ in markup the way real ones do (class names, a CSS framework's
boilerplate, analytics and cookie scripts of several KB, JSON-LD). A site with the
``jsnav`` flag (and every ``jsapp``) builds its menu with a script; a ``js_only``
form is written into the page by a script. Sites with the ``sid`` flag put a
session id into every internal link (``;jsessionid=`` on Java platforms, ``sid=``
elsewhere).
"""

from __future__ import annotations

import json
from functools import lru_cache
from html import escape

from formhunter.worlds.bazaar.model import FormSpec, Link, Page, SitePlan, stable_int

_FRAMEWORKS = (
    ("container", "row", "col-md-8", "navbar navbar-expand-lg"),
    ("wrapper", "grid", "grid__main", "site-nav"),
    ("l-page", "l-row", "l-content", "c-menu"),
    ("page", "content-area", "site-main", "main-navigation"),
)


@lru_cache(maxsize=1024)
def _style(idx: int, seed: int) -> str:
    """Inline CSS of a site: a few hundred bytes to ~12 KB, fixed per site."""
    n = 10 + stable_int(seed, idx, "css") % 140
    rules = []
    for i in range(n):
        h = stable_int(seed, idx, i)
        rules.append(
            f".c{i:03d}-{h % 97:x}{{margin:{h % 17}px {h % 23}px;color:#{h % 0xFFFFFF:06x};"
            f"font-size:{12 + h % 9}px;line-height:1.{h % 9}}}"
        )
    return "\n".join(rules)


@lru_cache(maxsize=1024)
def _analytics(idx: int, seed: int) -> str:
    h = stable_int(seed, idx, "ga")
    cfg = json.dumps(
        {
            "id": f"UA-{h % 10**8}-{h % 9 + 1}",
            "anonymize": True,
            "cookie_expires": 63072000,
            "consent": ["necessary", "statistics", "marketing"],
        }
    )
    return (
        f"window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments);}}"
        f"gtag('js',new Date());gtag('config',{cfg});"
        "(function(){var c=document.cookie.indexOf('consent=')<0;if(c){var b=document."
        "createElement('div');b.className='cookie-banner';b.innerHTML='We use cookies.';"
        "document.body&&document.body.appendChild(b);}})();"
    )


def session_id(plan: SitePlan, seed: int) -> str:
    return f"{stable_int(seed, plan.idx, 'sid'):016x}"[:16].upper()


def _href(url: str, plan: SitePlan, sid: str) -> str:
    """The link as the page writes it: same-host links relative, with a session id."""
    prefix = f"http://{plan.host}"
    if not url.startswith(prefix + "/"):
        return url
    rel = url[len(prefix) :]
    if not sid:
        return rel if plan.idx % 3 else url
    if plan.platform == "jsf":
        path, q, query = rel.partition("?")
        return f"{path};jsessionid={sid}{q}{query}"
    return f"{rel}{'&' if '?' in rel else '?'}sid={sid.lower()}"


def _links(links: list[Link], plan: SitePlan, sid: str, cls: str = "") -> str:
    items = "".join(
        f'<li><a href="{escape(_href(u, plan, sid))}">{escape(a)}</a></li>' for u, a in links
    )
    return f'<ul class="{cls}">{items}</ul>' if items else ""


def _form(f: FormSpec, n: int) -> str:
    if not f.js_only:
        return f.html
    js = json.dumps(f.html).replace("</", "<\\/")
    return (
        f'<div id="app-form-{n}" class="app-mount"><div class="spinner"></div></div>'
        f"<script>(function(){{var m=document.getElementById('app-form-{n}');"
        f"m.innerHTML={js};}})();</script>"
    )


def render(pg: Page, seed: int) -> bytes:
    """The page's HTML (UTF-8)."""
    plan = pg.plan
    if pg.status in (301, 302):
        return (
            f'<html><head><title>{pg.status} Moved</title></head><body><a href="'
            f'{escape(pg.redirect_to or "/")}">moved here</a></body></html>'
        ).encode()
    sid = session_id(plan, seed) if "sid" in plan.flags else ""
    fw = _FRAMEWORKS[plan.idx % len(_FRAMEWORKS)]
    lang = plan.lang
    desc = escape(" ".join(pg.paragraphs)[:155])
    out = [
        f'<!DOCTYPE html>\n<html lang="{lang}"><head><meta charset="utf-8">',
        f"<title>{escape(pg.title)}</title>",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="description" content="{desc}">',
        f'<link rel="stylesheet" href="/assets/css/site.{stable_int(plan.idx) % 10**6}.css">',
        f"<style>{_style(plan.idx, seed)}</style>",
        f"<script>{_analytics(plan.idx, seed)}</script>",
        f'</head><body class="{fw[0]} page-{escape(pg.kind)}">',
    ]
    home = _href(f"http://{plan.host}/", plan, sid)
    out.append(
        f'<header class="site-header"><a class="logo" href="{escape(home)}">'
        f"{escape(plan.brand)}</a>"
    )
    forms = pg.forms
    n_form = 0
    for f in forms[: pg.n_header]:
        out.append(_form(f, n_form))
        n_form += 1
    jsnav = "jsnav" in plan.flags or plan.archetype == "jsapp"
    if jsnav:
        menu = json.dumps([[_href(u, plan, sid), a] for u, a in pg.nav], ensure_ascii=False)
        out.append(
            f'<nav id="menu" class="{fw[3]}"></nav><script>(function(){{var m={menu};'
            "var n=document.getElementById('menu');m.forEach(function(x){var a=document."
            "createElement('a');a.href=x[0];a.textContent=x[1];n.appendChild(a);});})();"
            "</script>"
        )
    else:
        out.append(f'<nav class="{fw[3]}">{_links(pg.nav, plan, sid, "menu")}</nav>')
    out.append(f'</header><main class="{fw[1]}"><div class="{fw[2]}">')
    out.append(f"<h1>{escape(pg.heading or pg.title)}</h1>")
    for para in pg.paragraphs:
        out.append(f"<p>{escape(para)}</p>")
    if pg.table:
        rows = "".join(
            "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in pg.table
        )
        out.append(f'<table class="data">{rows}</table>')
    footer_forms = [f for f in forms[pg.n_header :] if f.kind == "newsletter"]
    for f in forms[pg.n_header :]:
        if f.kind != "newsletter":
            out.append(_form(f, n_form))
            n_form += 1
    out.append(_links(pg.links, plan, sid, "links"))
    out.append('</div></main><footer class="site-footer">')
    out.append(_links(pg.footer, plan, sid, "footer-links"))
    for f in footer_forms:
        out.append(_form(f, n_form))
        n_form += 1
    out.append(f"<p>&copy; 2026 {escape(plan.brand)}</p></footer>")
    out.append(
        f'<script src="/assets/js/app.{stable_int(plan.idx, "js") % 10**6}.js" defer>'
        "</script></body></html>"
    )
    return "".join(out).encode("utf-8")


def not_found(plan: SitePlan | None) -> bytes:
    brand = escape(plan.brand) if plan else "Not found"
    return (
        f"<!DOCTYPE html><html><head><title>404 - {brand}</title></head><body>"
        f"<h1>404</h1><p>The page you requested does not exist.</p></body></html>"
    ).encode()
