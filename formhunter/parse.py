"""One parse per page: title, visible text, text leaves, links with context, forms.

``parse_page`` builds the DOM once (lxml's libxml2 HTML parser, recovering from
broken markup) and walks the ``<body>`` once, in pre-order (see ``_walk``); the
form extractor (``formhunter.forms.extract_forms``) works on the same tree.
The walk produces:

Leaves
    ``Page.leaves`` numbers the DOM leaves from left to right as the apprentice
    paper does (Chakrabarti et al., section 2.2.1): every non-blank text node
    is a leaf (whitespace collapsed, at most ``LEAF_CAP`` characters), every
    element without children and without text (``<br>``, ``<img>``, ``<input>``,
    an empty ``<td>``) is an empty leaf ``""``. ``script``, ``style``,
    ``noscript`` and ``template`` subtrees and comments are not visible: no
    leaves, no text, no links (``noscript`` links are mostly tracking pixels);
    whitespace-only text nodes are not leaves (they depend on source
    indentation, not on the page author's structure).
    The whole subtree of a link element is ONE leaf holding its visible text
    (``""`` for an image link). The paper
    gives the tokens of all leaves l(a)..r(a) inside the anchor offset 0, the
    leaf m left of it offset m - l(a) and the leaf m right of it m - r(a):
    collapsing l(a)..r(a) into one leaf gives exactly these offsets.

Links
    One ``Link`` per ``<a href>``, ``<area href>``, ``<frame src>`` and
    ``<iframe src>`` (frames and iframes carry real navigation, and embedded
    search forms often live in an iframe), in document order; the same URL may
    occur several times. Same-document references (``href="#..."``) and hrefs
    that are not http(s) (``mailto:``, ``javascript:``...) are left out.
    ``url`` is absolute and canonical (``formhunter.urls.join`` against the
    base URL, ``<base href>`` else ``final_url``); each distinct href is joined
    once per page. ``anchor`` is the link text, else the ``alt`` of an image
    inside it, else its ``title`` (frames: ``title`` or ``name``). ``around``
    is up to ``AROUND_WORDS`` words before and after the anchor in textual
    order (ACHE's "around" feature space), raw (tokenise it with
    ``classifiers.text``). ``leaf`` is the index of the link's leaf in
    ``Page.leaves``: always set by ``parse_page``, since every link element is
    a leaf, possibly an empty one (-1 only for links made elsewhere). ``nofollow`` is true for
    ``rel=nofollow`` or a page-wide ``<meta name=robots content=nofollow>``.

Text
    ``Page.text`` is the visible text of the body, whitespace-collapsed, at
    most ``TEXT_CAP`` characters; ``Page.title`` the ``<title>``.

Encoding: a byte-order mark, else ``encoding``, else the charset of
``content_type``, else a ``<meta charset>`` in the first bytes, else UTF-8 if
the body is valid UTF-8, else windows-1252 (as browsers do); undecodable bytes
become U+FFFD. Latin-1 and ASCII labels are read as windows-1252 (WHATWG).
"""

from __future__ import annotations

import codecs
import re
import threading
from functools import lru_cache

import lxml.html
from lxml import etree

from classifiers.text import stem_terms
from formhunter.config import ParseSettings
from formhunter.exceptions import ParseError
from formhunter.forms import extract_forms as _extract_forms
from formhunter.model import Form, Link, Page
from formhunter.site_context import site_context
from formhunter.urls import join, site_of

__all__ = ["AROUND_WORDS", "LEAF_CAP", "TEXT_CAP", "dom_offset_terms", "parse_page"]

#: Characters of visible text kept in ``Page.text``.
TEXT_CAP = 100_000
#: Characters kept per text leaf (and per anchor text).
LEAF_CAP = 2_000
ANCHOR_CAP = 300
TITLE_CAP = 1_000
#: Words taken on each side of an anchor for ``Link.around`` (at most AROUND_CAP chars).
AROUND_WORDS = 5
AROUND_CAP = 500

