"""Running text and item names of the bazaar world: sentences, places, people, things.

``paragraph(rng, lang, nouns, city)`` writes a paragraph in ``lang`` about the
given topic nouns; the ``*_name`` helpers make the names of items a database
site holds (hotels, cars, books, films, albums, jobs, stations, flights).
"""

from __future__ import annotations

import random
from functools import lru_cache

_SENTENCES: dict[str, tuple[str, ...]] = {
    "en": (
        "Looking for {a} in {c}? We compare offers every day.",
        "Our team has collected the best {a} and {b} for you.",
        "Many readers asked us about {a} near {c}, so here is our guide.",
        "Prices for {b} change often; check again before you decide.",
        "Since 2004 we have helped thousands of customers with {a}.",
        "This page was last updated this week and covers {b} in {c}.",
        "Tip: combine {a} with {b} and save money on your next trip.",
        "Read the reviews of other visitors before you choose {a}.",
    ),
    "de": (
        "Sie suchen {a} in {c}? Wir vergleichen täglich die Angebote.",
        "Unser Team hat für Sie die besten {a} und {b} zusammengestellt.",
        "Viele Leser haben nach {a} in der Nähe von {c} gefragt.",
        "Die Preise für {b} ändern sich oft; prüfen Sie vor der Entscheidung erneut.",
        "Seit 2004 helfen wir Tausenden Kunden rund um {a}.",
        "Diese Seite wurde diese Woche aktualisiert und behandelt {b} in {c}.",
        "Tipp: Kombinieren Sie {a} mit {b} und sparen Sie bares Geld.",
        "Lesen Sie die Bewertungen anderer Besucher, bevor Sie {a} wählen.",
    ),
    "fr": (
        "Vous cherchez des {a} à {c} ? Nous comparons les offres chaque jour.",
        "Notre équipe a sélectionné pour vous les meilleurs {a} et {b}.",
        "Beaucoup de lecteurs nous interrogent sur les {a} près de {c}.",
        "Les prix des {b} changent souvent ; vérifiez avant de décider.",
        "Depuis 2004, nous aidons des milliers de clients pour leurs {a}.",
        "Cette page a été mise à jour cette semaine et présente les {b} à {c}.",
        "Astuce : associez {a} et {b} pour économiser sur votre prochain séjour.",
        "Lisez les avis des autres visiteurs avant de choisir vos {a}.",
    ),
    "es": (
        "¿Busca {a} en {c}? Comparamos las ofertas cada día.",
        "Nuestro equipo ha reunido para usted los mejores {a} y {b}.",
        "Muchos lectores nos preguntan por {a} cerca de {c}.",
        "Los precios de {b} cambian a menudo; compruébelos antes de decidir.",
        "Desde 2004 ayudamos a miles de clientes con {a}.",
        "Esta página se actualizó esta semana y trata sobre {b} en {c}.",
        "Consejo: combine {a} con {b} y ahorre en su próximo viaje.",
        "Lea las opiniones de otros visitantes antes de elegir {a}.",
    ),
    "pt": (
        "Procurando {a} em {c}? Comparamos as ofertas todos os dias.",
        "Nossa equipe reuniu os melhores {a} e {b} para você.",
        "Muitos leitores perguntaram sobre {a} perto de {c}.",
        "Os preços de {b} mudam com frequência; confira antes de decidir.",
        "Desde 2004 ajudamos milhares de clientes com {a}.",
        "Esta página foi atualizada nesta semana e trata de {b} em {c}.",
        "Dica: combine {a} com {b} e economize na próxima viagem.",
    ),
    "it": (
        "Cerchi {a} a {c}? Confrontiamo le offerte ogni giorno.",
        "Il nostro team ha raccolto per te i migliori {a} e {b}.",
        "Molti lettori ci hanno chiesto di {a} vicino a {c}.",
        "I prezzi di {b} cambiano spesso; controlla prima di decidere.",
        "Dal 2004 aiutiamo migliaia di clienti con {a}.",
        "Questa pagina è stata aggiornata questa settimana e tratta {b} a {c}.",
        "Consiglio: abbina {a} e {b} e risparmia sul prossimo viaggio.",
    ),
    "nl": (
        "Op zoek naar {a} in {c}? Wij vergelijken elke dag de aanbiedingen.",
        "Ons team heeft de beste {a} en {b} voor u verzameld.",
        "Veel lezers vroegen ons naar {a} in de buurt van {c}.",
        "De prijzen van {b} veranderen vaak; controleer ze voordat u beslist.",
        "Sinds 2004 helpen wij duizenden klanten met {a}.",
        "Deze pagina is deze week bijgewerkt en gaat over {b} in {c}.",
    ),
    "pl": (
        "Szukasz {a} w {c}? Codziennie porównujemy oferty.",
        "Nasz zespół zebrał dla Ciebie najlepsze {a} i {b}.",
        "Wielu czytelników pytało nas o {a} w okolicy {c}.",
        "Ceny {b} często się zmieniają; sprawdź przed decyzją.",
        "Od 2004 roku pomagamy tysiącom klientów w sprawie {a}.",
        "Ta strona została zaktualizowana w tym tygodniu i dotyczy {b} w {c}.",
    ),
    "ja": (
        "{c}で{a}をお探しですか？毎日最新の情報を比較しています。",
        "私たちのチームが厳選した{a}と{b}をご紹介します。",
        "{c}周辺の{a}について多くのお問い合わせをいただいています。",
        "{b}の料金は頻繁に変わりますので、事前にご確認ください。",
        "2004年から多くのお客様の{a}をお手伝いしてきました。",
        "このページでは{c}の{b}について詳しく説明します。",
    ),
    "zh": (
        "在{c}寻找{a}吗？我们每天比较各类优惠。",
        "我们的团队为您精选了最好的{a}和{b}。",
        "许多读者询问{c}附近的{a}，以下是我们的指南。",
        "{b}的价格经常变动，请在决定之前再次确认。",
        "自2004年以来，我们已帮助数千名客户解决{a}的问题。",
        "本页面本周已更新，介绍{c}的{b}。",
    ),
}

