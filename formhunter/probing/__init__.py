"""Probing: a few polite GET submissions of a stored form, to learn whether it answers
queries, which of its inputs matter, what its database holds and roughly how much.

After Madhavan et al., *Google's Deep-Web Crawl* (VLDB 2008): templates of one input
at a time, select and radio values from the form itself, words for the text inputs
from the form's page, its site and the domain's vocabulary, refined from the first
result pages; a nonsense query as the control. ``plan`` says what may be probed and
with which queries, ``results`` reads the answers, ``prober`` sends them through the
crawl's fetcher (robots.txt, politeness, the address guard), and this module takes
the forms from a catalogue and records every submission (``probes``) and each verdict
(``form_probes``), both keyed by the directory's identity (site, signature).

``formhunter probe`` runs ``probe_catalogue`` after a crawl; ``crawl --probe``
(``[probe] in_crawl``) runs ``CrawlProbing`` beside the crawl (an engine companion),
through the crawl's fetcher.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from formhunter.catalogue import Catalogue
from formhunter.config import Settings
from formhunter.fetch import Fetcher
from formhunter.interfaces import Fetcher as FetcherProtocol
from formhunter.keywords import domain_keywords, known_domains
from formhunter.probing.plan import ProbeForm, read_inputs, refusal, words_of
from formhunter.probing.prober import DomainReader, FormProbe, Prober

if TYPE_CHECKING:
    from formhunter.engine import Engine

__all__ = ["CrawlProbing", "FormProbe", "ProbeReport", "Prober", "load_forms",
           "probe_catalogue", "probe_forms"]  # fmt: skip

log = logging.getLogger(__name__)

_FORM_COLUMNS = ("form_id, site, signature, action_url, method, searchable, domain, html,"
                 " page_url, page_title, context")  # fmt: skip


def load_forms(cat: Catalogue, *, which: str = "relevant", domain: str | None = None,
               run_id: int | None = None, form_ids: Sequence[int] | None = None,
               again: bool = False) -> list[ProbeForm]:  # fmt: skip
    """The stored forms to probe: ``which`` "relevant" or "searchable" (never one judged
    not searchable), of ``domain`` (the critic's) or run ``run_id`` if given, one per
    (site, signature) (its latest sighting), without those probed already unless
    ``again``."""
    where: list[str] = ["searchable"]
    params: list[Any] = []
    if which == "relevant":
        where.append("relevant")
    if domain:
        where.append("domain = ?")
        params.append(domain)
    if run_id is not None:
        where.append("run_id = ?")
        params.append(run_id)
    if form_ids is not None:
        if not form_ids:
            return []
        where.append(f"form_id IN ({', '.join(str(int(i)) for i in form_ids)})")
    sql = (f"SELECT {_FORM_COLUMNS} FROM (SELECT *, row_number() OVER (PARTITION BY site,"
           f" signature ORDER BY form_id DESC) AS rn FROM forms WHERE {' AND '.join(where)})"
           " WHERE rn = 1 ORDER BY form_id")  # fmt: skip
    done = set() if again else cat.probed()
    out = []
    for row in cat.con.execute(sql, params).fetchall():
        fid, site, sig, action, method, searchable, dom, html, page_url, title, context = row
        if (site, sig) in done:
            continue
        out.append(ProbeForm(int(fid), site, sig, action or page_url, method or "GET",
                             bool(searchable), dom or "", html or "", page_url or "",
                             title or "", context or "", read_inputs(html or "")))  # fmt: skip
    return out


def site_texts(cat: Catalogue, site: str, limit: int = 400) -> list[str]:
    """Titles of the site's pages the catalogue holds."""
    rows = cat.con.execute(
        "SELECT title FROM pages WHERE site = ? AND status = 200 ORDER BY seq LIMIT ?",
        [site, limit]).fetchall()  # fmt: skip
    return [row[0] for row in rows if row[0]]


def query_words(form: ProbeForm, site_text: Sequence[str], domain: str) -> list[str]:
    """Candidate words for the text inputs: the form's page, its site, then the domain's
    vocabulary (single words of its keywords)."""
    own = words_of([form.page_title])  # forms.context can glue a menu's words together
    site = words_of(site_text)
    vocab = [k for k in domain_keywords(domain) if k.isalpha()] if domain else []
    name = form.site.split(".")[0].replace("-", "")
    return [w for w in dict.fromkeys([*own, *site, *vocab]) if w not in name]


def domain_reader(settings: Settings) -> DomainReader:
    """One page classifier per known domain (``[probe] page_classifier``)."""
    from formhunter.strategies import build

    def make(d: str) -> Any:
        return build("page_classifier", settings.probe.page_classifier, domain=d,
                     models_dir=settings.crawl.models_dir or None,
                     random_state=settings.crawl.random_state)  # fmt: skip

    return DomainReader(known_domains(), make, settings.probe.min_domain_score)


@dataclass(slots=True)
class ProbeReport:
    """What a probing session did: results per form and submissions per site."""

    results: list[FormProbe] = field(default_factory=list)
    site_spent: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.results:
            out[r.verdict] = out.get(r.verdict, 0) + 1
        return out


async def probe_forms(prober: Prober, forms: Sequence[ProbeForm],
                      words: dict[int, list[str]], concurrency: int,
                      max_per_form: int | None = None) -> list[FormProbe]:  # fmt: skip
    """Probe ``forms`` (``words`` by form id): sites in parallel (at most
    ``concurrency``), the forms of one site one after the other."""
    by_site: dict[str, list[ProbeForm]] = {}
    for f in forms:
        by_site.setdefault(f.site, []).append(f)
    gate = asyncio.Semaphore(concurrency)
    out: list[FormProbe] = []

    async def one_site(site_forms: list[ProbeForm]) -> None:
        async with gate:
            for f in site_forms:
                out.append(await prober.probe(f, words.get(f.form_id, []), max_per_form))

    await asyncio.gather(*(one_site(v) for v in by_site.values()))
    return out


def probe_catalogue(cat: Catalogue, settings: Settings, *, domain: str | None = None,
                    which: str | None = None, max_per_form: int | None = None,
                    run_id: int | None = None, again: bool = False,
                    fetcher: FetcherProtocol | None = None) -> ProbeReport:  # fmt: skip
    """Probe the catalogue's stored forms (``load_forms``) and record the outcomes."""
    forms = load_forms(cat, which=which or settings.probe.forms, domain=domain,
                       run_id=run_id, again=again)  # fmt: skip
    fetch = fetcher if fetcher is not None else Fetcher(probe_fetch_settings(settings))
    reader = domain_reader(settings)
    prober = Prober(fetch, settings.probe, reader, domain or "")
    words = {f.form_id: query_words(f, site_texts(cat, f.site), domain or f.domain)
             for f in forms if not refusal(f)}  # fmt: skip

    async def run() -> list[FormProbe]:
        async with fetch:
            return await probe_forms(prober, forms, words, settings.probe.concurrency,
                                     max_per_form)  # fmt: skip

    results = asyncio.run(run())
    for r in results:
        cat.add_probe(r.form.form_id, r.form.site, r.form.signature, r.submissions(), r.summary())
    cat.commit()
    return ProbeReport(results, dict(prober.site_spent))


def probe_fetch_settings(settings: Settings) -> Any:
    """The crawl's fetch settings with robots.txt always obeyed: probing never skips it."""
    return dataclasses.replace(settings.fetch, obey_robots=True)


class CrawlProbing:
    """``crawl --probe``: an engine companion (``Engine.accompany``) that probes each new
    relevant form of the run beside the crawl, through the engine's own fetcher (its
    politeness, robots.txt and address guard); the outcomes are written at the crawl's
    commit points. The forms found last are probed after the loop, before the last
    commit, the fetcher still open."""

    def __init__(self, settings: Settings, poll_seconds: float = 1.0) -> None:
        self.settings = settings
        self.poll = poll_seconds
        self.reader = domain_reader(settings)
        self.queued: set[int] = set()
        self.results: list[FormProbe] = []

    def _new_forms(self, engine: Engine) -> list[int]:
        rows = engine.catalogue.con.execute(
            "SELECT form_id FROM forms WHERE run_id = ? AND relevant AND searchable"
            " ORDER BY form_id", [engine.run_id]).fetchall()  # fmt: skip
        new = [int(r[0]) for r in rows if int(r[0]) not in self.queued]
        self.queued.update(new)
        return new

    async def _probe_one(self, engine: Engine, prober: Prober, fid: int) -> None:
        cat = engine.catalogue
        forms = load_forms(cat, which="relevant", form_ids=[fid])
        if not forms or engine.stopping:
            return
        f = forms[0]
        words = query_words(f, site_texts(cat, f.site), self.settings.crawl.domain)
        r = await prober.probe(f, words)
        self.results.append(r)
        cat.add_probe(f.form_id, f.site, f.signature, r.submissions(), r.summary())

    async def __call__(self, engine: Engine) -> None:
        prober = Prober(engine.fetcher, self.settings.probe, self.reader,
                        self.settings.crawl.domain)  # fmt: skip
        gate = asyncio.Semaphore(self.settings.probe.concurrency)
        tasks: set[asyncio.Task[None]] = set()

        async def guarded(fid: int) -> None:
            async with gate:
                try:
                    await self._probe_one(engine, prober, fid)
                except Exception:  # a probe never stops the crawl
                    log.exception("probing form %d failed", fid)

        while not engine.stopping:
            over = engine.crawl_over.is_set()
            for fid in self._new_forms(engine):
                t = asyncio.ensure_future(guarded(fid))
                tasks.add(t)
                t.add_done_callback(tasks.discard)
            if over:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(engine.crawl_over.wait(), self.poll)
        await asyncio.gather(*tasks, return_exceptions=True)
