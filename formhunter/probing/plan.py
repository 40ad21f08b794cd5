"""What may be probed, and with which questions (after Madhavan et al., VLDB 2008).

A stored form is re-read from its stored HTML with lxml (input types, option values,
selected options, checked radios: what ``form_fields`` does not keep), so the
submissions carry what a browser would send: hidden fields, each select's chosen
option, the checked radio and checkbox values, and the texts put in the free-text
inputs. A GET submission replaces
the action's query with the form data (the HTML rule).

``refusal(form)`` says why a form is never probed: not GET, a password, email, file or
textarea field, judged not searchable, or nothing to vary. ``Plan`` lists the queries,
one input varied at a time (Madhavan's templates of dimension one): a nonsense word
(the control), the empty query (every default), words in the free-text inputs and
other values of the selects and radios; ``Plan.refine`` adds words taken from the
first result pages (iterative probing).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlencode, urlsplit, urlunsplit

import lxml.html
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from formhunter.keywords import SEARCH_WORDS

#: Input types that make a form off limits: it takes credentials, addresses or messages.
FORBIDDEN_TYPES = frozenset({"password", "email", "file", "textarea"})
#: Input types that take free text (a word may be typed in them).
TEXT_TYPES = frozenset({"text", "search", ""})
_WORD = re.compile(r"\b[^\W\d_]{3,20}\b", re.UNICODE)
_BORING = frozenset(ENGLISH_STOP_WORDS) | frozenset(SEARCH_WORDS) | frozenset(
    {"search", "results", "result", "page", "home", "welcome", "online", "best", "site",
     "submit", "more", "next", "previous", "back", "main", "new", "contact", "about",
     "help", "privacy", "terms", "login", "register", "email", "password", "sign"})  # fmt: skip


@dataclass(slots=True)
class Input:
    """One control of a form as a browser submits it."""

    name: str
    kind: str  # text, select, radio, checkbox, hidden, submit, or another input type
    default: str = ""  # the value sent when the user changes nothing ("" = not sent)
    options: list[str] = field(default_factory=list)  # select / radio values
    sent: bool = True  # False for an unchecked checkbox


@dataclass(slots=True)
class ProbeForm:
    """A stored form to probe (a row of ``forms`` and its HTML, re-read)."""

    form_id: int
    site: str
    signature: str
    action: str
    method: str
    searchable: bool
    domain: str
    html: str
    page_url: str = ""
    page_title: str = ""
    context: str = ""
    inputs: list[Input] = field(default_factory=list)

    @property
    def host(self) -> str:
        return (urlsplit(self.action).hostname or "").lower()


def _option_value(option: lxml.html.HtmlElement) -> str:
    value = option.get("value")
    return value if value is not None else " ".join((option.text_content() or "").split())


def read_inputs(html: str) -> list[Input]:
    """The form's controls in document order (empty for HTML without a form)."""
    try:
        root = lxml.html.fromstring(html)
    except (ValueError, lxml.etree.ParserError):
        return []
    form = root if root.tag == "form" else next(iter(root.iter("form")), None)
    if form is None:
        return []
    out: list[Input] = []
    seen: set[str] = set()
    for el in form.iter("input", "select", "textarea", "button"):
        name = (el.get("name") or "").strip()
        tag = el.tag
        if tag == "textarea":
            out.append(Input(name, "textarea"))
            continue
        if tag == "button":
            if name and (el.get("type") or "submit").lower() == "submit":
                out.append(Input(name, "submit", el.get("value") or "", sent=False))
            continue
        if tag == "select":
            options = list(el.iter("option"))
            values = [_option_value(o) for o in options]
            picked = [v for o, v in zip(options, values, strict=True)
                      if o.get("selected") is not None]  # fmt: skip
            chosen = picked[0] if picked else (values[0] if values else "")
            out.append(Input(name, "select", chosen, values))
            continue
        typ = (el.get("type") or "text").strip().lower()
        value = el.get("value")
        if typ in ("radio", "checkbox"):
            key = f"{typ}:{name}"
            group = next((i for i in out if i.kind == typ and i.name == name), None)
            if group is None or key not in seen:
                seen.add(key)
                group = Input(name, typ, "", [], sent=False)
                out.append(group)
            v = value if value is not None else "on"
            group.options.append(v)
            if el.get("checked") is not None and not group.sent:
                group.default, group.sent = v, True
            continue
        if typ in ("submit", "image"):
            if name:
                out.append(Input(name, "submit", value or "", sent=False))
            continue
        if typ in ("reset", "button"):
            continue
        out.append(Input(name, typ if typ not in ("search",) else "search", value or ""))
    for i in out:  # a radio group with nothing checked sends nothing; pick its first
        if i.kind == "radio" and not i.sent and i.options:
            i.default, i.sent = i.options[0], True
    return out


