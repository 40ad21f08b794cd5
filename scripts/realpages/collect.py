"""Build domains/*/pages_real.jsonl: real pages, labelled by topic, with provenance.

Pure local reading, no network: pages come from the formasaurus package as
installed and from git snapshots of public repositories (bare git directories,
``git show COMMIT:PATH``). Each page is parsed by formhunter's own parser
(``formhunter.parse.parse_page``), so the record holds the title and visible text
exactly as a crawl would see them (text capped at ``TEXT_CAP`` characters) and the
first ``MAX_ANCHORS`` outlink anchors.

    collect.py build [SPECDIR] [DOMAINS]   # rewrite every pages_real.jsonl from specs/*.tsv

A spec row (tab-separated, ``#`` starts a comment line): source name (``SOURCES``),
path inside the source (``ARCHIVE!/MEMBER``: a file inside a zip, tar.gz or rar
file of the source), label (a domain folder name or ``offtopic``), kind
(``home``, ``detail``, ``listing``, ``search``, ``article``, ``account``, ``other``),
url (empty: the source's index, else the page's canonical/og:url/<base>), note.
A path ``CASSETTE.yml#N`` names the response body of the N-th (0-based) recorded
HTTP exchange of a VCR cassette (Ruby VCR 1 and 2+, vcrpy), the page exactly as the
site served it; its URL is the recorded request's. A saved raw HTTP response
(``HTTP/1.x ...`` headers, a blank line, the body) is read without its headers.
Mirrors are looked up under $MIRRORS (default /work/.mirror, as the search tool's
``fetch`` leaves them); a source's commit is pinned in ``SOURCES`` and read at
that commit, so the records rebuild byte for byte.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import glob
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.html
import yaml

from formhunter.exceptions import ParseError
from formhunter.model import Page
from formhunter.parse import parse_page

TEXT_CAP = 20_000
MAX_ANCHORS = 80
MIN_TEXT = 200  # a page with less visible text than this (a script shell) is left out
MIRRORS = Path(os.environ.get("MIRRORS", "/work/.mirror"))
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Source:
    """Where pages come from. ``kind`` "package" (``root`` a folder of the installed
    package) or "repo" (``name`` owner/repo, read at ``commit``)."""

    kind: str
    name: str
    version_or_commit: str
    licence: str
    pattern: str  # regex over paths inside the source

    def gitdir(self) -> Path:
        base = MIRRORS / self.name.replace("/", "+") / "repo"
        return base / ".git" if (base / ".git").is_dir() else base


def _formasaurus_root() -> Path:
    import formasaurus

    return Path(formasaurus.__file__).parent / "data"


def _repo(name: str, commit: str, licence: str, pattern: str = r"$^") -> Source:
    return Source("repo", name, commit, licence, pattern)


SOURCES: dict[str, Source] = {
    "formasaurus": Source("package", "formasaurus", "0.10.0", "MIT", r"^html/\d+\.html$"),
    "autopager": _repo("TeamHG-Memex/autopager", "990e480bee9f780088db05e7586b2b84e255abeb",
                       "MIT", r"^autopager/data/html/\d+\.html$"),
    "page-compare": _repo("TeamHG-Memex/page-compare", "f4e4d775c20bbffc59489fc81bf6f75ff6811a21",
                          "none stated", r"^data/[\w.-]+\.html$"),
    "webstruct": _repo("scrapinghub/webstruct", "17c8254898368ead7448a9145e98a125f8891558",
                       "MIT", r"^webstruct_data/corpus/[\w]+/source/[\w.-]+\.html$"),
    "webpager": _repo("scrapinghub/webpager", "d7b8f5b5af685e95370d02ed4d7dcee395599c0c",
                      "none stated", r"^corpus/source/\d+\.html$"),
    "recipe-scrapers": _repo("hhursev/recipe-scrapers",
                             "d08ddd0240ee0ff73dd9d705e43077a821944716", "MIT"),
    "newspaper": _repo("codelucas/newspaper", "1618b547f31c2d1fd19ae3b6afd8f7542dd02074", "MIT"),
    "goose3": _repo("goose3/goose3", "c5a8902eed0c4592a1ff5ec51a0277cf73a3aca7", "Apache-2.0"),
    "a11y-mutation": _repo("anmol21ten/Accessibility-Mutation-Testing",
                           "4e8323b949798e5a21c5df413a0c8cadfa6ae689", "none stated"),
    "ddg-autofill": _repo("duckduckgo/duckduckgo-autofill",
                          "af4a88bda37c6f8cde71c0a47d4e67bc42cfb7ed", "Apache-2.0"),
    "miniwob": _repo("Farama-Foundation/miniwob-plusplus",
                     "3f461ffcca7cecd2e84f603c6908ea16a0dfbc0c", "MIT"),
    "mp3streamer": _repo("GalLalouche/Mp3Streamer", "5f7be647107efb8456f9d11ee426e9d0b52d1b94",
                         "none stated"),
    "beets": _repo("beetbox/beets", "07f39c5204997a356fd98b7e88ba9b185efb2e66", "MIT"),
    # an older commit: its lyrics test resources are saved pages of ~20 lyrics sites
    "beets-2016": _repo("beetbox/beets", "0a1e3dd25f6157429e7daf339a03b9e205f1e566", "MIT"),
    "odeon-uk": _repo("andycroll/odeon_uk", "2f0ee4a835cf7b8c09ee3c8e54971feda51174ac",
                      "MIT (LICENSE.txt at that commit)"),
    "opacclient": _repo("opacapp/opacclient", "8aa4a726508a174e177e1a38b94978d3e24f9e0c", "MIT"),
    "goodreads-scraper": _repo("YashTotale/goodreads-user-scraper",
                               "b355c9242c94e7d8ff5e93a10c90b13253d3a510", "MIT"),
    "csfd": _repo("bartholomej/node-csfd-api", "8fe98f887e5e95b63ab9f05606400a94e589e81a", "MIT"),
    "letterrestd": _repo("drewstinnett/letterrestd", "449428d8751c080bf3f54b0d327c13eeef794a67",
                         "none stated"),
    "picturehouse": _repo("andycroll/picturehouse_uk", "cd4611ed08a2d03b73d1d815df977324079a27d1",
                          "AGPL-3.0"),
    "cine-medallo": _repo("gyarra/cine_medallo_2", "b1cd27a90fb398b77ba83ad07a3cd0cf4f44798d",
                          "none stated"),
    "cinema-il": _repo("dividded/cinema", "50eed9a85dba216df1f85559d2fa473698d70103", "MIT"),
    "movie-web-scraper": _repo("hugomilosz/movie-web-scraper",
                               "365c6005d8c25ef693593d8292aaa1d6ccbfea08", "MIT"),
    "belbios": _repo("koenpunt/belbios-scraper", "4a8b19da81b0cd1e46a8b6d7b2f42fcc4442b102", "MIT"),
    "can-haz-poster": _repo("RKushnir/can_haz_poster", "3b7c0dd7803dce0afe1ec42dfc389780ba3607e8",
                            "MIT"),
    "devry": _repo("recruitmilitary/devry", "0411a5854fbf57cd72a275c6a7bebbf1accb6c9a", "MIT"),
    "wrigley": _repo("recruitmilitary/wrigley", "7079c7e299f508702efd4d9ae4525c1db93ff8e4", "MIT"),
    # session 3: career-site scrapers' fixtures and VCR cassettes (recorded HTTP)
    "rm-kenexa": _repo("recruitmilitary/kenexa", "f41c36cefb02d04c9defff07fee5633408b1ad88",
                       "none stated"),
    "rm-lowes": _repo("recruitmilitary/lowes", "a2e69013b9544d98c2d35a2ed907691aaa720935",
                      "MIT (LICENSE)"),
    "rm-saic": _repo("recruitmilitary/saic", "184873a3ecf6ad64db08ead633b232e8f88c05c3",
                     "MIT (LICENSE)"),
    "rm-graebel": _repo("recruitmilitary/graebel", "2005d70528cae931918baf491a942693f2da7270",
                        "none stated"),
    "rm-jwenergy": _repo("recruitmilitary/jwenergy", "2770e6b490ee0aa35b804f4dd00b63f9540be305",
                         "none stated"),
    "rm-hornbeck": _repo("recruitmilitary/hornbeck_offshore",
                         "b22a4eb28813a1d36a919a4e229907a4d3394661", "none stated"),
    "rm-verizon": _repo("recruitmilitary/verizon", "09659a9754b147e1edc7479ceb44b0c0e82f3926",
                        "none stated"),
    "rm-taic": _repo("recruitmilitary/technology_associates",
                     "0aec1b45c4c2d69301bcb28da2bc3903af9b2f95", "none stated"),
    "careers-group": _repo("jkingharman/careers_group_scraper",
                           "dcde20b93c5fce49099b7e46c98503a968397928", "none stated"),
    # session 3: car listing scrapers' fixtures
    "craigscrape": _repo("brighton36/libcraigscrape", "99e12cbc5967d372552d8d290f31022c8aab1eb7",
                         "LGPL-3.0 (COPYING.LESSER)"),
    "lbcproxy": _repo("adanselm/lbcproxy", "6ed4987e804eaae68491878783fab9706d534a72",
                      "MIT (LICENSE)"),
    "i4-scout": _repo("aaearon/i4-scout", "913593e962739d5f223134a1f38652c8587c65fe",
                      "MIT (pyproject.toml)"),
    "webmotors": _repo("c2s-organization/c2s_scraping", "c69246efe5308fac7810dad2b7570c5a011fa575",
                       "none stated"),
    "motosale-ua": _repo("kongo/motosale_ua", "e7c93b64f0440d151bc97fa24f81b7dba4dca8df",
                         "MIT (LICENSE.txt)"),
    # its initial commit: autoplius.lt saved by its spec (removed later)
    "car-stalker": _repo("maikis/car_scraper", "e8e08de1a762f3aeb3c98d24e51d5e7ec356760c",
                         "MIT (gemspec)"),
    # session 3: airline award-search pages saved by flightplan's tests
    "flightplan": _repo("flightplan-tool/flightplan", "a766d0181ef343c14432a01f94b1edad0d1b7484",
                        "MIT (LICENSE)"),
    "teecket": _repo("amree/teecket", "3986083e0c9f64f1b55dd7bf08109f4ccec46fd4", "MIT (gemspec)"),
    "arnold-clark": _repo("outragedpinkracoon/car_scraper_api_prototype",
                          "be7ddb30dc160d6824064c5b550e7261161fe741", "none stated"),
    "scrapely": _repo("scrapy/scrapely", "31b5881bed01a99be2b65b30b9c81ad65a517eaf",
                      "BSD (setup.py)"),
    # session 3: record-extraction test beds (search result and detail pages of ~1997-2016
    # web databases: Alvarez et al.'s, Zhao et al.'s, Yamada et al.'s, ExAlg's, WIEN, ...),
    # packed inside the repo (zip, tar.gz, rar: paths ARCHIVE!/MEMBER)
    "webmining": _repo("rpvelloso/webMining", "378edc2a27fd0b02cd0157f4d5efb217a1bc9639",
                       "none stated"),
    # session 3: the Postlight (Mercury) parser's saved article pages (entertainment news)
    "postlight": _repo("postlight/parser", "e8ba7ece291efa4d915d50dd4deeec17d54359f2",
                       "MIT or Apache-2.0 (LICENSE-MIT, LICENSE-APACHE)"),
    # session 4: a travel planner's scraper specs: saved pages of hotel sites, booking.com,
    # TripAdvisor hotel reviews, an Airbnb room (spec/support/pages/SITE/NAME.html)
    "planit": _repo("sashafklein/planit", "7ff0344fd0a26bbe3379b38f8dd6219a14416b6f",
                    "none stated"),
    # session 4: a dealership app's page kept for later: a used-car dealer's inventory as saved
    "car-dealership": _repo("s-hayse/CarDealership", "a62151230bb36a2137be8f8eef3bd0d38dc71598",
                            "none stated"),
    # session 4: a campervan-rental price monitor's saved pages (browser-rendered, 2025)
    "campervan-monitor": _repo("Indieseo/campervan-monitor",
                               "3ea4d6bc824d159ccecd7de26c954546fafc6c7a", "none stated"),
    # session 4: students' scraping exercises that committed the pages they fetched
    "truecar-lecture": _repo("emiliobecerra/lecture_truecar",
                             "2c687c9bbbdd0be7811e16af72f9be51a4cff6b2", "none stated"),
    "truecar-makes": _repo("gzmazek/Analiza-prodaje-avtomobilov",
                           "e26278f27f5bf398a80cc5559a4e5fcc207692d6", "MIT (LICENSE)"),
    "avtonet-pages": _repo("aljazostrez/Prog-1-projektna-naloga",
                           "2eb5ac44239d134c6e481c1592c05f2784dc2cf8", "none stated"),
    # its May 2024 commit: a web-scraping class's saved Naver flight results (removed later)
    "naver-flights": _repo("bbddihr/medical1", "08d3db80fc6c63566986f5ed358cb113dbb08ea9",
                           "none stated"),
    "studentjobs-2020": _repo("DejanPeric058/Programiranje-1-Projektna-naloga",
                              "be201e5d545c6dfb282609b0af9fddaf8de9f99e", "none stated"),
    "studentjobs-old": _repo("Patrikxy/projektna-naloga",
                             "5251501ca339416bd20151debf245a97b5228b24", "none stated"),
    # session 4 (pages5): a Selenium flight-extraction exercise (2018) that saved the pages it read
    "as2000-flights": _repo("AS2000/AS2000-Selenium-Extractor",
                            "f6583a2ee81ff04f74afb8bfa30c7751f2d5a65f", "none stated"),
    "as2000-norwegian": _repo("AS2000/AS2000-Selenium-Extractor",
                              "e68fd59538b1a2aa24b8f5589bdf7573575ee01c", "none stated"),
    # session 4 (pages5): used-car pages scraping projects committed as they fetched them
    "otomoto-ks": _repo("karolszymczyk/Otomoto", "8f46c5578a5edc988be6edafc9a07538592dc0d2",
                        "none stated"),
    "otomoto-kp": _repo("KPacierz/Otomoto", "b7440ad55b8d78e5143e4c59fb2585e36f45c41f",
                        "none stated"),
    "autotrader-ca": _repo("albud187/vehicle_pricing_model",
                           "26f5b685270e66f3de6764470cbab86fd4bd6d69", "none stated"),
    "microdata-cars": _repo("fdaiello/Microdata", "bd820248e93e9f9afea7d8bf469ed02cbea5621b",
                            "none stated"),
    "cardb-autotrader": _repo("WrightKD/CarDB-Data", "d3982f2b3c3f855514ab61866fa9aad36d52a4b1",
                                 "none stated"),
    # session 4 (pages5): flight-search pages saved by flight scrapers as they fetched them
    "skyscraper": _repo("yazizoglu/skyscraper", "a25b9b66f246fc21b208bc8ff035b705d7c4ef82",
                        "none stated"),
    "skyscraper-results": _repo("yazizoglu/skyscraper", "2b03d47b0c364bf8d6fa55046eb65620d3dc1808",
                                "none stated"),
    "ryanair-scraper": _repo("dorisashehi/web_scraper",
                             "a4837388e3b75e3a9dfd89bb9b64619b34149063", "none stated"),
    "bilmo-flights": _repo("bilmo5352/BilmoBackend", "be138114623644642d819c69657064be3710761e",
                           "none stated"),
    # session 4 (pages5): a car-rental app project that committed a rental company's page as served
    "europcar-saved": _repo("DuraScrin/CarRenting", "ef82b983fee2be9d959ff1f43ad8c900fbebc826",
                            "none stated"),
    # session 4 (pages5): a car-rental deals site's own static pages (CarRentalSavers.com)
    "carrentalsavers": _repo("prowinnie/CRS-system", "19cd2ee88c941e833c90f45825d010b8183f4858",
                             "none stated"),
    "vehiclesites": _repo("jinu043/vehiclesites-webscraping",
                          "072adbda7925e12e09584cb46b52dd2a6d72d32a", "MIT (LICENSE)"),
}


def _member(archive: bytes, path: str, member: str) -> bytes:
    """One file of a zip, tar.gz or rar archive (rar: libarchive-c, the ``bench`` extra)."""
    if path.endswith(".rar"):
        import libarchive

        with libarchive.memory_reader(archive) as entries:
            for entry in entries:
                if entry.pathname == member:
                    return b"".join(entry.get_blocks())
        raise ValueError(f"{path}!/{member}: no such member")
    if path.endswith((".tar.gz", ".tgz")):
        try:
            with tarfile.open(fileobj=io.BytesIO(archive)) as tf:
                fh = tf.extractfile(member)
                if fh is None:
                    raise KeyError(member)
                return fh.read()
        except (tarfile.TarError, KeyError) as exc:
            raise ValueError(f"{path}!/{member}: {exc}") from exc
    try:
        with zipfile.ZipFile(io.BytesIO(archive)) as zf:
            return zf.read(member)
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ValueError(f"{path}!/{member}: {exc}") from exc


class _CassetteLoader(yaml.SafeLoader):
    """Safe YAML with Ruby VCR 1's tags read as plain data (``!ruby/struct:...`` a
    mapping, ``!binary`` base64 bytes); nothing is constructed from a tag."""


def _ruby_node(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_scalar(node)  # type: ignore[arg-type]


def _binary(loader: yaml.SafeLoader, node: yaml.Node) -> bytes:
    return base64.b64decode(str(loader.construct_scalar(node)))  # type: ignore[arg-type]


_CassetteLoader.add_multi_constructor("!ruby/", _ruby_node)
_CassetteLoader.add_constructor("!binary", _binary)


def cassette(raw: bytes, index: int) -> tuple[str, bytes]:
    """(request URI, response body) of the ``index``-th exchange of a VCR cassette."""
    # Ruby VCR 1 wrote bodies as literal blocks whose first lines may be blank lines
    # indented deeper than the text (a YAML error for PyYAML): state the indent, 2
    raw = re.sub(rb"^( *[\w-]+: [|>])([-+]?) *(\r?)$", rb"\g<1>2\g<2>\g<3>", raw, flags=re.M)
    doc = yaml.load(raw, Loader=_CassetteLoader)  # a SafeLoader subclass: no object built
    if isinstance(doc, dict):
        doc = doc.get("http_interactions") or doc.get("interactions") or []
    exchange = doc[index]
    uri = str(exchange["request"]["uri"])
    uri = re.sub(r"^(https://[^/:]+):443(?=/|$)|^(http://[^/:]+):80(?=/|$)",
                 lambda m: m.group(1) or m.group(2), uri)
    body = exchange["response"]["body"]
    if isinstance(body, dict):  # VCR 2+ and vcrpy: {encoding, string} or base64_string
        if "base64_string" in body:
            body = base64.b64decode(body["base64_string"])
        else:
            body = body.get("string", "")
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogateescape")
    return uri, bytes(body)


def _git_show(src: Source, path: str) -> bytes:
    out = subprocess.run(["git", "--git-dir", str(src.gitdir()), "show",
                          f"{src.version_or_commit}:{path}"], capture_output=True, check=True)
    return out.stdout


def read(src: Source, path: str) -> bytes:
    """The page's bytes. ``ARCHIVE.zip!/MEMBER`` (``.tar.gz``, ``.rar``) names a page inside an
    archive of the repository (a test bed shipped packed)."""
    if src.kind == "package":
        return (_formasaurus_root() / path).read_bytes()
    if "#" in path:
        name, _, index = path.partition("#")
        return cassette(_git_show(src, name), int(index))[1]
    path, _, member = path.partition("!/")
    raw = _git_show(src, path)
    if member:
        raw = _member(raw, path, member)
    if path.endswith(".html.ts"):  # a test mock: the page is between the backticks
        raw = raw[raw.index(b"`") + 1 : raw.rindex(b"`")]
    if re.match(rb"HTTP/1\.[01] \d{3}", raw):  # a saved raw response: drop its headers
        raw = re.split(rb"\r?\n\r?\n", raw, maxsplit=1)[-1]
    return raw


def list_paths(src: Source) -> list[str]:
    rx = re.compile(src.pattern)
    if src.kind == "package":
        root = _formasaurus_root()
        paths = [str(Path(p).relative_to(root)) for p in glob.glob(str(root / "**"),
                                                                   recursive=True)]
    else:
        out = subprocess.run(["git", "--git-dir", str(src.gitdir()), "ls-tree", "-r",
                              "--name-only", src.version_or_commit],
                             capture_output=True, check=True, text=True)
        paths = out.stdout.splitlines()
    return sorted((p for p in paths if rx.search(p)), key=_natural)


def _natural(p: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p)]


def _index(src: Source) -> dict[str, str]:
    """URL per path from the source's own index, where it has one."""
    if src.name == "formasaurus":
        idx = json.loads((_formasaurus_root() / "index.json").read_text())
        return {k: v["url"] for k, v in idx.items()}
    if src.name == "TeamHG-Memex/autopager":
        rows = csv.DictReader(io.StringIO(read(src, "autopager/data/data.csv").decode()))
        return {f"autopager/data/html/{r['File Name']}.html": r["Page URL"] for r in rows}
    if src.name == "TeamHG-Memex/page-compare":
        sites = json.loads(read(src, "sites.json"))
        return {f"data/{k}-{i}.html": v for k, v in sites.items() for i in range(1, 10)}
    return {}


