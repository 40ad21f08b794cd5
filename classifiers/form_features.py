"""Features of a form, one scikit-learn transformer per signal.

Samples are ``FormSample`` objects (a ``Form`` plus its page's title and URL);
plain ``Form`` objects are accepted too. ``FormStructure`` turns a form into a
fixed vector of structural counts and flags (the searchable-form tree's input);
``FormText`` picks one text signal (labels, field names, option texts, submit
texts, page title, text near the form, ...) and ``text_pipeline`` chains it with
a stemmed TF-IDF vectoriser (the domain SVM's input).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer
from sklearn.pipeline import Pipeline

from classifiers.form_types import NON_DATA_TYPES, FormLike
from classifiers.porter import PorterStemmer

__all__ = [
    "STRUCTURE_FEATURES",
    "TEXT_SIGNALS",
    "FormSample",
    "FormStructure",
    "FormText",
    "HostWords",
    "SiteKeywords",
    "StemTokenizer",
    "as_samples",
    "host_tokens",
    "keyword_box",
    "structure_vector",
    "text_pipeline",
]


@dataclass(slots=True, frozen=True)
class FormSample:
    """What the classifiers see of a form: the form, its page's title and URL, and the
    site's context: its name (og:site_name) and navigation link texts (``Page.nav``)."""

    form: FormLike
    title: str = ""
    url: str = ""
    site_name: str = ""
    nav: str = ""


def as_samples(X: Iterable[FormSample | FormLike]) -> list[FormSample]:
    """Accept ``FormSample`` or bare ``Form`` items."""
    return [x if isinstance(x, FormSample) else FormSample(x) for x in X]


# --- term lists (multilingual; matched on lower-cased text) -------------------