CITIES: dict[str, tuple[str, ...]] = {
    "en": (
        "London",
        "New York",
        "Chicago",
        "Boston",
        "Seattle",
        "Dublin",
        "Edinburgh",
        "Toronto",
        "Sydney",
        "Denver",
        "Austin",
        "Manchester",
    ),
    "de": (
        "Berlin",
        "München",
        "Hamburg",
        "Köln",
        "Wien",
        "Zürich",
        "Dresden",
        "Leipzig",
        "Salzburg",
        "Freiburg",
    ),
    "fr": (
        "Paris",
        "Lyon",
        "Marseille",
        "Bordeaux",
        "Nantes",
        "Lille",
        "Genève",
        "Nice",
        "Toulouse",
        "Strasbourg",
    ),
    "es": (
        "Madrid",
        "Barcelona",
        "Sevilla",
        "Valencia",
        "Málaga",
        "Bilbao",
        "Granada",
        "Buenos Aires",
        "Ciudad de México",
        "Zaragoza",
    ),
    "pt": (
        "Lisboa",
        "Porto",
        "Faro",
        "Coimbra",
        "São Paulo",
        "Rio de Janeiro",
        "Recife",
        "Curitiba",
    ),
    "it": ("Roma", "Milano", "Napoli", "Torino", "Firenze", "Bologna", "Venezia", "Palermo"),
    "nl": ("Amsterdam", "Rotterdam", "Utrecht", "Den Haag", "Eindhoven", "Gent", "Antwerpen"),
    "pl": ("Warszawa", "Kraków", "Gdańsk", "Wrocław", "Poznań", "Łódź", "Lublin"),
    "ja": ("東京", "大阪", "京都", "札幌", "福岡", "名古屋", "横浜"),
    "zh": ("北京", "上海", "广州", "深圳", "成都", "杭州", "西安"),
}
#: ASCII slugs of the cities above (same order).
CITY_SLUGS: dict[str, tuple[str, ...]] = {
    "en": (
        "london",
        "new-york",
        "chicago",
        "boston",
        "seattle",
        "dublin",
        "edinburgh",
        "toronto",
        "sydney",
        "denver",
        "austin",
        "manchester",
    ),
    "de": (
        "berlin",
        "muenchen",
        "hamburg",
        "koeln",
        "wien",
        "zuerich",
        "dresden",
        "leipzig",
        "salzburg",
        "freiburg",
    ),
    "fr": (
        "paris",
        "lyon",
        "marseille",
        "bordeaux",
        "nantes",
        "lille",
        "geneve",
        "nice",
        "toulouse",
        "strasbourg",
    ),
    "es": (
        "madrid",
        "barcelona",
        "sevilla",
        "valencia",
        "malaga",
        "bilbao",
        "granada",
        "buenos-aires",
        "ciudad-de-mexico",
        "zaragoza",
    ),
    "pt": (
        "lisboa",
        "porto",
        "faro",
        "coimbra",
        "sao-paulo",
        "rio-de-janeiro",
        "recife",
        "curitiba",
    ),
    "it": ("roma", "milano", "napoli", "torino", "firenze", "bologna", "venezia", "palermo"),
    "nl": ("amsterdam", "rotterdam", "utrecht", "den-haag", "eindhoven", "gent", "antwerpen"),
    "pl": ("warszawa", "krakow", "gdansk", "wroclaw", "poznan", "lodz", "lublin"),
    "ja": ("tokyo", "osaka", "kyoto", "sapporo", "fukuoka", "nagoya", "yokohama"),
    "zh": ("beijing", "shanghai", "guangzhou", "shenzhen", "chengdu", "hangzhou", "xian"),
}

