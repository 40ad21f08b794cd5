"""The plan of a bazaar web: which sites exist, in which language, built how.

``plan_sites(seed, n_sites)`` is cheap (no page is built) and deterministic. The mix
follows the real Web as the author knows it: more than half of the sites are
databases of the eight domains (travel agencies, airlines, hotel chains, dealer
groups, library catalogues, job boards, cinemas, record shops, car-hire firms),
the rest directories, domain portals, blogs, news sites, forums, shops and the
sites of institutions (city halls, universities, clubs, practices).
"""

from __future__ import annotations

import random

from formhunter.worlds.bazaar.model import DOMAINS, SitePlan
from formhunter.worlds.bazaar.vocab import DOMAIN_SLUGS, LANG_WEIGHTS, LANGS, OFF_TOPICS

DEFAULT_SITES = 500

_PREFIX: dict[str, tuple[str, ...]] = {
    "en": (
        "bluebird",
        "harbor",
        "summit",
        "maple",
        "northstar",
        "redwood",
        "lakeside",
        "bright",
        "oakridge",
        "silverline",
        "kingfisher",
        "meridian",
    ),
    "de": (
        "alpenhof",
        "nordlicht",
        "rhein",
        "tannen",
        "seeblick",
        "sonnen",
        "elbe",
        "bergland",
        "lindenhof",
        "falken",
    ),
    "fr": (
        "azur",
        "lumiere",
        "belle",
        "provence",
        "etoile",
        "riviera",
        "loire",
        "mistral",
        "hirondelle",
    ),
    "es": ("costa", "sol", "mar", "sierra", "luna", "alba", "rio", "brisa", "olivo"),
    "pt": ("atlantico", "douro", "sol", "brisa", "tejo", "estrela", "serra", "farol"),
    "it": ("dolce", "sole", "arno", "monte", "stella", "lago", "vento", "cipresso"),
    "nl": ("oranje", "polder", "tulp", "molen", "duin", "gracht", "delta", "eiland"),
    "pl": ("wisla", "orzel", "tatry", "baltyk", "zloty", "mazury", "lipa", "gwiazda"),
    "ja": ("sakura", "fuji", "hikari", "midori", "sora", "umi", "yume", "kaze"),
    "zh": ("longma", "huaxia", "jinxing", "tianma", "hongqiao", "baiyun", "changjiang", "xinghai"),
}
_HUB_WORDS: dict[str, tuple[str, ...]] = {
    "directory": ("links", "webguide", "index", "verzeichnis", "annuaire", "directorio"),
    "portal": ("portal", "guide", "compare", "vergleich", "comparateur", "info"),
    "blog": ("blog", "diary", "notes", "journal", "travels", "stories"),
    "news": ("news", "times", "zeitung", "courrier", "diario", "post"),
    "forum": ("forum", "board", "talk", "community", "treff", "club"),
}
_INSTITUTIONS = ("city", "university", "health", "sports", "software", "cooking")

#: database archetypes per domain, with weights (see SitePlan)
ARCHETYPES: dict[str, tuple[tuple[str, int], ...]] = {
    "airfare": (("widget", 35), ("booking", 30), ("deep", 20), ("jsapp", 15)),
    "auto": (("catalog", 35), ("chain", 25), ("deep", 25), ("widget", 15)),
    "book": (("catalog", 50), ("deep", 30), ("jsapp", 10), ("widget", 10)),
    "hotel": (("chain", 35), ("widget", 25), ("booking", 20), ("deep", 20)),
    "job": (("catalog", 40), ("widget", 30), ("deep", 20), ("jsapp", 10)),
    "movie": (("catalog", 40), ("chain", 25), ("deep", 25), ("jsapp", 10)),
    "music": (("catalog", 55), ("deep", 30), ("widget", 15)),
    "rental": (("chain", 35), ("widget", 30), ("booking", 20), ("deep", 15)),
}
_PLATFORMS = (
    ("plain", 35),
    ("camel", 15),
    ("rails", 12),
    ("typo3", 10),
    ("jsf", 8),
    ("aspnet", 10),
    ("wp", 10),
)
#: URL styles a platform can have
URL_STYLES: dict[str, tuple[str, ...]] = {
    "plain": ("pretty", "html", "php", "numeric"),
    "camel": ("pretty", "numeric"),
    "rails": ("pretty",),
    "typo3": ("php", "pretty"),
    "jsf": ("java",),
    "aspnet": ("asp",),
    "wp": ("wp", "pretty"),
}