_SEARCH = (
    r"search|seach|recherch|busca|búsqueda|pesquis|procur|cerca|ricerca|zoek|such|sök|søg|søk"
    r"|haku|hae\b|szuk|hledat|vyhled|keres|cauta|căuta|arama|\bara\b|ricerc|поиск|найти|искать"
    r"|пошук|szukaj|検索|搜索|搜尋|查询|查詢|검색|بحث|جستجو|חיפוש|tìm|cari|ค้นหา|खोज|\bfind\b"
    r"|look ?up|query|keyword|schlagwort|suchbegriff|mot[- ]cl|palabra|termo|\bgo\b|\bgo!"
)
SEARCH_RE = re.compile(_SEARCH)
#: field names that mean "the query" on their own
_QUERY_NAMES = frozenset(
    {
        "q", "s", "k", "w", "wd", "p", "kw", "qs", "qt", "query", "keys", "key", "term",
        "terms", "keyword", "keywords", "text", "searchtext", "searchterm", "search_query",
        "search", "find", "words", "string", "qry", "sq", "st", "ss", "field-keywords",
        "search_api_views_fulltext", "searchword", "searchstring", "txtsearch", "query_string",
    }
)  # fmt: skip
_ACTION_SEARCH_RE = re.compile(
    _SEARCH + r"|result|/s/?$|/s\?|/find|/browse|/catalog|/list|/lookup|/suche|/q/?$"
)
_NEGATIVE = {
    "login": r"log ?in|sign ?in|signin|logon|log on|anmeld|connexion|connecter|iniciar ses"
    r"|entrar|accedi|inloggen|войти|вход|ログイン|登录|登入|로그인|remember me|password|passwort",
    "register": r"regist|sign ?up|signup|create (an |your )?account|join|crear cuenta"
    r"|inscri|cadastr|konto erstellen|зарегистр|登録|注册",
    "subscribe": r"subscri|newsletter|mailing|abonn|suscrib|iscriv|notify me|updates|e-?mail",
    "contact": r"contact|message|comment|your name|send|enviar|envoyer|senden|invia|kontakt"
    r"|feedback|reply|post|enquiry|inquiry|subject|phone",
    "cart": r"cart|basket|bag|buy|order|checkout|warenkorb|panier|carrito|quantity|qty|price"
    r"|add to|kaufen|acheter|comprar|coupon|voucher",
    "recover": r"forgot|reset|recover|lost|retriev|vergessen|oubli|olvid",
    "display": r"sort|order by|per page|pro seite|par page|display|show|jump|language|currency"
    r"|style|theme|layout|sortier|trier|ordenar|vote|poll|umfrage",
}
_NEGATIVE_RE = {k: re.compile(v) for k, v in _NEGATIVE.items()}
# --- navigation menus: language pickers, jump selects, "jump to page" boxes ---
_LANGUAGES = (
    "english|deutsch|français|francais|español|espanol|italiano|português|portugues|nederlands"
    "|polski|русский|日本語|中文|简体中文|繁體中文|한국어|العربية|svenska|dansk|norsk|suomi|türkçe"
    "|turkce|ελληνικά|čeština|cestina|magyar|română|romana|українська|עברית|हिन्दी|bahasa"
    "|tiếng việt|ไทย|català|catala|hrvatski|srpski|slovenčina|slovenščina|български|eesti"
    "|latviešu|lietuvių|filipino|فارسی|german|french|spanish|italian|portuguese|dutch|polish"
    "|russian|japanese|chinese|korean|arabic|swedish|danish|norwegian|finnish|turkish|greek"
    "|czech|hungarian|romanian|ukrainian|hebrew|hindi|indonesian|vietnamese|thai|catalan"
    "|croatian|serbian|slovak|slovenian|bulgarian|estonian|latvian|lithuanian|malay|persian"
)
_LANGUAGE_RE = re.compile(rf"^\s*(?:{_LANGUAGES})\b")
_NUMBERED_RE = re.compile(
    r"^\s*(?:(?:page|chapter|section|part|vol(?:ume)?|book|step|p\.|ch\.|§)\s*)?"
    r"(?:\d{1,4}|[ivxlc]{1,6})\b[.:)]?"
)
_OPTION_LINK_RE = re.compile(
    r"""<option\b[^>]{0,300}?value\s*=\s*["']?\s*(?:https?:|/|\.\./|\?|#|[\w-]+\.html?\b)""",
    re.IGNORECASE,
)
_OPTION_RE = re.compile(r"<option\b", re.IGNORECASE)
_ONCHANGE_RE = re.compile(
    r"""on(?:change|click)\s*=\s*["'][^"']{0,300}?(?:location|window\.open|\.submit\(|href"""
    r"""|go\w*\(|jump\w*\(|nav\w*\()""",
    re.IGNORECASE,
)
_NAV_WORDS_RE = re.compile(
    r"jump to|go to|goto|skip to|chapter|section|select (?:a |your )?(?:language|country|region"
    r"|site|page|category|edition)|choose (?:a |your )?(?:language|country|region|site|page)"
    r"|language|idioma|sprache|langue|lingua|quick ?links|navigat|table of contents|contents"
    r"|select a page|other sites|our sites|regional sites|switch"
)
_PROMPT_RE = re.compile(
    r"^\W*(?:select|choose|pick|please select|jump|go to|browse|categor|sort|order|filter"
    r"|language|wähle|auswahl|sélection|choisi|seleccion|elige|scegli|kies|выбер|選択|选择)"
)
_PAGE_NAMES = frozenset({
    "page", "pg", "pagenum", "page_num", "pagenumber", "page_number", "pageno", "page_no",
    "goto", "gotopage", "goto_page", "jump", "jumpto", "jump_to", "jumppage", "topage",
    "chapter", "section", "lang", "language", "locale", "hl",
})  # fmt: skip
_CAMEL_RE = re.compile(r"([a-z])([A-Z])")
_TEXT_LIKE = frozenset({"text", "search", "email", "tel", "url", "number"})
_DATE_LIKE = frozenset({"date", "datetime-local", "datetime", "month", "week", "time"})
_COUNTED = (
    "text", "search", "select", "checkbox", "radio", "hidden", "password", "file",
    "textarea", "button", "email", "tel", "url", "number", "image", "reset", "submit",
)  # fmt: skip

