"""What the form classifiers read of a form, without scikit-learn: the sample, its
structural counts and flags, its text signals, its host words and its stemmed tokens.

``classifiers.form_features`` wraps these in scikit-learn transformers for training;
``classifiers.linear_inference`` scores saved models with them alone, so that judging
imports neither scikit-learn nor NLTK.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

import numpy as np

from classifiers.form_types import NON_DATA_TYPES, FormLike
from classifiers.lexicon import concept_words
from classifiers.porter import PorterStemmer

__all__ = [
    "STRUCTURE_FEATURES",
    "TEXT_SIGNALS",
    "FormSample",
    "as_samples",
    "host_split",
    "host_tokens",
    "keyword_box",
    "signal_text",
    "stem_tokens",
    "structure_vector",
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


def signal_text(sample: FormSample, signal: str) -> str:
    """The text of one signal of a form (``TEXT_SIGNALS``); several joined with "+" are
    not split here (``FormText`` does)."""
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
        return f"{signal_text(sample, 'title')} {signal_text(sample, 'host')}"
    if signal == "page_concepts":
        if keyword_box(form):  # a keyword box's domain is its page's and site's (context)
            return ""
        return concept_words(f"{sample.title} {sample.site_name}")
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
    # one word "lex<domain>" per multilingual lexicon entry (``concept_words``) of the page
    # title and site name; none for keyword boxes
    "page_concepts",
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


def host_split(token: str, vocab: frozenset[str]) -> list[str]:
    """The words of ``vocab`` (3+ letters) inside a host ``token``, other than itself ([]
    if none): the split maximising the summed squared word lengths, each letter outside a
    word costing 1 ("carsdirect" gives "cars direct")."""
    n = len(token)
    if n < 6:
        return []
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


def host_words(sample: FormSample, vocab: frozenset[str]) -> str:
    """A site's host tokens, each followed by the ``vocab`` words it splits into, and
    the site's name (``HostWords.transform``)."""
    words = []
    for t in host_tokens(sample.url):
        words.append(t)
        words += host_split(t, vocab)
    return " ".join([*words, sample.site_name]).strip()


_TOKEN_RE = re.compile(r"[^\W\d_]{2,}|[^\W\d_]", re.UNICODE)


def stem_tokens(text: str, stop: frozenset[str], stemmer: PorterStemmer,
                cache: dict[str, str]) -> list[str]:  # fmt: skip
    """Lower-case word tokens of ``text`` (camelCase split first), the ``stop`` words and
    one-letter ASCII words removed, Porter-stemmed (``cache``: word -> stem, filled here
    up to 200,000 words)."""
    out: list[str] = []
    for tok in _TOKEN_RE.findall(_CAMEL_RE.sub(r"\1 \2", text).lower()):
        if tok in stop or (len(tok) == 1 and tok.isascii()):
            continue
        stem = cache.get(tok)
        if stem is None:
            stem = stemmer.stem(tok)
            if len(cache) < 200_000:
                cache[tok] = stem
        out.append(stem)
    return out
