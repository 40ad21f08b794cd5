"""Page weight: realistic boilerplate that pads served HTML pages to about ``page_kb`` KB.

The simulated web's pages are light (about 5 KB); real HTML documents often weigh
50-150 KB: inline scripts with JSON state, style blocks, mega-menus, icon sprites,
consent banners, tracking markup. ``SimWeb(page_kb=N)`` adds such markup to every
200 HTML page (never to redirects, errors, documents, robots.txt or the huge page)
until the page is about ``N`` KB; a page already that large is left as it is.

What the padding adds, per page:

head  a ``<style>`` block (custom properties, component rules, media queries), a
      ``<script type="application/ld+json">`` (Organization, WebSite) and an inline
      ``<script>`` assigning a JSON state blob (config, experiments, i18n strings,
      lazy modules);
body  after everything else: an SVG icon sprite, a hidden cookie-consent dialog and
      a legal notice (the only visible text: fixed, non-topical), then nested
      ``div``/``section``/``ul``/``span``/``svg`` markup with classes and ``data-``
      attributes (mega-menu columns with empty labels, card skeletons, icon toolbars,
      tracking beacons, client-side ``<template>`` chunks).

Contract: no ``<a>``, ``<area>``, ``<iframe>``, ``<frame>``, ``<form>``, form control,
heading, ``<base>``, ``<meta>``, ``<img>`` or ``url(...)``, no markup inside scripts and
no marker that ``formhunter.fetch.needs_render`` reacts to. So ``parse_page`` finds the
same links (with the same anchors, ``around`` words and leaf numbers) and the same
forms on a padded page as on the unpadded one; the sprite's empty leaves come first,
so the five leaves on either side of every link are unchanged as well. The truth
(built from ``PageSpec``, not from HTML) is not touched.

The markup is deterministic in the web's seed, the site's class prefix and the site.
It is built once per class prefix (at most ten) and per site, cached, and cut per
page at unit boundaries: a page costs a few slices and one join.
"""

from __future__ import annotations

import json
import random
from bisect import bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING

from formhunter.exceptions import UsageError
from formhunter.simweb.sites import stable_int

if TYPE_CHECKING:
    from formhunter.simweb.sites import Site

__all__ = ["PAGE_KB_MAX", "Padder", "check_page_kb"]

#: The largest page weight accepted (KB of HTML per page).
PAGE_KB_MAX = 2048

# shares of the missing bytes: style block, scripts (ld+json, then the state blob);
# the body markup takes the rest
_STYLE_SHARE = 0.18
_SCRIPT_SHARE = 0.30
_STATE_SLACK = 16_384

_WORDS = (
    "account",
    "settings",
    "language",
    "currency",
    "help",
    "privacy",
    "terms",
    "profile",
    "orders",
    "wishlist",
    "compare",
    "share",
    "print",
    "feedback",
    "newsletter",
    "careers",
    "press",
    "partners",
    "investors",
    "sitemap",
    "status",
    "security",
    "cookies",
    "alerts",
    "support",
    "community",
    "events",
    "gallery",
    "media",
    "offers",
    "rewards",
    "updates",
)
_ICONS = (
    "menu",
    "close",
    "user",
    "cart",
    "heart",
    "share",
    "globe",
    "bell",
    "chevron",
    "star",
    "info",
    "check",
)
_COOKIE_TEXT = (
    "We and our partners use cookies and similar technologies to keep this site secure, "
    "remember your preferences, measure audiences and personalise content and advertising. "
    "You can accept all cookies, reject the optional ones or choose which categories to "
    "allow. You can change your choice at any time in the privacy settings."
)
_LEGAL_TEXT = (
    "All trademarks and registered trademarks mentioned on this site are the property of "
    "their respective owners. Use of this site constitutes acceptance of our terms of use "
    "and privacy notice. Personal data are processed in accordance with applicable data "
    "protection law; see the privacy notice for your rights of access, rectification and "
    "erasure."
)


