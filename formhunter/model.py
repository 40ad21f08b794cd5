"""The records that flow between stages: pages, links, forms, fields, verdicts, and
the frontier's records (``LinkRecord``: a link as stored; ``Entry``: a stored link
taken into memory).

They are plain slotted dataclasses so that the hot path stays cheap. The parser
produces ``Page`` objects; the critic turns a ``Form`` into a ``Verdict``. Pages,
links, forms and fields pickle as their constructor's positional arguments (half
the cost of the default for slotted classes: pages cross to and from parse workers).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from classifiers.form_types import NON_DATA_TYPES


@dataclass(slots=True)
class Field:
    """One control of a form.

    ``type`` is the lower-cased input type, or ``select``/``textarea``/``button``.
    ``options`` are the visible texts of a select's options (or radio/checkbox
    labels); ``value`` is the default value.
    """

    name: str
    type: str
    label: str = ""
    value: str = ""
    options: list[str] = field(default_factory=list)
    placeholder: str = ""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return Field, _FIELDS["Field"](self)  # positional: cheap to pickle and to load



@dataclass(slots=True)
class Form:
    """A form as found on a page.

    ``action`` is absolute (resolved against the page's base URL); ``index`` is
    the form's position in document order; ``text`` is the visible text inside
    the form; ``context`` is text near it (headings before it, the page title is
    on ``Page``). ``rendered`` is true when the form only exists after scripts ran.
    """

    action: str
    method: str
    fields: list[Field]
    index: int = 0
    submit_texts: list[str] = field(default_factory=list)
    text: str = ""
    context: str = ""
    html: str = ""
    attrs: dict[str, str] = field(default_factory=dict)
    rendered: bool = False

    @property
    def signature(self) -> str:
        return form_signature(self.action, self.method, [(f.name, f.type) for f in self.fields])

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return Form, _FIELDS["Form"](self)  # positional: cheap to pickle and to load



def form_signature(action: str, method: str, fields: list[tuple[str, str]]) -> str:
    """A stable id of a form within a site: action without query/fragment,
    method, and the sorted (name, type) of its data-carrying fields.

    The simulated web's ground truth uses this same function, so truth and
    catalogue join on it.
    """
    parts = urlsplit(action)
    base = urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", "", ""))
    names = sorted({f"{n}:{t}" for n, t in fields if t not in NON_DATA_TYPES and n})
    key = "\n".join([base, method.upper(), *names])
    return hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]


@dataclass(slots=True)
class Link:
    """An outlink with the context the link scorers need.

    ``url`` is canonical and absolute; ``anchor`` is the anchor text; ``around``
    is the text near the anchor (ACHE's "around" feature space); ``leaf`` is the
    index of the anchor's first text leaf in ``Page.leaves`` (-1 if it has none)
    so that DOM offsets can be computed lazily (the apprentice's <term, d>).
    """

    url: str
    anchor: str = ""
    around: str = ""
    leaf: int = -1
    nofollow: bool = False

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return Link, _FIELDS["Link"](self)  # positional: cheap to pickle and to load



@dataclass(slots=True)
class Page:
    """A fetched and parsed page.

    ``url`` is the canonical URL that was requested; ``final_url`` the one after
    redirects. ``leaves`` are the page's visible text leaves in document order
    (used for DOM-offset features). ``site_name`` (og:site_name or
    application-name) and ``nav`` (texts of the site's navigation links, " | "
    between them) are the site context the domain critic reads. ``topics``: the page's
    topic scores by domain when already known (stored with its forms; ``rejudge``): a
    critic then uses them instead of scoring the page's text.
    """

    url: str
    final_url: str
    status: int
    site: str
    title: str = ""
    text: str = ""
    links: list[Link] = field(default_factory=list)
    forms: list[Form] = field(default_factory=list)
    leaves: list[str] = field(default_factory=list)
    content_type: str = "text/html"
    depth: int = 0
    rendered: bool = False
    site_name: str = ""
    nav: str = ""
    topics: dict[str, float] | None = None

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return Page, _FIELDS["Page"](self)  # positional: cheap to pickle and to load



@dataclass(slots=True, frozen=True)
class Verdict:
    """The critic's judgement of one form.

    ``relevant`` = searchable and of the target domain. ``domain`` is the
    best-scoring domain (or "" when not searchable / unknown). ``page_topics``: the page
    topic scores by domain that the domain decision read (site evidence included), when
    it read any; the catalogue keeps them so that ``rejudge`` decides alike. Not compared.
    """

    searchable: bool
    searchable_score: float
    domain: str
    domain_score: float
    relevant: bool
    page_topics: dict[str, float] | None = field(default=None, compare=False)


#: class name -> all its fields' values as a tuple, in constructor order (``__reduce__``)
_FIELDS: dict[str, attrgetter[Any]] = {
    cls.__name__: attrgetter(*(f.name for f in fields(cls))) for cls in (Field, Form, Link, Page)
}


@dataclass(slots=True)
class LinkRecord:
    """A link as the frontier stores it: enough to (re-)score it without the page.

    ``parent_score`` is the page classifier's probability for the page the link
    was found on; ``dom_terms`` are the apprentice's ``term@d`` tokens joined by
    spaces (may be empty when no scorer asks for them).
    """

    url: str
    site: str
    depth: int
    parent_url: str = ""
    anchor: str = ""
    around: str = ""
    parent_score: float = 0.0
    dom_terms: str = ""


@dataclass(slots=True)
class Entry:
    """A link taken into memory (one row of the persistent frontier): its ``link``
    plus where it sits (``lid``, ``host``, ``level``, ``score``)."""

    lid: int
    host: str
    level: int
    score: float
    link: LinkRecord

    @property
    def url(self) -> str:
        return self.link.url

    @property
    def site(self) -> str:
        return self.link.site

    @property
    def depth(self) -> int:
        return self.link.depth

    @property
    def parent(self) -> str:
        return self.link.parent_url

    @property
    def anchor(self) -> str:
        return self.link.anchor