STRUCTURE_FEATURES: tuple[str, ...] = (
    *(f"n_{t}" for t in _COUNTED),
    "n_date",
    "n_submits",
    "n_visible",
    "n_text_like",
    "n_options",
    "max_options",
    "share_select",
    "method_post",
    "action_search",
    "action_has_query",
    "attr_search",
    "role_search",
    "submit_search",
    "label_search",
    "name_search",
    "query_name",
    "text_search",
    "context_search",
    "single_box",
    "single_box_search",
    "has_password",
    "has_email",
    "n_form_words",
    *(f"neg_{k}" for k in _NEGATIVE),
    "select_only",
    "lang_options",
    "numbered_options",
    "link_options",
    "onchange_nav",
    "page_box",
    "nav_words",
    "menu_select",
    "select_no_submit",
    "prompt_option",
)
_INDEX = {name: i for i, name in enumerate(STRUCTURE_FEATURES)}


def _split_name(name: str) -> str:
    """``departureDate``/``departure_date`` -> ``departure date``."""
    return _CAMEL_RE.sub(r"\1 \2", name).replace("_", " ").replace("-", " ").replace(".", " ")


def structure_vector(sample: FormSample) -> np.ndarray:
    """The structural features of one form (order: ``STRUCTURE_FEATURES``)."""
    form = sample.form
    v = np.zeros(len(STRUCTURE_FEATURES), dtype=np.float64)
    ix = _INDEX
    labels: list[str] = []
    names: list[str] = []
    n_options = 0
    max_options = 0
    query_name = 0.0
    for f in form.fields:
        t = f.type
        key = f"n_{t}"
        if key in ix:
            v[ix[key]] += 1
        if t in _DATE_LIKE:
            v[ix["n_date"]] += 1
        if t in _TEXT_LIKE:
            v[ix["n_text_like"]] += 1
        if t not in ("hidden", "submit", "image", "reset", "button"):
            v[ix["n_visible"]] += 1
            if f.label:
                labels.append(f.label)
            if f.placeholder:
                labels.append(f.placeholder)
        if t == "select":
            n_options += len(f.options)
            max_options = max(max_options, len(f.options))
        low = f.name.lower()
        if low:
            names.append(low)
            if t in _TEXT_LIKE and (low in _QUERY_NAMES or low.rsplit("[", 1)[0] in _QUERY_NAMES):
                query_name = 1.0
    v[ix["n_submits"]] = len(form.submit_texts)
    v[ix["n_options"]] = n_options
    v[ix["max_options"]] = max_options
    n_vis = v[ix["n_visible"]]
    v[ix["share_select"]] = v[ix["n_select"]] / n_vis if n_vis else 0.0
    v[ix["method_post"]] = float(form.method == "POST")
    parts = urlsplit(form.action)
    action = f"{parts.path}?{parts.query}".lower()
    v[ix["action_search"]] = float(bool(_ACTION_SEARCH_RE.search(action)))
    v[ix["action_has_query"]] = float(bool(parts.query))
    attrs = " ".join(f"{k}={val}" for k, val in form.attrs.items() if k != "action").lower()
    v[ix["attr_search"]] = float(bool(SEARCH_RE.search(_split_name(attrs).lower())))
    v[ix["role_search"]] = float(form.attrs.get("role", "").lower() == "search")
    submit = " ".join(form.submit_texts).lower()
    v[ix["submit_search"]] = float(bool(SEARCH_RE.search(submit)))
    label_text = " ".join(labels).lower()
    v[ix["label_search"]] = float(bool(SEARCH_RE.search(label_text)))
    name_text = " ".join(_split_name(n) for n in names).lower()
    v[ix["name_search"]] = float(bool(SEARCH_RE.search(name_text)))
    v[ix["query_name"]] = query_name
    text = form.text.lower()
    v[ix["text_search"]] = float(bool(SEARCH_RE.search(text)))
    v[ix["context_search"]] = float(bool(SEARCH_RE.search(form.context.lower())))
    single = (
        v[ix["n_text_like"]] == 1
        and v[ix["n_password"]] == 0
        and v[ix["n_textarea"]] == 0
        and v[ix["n_visible"]] <= 3
    )
    v[ix["single_box"]] = float(single)
    v[ix["single_box_search"]] = float(
        single and v[ix["n_email"]] == 0 and v[ix["n_tel"]] == 0 and v[ix["n_checkbox"]] == 0
    )
    v[ix["has_password"]] = float(v[ix["n_password"]] > 0)
    v[ix["has_email"]] = float(v[ix["n_email"]] > 0 or any("mail" in n for n in names))
    v[ix["n_form_words"]] = min(len(form.text.split()), 500)
    everything = f"{submit} {label_text} {name_text} {text[:1000]}"
    for k, rx in _NEGATIVE_RE.items():
        v[ix[f"neg_{k}"]] = float(len(rx.findall(everything)))
    _menu_features(form, v, names, everything)
    return v


