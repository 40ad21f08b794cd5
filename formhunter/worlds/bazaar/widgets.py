"""Forms of the bazaar world: database searches per domain, and the forms around them.

Field names follow the site's platform the way real software names them
(``plain``: ``from``, ``q``; ``camel``: ``departureAirport``; ``rails``:
``search[make]``; ``typo3``: ``tx_shop[author]``; ``jsf``: ``sf:author`` with a view
state; ``aspnet``: ``ctl00$main$txtAuthor``). Labels come in the site's language.
"""

from __future__ import annotations

import random
from html import escape

from formhunter.worlds.bazaar import lexicon as lx
from formhunter.worlds.bazaar.model import FormSpec, SitePlan
from formhunter.worlds.bazaar.vocab import dom, ui

# concept -> (input kind, short names for the plain style)
_FIELDS: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "airfare": {
        "origin": ("text", ("from", "orig", "dep")),
        "destination": ("text", ("to", "dest", "arr")),
        "depart": ("date", ("date1", "outbound", "d1")),
        "return": ("date", ("date2", "inbound", "d2")),
        "passengers": ("count", ("adults", "pax", "ad")),
        "cabin": ("cabin", ("class", "cabin", "cl")),
        "trip": ("trip", ("trip", "type", "rt")),
    },
    "auto": {
        "make": ("make", ("make", "brand", "mk")),
        "model": ("text", ("model", "mdl", "md")),
        "price_to": ("price", ("price_max", "pmax", "maxprice")),
        "year_from": ("year", ("year_min", "ymin", "regfrom")),
        "mileage": ("km", ("km_max", "mileage", "kms")),
        "zip": ("text", ("zip", "postcode", "plz")),
        "body": ("body", ("body", "bodytype", "bt")),
    },
    "book": {
        "keyword": ("text", ("q", "kw", "any")),
        "title": ("text", ("title", "ti", "t")),
        "author": ("text", ("author", "au", "a")),
        "isbn": ("text", ("isbn", "isbn13", "ib")),
        "publisher": ("text", ("publisher", "pub", "pb")),
        "subject": ("subject", ("subject", "su", "cat")),
    },
    "hotel": {
        "destination": ("text", ("city", "dest", "where")),
        "checkin": ("date", ("checkin", "arrival", "from")),
        "checkout": ("date", ("checkout", "departure", "to")),
        "rooms": ("count", ("rooms", "rm", "nr")),
        "guests": ("count", ("adults", "guests", "persons")),
    },
    "job": {
        "keywords": ("text", ("q", "what", "kw")),
        "location": ("text", ("l", "where", "loc")),
        "category": ("jobcat", ("cat", "sector", "field")),
        "contract": ("contract", ("type", "contract", "jt")),
    },
    "movie": {
        "title": ("text", ("title", "q", "film")),
        "genre": ("mgenre", ("genre", "g", "gen")),
        "year": ("year", ("year", "yr", "y")),
        "director": ("text", ("director", "dir", "by")),
        "date": ("date", ("date", "day", "showdate")),
    },
    "music": {
        "artist": ("text", ("artist", "ar", "band")),
        "album": ("text", ("album", "release", "al")),
        "track": ("text", ("track", "song", "tr")),
        "genre": ("sgenre", ("genre", "style", "g")),
        "label": ("text", ("label", "lbl", "lb")),
        "format": ("format", ("format", "media", "fmt")),
    },
    "rental": {
        "pickup": ("text", ("pickup", "pu_loc", "from")),
        "dropoff": ("text", ("dropoff", "do_loc", "to")),
        "pickup_date": ("date", ("pickup_date", "pu_date", "start")),
        "return_date": ("date", ("return_date", "do_date", "end")),
        "age": ("age", ("age", "driver_age", "da")),
        "car_class": ("carclass", ("class", "category", "sipp")),
    },
}
#: the fields a search form of each domain always has, then the optional ones
_CORE: dict[str, tuple[str, ...]] = {
    "airfare": ("origin", "destination", "depart"),
    "auto": ("make", "model"),
    "book": ("title", "author"),
    "hotel": ("destination", "checkin", "checkout"),
    "job": ("keywords", "location"),
    "movie": ("title",),
    "music": ("artist", "album"),
    "rental": ("pickup", "pickup_date", "return_date"),
}
#: a property's or branch's own form (chains): no place field, the place is fixed
_LOCAL: dict[str, tuple[str, ...]] = {
    "hotel": ("checkin", "checkout", "rooms", "guests"),
    "rental": ("pickup_date", "return_date", "age", "car_class"),
    "auto": ("make", "model", "price_to", "body"),
    "movie": ("date", "genre", "title"),
    "job": ("keywords", "category", "contract"),
}
_MONTHS = ("01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12")