#: Subtrees that are not visible text (``head`` only matters for body-less documents).
_SKIP_WALK = frozenset({"script", "style", "noscript", "template", "head"})
_LINK_ATTR = {"a": "href", "area": "href", "iframe": "src", "frame": "src"}
_LOOKUP = etree.ElementDefaultClassLookup(
    element=lxml.html.HtmlElement,
    comment=lxml.html.HtmlComment,
    pi=lxml.html.HtmlProcessingInstruction,
    entity=lxml.html.HtmlEntity,
)
_local = threading.local()


def _parser() -> etree.HTMLParser:
    """This thread's HTML parser (lxml parsers must not be shared between threads).

    lxml.html's own parser calls a Python function for every element proxy it
    creates, which doubles the cost of walking the tree; the C-level default
    lookup above still gives ``HtmlElement`` objects (``text_content()`` etc.,
    which formhunter.forms uses).
    """
    parser: etree.HTMLParser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(encoding="utf-8", recover=True)
        parser.set_element_class_lookup(_LOOKUP)
        _local.parser = parser
    return parser


_BINARY_PROBE = 1_024
_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""",
                           re.IGNORECASE)
_CT_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.IGNORECASE)
_CONTROL = re.compile(rb"[\x00-\x08\x0e-\x1a\x1c-\x1f]")
_TITLE = etree.XPath("string(/html/head/title | /html/title | /html/body//title)")
_META_NOFOLLOW = etree.XPath(
    "/html/head/meta[translate(@name, 'ROBTS', 'robts')='robots']/@content", smart_strings=False
)
_BASE_HREF = etree.XPath("/html/head/base[@href][1]/@href", smart_strings=False)
_LATIN1 = frozenset({"latin_1", "ascii", "iso8859_1"})
_DEFAULT_LIMITS = ParseSettings()


#: Text codecs Python has that no web page is written in (they raise on decode, or
#: turn markup into something else: utf-7 is an XSS vector, browsers refuse it).
_NOT_WEB_CODECS = frozenset({
    "idna", "punycode", "raw_unicode_escape", "unicode_escape", "undefined", "utf_7",
    "rot_13", "mbcs", "oem", "charmap",
})  # fmt: skip


@lru_cache(maxsize=64)
def _codec(label: str) -> str | None:
    """Python codec name for a charset label, or None when unknown or not a text
    encoding of web pages (``base64``, ``zlib``, ``rot13``, ``idna``... are refused)."""
    try:
        info = codecs.lookup(label.strip().lower())
    except (LookupError, ValueError):
        return None
    name = info.name.replace("-", "_")
    if not getattr(info, "_is_text_encoding", True) or name in _NOT_WEB_CODECS:
        return None
    return "cp1252" if name in _LATIN1 else info.name


def _decode(body: bytes, enc: str) -> bytes:
    """``body`` decoded with ``enc`` (bad bytes replaced) as UTF-8; windows-1252 if
    the codec fails anyway."""
    try:
        text = body.decode(enc, "replace")
    except (UnicodeError, LookupError, ValueError, TypeError):
        text = body.decode("cp1252", "replace")
    return text.encode("utf-8", "replace")


def _to_utf8(body: bytes, content_type: str, encoding: str | None) -> bytes:
    """The body as UTF-8 bytes (see the module doc for the order of evidence)."""
    enc: str | None = None
    if body.startswith(codecs.BOM_UTF8):
        body, enc = body[3:], "utf-8"
    elif body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        enc = "utf-16"
    if enc is None and encoding:
        enc = _codec(encoding)
    if enc is None and "charset" in content_type:
        m = _CT_CHARSET.search(content_type)
        enc = _codec(m.group(1)) if m else None
    if enc is None:
        m2 = _META_CHARSET.search(body, 0, 4_096)
        enc = _codec(m2.group(1).decode("ascii")) if m2 else None
        if enc is not None and enc.startswith("utf-16"):  # a document that can say so is not
            enc = "utf-8"
    if enc is None or enc == "utf-8":
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return _decode(body, enc or "cp1252")
        return body
    return _decode(body, enc)


#: One attribute of a start tag, as the HTML tokenizer reads it (possessive: no backtracking).
_ATTR = (
    rb"[\t\n\f\r /]++[^\t\n\f\r />][^\t\n\f\r /=>]*+"  # separator, name
    rb"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|[^\t\n\f\r >]++))?+"""  # value
)