def _menu_features(form: FormLike, v: np.ndarray, names: list[str], everything: str) -> None:
    """The navigation-menu features (language pickers, jump selects, page boxes)."""
    ix = _INDEX
    select_only = (
        v[ix["n_select"]] > 0 and v[ix["n_text_like"]] == 0 and v[ix["n_textarea"]] == 0
        and v[ix["n_password"]] == 0
    )  # fmt: skip
    v[ix["select_only"]] = float(select_only)
    lang = numbered = prompt = 0.0
    for f in form.fields:
        if f.type != "select" or len(f.options) < 3:
            continue
        opts = f.options[:300]
        prompt = max(prompt, float(bool(_PROMPT_RE.match(opts[0].lower()))))
        lang = max(lang, sum(bool(_LANGUAGE_RE.match(o.lower())) for o in opts) / len(opts))
        numbered = max(numbered, sum(bool(_NUMBERED_RE.match(o.lower())) for o in opts) / len(opts))
    v[ix["lang_options"]] = lang
    v[ix["numbered_options"]] = numbered
    html = form.html[:20_000]
    n_opt = len(_OPTION_RE.findall(html))
    v[ix["link_options"]] = len(_OPTION_LINK_RE.findall(html)) / n_opt if n_opt else 0.0
    v[ix["onchange_nav"]] = float(bool(_ONCHANGE_RE.search(html)))
    text_names = [
        f.name.lower() for f in form.fields if f.type in _TEXT_LIKE or f.type == "select"
    ]
    v[ix["page_box"]] = float(
        v[ix["n_text_like"]] + v[ix["n_select"]] == 1
        and any(n in _PAGE_NAMES for n in text_names)
    )
    v[ix["nav_words"]] = float(len(_NAV_WORDS_RE.findall(f"{everything} {form.context.lower()}")))
    v[ix["prompt_option"]] = prompt
    no_submit = select_only and not form.submit_texts and v[ix["n_image"]] == 0 \
        and v[ix["n_button"]] == 0  # fmt: skip
    v[ix["select_no_submit"]] = float(no_submit)
    # a lone select (or selects without a button) that navigates: language, jump, sort menus
    v[ix["menu_select"]] = float(
        select_only
        and (v[ix["n_select"]] == 1 or no_submit)
        and (lang >= 0.5 or v[ix["link_options"]] >= 0.5 or v[ix["onchange_nav"]] > 0
             or v[ix["nav_words"]] > 0 or v[ix["neg_display"]] > 0 or no_submit or prompt > 0)
    )  # fmt: skip