_FIRST = (
    "Anna",
    "Marco",
    "Julia",
    "Tomasz",
    "Sofia",
    "Lukas",
    "Emma",
    "Pierre",
    "Lucía",
    "João",
    "Giulia",
    "Daan",
    "Kenji",
    "Wei",
    "Oliver",
    "Clara",
    "Mateo",
    "Ingrid",
    "Hugo",
    "Elena",
    "Jonas",
    "Maya",
    "Felix",
    "Nora",
)
_LAST = (
    "Berger",
    "Moreau",
    "García",
    "Silva",
    "Rossi",
    "de Vries",
    "Nowak",
    "Tanaka",
    "Chen",
    "Walsh",
    "Keller",
    "Laurent",
    "Ortega",
    "Costa",
    "Bianchi",
    "Jansen",
    "Kowalski",
    "Sato",
    "Li",
    "Hughes",
    "Fischer",
    "Dubois",
    "Navarro",
    "Ferreira",
)
_TITLE_A = (
    "Silent",
    "Northern",
    "Last",
    "Hidden",
    "Golden",
    "Broken",
    "Distant",
    "Paper",
    "Winter",
    "Crimson",
    "Little",
    "Endless",
    "Glass",
    "Wild",
    "Secret",
    "Blue",
)
_TITLE_B = (
    "River",
    "Garden",
    "Harbour",
    "Letters",
    "Summer",
    "Mountain",
    "Station",
    "Island",
    "Kingdom",
    "Orchard",
    "Machine",
    "Lanterns",
    "Tides",
    "Road",
    "House",
    "Echoes",
)
MAKES: dict[str, tuple[str, ...]] = {
    "Volkswagen": ("Golf", "Polo", "Passat", "Tiguan"),
    "Toyota": ("Corolla", "Yaris", "RAV4"),
    "Ford": ("Focus", "Fiesta", "Kuga"),
    "BMW": ("320d", "X1", "118i"),
    "Renault": ("Clio", "Mégane", "Captur"),
    "Fiat": ("Panda", "500", "Tipo"),
    "Peugeot": ("208", "308", "3008"),
    "Skoda": ("Octavia", "Fabia"),
    "Honda": ("Civic", "Jazz"),
    "Opel": ("Astra", "Corsa"),
    "SEAT": ("Ibiza", "León"),
    "Mazda": ("CX-5", "Mazda3"),
}
BODY_TYPES = ("Sedan", "Estate", "Hatchback", "SUV", "Convertible", "Van")
GENRES_MOVIE = ("Drama", "Comedy", "Thriller", "Documentary", "Animation", "Horror", "Sci-Fi")
GENRES_MUSIC = ("Rock", "Jazz", "Classical", "Hip-Hop", "Electronic", "Folk", "Pop", "Blues")
SUBJECTS_BOOK = (
    "Fiction",
    "History",
    "Science",
    "Children",
    "Travel",
    "Biography",
    "Cookery",
    "Poetry",
)
FORMATS_MUSIC = ("CD", "Vinyl", "Cassette", "Download")
CAR_CLASSES = ("Economy", "Compact", "Intermediate", "Estate", "SUV", "Minivan", "Premium")
CABINS = ("Economy", "Premium Economy", "Business", "First")
JOB_TITLES: dict[str, tuple[str, ...]] = {
    "en": (
        "Software Developer",
        "Nurse",
        "Accountant",
        "Warehouse Operative",
        "Sales Manager",
        "Electrician",
        "Teacher",
        "Data Analyst",
        "Chef",
        "Project Manager",
    ),
    "de": (
        "Softwareentwickler (m/w/d)",
        "Pflegefachkraft",
        "Buchhalter",
        "Lagerist",
        "Vertriebsleiter",
        "Elektroniker",
        "Erzieherin",
        "Datenanalyst",
        "Koch",
        "Projektleiter",
    ),
    "fr": (
        "Développeur logiciel",
        "Infirmier",
        "Comptable",
        "Préparateur de commandes",
        "Responsable commercial",
        "Électricien",
        "Professeur",
        "Analyste de données",
        "Cuisinier",
        "Chef de projet",
    ),
    "es": (
        "Desarrollador de software",
        "Enfermero",
        "Contable",
        "Mozo de almacén",
        "Jefe de ventas",
        "Electricista",
        "Profesor",
        "Analista de datos",
        "Cocinero",
        "Jefe de proyecto",
    ),
    "pt": (
        "Desenvolvedor de software",
        "Enfermeiro",
        "Contador",
        "Auxiliar de armazém",
        "Gerente de vendas",
        "Eletricista",
        "Professor",
        "Analista de dados",
    ),
    "it": (
        "Sviluppatore software",
        "Infermiere",
        "Contabile",
        "Magazziniere",
        "Responsabile vendite",
        "Elettricista",
        "Insegnante",
        "Analista dati",
    ),
    "nl": (
        "Softwareontwikkelaar",
        "Verpleegkundige",
        "Boekhouder",
        "Magazijnmedewerker",
        "Verkoopmanager",
        "Elektricien",
        "Leraar",
        "Data-analist",
    ),
    "pl": (
        "Programista",
        "Pielęgniarka",
        "Księgowy",
        "Magazynier",
        "Kierownik sprzedaży",
        "Elektryk",
        "Nauczyciel",
        "Analityk danych",
    ),
    "ja": (
        "ソフトウェアエンジニア",
        "看護師",
        "経理スタッフ",
        "倉庫作業員",
        "営業マネージャー",
        "電気工事士",
        "講師",
        "データアナリスト",
    ),
    "zh": (
        "软件开发工程师",
        "护士",
        "会计",
        "仓库管理员",
        "销售经理",
        "电工",
        "教师",
        "数据分析师",
    ),
}
CONTRACTS = ("Full-time", "Part-time", "Temporary", "Internship", "Freelance")
_HOTEL_WORDS = (
    "Astoria",
    "Bellevue",
    "Seeblick",
    "Alpenrose",
    "Le Grand",
    "Miramar",
    "Royal",
    "Park",
    "Central",
    "Victoria",
    "Riverside",
    "Panorama",
    "Ambassador",
    "Residenz",
    "Plaza",
    "Sakura",
    "Lotus",
    "Garden Inn",
)
_ARTIST_A = ("The", "Los", "Die", "Les", "Electric", "Velvet", "Midnight", "Paper", "Neon")
_ARTIST_B = (
    "Foxes",
    "Satellites",
    "Drifters",
    "Owls",
    "Pilots",
    "Lanterns",
    "Harbours",
    "Comets",
    "Wolves",
    "Sparrows",
)


