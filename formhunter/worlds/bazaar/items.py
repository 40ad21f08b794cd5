"""What a database site holds: items of its domain, with two facets each.

``items(plan, seed, n)`` is deterministic. An item's ``text`` (lower case) is what a
query is matched against: the name and every attribute value.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cached_property

from formhunter.worlds.bazaar import lexicon as lx
from formhunter.worlds.bazaar.model import SitePlan

#: facet parameter names and values of each domain's listings
FACETS: dict[str, tuple[tuple[str, tuple[str, ...]], tuple[str, tuple[str, ...]]]] = {
    "airfare": (("region", ("europe", "americas", "asia", "africa")), ("stops", ("0", "1"))),
    "auto": (
        ("make", tuple(m.lower() for m in list(lx.MAKES)[:8])),
        ("body", tuple(b.lower() for b in lx.BODY_TYPES[:4])),
    ),
    "book": (
        ("subject", tuple(s.lower() for s in lx.SUBJECTS_BOOK[:6])),
        ("format", ("hardcover", "paperback", "ebook")),
    ),
    "hotel": (("stars", ("2", "3", "4", "5")), ("board", ("ro", "bb", "hb"))),
    "job": (("contract", tuple(c.lower() for c in lx.CONTRACTS[:4])), ("remote", ("yes", "no"))),
    "movie": (
        ("genre", tuple(g.lower() for g in lx.GENRES_MOVIE[:6])),
        ("decade", ("1980s", "1990s", "2000s", "2010s")),
    ),
    "music": (
        ("genre", tuple(g.lower() for g in lx.GENRES_MUSIC[:6])),
        ("format", tuple(f.lower() for f in lx.FORMATS_MUSIC[:3])),
    ),
    "rental": (
        ("class", tuple(c.lower() for c in lx.CAR_CLASSES[:5])),
        ("transmission", ("manual", "automatic")),
    ),
}
_REGIONS = {
    "europe": (
        "Paris",
        "Berlin",
        "Madrid",
        "Roma",
        "Lisboa",
        "Amsterdam",
        "Warszawa",
        "Wien",
        "Dublin",
        "Athens",
    ),
    "americas": ("New York", "Chicago", "Toronto", "Ciudad de México", "São Paulo", "Buenos Aires"),
    "asia": ("Tokyo", "Osaka", "Shanghai", "Beijing", "Bangkok", "Singapore"),
    "africa": ("Cairo", "Marrakech", "Cape Town", "Nairobi"),
}
_AIRLINES = (
    "Nordvind Air",
    "Azur Lignes",
    "Iberluz",
    "Atlantica",
    "Polar Wings",
    "Sakura Airways",
    "Dragon Pacific",
    "Alpine Jet",
)


@dataclass(frozen=True)
class Item:
    iid: int
    name: str
    slug: str
    facets: tuple[str, str]
    attrs: tuple[tuple[str, str], ...]
    city: str

    @cached_property
    def text(self) -> str:
        return " ".join([self.name, self.city, *self.facets, *(v for _, v in self.attrs)]).lower()


def _one(
    rng: random.Random, domain: str, lang: str, home_city: str
) -> tuple[str, str, list[tuple[str, str]]]:
    """(name, city, attrs) of one item."""
    cities = lx.CITIES[lang]
    if domain == "airfare":
        region = rng.choice(list(_REGIONS))
        dest = rng.choice(_REGIONS[region])
        return (
            f"{home_city} - {dest}",
            home_city,
            [
                ("airline", rng.choice(_AIRLINES)),
                ("to", dest),
                ("region", region),
                ("from", home_city),
                ("price", f"{rng.randrange(39, 990)} EUR"),
            ],
        )
    if domain == "auto":
        make = rng.choice(list(lx.MAKES)[:8])
        model = rng.choice(lx.MAKES[make])
        year = rng.randrange(2008, 2025)
        return (
            f"{make} {model} {year}",
            rng.choice(cities),
            [
                ("make", make),
                ("model", model),
                ("year", str(year)),
                ("km", f"{rng.randrange(5, 220) * 1000}"),
                ("price", f"{rng.randrange(30, 450) * 100}"),
                ("body", rng.choice(lx.BODY_TYPES[:4])),
            ],
        )
    if domain == "book":
        return (
            lx.title(rng),
            home_city,
            [
                ("author", lx.person(rng)),
                (
                    "publisher",
                    rng.choice(
                        (
                            "Atlas",
                            "Meridian Press",
                            "Ediciones Sur",
                            "Kranich Verlag",
                            "Éditions du Port",
                        )
                    ),
                ),
                ("year", str(rng.randrange(1950, 2026))),
                ("isbn", f"978{rng.randrange(10**9, 10**10)}"),
                ("subject", rng.choice(lx.SUBJECTS_BOOK[:6])),
            ],
        )
    if domain == "hotel":
        city = rng.choice(cities)
        return (
            lx.hotel_name(rng, city),
            city,
            [("stars", str(rng.randrange(2, 6))), ("price", f"{rng.randrange(45, 420)} EUR")],
        )
    if domain == "job":
        return (
            rng.choice(lx.JOB_TITLES[lang]),
            rng.choice(cities),
            [
                (
                    "company",
                    f"{rng.choice(lx.CITIES['en'])} {rng.choice(('GmbH', 'Ltd', 'SA', 'BV'))}",
                ),
                ("contract", rng.choice(lx.CONTRACTS[:4])),
            ],
        )
    if domain == "movie":
        return (
            lx.title(rng),
            home_city,
            [
                ("director", lx.person(rng)),
                ("year", str(rng.randrange(1980, 2026))),
                ("genre", rng.choice(lx.GENRES_MOVIE[:6])),
            ],
        )
    if domain == "music":
        return (
            lx.title(rng),
            home_city,
            [
                ("artist", lx.artist(rng)),
                ("year", str(rng.randrange(1965, 2026))),
                ("genre", rng.choice(lx.GENRES_MUSIC[:6])),
                ("label", rng.choice(("Blue Harbour", "Nachtwerk", "Sello Norte", "Disques Azur"))),
            ],
        )
    cls = rng.choice(lx.CAR_CLASSES[:5])
    city = rng.choice(cities)
    return (
        f"{cls} - {city}",
        city,
        [
            ("class", cls),
            ("model", rng.choice(list(lx.MAKES)) + " or similar"),
            ("price", f"{rng.randrange(19, 160)} EUR/day"),
        ],
    )


def _facets(rng: random.Random, domain: str, attrs: dict[str, str]) -> tuple[str, str]:
    (n1, v1), (_, v2) = FACETS[domain]
    a = attrs.get(n1, "").lower() or rng.choice(v1)
    if domain == "movie":
        a = attrs["genre"].lower()
    b = rng.choice(v2)
    if domain == "auto":
        b = attrs["body"].lower()
    if domain == "movie":
        b = f"{int(attrs['year']) // 10 * 10 % 100:02d}"
        b = {"80": "1980s", "90": "1990s", "00": "2000s", "10": "2010s"}.get(b, "2010s")
    if domain == "hotel":
        a = attrs["stars"]
    return (a if a in v1 else v1[0], b if b in v2 else v2[0])


def items(plan: SitePlan, seed: int, n: int) -> list[Item]:
    """``n`` items of ``plan``'s domain (module doc)."""
    rng = random.Random(f"bazaar-items|{seed}|{plan.idx}")
    home_city = rng.choice(lx.CITIES[plan.lang])
    out: list[Item] = []
    for i in range(n):
        name, city, attrs = _one(rng, plan.domain, plan.lang, home_city)
        facets = _facets(rng, plan.domain, dict(attrs))
        iid = 1000 + i * 7 + rng.randrange(7)
        out.append(Item(iid, name, lx.slugify(name)[:40] or str(iid), facets, tuple(attrs), city))
    return out