def _url_in_page(body: bytes) -> str:
    """canonical, og:url or <base href> of the page, if any."""
    try:
        root = lxml.html.fromstring(body)
    except (ValueError, lxml.etree.ParserError):
        return ""
    for xp in ('//link[@rel="canonical"]/@href', '//meta[@property="og:url"]/@content',
               "//base/@href"):
        found = [str(u) for u in root.xpath(xp) if str(u).startswith("http")]
        if found:
            return found[0]
    return ""


def iter_source(src: Source) -> Iterator[tuple[str, str]]:
    """(path, url) of every page of the source; url "" when unknown."""
    idx = _index(src)
    for p in list_paths(src):
        yield p, idx.get(p, "")


def parse(src: Source, path: str, url: str = "") -> Page:
    body = read(src, path)
    if not url and "#" in path:
        name, _, index = path.partition("#")
        url = cassette(_git_show(src, name), int(index))[0]
    if not url:
        url = idx_url = _url_in_page(body)
        if not idx_url:
            raise ValueError(f"no URL known for {src.name}:{path}; give one in the spec")
    if src.name not in ("formasaurus", "TeamHG-Memex/autopager"):
        # the page's own canonical URL beats a site's home page (page-compare's
        # sites.json, a spec's URL) where the page names one
        url = _url_in_page(body) or url
    return parse_page(url, body, extract_forms=False)