def _pick(rng: random.Random, pairs: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def _counts(n: int) -> dict[str, int]:
    small = n < 60
    c = {
        "directory": max(1, round(0.02 * n)),
        "portal": max(1 if small else 8, round(0.04 * n)),
        "blog": max(2, round(0.10 * n)),
        "news": max(1, round(0.03 * n)),
        "forum": max(1, round(0.04 * n)),
        "shop": max(1, round(0.08 * n)),
        "institution": max(2, round(0.11 * n)),
    }
    c["database"] = max(len(DOMAINS), n - sum(c.values()))
    return c


def _flags(rng: random.Random, kind: str, archetype: str) -> frozenset[str]:
    f: set[str] = set()
    p = rng.random
    if p() < 0.12:
        f.add("jsnav")
        if p() < 0.35:
            f.add("jsonly")  # no static way to the sections
    if p() < 0.07 or (kind == "forum" and p() < 0.6):
        f.add("sid")
    if p() < 0.06:
        f.add("slow")
    if p() < 0.25:
        f.add("legacy")
    if p() < 0.2:
        f.add("dead")
    if p() < 0.5:
        f.add("robots-basic")
    if kind == "database":
        if p() < 0.4:
            f.add("robots-facets")
        if p() < 0.05:
            f.add("robots-search")
        if p() < 0.1:
            f.add("post-search")
        if p() < 0.3:
            f.add("nearmiss")
        if archetype == "chain" and p() < 0.4:
            f.add("central")
    if kind == "institution" and p() < 0.25:
        f.add("catalogue")  # a library catalogue (book) or a vacancies search (job)
    if kind in ("blog", "portal") and p() < 0.3:
        f.add("teaser")  # an affiliate search teaser that queries nothing
    if p() < 0.75:
        f.add("sitesearch")
    if p() < 0.35:
        f.add("newsletter")
    if p() < 0.1:
        f.add("nowww")
    return frozenset(f)


def plan_sites(seed: int, n_sites: int) -> list[SitePlan]:
    """The sites of web ``seed`` (module doc)."""
    rng = random.Random(f"bazaar-plan|{seed}|{n_sites}")
    counts = _counts(n_sites)
    kinds: list[tuple[str, str, str]] = []  # (kind, domain, topic)
    for i in range(counts["database"]):
        kinds.append(("database", DOMAINS[i % len(DOMAINS)], ""))
    for kind in ("directory", "portal", "blog", "news", "forum"):
        for i in range(counts[kind]):
            d = DOMAINS[(i + rng.randrange(8)) % 8] if kind in ("portal", "blog", "forum") else ""
            if kind == "portal":
                d = DOMAINS[i % 8]
            if kind == "blog" and rng.random() < 0.3:
                d = ""  # a personal blog on everything
            kinds.append((kind, d, ""))
    for i in range(counts["shop"]):
        kinds.append(("shop", "", ("garden", "electronics", "fashion")[i % 3]))
    for i in range(counts["institution"]):
        kinds.append(("institution", "", _INSTITUTIONS[i % len(_INSTITUTIONS)]))
    rng.shuffle(kinds)
    used: set[str] = set()
    out: list[SitePlan] = []
    for idx, (kind, domain, topic) in enumerate(kinds):
        lang = rng.choices(LANGS, weights=LANG_WEIGHTS)[0]
        archetype = _pick(rng, ARCHETYPES[domain]) if kind == "database" else kind
        platform = _pick(rng, _PLATFORMS)
        if kind == "blog":
            platform = "wp" if rng.random() < 0.7 else platform
        elif platform == "wp" and kind == "database":
            platform = "plain"
        prefix = rng.choice(_PREFIX[lang])
        if kind == "database":
            word = rng.choice(DOMAIN_SLUGS[domain][lang][:2])
        elif kind in _HUB_WORDS:
            word = rng.choice(_HUB_WORDS[kind])
            if domain and rng.random() < 0.5:
                word = f"{DOMAIN_SLUGS[domain][lang][0]}-{word}"
        else:
            word = topic if topic not in OFF_TOPICS else rng.choice((topic, f"{topic}-shop"))
        name = f"{prefix}-{word}"
        k = 2
        while name in used:
            name = f"{prefix}-{word}{k}"
            k += 1
        used.add(name)
        site = f"{name}.test"
        flags = _flags(rng, kind, archetype)
        host = site if "nowww" in flags else f"www.{site}"
        size = {
            "database": rng.randint(120, 700),
            "directory": rng.randint(300, 900),
            "portal": rng.randint(60, 200),
            "blog": rng.randint(40, 220),
            "news": rng.randint(150, 500),
            "forum": rng.randint(150, 600),
            "shop": rng.randint(100, 500),
            "institution": rng.randint(20, 90),
        }[kind]
        brand = " ".join(w.capitalize() for w in name.replace("-", " ").split())
        out.append(
            SitePlan(
                idx, host, site, brand, kind, domain, topic, lang, archetype, platform, size, flags
            )
        )
    return out
