"""Probing forms through the crawl's fetcher: submissions, verdicts, the results' domain.

``Prober.probe(form, words)`` sends the form's planned queries (``plan.Plan``) one after
the other through the given fetcher (``formhunter.fetch.Fetcher``: GET only, robots.txt
on every submission URL, the per-host politeness slot, the address guard), at most
``max_per_form`` of them and, over all the forms of a site, ``max_per_site``. A
submission refused by robots.txt or the guard is recorded (no request was sent) and
ends the form's probing. After the third answer a word from the result items is
added (iterative probing). Every answer's result items are read by one page
classifier per known domain: the per-submission ``topic_score`` is the score for the
target domain, the form's ``domain`` the best domain of all its result texts together
when most answers agree with it ("other" when the results' domain changes with the
query).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from formhunter.config import ProbeSettings
from formhunter.interfaces import Fetcher, PageClassifier
from formhunter.model import Page
from formhunter.parse import parse_page
from formhunter.probing.plan import Plan, ProbeForm, Query, refusal, submission_url
from formhunter.probing.results import UNKNOWN, Answer, judge, mark_items, read_page

log = logging.getLogger(__name__)

#: Fetch errors after which a form is not asked again (nothing was or may be sent).
_STOP_ERRORS = frozenset({"robots", "robots-unreachable", "forbidden-address", "bad-url",
                          "dns", "proxy"})  # fmt: skip
OTHER = "other"


@dataclass(slots=True)
class FormProbe:
    """The outcome of probing one form (``answers`` in the order sent)."""

    form: ProbeForm
    verdict: str
    domain: str
    domain_score: float | None
    inputs: list[str]
    results_estimate: int | None
    answers: list[Answer] = field(default_factory=list)
    note: str = ""

    def submissions(self) -> list[dict[str, Any]]:
        """The ``probes`` rows of this probing."""
        return [{"kind": a.kind, "input": a.input, "value": a.value, "url": a.url,
                 "status": a.status, "error": a.error, "result_signature": a.signature,
                 "n_items": a.n_items, "reported": a.reported, "topic_score": a.topic_score}
                for a in self.answers]  # fmt: skip

    def summary(self) -> dict[str, Any]:
        """The ``form_probes`` row of this probing."""
        return {"verdict": self.verdict, "domain": self.domain, "domain_score": self.domain_score,
                "inputs": self.inputs, "results_estimate": self.results_estimate,
                "submissions": len(self.answers), "note": self.note}  # fmt: skip


class DomainReader:
    """Scores result items with one page classifier per domain (``[probe]
    page_classifier``); built lazily, one classifier per domain per process."""

    def __init__(self, domains: Sequence[str], build: Callable[[str], PageClassifier],
                 min_score: float) -> None:  # fmt: skip
        self.domains = list(domains)
        self._build = build
        self.min_score = min_score
        self._models: dict[str, PageClassifier] = {}

    def _model(self, domain: str) -> PageClassifier:
        m = self._models.get(domain)
        if m is None:
            m = self._models[domain] = self._build(domain)
        return m

    def scores(self, pages: Sequence[Page]) -> dict[str, list[float]]:
        """Each domain's score of each page."""
        return {d: self._model(d).page_scores(list(pages)) for d in self.domains}


def _items_page(answer: Answer, site: str) -> Page:
    return Page(url=answer.url, final_url=answer.url, status=answer.status, site=site,
                title="", text=answer.result_text or " . ".join(answer.items))  # fmt: skip