def record(src: Source, path: str, url: str, label: str, kind: str, note: str) -> dict[str, Any]:
    page = parse(src, path, url)
    lang = ""
    with contextlib.suppress(ValueError, lxml.etree.ParserError):  # no parsable <html lang>
        lang = str(lxml.html.fromstring(read(src, path)).get("lang") or "").split("-")[0]
    anchors = [a for a in (" ".join(ln.anchor.split())[:80] for ln in page.links) if a]
    source: dict[str, str] = {"kind": src.kind}
    if src.kind == "package":
        source |= {"package": src.name, "path": f"formasaurus/data/{path}",
                   "version": src.version_or_commit}
    else:
        source |= {"repo": src.name, "path": path, "commit": src.version_or_commit}
    source["licence"] = src.licence
    rec = {"site": page.site, "url": page.url, "title": page.title, "lang": lang.lower(),
           "label": label, "kind": kind, "text": page.text[:TEXT_CAP],
           "anchors": anchors[:MAX_ANCHORS], "real": True, "source": source}
    if note:
        rec["note"] = note
    return rec


def spec_rows(specdir: Path) -> Iterator[list[str]]:
    for f in sorted(specdir.glob("*.tsv")):
        for line in f.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                cells = line.split("\t")
                yield (cells + [""] * 6)[:6]