def check_page_kb(value: int, flag: str = "page_kb") -> int:
    """``value`` if it is a valid page weight (0 = off, else KB per page); UsageError if not."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= PAGE_KB_MAX:
        raise UsageError(
            f"{flag} must be an integer from 0 (off) to {PAGE_KB_MAX} (KB of HTML per page),"
            f" got {value!r}"
        )
    return value


class _Stream:
    """Units of markup joined into one string; ``take(n)`` is the longest prefix of whole
    units of at most ``n`` characters (a slice, no copy of the units)."""

    __slots__ = ("ends", "text")

    def __init__(self, units: list[str], sep: str = "") -> None:
        self.text = sep.join(units)
        ends, pos = [0], -len(sep)
        for u in units:
            pos += len(sep) + len(u)
            ends.append(pos)
        self.ends = ends

    def take(self, n: int) -> str:
        return self.text[: self.ends[bisect_right(self.ends, n) - 1]] if n > 0 else ""


def _fill(
    make: list[str], r: random.Random, size: int, unit: Callable[[random.Random, int], str]
) -> list[str]:
    """Append ``unit(r, k)`` strings to ``make`` until they hold ``size`` characters."""
    total, k = sum(map(len, make)), len(make)
    while total < size:
        s = unit(r, k)
        make.append(s)
        total += len(s) + 1
        k += 1
    return make


def _hex(r: random.Random, n: int) -> str:
    return f"{r.getrandbits(4 * n):0{n}x}"


def _path(r: random.Random) -> str:
    """Plausible SVG path data (an icon drawn on a 24 x 24 grid)."""
    parts = [f"M{r.randint(2, 12)} {r.randint(2, 12)}"]
    for _ in range(r.randint(4, 9)):
        op = r.choice("lhvacL")
        if op == "a":
            parts.append(
                f"a{r.randint(1, 9)} {r.randint(1, 9)} 0 {r.randint(0, 1)} "
                f"{r.randint(0, 1)} {r.randint(-8, 8)} {r.randint(-8, 8)}"
            )
        elif op == "c":
            parts.append("c" + " ".join(str(r.randint(-9, 9)) for _ in range(6)))
        elif op in "hv":
            parts.append(f"{op}{r.randint(-10, 10)}")
        else:
            parts.append(f"{op}{r.randint(-9, 9)} {r.randint(-9, 9)}")
    return "".join(parts) + "z"


class Padder:
    """Pads the HTML pages of one SimWeb to about ``page_kb`` KB (see the module doc)."""

    def __init__(self, seed: int, page_kb: int) -> None:
        self.seed = seed
        self.page_kb = check_page_kb(page_kb)
        self.target = page_kb * 1024
        self._streams: dict[str, tuple[_Stream, _Stream, str, _Stream]] = {}
        self._sites: dict[int, tuple[str, str, str, str]] = {}

    def pad(self, site: Site, px: str, size: int) -> tuple[str, str]:
        """(head markup, body markup) that bring a page of ``size`` characters to about
        ``page_kb`` KB; ("", "") when the page is that large already. The head markup
        goes right after the ``<meta name=description>``, the body markup after the
        last element of the body."""
        need = self.target - size - 2  # two joining newlines
        if need <= 0:
            return "", ""
        css, state, sprite, body = self._px_streams(px)
        ld, state_open, state_close, notice = self._site_bits(site, px)
        head: list[str] = []
        style_open, style_close = f'<style id="{px}-base">', "</style>"
        rules = css.take(int(need * _STYLE_SHARE) - len(style_open) - len(style_close))
        if rules:
            head.append(style_open + rules + style_close)
        if len(ld) < need * _SCRIPT_SHARE:
            head.append(ld)
        used = sum(len(h) + 1 for h in head)
        # the body takes what the scripts leave; the state blob (small items) the rest
        room = need - used - int(need * _SCRIPT_SHARE)
        tail = ""
        if len(sprite) + len(notice) < room:  # the sprite first: see the module doc
            tail = sprite + "\n" + notice + body.take(room - len(sprite) - len(notice) - 1)
        room = need - used - len(tail) - len(state_open) - len(state_close) - 1
        items = state.take(room)
        if items:
            head.append(state_open + items + state_close)
        return "\n".join(head), tail

    # ------------------------------------------------------------- building blocks

    def _px_streams(self, px: str) -> tuple[_Stream, _Stream, str, _Stream]:
        """The style rules, state items, icon sprite and body units of one class prefix
        (cached)."""
        hit = self._streams.get(px)
        if hit is None:
            r = random.Random(stable_int("weight", self.seed, px))
            css = _fill(
                [f":root{{{self._props(r, px)}}}"],
                r,
                int(self.target * _STYLE_SHARE),
                lambda r, k: self._rule(r, px, k),
            )
            # the state blob also fills in for a body unit, or for the whole body of a
            # page that needs only a few KB
            state = _fill([], r, int(self.target * _SCRIPT_SHARE) + _STATE_SLACK, self._item)
            sprite = self._sprite(r, px)
            body = _fill([], r, self.target, lambda r, k: self._unit(r, px, k))
            hit = self._streams[px] = (
                _Stream(css, "\n"),
                _Stream(state, ","),
                sprite,
                _Stream(body, "\n"),
            )
        return hit

    def _site_bits(self, site: Site, px: str) -> tuple[str, str, str, str]:
        """(ld+json script, state script opening and closing, consent dialog and legal
        notice) of one site (cached)."""
        hit = self._sites.get(site.index)
        if hit is None:
            h = stable_int("weight", self.seed, site.index)
            logo = site.home.rstrip("/") + "/images/logo.png"
            ld = {
                "@context": "https://schema.org",
                "@graph": [
                    {
                        "@type": "Organization",
                        "@id": "#org",
                        "name": site.brand,
                        "url": site.home,
                        "logo": logo,
                        "foundingDate": str(1990 + h % 30),
                    },
                    {
                        "@type": "WebSite",
                        "name": site.brand,
                        "url": site.home,
                        "inLanguage": "en",
                        "publisher": {"@id": "#org"},
                    },
                ],
            }
            config = {
                "build": f"{h:016x}"[:12],
                "env": "production",
                "locale": "en-US",
                "site": {"id": site.index, "brand": site.brand, "layout": site.layout},
                "consent": {"version": h % 7 + 1, "region": "eu"},
                "features": {w: bool(h >> i & 1) for i, w in enumerate(_WORDS[:12])},
            }
            var = f"__{px.upper()}_STATE__"
            state_open = f'<script>window.{var}={_js(config)[:-1]},"modules":['
            state_close = "]};</script>"
            notice = (
                f'<div id="{px}-consent" class="{px}-consent" role="dialog" aria-modal="true" '
                f'aria-label="Cookie consent" data-consent-version="{h % 7 + 1}" hidden>'
                f'<div class="{px}-consent__inner"><p class="{px}-consent__txt">{_COOKIE_TEXT}'
                f'</p><div class="{px}-consent__btns"><button type="button" class="{px}-btn '
                f'{px}-btn--primary" data-consent="all">Accept all</button><button '
                f'type="button" class="{px}-btn" data-consent="necessary">Reject optional'
                f'</button><button type="button" class="{px}-btn {px}-btn--link" '
                f'data-consent="settings">Cookie settings</button></div></div></div>\n'
                f'<div class="{px}-legal" data-region="legal"><p class="{px}-legal__txt">'
                f"{_LEGAL_TEXT}</p></div>\n"
            )
            hit = self._sites[site.index] = (
                f'<script type="application/ld+json">{_js(ld)}</script>',
                state_open,
                state_close,
                notice,
            )
        return hit

    @staticmethod
    def _props(r: random.Random, px: str) -> str:
        names = ("primary", "accent", "ink", "muted", "line", "bg", "surface", "focus")
        props = [f"--{px}-{n}:#{_hex(r, 6)}" for n in names]
        props += [f"--{px}-space-{i}:{4 * i}px" for i in range(1, 9)]
        props.append(f"--{px}-radius:{r.randint(2, 12)}px")
        props.append(f"--{px}-font:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif")
        return ";".join(props)

    @staticmethod
    def _rule(r: random.Random, px: str, k: int) -> str:
        block = r.choice(("mm", "card", "tb", "consent", "legal", "rail", "ph", "ico", "btn"))
        elem = r.choice(("", "__inner", "__item", "__lbl", "__media", "__body", "__i"))
        mod = r.choice(("", "", f"--{r.choice(_WORDS)}", "--sm", "--lg", "--active"))
        sel = f".{px}-{block}{elem}{mod}"
        if r.random() < 0.3:
            sel += r.choice((":hover", ":focus-visible", ">li", " span", "::before"))
        decls = ";".join(_decl(r, px) for _ in range(r.randint(2, 6)))
        rule = f"{sel}{{{decls}}}"
        if k % 17 == 0:
            rule = f"@media (min-width:{r.choice((576, 768, 992, 1200))}px){{{rule}}}"
        return rule

    @staticmethod
    def _item(r: random.Random, k: int) -> str:
        kind = r.choice(("module", "experiment", "i18n", "beacon"))
        if kind == "module":
            obj: dict[str, object] = {
                "id": f"m-{k}",
                "type": r.choice(_WORDS),
                "slot": f"s{r.randint(1, 12)}",
                "lazy": r.random() < 0.7,
                "w": r.choice((320, 480, 640, 960)),
                "h": r.choice((90, 180, 250, 360)),
                "ttl": r.choice((300, 900, 3600)),
                "deps": [f"m-{r.randrange(max(k, 1))}" for _ in range(r.randint(0, 3))],
            }
        elif kind == "experiment":
            obj = {
                "id": f"exp-{k}",
                "variant": r.choice("abcd"),
                "weight": r.randint(1, 99),
                "since": 1_700_000_000 + r.randrange(30_000_000),
            }
        elif kind == "i18n":
            w = r.choice(_WORDS)
            obj = {
                "key": f"ui.{w}.{k}",
                "en": f"{w.capitalize()} {r.choice(_WORDS)}",
                "fr": f"{r.choice(_WORDS)} {k}",
                "de": f"{r.choice(_WORDS)}-{k}",
            }
        else:
            obj = {
                "event": f"{r.choice(_WORDS)}_view",
                "cid": _hex(r, 16),
                "sample": r.randint(1, 100) / 100,
                "dims": [r.randint(0, 9) for _ in range(4)],
            }
        return _js(obj)

    @staticmethod
    def _sprite(r: random.Random, px: str) -> str:
        """An SVG sprite: only empty leaves (the paths), so links keep their neighbours."""
        syms = "".join(
            f'<symbol id="{px}-i-{name}" viewBox="0 0 24 24"><path d="{_path(r)}"/>'
            f'<path d="{_path(r)}"/></symbol>'
            for name in _ICONS
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="{px}-sprite" aria-hidden="true" '
            f'style="display:none">{syms}</svg>'
        )

    @staticmethod
    def _unit(r: random.Random, px: str, k: int) -> str:
        kind = k % 5
        w = r.choice(_WORDS)
        if kind == 0:  # a mega-menu column, labels filled in by the i18n script
            items = "".join(
                f'<li class="{px}-mm__item" data-menu-id="{k}-{i}" data-depth="{r.randint(1, 3)}">'
                f'<span class="{px}-mm__lbl" data-i18n="mm.{w}.{k}.{i}"></span>'
                f'<svg class="{px}-ico {px}-ico--sm" aria-hidden="true" focusable="false">'
                f'<use href="#{px}-i-{r.choice(_ICONS)}"/></svg></li>'
                for i in range(r.randint(5, 10))
            )
            return (
                f'<div class="{px}-mm__col" data-col="{k}" data-track="mm:{w}:{k}" hidden>'
                f'<ul class="{px}-mm__list">{items}</ul></div>'
            )
        if kind == 1:  # a lazy rail of card skeletons
            cards = "".join(
                f'<div class="{px}-card {px}-card--ph" data-pos="{i}" data-impression-id='
                f'"{_hex(r, 12)}"><div class="{px}-card__media" style="aspect-ratio:'
                f'{r.choice(("4/3", "16/9", "1/1"))}"></div><div class="{px}-card__body">'
                f'<span class="{px}-ph {px}-ph--w{r.choice((40, 60, 80))}"></span>'
                f'<span class="{px}-ph {px}-ph--w{r.choice((30, 50, 70))}"></span></div></div>'
                for i in range(r.randint(3, 6))
            )
            return (
                f'<section class="{px}-rail" data-module="{w}-rail" data-lazy="true" '
                f'data-exp="exp-{k}-{r.choice("abcd")}"><div class="{px}-rail__track">'
                f"{cards}</div></section>"
            )
        if kind == 2:  # an icon toolbar with inline SVG
            icons = "".join(
                f'<span class="{px}-tb__i" data-action="{r.choice(_WORDS)}"><svg class="{px}-ico" '
                f'viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">'
                f'<path d="{_path(r)}"/></svg></span>'
                for _ in range(r.randint(3, 6))
            )
            return f'<div class="{px}-tb" role="toolbar" data-track="tb-{w}-{k}">{icons}</div>'
        if kind == 3:  # tracking beacons
            return "".join(
                f'<div class="{px}-tp" aria-hidden="true" data-gtm="GTM-{_hex(r, 7).upper()}" '
                f'data-event="{r.choice(_WORDS)}_view" '
                f'data-ts="{r.randrange(1_700_000_000, 1_710_000_000)}" '
                f'data-cid="{_hex(r, 16)}" style="position:absolute;width:1px;height:1px;'
                f'overflow:hidden;clip:rect(0 0 0 0)"></div>'
                for _ in range(r.randint(2, 4))
            )
        rows = "".join(  # a client-side template (not visible until a script clones it)
            f'<li class="{px}-{w}__row" data-bind="rows.{i}"><span class="{px}-{w}__k" '
            f'data-bind="rows.{i}.k"></span><span class="{px}-{w}__v" data-bind="rows.{i}.v">'
            f"</span></li>"
            for i in range(r.randint(3, 8))
        )
        return (
            f'<template id="{px}-tpl-{k}" data-tpl="{w}"><div class="{px}-{w}-tile" '
            f'data-bind="item"><ul class="{px}-{w}__rows">{rows}</ul></div></template>'
        )


def _decl(r: random.Random, px: str) -> str:
    """One CSS declaration."""
    k = r.randrange(12)
    if k == 0:
        return f"display:{r.choice(('flex', 'grid', 'block', 'inline-flex', 'none'))}"
    if k == 1:
        return f"gap:var(--{px}-space-{r.randint(1, 8)})"
    if k == 2:
        return f"padding:{r.randint(0, 24)}px {r.randint(0, 32)}px"
    if k == 3:
        return f"margin:0 0 {r.randint(0, 24)}px"
    if k == 4:
        return f"color:var(--{px}-{r.choice(('ink', 'muted', 'primary'))})"
    if k == 5:
        return f"background:var(--{px}-{r.choice(('bg', 'surface', 'accent'))})"
    if k == 6:
        return f"border:1px solid var(--{px}-line);border-radius:var(--{px}-radius)"
    if k == 7:
        return (
            f"font:{r.choice((400, 500, 700))} {r.randint(12, 20)}px/"
            f"{r.randint(12, 18) / 10} var(--{px}-font)"
        )
    if k == 8:
        return f"transition:{r.choice(('opacity', 'transform', 'color'))} .{r.randint(1, 4)}s ease"
    if k == 9:
        return f"grid-template-columns:repeat({r.randint(2, 6)},minmax(0,1fr))"
    if k == 10:
        return (
            f"box-shadow:0 {r.randint(1, 8)}px {r.randint(2, 24)}px rgba(0,0,0,.{r.randint(5, 30)})"
        )
    return f"max-width:{r.randint(32, 120) * 10}px;width:{r.randint(10, 100)}%"


def _js(obj: object) -> str:
    """Compact JSON that is safe inside a ``<script>`` element."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).replace("</", "<\\/")
