"""Concept words of each domain in many languages: evidence that carries across languages.

The domain model learns its words from the labelled forms, most of them English; a
Chinese, Slovak, Hebrew or Swedish title says "books" or "cars" with words no training
form has. ``LEXICON`` lists, per domain, the few words that name what its databases
hold (the thing, its shop or catalogue, the action of finding one), in English and 30
other languages. Provenance: written by hand for formhunter (issue 24) from common
dictionary words, the way the packs' keywords were (domains/README.md); no page of a
labelled or reserved source was read to make it. ``lexicon_hits`` counts, per domain,
the distinct entries a text holds: a word of a spaced script matches at the start of
a word (so inflections such as "knihy", "böcker", "автомобили" match their stem), a
word of an unspaced script (Chinese, Japanese, Thai) anywhere.

``classifiers.context`` reads it as one feature per candidate class, beside the domain
model's probability and the page's topic score. ``concept_terms`` gives the page
classifier the same evidence as words: a page's stems plus one concept token
("_lex_<domain>") per lexicon entry its start holds, so that "knihy", "böcker" and
"books" share a feature the English training pages teach.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import numpy as np

from classifiers.text import stem_terms

__all__ = [
    "CONCEPT_CHARS", "LEXICON", "concept_terms", "concept_words", "lexicon_hits",
    "lexicon_scores",
]

#: domain -> concept words (lower case); stems where a language inflects
LEXICON: Mapping[str, tuple[str, ...]] = {
    "airfare": (
        # en de fr es it pt nl sv da no fi pl cs sk hu ro tr el ru uk he ar fa hi zh ja ko th vi id
        "flight", "airfare", "airline", "flug", "flüge", "vol ", "vols", "vuelo", "volo", "voli",
        "voo", "voos", "vlucht", "flyg", "fly ", "flybillet", "lento", "lennot", "lot ", "loty",
        "let ", "lety", "letenk", "repülőjegy", "járat", "zbor", "zboruri", "uçuş", "uçak",
        "πτήσ", "αεροπορικ", "авиабилет", "рейс", "перел", "авіаквит", "טיסה", "טיסות", "رحلة",
        "طيران", "پرواز", "उड़ान", "航班", "机票", "機票", "航空券", "フライト", "항공권", "항공편",
        "เที่ยวบิน", "chuyến bay", "vé máy bay", "penerbangan", "tiket pesawat",
    ),
    "auto": (
        "car ", "cars", "used car", "vehicle", "automobile", "auto ", "autos", "gebrauchtwagen",
        "fahrzeug", "voiture", "véhicule", "occasion", "coche", "coches", "vehículo", "auto usate",
        "veicol", "carro", "carros", "veículo", "occasions", "bil ", "bilar", "biler", "begagnad",
        "brugt", "bruktbil", "auto ", "autot", "käytet", "samochód", "samochody", "pojazd",
        "ojeté", "ojazd", "vozidl", "autá", "autó", "gépjármű", "mașin", "autoturism", "araba",
        "otomobil", "ikinci el", "αυτοκίνητ", "автомобил", "машин", "авто ", "автомоб", "רכב",
        "מכונית", "سيارة", "سيارات", "خودرو", "ماشین", "कार", "गाड़ी", "汽车", "二手车", "汽車",
        "中古車", "自動車", "クルマ", "중고차", "자동차", "รถยนต์", "รถมือสอง", "xe hơi", "ô tô",
        "mobil bekas",
    ),
    "book": (
        "book", "books", "library", "catalog", "isbn", "author", "buch", "bücher", "bibliothek",
        "bücherei", "livre", "livres", "bibliothèque", "libro", "libros", "biblioteca", "libri",
        "livro", "livros", "boek", "boeken", "bibliotheek", "bok ", "böcker", "bøger", "bøker",
        "bibliotek", "kirja", "kirjasto", "książk", "książek", "bibliotek", "kniha", "knihy",
        "knih", "knižnic", "knihovn", "könyv", "könyvtár", "carte", "cărți", "bibliotecă",
        "kitap", "kütüphane", "βιβλί", "книг", "библиотек", "бібліотек", "ספר", "ספרים", "ספרייה",
        "كتاب", "كتب", "مكتبة", "کتاب", "کتابخانه", "पुस्तक", "किताब", "图书", "书籍", "圖書",
        "書籍", "图书馆", "圖書館", "本の", "書店", "図書館", "도서", "책", "도서관", "หนังสือ",
        "ห้องสมุด", "sách", "thư viện", "buku", "perpustakaan",
    ),
    "hotel": (
        "hotel", "hotels", "accommodation", "lodging", "hostel", "unterkunft", "übernachtung",
        "hébergement", "alojamiento", "albergo", "alberghi", "alloggi", "hospedagem", "hotéis",
        "accommodatie", "boende", "overnatning", "overnatting", "majoitus", "hotelli", "nocleg",
        "ubytování", "ubytovanie", "szállás", "cazare", "otel", "konaklama", "ξενοδοχ", "διαμον",
        "гостиниц", "отел", "готел", "проживан", "מלון", "מלונות", "فندق", "فنادق", "هتل",
        "होटल", "酒店", "宾馆", "飯店", "旅館", "ホテル", "宿泊", "호텔", "숙박", "โรงแรม",
        "ที่พัก", "khách sạn", "penginapan",
    ),
    "job": (
        "job", "jobs", "career", "vacanc", "employment", "stellen", "stellenangebot", "karriere",
        "emploi", "offres d'emploi", "empleo", "trabajo", "ofertas de", "lavoro", "offerte di",
        "emprego", "vaga", "vacature", "banen", "jobb", "lediga", "ledige stillinger", "stilling",
        "työpaik", "avoimet", "praca", "oferty pracy", "práce", "volná místa", "pracovn",
        "ponuky práce", "állás", "munka", "locuri de muncă", "iş ilan", "kariyer", "εργασ",
        "θέσεις", "ваканси", "работа", "робота", "משרות", "דרושים", "وظيفة", "وظائف",
        "شغل", "استخدام", "नौकरी", "职位", "招聘", "工作", "職缺", "求人", "採用", "仕事",
        "채용", "일자리", "구인", "งาน", "สมัครงาน", "việc làm", "tuyển dụng", "lowongan",
        "kerja",
    ),
    "movie": (
        "movie", "movies", "film", "films", "cinema", "showtime", "imdb", "kino", "filme",
        "cinéma", "séance", "película", "películas", "cine", "cartelera", "pellicol", "filmes",
        "bioscoop", "bio ", "biograf", "elokuv", "filmy", "filmů", "filmov", "mozi", "filmek",
        "sinema", "ταινί", "σινεμά", "фильм", "кино", "фільм", "סרט", "סרטים", "קולנוע",
        "فيلم", "أفلام", "سينما", "فیلم", "सिनेमा", "फ़िल्म", "फिल्म", "电影", "影片", "電影",
        "映画", "シネマ", "영화", "ภาพยนตร์", "หนัง", "phim", "rạp", "bioskop",
    ),
    "music": (
        "music", "song", "songs", "album", "artist", "lyrics", "musik", "lied", "lieder",
        "künstler", "musique", "chanson", "paroles", "música", "canción", "canciones", "letra",
        "musica", "canzon", "testi", "muziek", "nummer", "liedje", "låt", "låtar", "sang",
        "sange", "sanger", "musiikki", "kappale", "muzyka", "piosenk", "hudba", "píseň",
        "piesn", "pieseň", "zene", "dal ", "dalszöveg", "muzică", "melodi", "müzik", "şarkı",
        "μουσικ", "τραγούδ", "музык", "песн", "музик", "пісн", "מוזיקה", "שיר", "שירים",
        "موسيقى", "أغنية", "أغاني", "موسیقی", "آهنگ", "संगीत", "गाना", "गीत", "音乐", "歌曲",
        "音樂", "歌詞", "音楽", "楽曲", "음악", "노래", "가사", "เพลง", "ดนตรี", "âm nhạc",
        "bài hát", "lagu", "musik",
    ),
    "rental": (
        "car rental", "car hire", "rent a car", "rental car", "mietwagen", "autovermietung",
        "location de voiture", "location voiture", "alquiler de coche", "alquiler de auto",
        "autonoleggio", "noleggio auto", "aluguel de carro", "aluguer de", "autohuur",
        "huurauto", "hyrbil", "biluthyrning", "billeje", "leiebil", "vuokra-auto", "autovuokra",
        "wynajem samochod", "wypożyczalnia", "půjčovna aut", "pronájem aut", "požičovňa",
        "prenájom áut", "autókölcsönz", "inchirieri auto", "închirieri", "araç kiralama",
        "araba kiralama", "ενοικίαση αυτοκ", "прокат авто", "аренда авто", "оренда авто",
        "השכרת רכב", "تأجير سيارات", "اجاره خودرو", "कार किराया", "租车", "租車", "レンタカー",
        "렌터카", "렌트카", "เช่ารถ", "thuê xe", "sewa mobil", "rental mobil",
    ),
}

_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _trie(words: Sequence[str]) -> str:
    """One domain's entries as a regex trie: at each position the longest entry that
    matches wins (as with the entries listed longest first), and re tries only the
    branches of the character it reads (about 2x faster than one branch per entry).

    A word of a spaced script matches at the start of a word: the check comes after its
    first letter, so every top branch begins with a literal and re skips ahead by first
    character; a trailing space in a word means "whole word" (``\\b``)."""
    # node: next character -> node; None -> True when the word there needs a word end
    root: dict[tuple[str, bool], dict[Any, Any]] = {}
    for w in words:
        s = w.strip()
        node = root.setdefault((s[0], not _UNSPACED.search(w)), {})
        for ch in s[1:]:
            node = node.setdefault(ch, {})
        node[None] = node.get(None, True) and w.endswith(" ")

    def branch(node: dict[Any, Any]) -> str:
        alts = [re.escape(ch) + branch(child) for ch, child in sorted(
            (k, v) for k, v in node.items() if k is not None)]  # fmt: skip
        if None in node:  # the word ending here, after every longer one
            alts.append(r"\b" if node[None] else "")
        return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"

    return "|".join(re.escape(first) + (r"(?<!\w.)" if spaced else "") + branch(node)
                    for (first, spaced), node in sorted(root.items()))  # fmt: skip


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    return {domain: re.compile(_trie(words)) for domain, words in LEXICON.items()}


def lexicon_hits(text: str) -> dict[str, int]:
    """Per domain, how many distinct lexicon entries ``text`` (any case) holds."""
    low = text.lower()
    return {d: len({m.group(0) for m in rx.finditer(low)}) for d, rx in _patterns().items()}


def lexicon_scores(texts: Sequence[str], domains: Sequence[str]) -> np.ndarray:
    """(n texts, len(domains)) of 1 - 0.5 ** hits (0 for a domain without a lexicon)."""
    out = np.zeros((len(texts), len(domains)))
    for i, t in enumerate(texts):
        hits = lexicon_hits(t)
        for j, d in enumerate(domains):
            out[i, j] = 1.0 - 0.5 ** hits.get(d, 0)
    return out


#: characters of a text (from its start: a page's title and first lines) ``concept_terms``
#: looks for lexicon entries in
CONCEPT_CHARS = 5_000


def concept_terms(text: str) -> list[str]:
    """``stem_terms(text)`` followed by "_lex_<domain>" once per distinct lexicon entry of
    that domain in the first ``CONCEPT_CHARS`` characters (the tokenizer never makes a
    word with "_", so a concept token is never a word)."""
    out = stem_terms(text)
    for domain, n in lexicon_hits(text[:CONCEPT_CHARS]).items():
        out.extend([f"_lex_{domain}"] * n)
    return out


def concept_words(text: str) -> str:
    """One word "lex<domain>" per distinct lexicon entry of that domain in ``text``: the
    domain model's language-neutral signal ("knihy", "böcker" and "books" all give
    "lexbook"; letters only, so that the word tokenizers keep it whole)."""
    return " ".join(f"lex{d}" for d, n in lexicon_hits(text).items() for _ in range(n))