def field_name(plan: SitePlan, domain: str, concept: str, variant: int) -> str:
    short = _FIELDS[domain][concept][1][variant % 3]
    camel = "".join(p.capitalize() for p in concept.split("_"))
    style = plan.platform
    if style == "camel":
        return camel[0].lower() + camel[1:]
    if style == "rails":
        return f"search[{concept}]"
    if style == "typo3":
        return f"tx_{domain}[{short}]"
    if style == "jsf":
        return f"sf:{concept}"
    if style == "aspnet":
        return f"ctl00$main$txt{camel}"
    return short


def _options(rng: random.Random, kind: str, lang: str) -> list[tuple[str, str]]:
    anyv = [("", ui("any", lang))]
    if kind == "make":
        return anyv + [(m.lower(), m) for m in lx.MAKES]
    if kind == "body":
        return anyv + [(b.lower(), b) for b in lx.BODY_TYPES]
    if kind == "subject":
        return anyv + [(s.lower(), s) for s in lx.SUBJECTS_BOOK]
    if kind == "mgenre":
        return anyv + [(g.lower(), g) for g in lx.GENRES_MOVIE]
    if kind == "sgenre":
        return anyv + [(g.lower(), g) for g in lx.GENRES_MUSIC]
    if kind == "format":
        return anyv + [(f.lower(), f) for f in lx.FORMATS_MUSIC]
    if kind == "carclass":
        return anyv + [(c.lower(), c) for c in lx.CAR_CLASSES]
    if kind == "cabin":
        return [(c[0].lower() + str(i), c) for i, c in enumerate(lx.CABINS)]
    if kind == "contract":
        return anyv + [(c.lower(), c) for c in lx.CONTRACTS]
    if kind == "jobcat":
        return anyv + [(str(i + 1), t) for i, t in enumerate(lx.JOB_TITLES[lang][:8])]
    if kind == "count":
        return [(str(i), str(i)) for i in range(1, 7)]
    if kind == "age":
        return [(str(a), str(a)) for a in range(18, 76, 1 + rng.randrange(5))]
    if kind == "price":
        return anyv + [(str(p), f"{p:,}") for p in (2000, 5000, 10000, 15000, 20000, 30000)]
    if kind == "km":
        return anyv + [(str(k), f"{k:,} km") for k in (20000, 50000, 100000, 150000)]
    if kind == "year":
        return anyv + [(str(y), str(y)) for y in range(2024, 1994, -2)]
    return []


def _control(
    rng: random.Random, plan: SitePlan, domain: str, concept: str, variant: int, fid: str
) -> str:
    kind = _FIELDS[domain][concept][0]
    name = escape(field_name(plan, domain, concept, variant))
    lang = plan.lang
    label = escape(dom(domain, concept, lang) if concept not in ("trip",) else "")
    if kind == "trip":
        rt, ow = escape(dom(domain, "roundtrip", lang)), escape(dom(domain, "oneway", lang))
        return (
            f'<fieldset class="trip"><label><input type="radio" name="{name}" value="rt" '
            f'checked> {rt}</label> <label><input type="radio" name="{name}" value="ow"> '
            f"{ow}</label></fieldset>"
        )
    if kind == "date":
        style = rng.randrange(3)
        if style == 0:
            inp = f'<input type="date" id="{fid}" name="{name}">'
        elif style == 1:
            ph = "dd.mm.yyyy" if lang in ("de", "pl", "nl") else "dd/mm/yyyy"
            inp = (
                f'<input type="text" id="{fid}" name="{name}" placeholder="{ph}" '
                f'class="datepicker" autocomplete="off">'
            )
        else:
            days = "".join(f"<option>{d}</option>" for d in range(1, 32))
            months = "".join(f"<option>{m}</option>" for m in _MONTHS)
            inp = (
                f'<select id="{fid}" name="{name}_d">{days}</select>'
                f'<select name="{name}_m">{months}</select>'
                f'<select name="{name}_y"><option>2026</option><option>2027</option></select>'
            )
        return f'<div class="field"><label for="{fid}">{label}</label> {inp}</div>'
    opts = _options(rng, kind, lang)
    if opts:
        html_opts = "".join(f'<option value="{escape(v)}">{escape(t)}</option>' for v, t in opts)
        return (
            f'<div class="field"><label for="{fid}">{label}</label> '
            f'<select id="{fid}" name="{name}">{html_opts}</select></div>'
        )
    ph = ""
    if rng.random() < 0.4:
        ph = f' placeholder="{label}"'
    return (
        f'<div class="field"><label for="{fid}">{label}</label> '
        f'<input type="text" id="{fid}" name="{name}"{ph}></div>'
    )