@lru_cache(maxsize=8)
def _tag_attrs(limit: int) -> re.Pattern[bytes]:
    """A start tag's name and first ``limit`` attributes (group 1), then the rest (group 2).

    Every start tag matches (possessively), so a tag is scanned once: ``<`` inside its
    attribute values is not tried again as the start of another tag (a pattern that
    needed more than ``limit`` attributes to match retried there, quadratic: 59 s on
    5 MB of ``<a <a <a ...>``)."""
    return re.compile(rb"(<[A-Za-z][^\t\n\f\r />]*+(?:" + _ATTR + rb"){0,%d}+)((?:" % limit
                      + _ATTR + rb")*+)")  # fmt: skip


def _cap_attributes(data: bytes, limit: int) -> bytes:
    """``data`` with the attributes of each start tag beyond the first ``limit`` removed."""
    if len(data) < 4 * limit:  # an attribute takes at least 2 bytes; cheap exit
        return data
    pattern = _tag_attrs(limit)
    # only rewrite what has a tag over the limit: most pages have none
    cut = [m.span(2) for m in pattern.finditer(data) if m.end(2) > m.start(2)]
    if not cut:
        return data
    parts, at = [], 0
    for start, end in cut:
        parts.append(data[at:start])
        at = end
    parts.append(data[at:])
    return b"".join(parts)