class FormStructure(BaseEstimator, TransformerMixin):
    """Structural counts and flags of each form (stateless; see ``STRUCTURE_FEATURES``)."""

    def fit(self, X: Sequence[Any], y: Any = None) -> FormStructure:
        self.n_features_out_ = len(STRUCTURE_FEATURES)
        return self

    def transform(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        if not samples:
            return np.zeros((0, len(STRUCTURE_FEATURES)))
        return np.vstack([structure_vector(s) for s in samples])

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        return np.asarray(STRUCTURE_FEATURES, dtype=object)


def _signal(sample: FormSample, signal: str) -> str:
    form = sample.form
    if signal == "labels":
        return " ".join(
            x
            for f in form.fields
            if f.type not in NON_DATA_TYPES
            for x in (f.label, f.placeholder)
            if x
        )
    if signal == "names":
        return " ".join(_split_name(f.name) for f in form.fields if f.name)
    if signal == "options":
        return " ".join(o for f in form.fields for o in f.options[:60])
    if signal == "submit":
        return " ".join(form.submit_texts)
    if signal == "title":
        return sample.title
    if signal == "context":
        return form.context
    if signal == "text":
        return form.text
    if signal == "action":
        parts = urlsplit(form.action)
        return _split_name(f"{parts.netloc} {parts.path}".replace("/", " "))
    if signal == "attrs":
        return _split_name(" ".join(form.attrs.get(k, "") for k in ("id", "class", "name")))
    if signal == "host":
        return f"{' '.join(host_tokens(sample.url))} {sample.site_name}".strip()
    if signal == "nav":
        return sample.nav
    if signal == "keyword_site":
        if not keyword_box(form):
            return ""
        return f"{_signal(sample, 'title')} {_signal(sample, 'host')}"
    raise ValueError(f"unknown text signal {signal!r} (known: {', '.join(TEXT_SIGNALS)})")


def keyword_box(form: FormLike) -> bool:
    """One free-text field (plus at most one select, e.g. a category): a box whose
    own words rarely say what it searches, so the site has to."""
    data = [f for f in form.fields if f.type not in NON_DATA_TYPES]
    texts = sum(f.type in ("text", "search", "") for f in data)
    return texts == 1 and len(data) <= 2


TEXT_SIGNALS = (
    "labels",
    "names",
    "options",
    "submit",
    "title",
    "context",
    "text",
    "action",
    "attrs",
    "host",
    "nav",
    "keyword_site",  # title and host words, of keyword boxes only (``keyword_box``)
)

#: host labels that say nothing about a site's content
_HOST_NOISE = frozenset({
    "www", "com", "net", "org", "info", "biz", "gov", "edu", "html", "index", "home",
    "localhost", "example", "http", "https", "web", "site", "online",
})  # fmt: skip
_HOST_SPLIT_RE = re.compile(r"[^a-z]+")


def host_tokens(url: str) -> list[str]:
    """Letter runs of a URL's host, without www, generic TLDs and 1-2 letter labels
    ("https://www.auto-trader.co.uk/x" -> ["auto", "trader"])."""
    host = urlsplit(url).hostname or "" if url else ""
    return [t for t in _HOST_SPLIT_RE.split(host.lower()) if len(t) > 2 and t not in _HOST_NOISE]


class SiteKeywords(BaseEstimator, TransformerMixin):
    """How much the site's context speaks of each domain: per domain, log(1 + the number
    of its keywords found in the host, site name, page title and navigation).

    ``keywords`` maps a domain to its keyword list (the domain model passes the
    packs' ``keywords``; none: no feature). Keywords match anywhere, so the host
    "autotrader" holds "auto". This is the plain keyword box's evidence: the form
    says "Search", the site says what it holds.
    """

    def __init__(self, keywords: dict[str, list[str]] | None = None) -> None:
        self.keywords = keywords

    def fit(self, X: Sequence[Any], y: Any = None) -> SiteKeywords:
        words = self.keywords or {}
        self.domains_ = sorted(words)
        self.patterns_ = [
            re.compile("|".join(re.escape(w.lower()) for w in
                                sorted(set(words[d]), key=len, reverse=True)))
            for d in self.domains_
        ]  # fmt: skip
        return self

    def transform(self, X: Sequence[Any]) -> np.ndarray:
        samples = as_samples(X)
        out = np.zeros((len(samples), len(self.domains_)))
        for i, s in enumerate(samples):
            text = " ".join((*host_tokens(s.url), s.site_name, s.title, s.nav)).lower()
            for j, rx in enumerate(self.patterns_):
                out[i, j] = len(rx.findall(text))
        return np.log1p(out)


class HostWords(BaseEstimator, TransformerMixin):
    """The words of a site's host and name: "autotrader.co.uk" -> "autotrader auto trader".

    ``fit`` learns a vocabulary (``vocabulary_``: words of 3+ letters seen at least
    ``min_count`` times in the training forms' labels, options, titles, nearby text,
    navigation and site names); ``transform`` keeps each host token and adds the
    vocabulary words it splits into (the split maximising the summed squared word
    lengths, each letter outside a word costing 1: "carsdirect" gives "cars direct").
    """

    _SOURCES = ("labels", "options", "submit", "title", "context", "nav")

    def __init__(self, min_count: int = 2) -> None:
        self.min_count = min_count

    def fit(self, X: Sequence[Any], y: Any = None) -> HostWords:
        counts: dict[str, int] = {}
        for sample in as_samples(X):
            text = " ".join(_signal(sample, g) for g in self._SOURCES) + " " + sample.site_name
            for w in _HOST_SPLIT_RE.split(text.lower()):
                if len(w) > 2:
                    counts[w] = counts.get(w, 0) + 1
        self.vocabulary_ = frozenset(w for w, c in counts.items() if c >= self.min_count)
        return self

    def split(self, token: str) -> list[str]:
        """The vocabulary words of 3+ letters inside ``token``, other than itself ([] if none)."""
        n = len(token)
        if n < 6:
            return []
        vocab = self.vocabulary_
        best: list[tuple[int, list[str]]] = [(0, [])] * (n + 1)
        for i in range(1, n + 1):
            score, words = best[i - 1]
            best[i] = (score - 1, words)  # a letter of no word costs
            for j in range(max(0, i - 20), i - 2):
                if (i - j) < n and token[j:i] in vocab:
                    cand = best[j][0] + (i - j) ** 2
                    if cand > best[i][0]:
                        best[i] = (cand, [*best[j][1], token[j:i]])
        score, words = best[n]
        return words if score >= 9 else []

    def transform(self, X: Sequence[Any]) -> list[str]:
        out = []
        for sample in as_samples(X):
            words = []
            for t in host_tokens(sample.url):
                words.append(t)
                words += self.split(t)
            out.append(" ".join([*words, sample.site_name]).strip())
        return out


class FormText(BaseEstimator, TransformerMixin):
    """One text signal of each form, as a list of strings (feed it to a vectoriser).

    ``signal`` may join several signals with ``+`` ("labels+names"): their texts
    are concatenated.
    """

    def __init__(self, signal: str = "labels") -> None:
        self.signal = signal

    def fit(self, X: Sequence[Any], y: Any = None) -> FormText:
        for signal in self.signal.split("+"):
            if signal not in TEXT_SIGNALS:
                raise ValueError(f"unknown text signal {signal!r}")
        return self

    def transform(self, X: Sequence[Any]) -> list[str]:
        signals = self.signal.split("+")
        return [" ".join(_signal(s, g) for g in signals) for s in as_samples(X)]


_TOKEN_RE = re.compile(r"[^\W\d_]{2,}|[^\W\d_]", re.UNICODE)
_STOP = frozenset(ENGLISH_STOP_WORDS)


class StemTokenizer:
    """Lower-case word tokens, English stop words removed, Porter-stemmed.

    Splits camelCase first. Picklable (a module-level class); keeps a cache of
    stems because form vocabularies are small and repetitive.
    """

    def __init__(self) -> None:
        self._stemmer = PorterStemmer()
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        out: list[str] = []
        cache = self._cache
        for tok in _TOKEN_RE.findall(_CAMEL_RE.sub(r"\1 \2", text).lower()):
            if tok in _STOP or (len(tok) == 1 and tok.isascii()):
                continue
            stem = cache.get(tok)
            if stem is None:
                stem = self._stemmer.stem(tok)
                if len(cache) < 200_000:
                    cache[tok] = stem
            out.append(stem)
        return out

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._stemmer = PorterStemmer()
        self._cache = {}


def text_pipeline(signal: str, **tfidf: Any) -> Pipeline:
    """``FormText(signal)`` followed by a stemmed, stop-word-free TF-IDF vectoriser."""
    params: dict[str, Any] = {
        "tokenizer": StemTokenizer(),
        "lowercase": False,
        "token_pattern": None,
        "sublinear_tf": True,
        "min_df": 1,
        "ngram_range": (1, 2),
        "dtype": np.float32,
    }
    params.update(tfidf)
    return Pipeline([("signal", FormText(signal)), ("tfidf", TfidfVectorizer(**params))])