def _hidden(rng: random.Random, plan: SitePlan) -> str:
    if plan.platform == "aspnet":
        return (
            f'<input type="hidden" name="__VIEWSTATE" value="/wEPDw{rng.randrange(10**9)}">'
            '<input type="hidden" name="__EVENTVALIDATION" value="/wEdAA">'
        )
    if plan.platform == "jsf":
        return (
            f'<input type="hidden" name="javax.faces.ViewState" value="-{rng.randrange(10**8)}:0">'
        )
    if plan.platform == "rails":
        return '<input type="hidden" name="utf8" value="&#x2713;">'
    if plan.platform == "typo3":
        return f'<input type="hidden" name="id" value="{rng.randrange(2, 400)}">'
    return ""


def _submit(rng: random.Random, text: str, name: str = "") -> str:
    n = f' name="{name}"' if name else ""
    r = rng.randrange(3)
    if r == 0:
        return f'<input type="submit"{n} value="{escape(text)}">'
    if r == 1:
        return f'<button type="submit"{n} class="btn btn-primary">{escape(text)}</button>'
    return f'<button{n} class="cta"><span class="icon-search"></span> {escape(text)}</button>'


def search_form(
    rng: random.Random,
    plan: SitePlan,
    domain: str,
    action: str,
    *,
    fields: tuple[str, ...] | None = None,
    extra: int = 2,
    method: str = "GET",
    js_only: bool = False,
    heading: str = "",
    variant: int | None = None,
    answers: bool = True,
) -> FormSpec:
    """A database search of ``domain`` posting to ``action`` (a path of the site)."""
    v = rng.randrange(3) if variant is None else variant
    if fields is None:
        optional = [c for c in _FIELDS[domain] if c not in _CORE[domain]]
        rng.shuffle(optional)
        fields = (*_CORE[domain], *optional[: min(extra, len(optional))])
    fid = f"f{rng.randrange(100, 999)}"
    controls = "".join(
        _control(rng, plan, domain, c, v, f"{fid}-{i}") for i, c in enumerate(fields)
    )
    words = (ui("search", plan.lang), ui("find", plan.lang), dom(domain, "section", plan.lang))
    sub = _submit(rng, words[rng.randrange(2)], "submit" if plan.platform == "plain" and v else "")
    head = f"<h3>{escape(heading)}</h3>" if heading else ""
    cls = rng.choice(("search-box", "finder", "booking-widget", "sform", "quicksearch"))
    html = (
        f'<form class="{cls}" action="{escape(action)}" method="{method.lower()}">{head}'
        f"{_hidden(rng, plan)}{controls}{sub}</form>"
    )
    return FormSpec(
        html, "search", True, domain, True, js_only, answers and method == "GET", method, action
    )


def local_form(
    rng: random.Random, plan: SitePlan, domain: str, action: str, heading: str
) -> FormSpec:
    """The form of one property or branch (a chain): its fields fix the place."""
    fields = _LOCAL[domain][: 2 + rng.randrange(len(_LOCAL[domain]) - 1)]
    return search_form(rng, plan, domain, action, fields=fields, heading=heading)


