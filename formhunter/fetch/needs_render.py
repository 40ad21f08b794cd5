"""Does a statically parsed page need rendering? (``--render auto``)

``needs_render(page, html)`` looks at the raw HTML (cheap string and regular
expression checks on the lower-cased text, no second DOM) and at the forms the
static parse found, and says whether a script probably builds a form that the
static parse cannot see. It returns a ``RenderDecision`` (truthy when the page
should be rendered) whose ``reason`` names the first signal that fired.

A page without any ``<script`` element is never rendered: nothing on it can
build a form. Otherwise the signals, checked in this order, are:

``script-builds-form``
    An inline script (or a ``text/template``-like script) creates a form
    (``createElement('form')``) or holds form markup (``<form``) in a string,
    or creates ``input``/``select`` elements *and* speaks of searching
    (search, query, keyword, find). A bare ``createElement('input')`` or
    ``'textarea'`` is not enough: clipboard helpers and trackers do that.
    JSON data scripts (``application/json``, ``ld+json``) are not read.
``empty-form``
    A ``<form>`` of the static parse without a single control: scripts fill it.
``empty-container``
    An element with nothing but white space inside whose id, class or
    ``data-*`` attribute names a search box or form (tokens like ``search``,
    ``search-app``, ``finder``, ``query``, ``booking``, ``form``, or an
    attribute such as ``data-search``): the mount point of a search widget.
``empty-mount``
    An empty element with a single-page-app mount id (``root``, ``app``,
    ``__next``, ``__nuxt``, ``react-root``, ...) or an AngularJS view
    placeholder (``ng-view``, ``ui-view``, ``ng-include``).
``orphan-search-input``
    A search-like input (``type=search``, or named ``q``/``query``/``search``/
    ``keyword(s)``/``searchterm``, or a placeholder saying search) in the HTML
    while no parsed form has one: a search box that a script wires up or wraps
    in a form.
``app-shell``
    Almost no visible text (fewer than ``SHELL_WORDS`` words) and no form, with
    a framework marker (``ng-app``, ``data-reactroot``, ``__NEXT_DATA__``,
    ``__NUXT__``, ``data-server-rendered``, ``ng-version``), a ``<noscript>``
    asking for JavaScript, or at least ``SHELL_SCRIPTS`` external scripts: a
    page that is blank until its scripts run.

Pages that fire none of them (a page with analytics snippets, jQuery helpers,
a server-rendered app with its forms in place) are not rendered. The checks
cost well under a millisecond on a 100 KB page, a small part of the parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from formhunter.model import Form, Page

__all__ = ["SHELL_SCRIPTS", "SHELL_WORDS", "RenderDecision", "needs_render"]

#: An app shell shows fewer visible words than this ...
SHELL_WORDS = 40
#: ... or loads at least this many external scripts (with no form and little text).
SHELL_SCRIPTS = 3

_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.DOTALL)
_SCRIPT_TYPE = re.compile(r"""\btype\s*=\s*["']?([^"'\s>]+)""")
_SCRIPT_SRC = re.compile(r"<script\b[^>]*\bsrc\s*=")
_DATA_TYPES = ("json", "ld+json", "importmap", "speculationrules")
_CREATE_FORM = re.compile(r"""createelement\(\s*["'`]form["'`]""")
# markup of a visible control: <select, <textarea, or <input that is not type=hidden
_VISIBLE_CONTROL = re.compile(
    r"""<(?:select|textarea)\b|<input\b(?![^<>]{0,80}?type\s*=\s*\\?["']?hidden)"""
)
_FORM_MARKUP = re.compile(r"<form\b")
_CREATE_CONTROL = re.compile(r"""createelement\(\s*["'`](?:input|select)["'`]""")
_SEARCH_WORDS = re.compile(r"search|query|keyword")
#: Characters around a control marker in which a search word must occur.
_NEAR = 200
# the end of an element with only white space inside: >   </tag>
_EMPTY_END = re.compile(
    r">\s*</(div|section|span|aside|main|nav|header|article|form|app-root|search)\s*>"
)
_ATTR = re.compile(r"""([\w:-]+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")
_SEARCH_TOKENS = frozenset({
    "search", "finder", "query", "lookup", "booking", "reservation", "reservations",
    "sitesearch", "quicksearch",
})  # fmt: skip
_FORM_TOKENS = frozenset({"form", "forms"})
_HOLDER_TOKENS = frozenset({
    "app", "widget", "root", "container", "mount", "box", "panel", "wrapper", "wrap",
    "placeholder", "module", "component", "area", "holder", "target", "host", "form", "forms",
    "gcse",  # Google's custom search element: <div class="gcse-search"></div>
})  # fmt: skip
# searchapp, searchbox, searchform, searchwidget, ...: one token, search + holder
_SEARCH_COMPOUND = re.compile(
    r"search(?:" + "|".join(sorted(_HOLDER_TOKENS | {"bar", "field", "input"})) + r")"
)
# tokens of decoration and of helpers that scripts fill with other things than forms
_NOT_FORM_TOKENS = frozenset({
    "icon", "sprite", "glyph", "fa", "image", "img", "btn", "button", "result", "results",
    "autocomplete", "suggest", "suggestions", "suggestion", "toggle", "close", "overlay",
    "loader", "loading", "spinner", "label", "hint", "error", "errors", "captcha",
    "recaptcha", "control", "left", "right", "top", "bottom", "bg", "background", "clear",
    "clearfix", "separator", "divider", "spacer", "shadow", "arrow", "title", "message",
    "msg", "status", "count", "counter", "ad", "ads", "banner", "tracking", "pixel",
})  # fmt: skip
_CONTAINER_ATTRS = frozenset({"data-search", "data-form", "data-search-form", "data-searchbox"})
_MOUNT_IDS = frozenset({
    "root", "app", "__next", "__nuxt", "___gatsby", "react-root", "react-app", "vue-app",
    "app-root", "main-app", "application", "svelte", "ember-app", "mount",
})  # fmt: skip
_VIEW_ATTRS = frozenset({"ng-view", "ui-view", "ng-include", "data-ng-view", "data-ui-view"})
_INPUT = re.compile(r"<input\b([^<>]*)>")
_SEARCH_NAMES = frozenset({
    "q", "query", "search", "searchterm", "searchterms", "keyword", "keywords", "kw", "term",
    "search_query", "searchquery", "search-query", "s",
})  # fmt: skip
_FRAMEWORK = re.compile(
    r"\bng-app\b|data-reactroot|__next_data__|__nuxt__|data-server-rendered|ng-version"
)
_NOSCRIPT_JS = re.compile(r"<noscript\b[^>]*>[^<]{0,300}?(?:javascript|js)\b", re.DOTALL)


@dataclass(frozen=True, slots=True)
class RenderDecision:
    """Whether to render (``render``) and why (``reason``: a signal name and detail)."""

    render: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.render


NO = RenderDecision(False)


def _attrs(raw: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ATTR.finditer(raw):
        out.setdefault(m.group(1), m.group(2) or m.group(3) or m.group(4) or "")
    return out


def _tokens(value: str) -> Iterable[str]:
    return (t for t in _TOKEN_SPLIT.split(value) if t)


def _near_search(body: str, start: int, end: int) -> bool:
    return _SEARCH_WORDS.search(body, max(0, start - _NEAR), end + _NEAR) is not None


def _script_signal(low: str) -> str:
    for m in _SCRIPT.finditer(low):
        body = m.group(2)
        if len(body) < 20:
            continue
        t = _SCRIPT_TYPE.search(m.group(1))
        if t is not None and t.group(1).endswith(_DATA_TYPES):
            continue
        if _CREATE_FORM.search(body):
            return "script-builds-form"
        for f in _FORM_MARKUP.finditer(body):  # form markup with a visible control in it
            c = _VISIBLE_CONTROL.search(body, f.end(), f.end() + 1_000)
            if c is not None and "</form" not in body[f.end() : c.start()]:
                return "script-builds-form:markup"
        for c in _CREATE_CONTROL.finditer(body):
            if _near_search(body, c.start(), c.end()):
                return "script-builds-form:controls"
        if "<" in body:
            for c in _VISIBLE_CONTROL.finditer(body):
                if _near_search(body, c.start(), c.end()):
                    return "script-builds-form:controls"
    return ""


def _empty_elements(low: str) -> Iterable[dict[str, str]]:
    """Attributes of the elements with nothing but white space inside."""
    for m in _EMPTY_END.finditer(low):
        start = low.rfind("<", 0, m.start())
        tag = m.group(1)
        if start < 0 or not low.startswith(tag, start + 1):
            continue
        raw = low[start + 1 + len(tag) : m.start()]
        if raw and not raw[0].isspace():
            continue  # <divider> is not <div>
        if raw.strip():
            yield _attrs(raw)


def _container_signal(low: str) -> str:
    for attrs in _empty_elements(low):
        ident = attrs.get("id", "")
        if ident in _MOUNT_IDS:
            return f"empty-mount:#{ident}"
        if _VIEW_ATTRS.intersection(attrs):
            return "empty-mount:view"
        if _CONTAINER_ATTRS.intersection(attrs):
            return f"empty-container:[{sorted(_CONTAINER_ATTRS.intersection(attrs))[0]}]"
        for name, value in attrs.items():
            if (name in ("id", "class") or name.startswith("data-")) and _container_value(value):
                return f"empty-container:{name}={value[:40]}"
    return ""


def _container_value(value: str) -> bool:
    """Does an id/class/data value name the holder of a search box or form?

    ``search``, ``search-app``, ``searchWidget``, ``booking-box``, ``form-container``
    do; ``icon-search``, ``search_left``, ``search-results``, ``panel`` do not."""
    tokens = set(_tokens(value))
    if not tokens or tokens & _NOT_FORM_TOKENS:
        return False
    searchy = {t for t in tokens if t in _SEARCH_TOKENS or _SEARCH_COMPOUND.fullmatch(t)}
    if searchy:
        return len(tokens) == 1 or bool(tokens & _HOLDER_TOKENS)
    return bool(tokens & _FORM_TOKENS) and bool(tokens & (_HOLDER_TOKENS - _FORM_TOKENS))


def _is_search_input(attrs: dict[str, str]) -> bool:
    kind = attrs.get("type", "text")
    if kind == "search":
        return True
    if kind not in ("text", ""):
        return False
    return (
        attrs.get("name", "") in _SEARCH_NAMES
        or attrs.get("id", "") in _SEARCH_NAMES
        or "search" in attrs.get("placeholder", "")
        or "search" in attrs.get("aria-label", "")
    )


def _form_search_inputs(forms: Iterable[Form]) -> int:
    n = 0
    for f in forms:
        for fld in f.fields:
            if fld.type == "search" or (
                fld.type == "text"
                and (fld.name.lower() in _SEARCH_NAMES or "search" in fld.placeholder.lower())
            ):
                n += 1
    return n


def _orphan_signal(low: str, forms: list[Form]) -> str:
    if "<input" not in low:
        return ""
    if _form_search_inputs(forms):
        return ""
    for m in _INPUT.finditer(low):
        if _is_search_input(_attrs(m.group(1))) and not _in_script(low, m.start()):
            return "orphan-search-input"
    return ""


def _in_script(low: str, pos: int) -> bool:
    """Is ``pos`` inside a <script> element (markup in a string is not in the DOM)?"""
    return low.rfind("<script", 0, pos) > low.rfind("</script", 0, pos)


def _shell_signal(low: str, page: Page | None) -> str:
    if page is None or page.forms:
        return ""
    if len(page.text.split()) >= SHELL_WORDS:
        return ""
    if _FRAMEWORK.search(low):
        return "app-shell:framework"
    if _NOSCRIPT_JS.search(low):
        return "app-shell:noscript"
    if len(_SCRIPT_SRC.findall(low)) >= SHELL_SCRIPTS:
        return "app-shell:scripts"
    return ""


def needs_render(page: Page | None, html: bytes | str) -> RenderDecision:
    """Whether ``page`` (the static parse of ``html``; None if it failed) should be
    rendered because a script probably builds a form (module doc: the signals)."""
    # latin-1 maps bytes 1:1, so ASCII markers are found whatever the encoding
    low = html.decode("latin-1").lower() if isinstance(html, bytes) else html.lower()
    if "<script" not in low:
        return NO
    forms = page.forms if page is not None else []
    reason = _script_signal(low)
    if not reason:
        for f in forms:
            if not f.fields:
                reason = "empty-form"
                break
    if not reason:
        reason = _container_signal(low)
    if not reason:
        reason = _orphan_signal(low, forms)
    if not reason:
        reason = _shell_signal(low, page)
    return RenderDecision(True, reason) if reason else NO