def _check_markup(body: bytes) -> None:
    """Raise ParseError unless the (UTF-8) body looks like markup."""
    probe = body[:_BINARY_PROBE]
    if len(_CONTROL.findall(probe)) > max(4, len(probe) // 50):
        raise ParseError("binary content, not markup")
    if b"<" not in body:
        raise ParseError("no markup in document")


def _norm(text: str) -> str:
    return " ".join(text.split())


def parse_page(
    url: str,
    body: bytes,
    *,
    final_url: str | None = None,
    status: int = 200,
    content_type: str = "text/html",
    encoding: str | None = None,
    depth: int = 0,
    extract_forms: bool = True,
    limits: ParseSettings | None = None,
    walk_formless: bool = True,
) -> Page:
    """Parse a fetched page once into a ``Page`` (see the module doc).

    Raises ``ParseError`` for an empty body or one that is not markup (binary,
    plain text without a single tag); any other input, however malformed,
    gives a ``Page``. ``limits`` (default ``ParseSettings()``) bound the work:
    attributes per element, elements walked, forms and links kept; every step
    is linear in the size of the body. ``walk_formless=False`` (``formhunter judge``, which
    reads nothing else of a page without forms): a page without forms comes back with
    its title and no text, links or leaves (its body is not walked).
    """
    if not body or body.isspace():
        raise ParseError("empty document")
    lim = limits if limits is not None else _DEFAULT_LIMITS
    data = _to_utf8(body, content_type, encoding)
    _check_markup(data)
    data = _cap_attributes(data, lim.max_attributes)
    if b"\x00" in data:
        data = data.replace(b"\x00", b"\xef\xbf\xbd")
    try:
        root = etree.fromstring(data, parser=_parser())
    except (etree.ParserError, etree.XMLSyntaxError, ValueError) as exc:
        raise ParseError(f"unparsable document: {exc}") from None
    if root is None:
        raise ParseError("empty document")
    page_url = final_url or url
    base_hrefs = _BASE_HREF(root)
    base = page_url
    if base_hrefs:
        base = join(page_url, str(base_hrefs[0])) or page_url
    forms: list[Form] = []
    if extract_forms:
        forms = _extract_forms(root, base, page_url, max_forms=lim.max_forms,
                               max_nodes=lim.max_nodes,
                               max_form_nodes=lim.max_form_nodes)  # fmt: skip
    if forms or walk_formless:
        nofollow_all = any("nofollow" in str(c).lower() for c in _META_NOFOLLOW(root))
        leaves, links, words = _walk(root, base, nofollow_all, lim.max_nodes, lim.max_links)
    else:
        leaves, links, words = [], [], []
    site_name, nav = site_context(root, links) if forms else ("", "")
    return Page(
        url=url,
        final_url=page_url,
        status=status,
        site=site_of(page_url),
        title=_norm(_TITLE(root))[:TITLE_CAP],
        text=" ".join(words)[:TEXT_CAP] if words else "",
        links=links,
        forms=forms,
        leaves=leaves,
        content_type=content_type,
        depth=depth,
        site_name=site_name,
        nav=nav,
    )


def _link_texts(el: etree._Element, tag: str) -> tuple[str, str]:
    """(visible text, anchor text) of a link element; the anchor falls back on
    an image's ``alt`` or the ``title`` when nothing is visible."""
    text = ""
    if tag == "a":
        raw = el.text if len(el) == 0 else el.text_content()
        if raw and not raw.isspace():
            text = _norm(raw)[:ANCHOR_CAP]
            return text, text
        for img in el.iter("img"):
            alt = img.get("alt")
            if alt and not alt.isspace():
                return "", _norm(alt)[:ANCHOR_CAP]
        title = el.get("title")
    elif tag == "area":
        title = el.get("alt") or el.get("title")
    else:
        title = el.get("title") or el.get("name")
    return "", (_norm(title)[:ANCHOR_CAP] if title else "")


def _last_descendant(el: etree._Element) -> etree._Element:
    last = el[-1]
    while len(last):
        last = last[-1]
    return last


def _walk(
    root: etree._Element, base: str, nofollow_all: bool, max_nodes: int = 1 << 62,
    max_links: int = 1 << 62,
) -> tuple[list[str], list[Link], list[str]]:
    """Leaves, links and the words of the visible text, in one pass over the body.

    ``iter()`` visits elements in pre-order. A text node's place in document
    order: ``el.text`` right at ``el``; ``el.tail`` right after ``el`` when
    ``el`` has no children, else after ``el``'s last descendant (kept in
    ``pending`` until the walk reaches it). Skipped subtrees (scripts, link
    elements with children) end at their last descendant too; their
    descendants are still visited, and passed over. This is about
    twice as fast as ``iterwalk`` with start and end events. The walk stops after
    ``max_nodes`` elements; links after the first ``max_links`` are left out.
    """
    body = root.find("body")
    if body is None:  # framesets, documents without a body
        body = root
    leaves: list[str] = []
    starts: list[int] = []  # index in ``words`` where each leaf starts
    words: list[str] = []
    found: list[tuple[str, int, str, str | None]] = []  # (href, leaf, anchor, rel)
    pending: dict[etree._Element, list[str]] = {}
    skip_until: etree._Element | None = None
    skip_tail: str | None = None
    link_attr = _LINK_ATTR
    skip_tags = _SKIP_WALK
    add_leaf = leaves.append
    add_start = starts.append
    add_words = words.extend
    it = body.iter()
    next(it)  # the body itself
    text = body.text
    if text and not text.isspace():
        ws = text.split()
        add_start(0)
        add_words(ws)
        add_leaf(" ".join(ws)[:LEAF_CAP])
    budget = max_nodes
    for el in it:
        budget -= 1
        if budget < 0:
            break
        if skip_until is not None:
            if el is not skip_until:
                continue
            skip_until = None
            text = skip_tail
        else:
            tag = el.tag
            if tag in link_attr:
                href = el.get(link_attr[tag])
                if href is not None and len(found) < max_links:
                    n_children = len(el)
                    raw = el.text
                    if tag == "a" and not n_children and raw and not raw.isspace():
                        ws = raw.split()
                        visible = anchor = " ".join(ws)[:ANCHOR_CAP]
                    else:
                        visible, anchor = _link_texts(el, tag)
                        ws = visible.split()
                    found.append((href, len(leaves), anchor, el.get("rel")))
                    add_start(len(words))
                    add_words(ws)
                    add_leaf(visible)
                    if n_children:
                        skip_until, skip_tail = _last_descendant(el), el.tail
                        continue
                    text = el.tail
                    if text and not text.isspace():
                        ws = text.split()
                        add_start(len(words))
                        add_words(ws)
                        add_leaf(" ".join(ws)[:LEAF_CAP])
                    if pending:
                        tails = pending.pop(el, None)
                        if tails:
                            for text in reversed(tails):
                                ws = text.split()
                                add_start(len(words))
                                add_words(ws)
                                add_leaf(" ".join(ws)[:LEAF_CAP])
                    continue
            if tag.__class__ is not str:  # comment, processing instruction, entity
                text = el.tail
            elif tag in skip_tags:
                if len(el):
                    skip_until, skip_tail = _last_descendant(el), el.tail
                    continue
                text = el.tail
            else:
                text = el.text
                n_children = len(el)
                if text and not text.isspace():
                    ws = text.split()
                    add_start(len(words))
                    add_words(ws)
                    add_leaf(" ".join(ws)[:LEAF_CAP])
                elif not n_children:
                    add_start(len(words))
                    add_leaf("")
                if n_children:
                    text = el.tail
                    if text and not text.isspace():
                        pending.setdefault(_last_descendant(el), []).append(text)
                    continue
                text = el.tail
        # ``el`` ends here (no children, or the end of a skipped subtree): its tail,
        # then the tails of the ancestors whose subtree ends here, innermost first.
        if text and not text.isspace():
            ws = text.split()
            add_start(len(words))
            add_words(ws)
            add_leaf(" ".join(ws)[:LEAF_CAP])
        if pending:
            tails = pending.pop(el, None)
            if tails:
                for text in reversed(tails):
                    ws = text.split()
                    add_start(len(words))
                    add_words(ws)
                    add_leaf(" ".join(ws)[:LEAF_CAP])
    add_start(len(words))

    # Each distinct href is joined once per page (urls.join also caches absolute
    # and root-relative hrefs across pages).
    links: list[Link] = []
    n = AROUND_WORDS
    cache: dict[str, str | None] = {}
    for href, leaf, anchor, rel in found:
        target = cache.get(href, "")
        if target == "":
            h = href.strip()
            target = cache[href] = None if not h or h[0] == "#" else join(base, h)
        if target is None:
            continue
        start = starts[leaf]
        end = starts[leaf + 1]
        links.append(
            Link(
                target,
                anchor,
                " ".join(words[start - n if start > n else 0 : start] + words[end : end + n])[
                    :AROUND_CAP
                ],
                leaf,
                nofollow_all or (rel is not None and "nofollow" in rel.lower()),
            )
        )
    return leaves, links, words


def dom_offset_terms(page: Page, link: Link, max_d: int = 5) -> list[tuple[str, int]]:
    """The apprentice's <term, d> features of ``link`` on ``page``, |d| <= max_d.

    Terms are ``classifiers.text.stem_terms`` (lower-case, stopwords out, Porter
    stems). d = 0: the terms of the anchor text; d < 0: the terms of the leaf
    -d places left of the anchor's leaf; d > 0: the leaf d places right of it
    (empty leaves count as places, as in the paper). In document order, with
    repetitions (a term twice in a leaf is there twice). A link without a leaf
    (``leaf == -1``) gets its anchor terms only.
    """
    out: list[tuple[str, int]] = []
    leaves = page.leaves
    i = link.leaf
    if 0 <= i < len(leaves):
        for d in range(-min(max_d, i), 0):
            out.extend((t, d) for t in _leaf_terms(leaves[i + d]))
    out.extend((t, 0) for t in _leaf_terms(link.anchor))
    if 0 <= i < len(leaves):
        for d in range(1, min(max_d, len(leaves) - 1 - i) + 1):
            out.extend((t, d) for t in _leaf_terms(leaves[i + d]))
    return out


@lru_cache(maxsize=65_536)
def _leaf_terms(text: str) -> tuple[str, ...]:
    return tuple(stem_terms(text)) if text else ()