class Prober:
    """Probes forms through ``fetcher`` within the caps of ``settings`` (module doc)."""

    def __init__(self, fetcher: Fetcher, settings: ProbeSettings, reader: DomainReader,
                 target_domain: str = "") -> None:  # fmt: skip
        self.fetcher = fetcher
        self.settings = settings
        self.reader = reader
        self.target = target_domain
        self.site_spent: Counter[str] = Counter()

    def _room(self, site: str) -> bool:
        return self.site_spent[site] < self.settings.max_per_site

    async def _send(self, form: ProbeForm, query: Query) -> Answer:
        url = submission_url(form.action, query.pairs(form.inputs))
        answer = Answer(query.kind, query.input, query.value, url)
        self.site_spent[form.site] += 1  # held before the wait: forms probed at once share it
        result = await self.fetcher.fetch(url)
        answer.status, answer.error = result.status, result.error
        if result.error in _STOP_ERRORS:
            self.site_spent[form.site] -= 1  # refused before any request was sent
            return answer
        if result.ok:
            page = parse_page(url, result.body, final_url=result.final_url or url,
                              status=result.status, content_type=result.content_type)  # fmt: skip
            read_page(answer, page, form.action)
        return answer

    async def probe(self, form: ProbeForm, words: Sequence[str],
                    max_per_form: int | None = None) -> FormProbe:  # fmt: skip
        """Probe one form (module doc); a form that may not be probed gets verdict
        ``unknown`` with the reason and no submission."""
        why = refusal(form)
        if why:
            return FormProbe(form, UNKNOWN, "", None, [], None, note=f"not probed: {why}")
        budget = max_per_form or self.settings.max_per_form
        plan = Plan(form, words)
        queue = plan.initial()
        answers: list[Answer] = []
        note = ""
        refined = False
        while len(answers) < budget:
            if not self._room(form.site):
                note = f"site cap ({self.settings.max_per_site} submissions) reached"
                break
            if len(answers) >= 3 and not refined:
                refined = True
                mark_items(answers)
                q = plan.refine([t for a in answers if a.kind != "control" for t in a.items])
                if q is not None:
                    queue.insert(0, q)
            if not queue and plan.texts and answers:  # iterative probing: more words
                mark_items(answers)
                q = plan.refine([t for a in answers if a.kind != "control" for t in a.items])
                if q is not None:
                    queue.append(q)
            if not queue:
                break
            answer = await self._send(form, queue.pop(0))
            answers.append(answer)
            if answer.error in _STOP_ERRORS:
                note = f"stopped: {answer.error}"
                break
        mark_items(answers)
        verdict = judge(answers)
        domain, score = self._domain(form, answers, verdict.verdict)
        return FormProbe(form, verdict.verdict, domain, score, verdict.inputs,
                         verdict.results_estimate, answers,
                         "; ".join(x for x in (verdict.note, note) if x))  # fmt: skip

    def _domain(self, form: ProbeForm, answers: list[Answer],
                verdict: str) -> tuple[str, float | None]:  # fmt: skip
        """Topic score per answer (the target domain) and the results' domain: the best
        domain of all result texts read as one page (a few hits say little each), if it
        is also the best of at least three answers in four one by one (a database of one
        domain answers every query in it); results whose domain changes with the query (a
        directory's, a general site search's) are "other"."""
        listed = [a for a in answers if a.ok and a.items and a.kind != "control"]
        if not listed or not self.reader.domains:
            return "", None
        pages = [_items_page(a, form.site) for a in listed]
        pages.append(Page(url=form.action, final_url=form.action, status=200, site=form.site,
                          text=" ".join(p.text for p in pages)))  # fmt: skip
        scores = self.reader.scores(pages)
        target = self.target or form.domain
        if target in scores:
            for a, s in zip(listed, scores[target], strict=False):
                a.topic_score = s
        if verdict != "answers":
            return "", None
        whole = {d: v[-1] for d, v in scores.items()}
        best = max(whole, key=lambda d: (whole[d], d))
        if whole[best] < self.reader.min_score:
            return OTHER, whole[best]
        firsts = Counter(max(scores, key=lambda d: (scores[d][i], d)) for i in range(len(listed)))
        if 4 * firsts[best] < 3 * len(listed):
            return OTHER, whole[best]
        return best, whole[best]