def build(specdir: Path, domains: Path) -> int:
    out: dict[str, list[dict[str, Any]]] = {}
    idx_cache: dict[str, dict[str, str]] = {}
    off_sites: set[str] = set()
    for name, path, label, kind, url, note in spec_rows(specdir):
        src = SOURCES[name]
        if name not in idx_cache:
            idx_cache[name] = _index(src)
        try:
            rec = record(src, path, url or idx_cache[name].get(path, ""), label, kind, note)
        except (ValueError, ParseError, subprocess.CalledProcessError) as exc:
            print(f"skipped {name}:{path}: {exc}", file=sys.stderr)
            continue
        if len(rec["text"]) < MIN_TEXT:
            print(f"skipped {name}:{path}: {len(rec['text'])} characters of text", file=sys.stderr)
            continue
        if label == "offtopic" and rec["site"] in off_sites:
            continue  # one off-topic page per site: breadth over depth
        if label == "offtopic":
            off_sites.add(rec["site"])
        out.setdefault(label, []).append(rec)
    for label, recs in sorted(out.items()):
        folder = domains / ("_offtopic" if label == "offtopic" else label)
        with open(folder / "pages_real.jsonl", "w", encoding="utf-8") as fh:
            for r in recs:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        print(f"{label}: {len(recs)} pages, {len({r['site'] for r in recs})} sites")
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        specdir = Path(argv[1]) if len(argv) > 1 else HERE / "specs"
        domains = Path(argv[2]) if len(argv) > 2 else HERE.parent.parent / "domains"
        return build(specdir, domains)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