def site_search(rng: random.Random, plan: SitePlan, action: str) -> FormSpec:
    """The site-search box of the header: searchable, of no database domain."""
    name = rng.choice(("q", "s", "query", "search", "keys", "term"))
    label = escape(ui("site_search", plan.lang))
    btn = rng.choice(
        (
            f'<button type="submit">{escape(ui("search", plan.lang))}</button>',
            f'<input type="submit" value="{escape(ui("search", plan.lang))}">',
            '<button type="submit" aria-label="search">&#128269;</button>',
        )
    )
    html = (
        f'<form role="search" class="site-search" action="{escape(action)}" method="get">'
        f'<input type="search" name="{name}" aria-label="{label}" placeholder="{label}">'
        f"{btn}</form>"
    )
    return FormSpec(html, "site-search", True, "", False, False, True, "GET", action)


def login_form(plan: SitePlan, action: str) -> FormSpec:
    lang = plan.lang
    html = (
        f'<form class="login" action="{action}" method="post">'
        f'<label>{escape(ui("username", lang))} <input type="text" name="username"></label>'
        f'<label>{escape(ui("password", lang))} <input type="password" name="password">'
        f'</label><input type="submit" value="{escape(ui("login", lang))}"></form>'
    )
    return FormSpec(html, "login", False, method="POST", action=action)


def newsletter_form(plan: SitePlan, action: str) -> FormSpec:
    lang = plan.lang
    html = (
        f'<form class="newsletter" action="{action}" method="post">'
        f"<p>{escape(ui('newsletter', lang))}</p>"
        f'<input type="email" name="email" placeholder="{escape(ui("email", lang))}">'
        f'<button type="submit">{escape(ui("subscribe", lang))}</button></form>'
    )
    return FormSpec(html, "newsletter", False, method="POST", action=action)


def contact_form(plan: SitePlan, action: str) -> FormSpec:
    lang = plan.lang
    html = (
        f'<form class="contact" action="{action}" method="post">'
        f'<label>{escape(ui("name", lang))} <input type="text" name="name"></label>'
        f'<label>{escape(ui("email", lang))} <input type="email" name="email"></label>'
        f'<label>{escape(ui("message", lang))} <textarea name="message"></textarea></label>'
        f'<input type="submit" value="{escape(ui("send", lang))}"></form>'
    )
    return FormSpec(html, "contact", False, method="POST", action=action)


def comment_form(plan: SitePlan, action: str, post_id: int) -> FormSpec:
    lang = plan.lang
    html = (
        f'<form id="commentform" action="{action}" method="post">'
        f"<h3>{escape(ui('comment', lang))}</h3>"
        f'<textarea name="comment"></textarea>'
        f'<input type="text" name="author" placeholder="{escape(ui("name", lang))}">'
        f'<input type="email" name="email" placeholder="{escape(ui("email", lang))}">'
        f'<input type="hidden" name="comment_post_ID" value="{post_id}">'
        f'<input type="submit" value="{escape(ui("send", lang))}"></form>'
    )
    return FormSpec(html, "comment", False, method="POST", action=action)


def near_miss(rng: random.Random, plan: SitePlan, domain: str, action: str) -> FormSpec:
    """A form about ``domain`` that queries nothing: an offer request or an alert sign-up
    with the domain's fields and an e-mail address (POST)."""
    lang = plan.lang
    opts = [c for c in _FIELDS[domain] if _FIELDS[domain][c][0] in ("text", "date")][:3]
    fid = f"n{rng.randrange(100, 999)}"
    controls = "".join(_control(rng, plan, domain, c, 0, f"{fid}-{i}") for i, c in enumerate(opts))
    title = ui(rng.choice(("request", "alerts")), lang)
    html = (
        f'<form class="enquiry" action="{action}" method="post"><h3>{escape(title)}</h3>'
        f"{controls}"
        f'<label>{escape(ui("email", lang))} <input type="email" name="email"></label>'
        f'<label>{escape(ui("message", lang))} <textarea name="remarks"></textarea></label>'
        f'<input type="submit" value="{escape(ui("send", lang))}"></form>'
    )
    return FormSpec(html, "near-miss", False, domain, False, False, False, "POST", action)


def fake_search(rng: random.Random, plan: SitePlan, domain: str, action: str) -> FormSpec:
    """Looks like a database search of ``domain`` (GET, the domain's fields) but fronts
    nothing: its action answers the same page whatever is asked (an affiliate teaser)."""
    spec = search_form(rng, plan, domain, action, extra=0, answers=False)
    return FormSpec(
        spec.html.replace('class="', 'class="teaser ', 1),
        "fake-search",
        False,
        domain,
        False,
        False,
        False,
        "GET",
        action,
    )