def refusal(form: ProbeForm) -> str:
    """Why ``form`` may not be probed ("" when it may)."""
    if form.method.upper() != "GET":
        return f"method {form.method.upper()}"
    if not form.searchable:
        return "judged not searchable"
    if urlsplit(form.action).scheme not in ("http", "https"):
        return "action is not an http(s) URL"
    bad = sorted({i.kind for i in form.inputs} & FORBIDDEN_TYPES)
    if bad:
        return f"a {bad[0]} field"
    if not text_inputs(form.inputs) and not choice_inputs(form.inputs):
        return "nothing to vary (no text, select or radio input)"
    return ""


def text_inputs(inputs: Sequence[Input]) -> list[Input]:
    """Named free-text inputs, those named like a query first."""
    out = [i for i in inputs if i.name and i.kind in TEXT_TYPES | {"search"}]
    return sorted(out, key=lambda i: 0 if i.kind == "search" or i.name.lower() in
                  ("q", "query", "s", "search", "keywords", "keyword", "k", "kw", "term") else 1)


def choice_inputs(inputs: Sequence[Input]) -> list[Input]:
    """Named selects and radio groups with another value than their default."""
    return [i for i in inputs if i.name and i.kind in ("select", "radio")
            and len(set(i.options) - {i.default}) >= 1]  # fmt: skip


def submission_url(action: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The URL a browser requests for a GET submission of ``pairs`` to ``action``."""
    parts = urlsplit(action)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", urlencode(list(pairs)), ""))


def nonsense_word(form: ProbeForm) -> str:
    """A word no database holds, different for each form (the control query)."""
    digest = hashlib.blake2b(f"{form.site}|{form.signature}".encode(), digest_size=8).digest()
    n = int.from_bytes(digest, "big")
    letters = "bcdfghjkmnpqrstvwxz"
    return "zq" + "".join(letters[(n >> (5 * k)) % len(letters)] for k in range(7)) + "xj"


@dataclass(slots=True)
class Query:
    """One planned submission: ``kind`` (control, empty, text, choice, refine), the input
    it varies ("" for none) and the value put there."""

    kind: str
    input: str
    value: str

    def pairs(self, inputs: Sequence[Input]) -> list[tuple[str, str]]:
        """The form data: every input's default, the varied one set to ``value``."""
        out = []
        for i in inputs:
            if not i.name or i.kind in FORBIDDEN_TYPES:
                continue
            if i.name == self.input:
                out.append((i.name, self.value))
            elif i.sent:
                out.append((i.name, i.default))
        return out


def words_of(texts: Iterable[str], *, drop_common: float = 0.6) -> list[str]:
    """Content words of ``texts`` by how many texts hold them, most first; words found in
    more than ``drop_common`` of several texts (a brand, a site's boilerplate) dropped."""
    texts = [t for t in texts if t]
    df: Counter[str] = Counter()
    for t in texts:
        df.update({w.lower() for w in _WORD.findall(t)} - _BORING)
    if len(texts) >= 4:
        limit = drop_common * len(texts)
        df = Counter({w: n for w, n in df.items() if n <= limit})
    return [w for w, _ in sorted(df.items(), key=lambda kv: (-kv[1], kv[0]))]


class Plan:
    """The queries of one form, in the order they are sent (module doc)."""

    def __init__(self, form: ProbeForm, words: Sequence[str]) -> None:
        self.form = form
        self.words = [w for w in dict.fromkeys(words) if w]
        self.used: set[str] = set()
        self.texts = text_inputs(form.inputs)
        self.choices = choice_inputs(form.inputs)

    def _word(self) -> str:
        for w in self.words:
            if w not in self.used:
                self.used.add(w)
                return w
        return ""

    def _choice(self, i: Input, k: int) -> Query | None:
        others = [o for o in dict.fromkeys(i.options) if o != i.default and o.strip()]
        if not others:
            return None
        return Query("choice", i.name, others[(len(others) // 2 + k * 3) % len(others)])

    def initial(self) -> list[Query]:
        """The queries sent before any result is seen."""
        out: list[Query] = []
        main = self.texts[0].name if self.texts else ""
        if main:
            out.append(Query("control", main, nonsense_word(self.form)))
        out.append(Query("empty", "", ""))
        if main and (w := self._word()):
            out.append(Query("text", main, w))
        for i in self.choices[:2]:
            q = self._choice(i, 0)
            if q is not None:
                out.append(q)
        if len(self.texts) > 1 and (w := self._word()):
            out.append(Query("text", self.texts[1].name, w))
        if main and (w := self._word()):
            out.append(Query("text", main, w))
        for i in self.choices[:2]:
            q = self._choice(i, 1)
            if q is not None and q.value not in {x.value for x in out if x.input == i.name}:
                out.append(q)
        return out

    def refine(self, result_texts: Sequence[str]) -> Query | None:
        """A word from the result pages seen so far, in the main text input."""
        if not self.texts:
            return None
        for w in words_of(result_texts, drop_common=1.0):
            if w not in self.used and w not in self.form.site:
                self.used.add(w)
                return Query("refine", self.texts[0].name, w)
        return None