def paragraph(
    rng: random.Random, lang: str, nouns: tuple[str, ...] | list[str], city: str, n: int = 3
) -> str:
    """``n`` sentences in ``lang`` about ``nouns`` (topic phrases) and ``city``."""
    sents = _SENTENCES[lang]
    out = []
    for _ in range(n):
        s = rng.choice(sents)
        out.append(s.format(a=rng.choice(nouns), b=rng.choice(nouns), c=city))
    sep = "" if lang in ("ja", "zh") else " "
    return sep.join(out)


def person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def title(rng: random.Random) -> str:
    a, b = rng.choice(_TITLE_A), rng.choice(_TITLE_B)
    return rng.choice((f"The {a} {b}", f"{a} {b}", f"{b} of the {a}", f"A {a} {b}"))


def hotel_name(rng: random.Random, city: str) -> str:
    w = rng.choice(_HOTEL_WORDS)
    return rng.choice((f"Hotel {w} {city}", f"{w} Hotel", f"{w} Suites {city}", f"Hotel {w}"))


def artist(rng: random.Random) -> str:
    return rng.choice((f"{rng.choice(_ARTIST_A)} {rng.choice(_ARTIST_B)}", person(rng)))


@lru_cache(maxsize=1 << 16)
def slugify(text: str) -> str:
    """ASCII slug of a Latin-script text (other scripts give an empty string)."""
    import unicodedata

    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    out = []
    for ch in norm.lower():
        out.append(ch if ch.isalnum() else "-")
    return "-".join(p for p in "".join(out).split("-") if p)
