"""The form critic: searchable? of which domain? relevant to the crawl?

``FormCritic`` (critic "default") chains the two trained models
of ACHE's HIFI: the searchable-form tree on structure, then, for searchable
forms only, the multi-class domain SVM on text. A form is relevant when it is
searchable and its best-scoring domain is the crawl's target. Where the models hold a
``context`` model (``classifiers.context``, ``formhunter train context``), the domain
decision also reads the page: the page classifiers' topic scores over the whole page
text, and in a crawl the site's evidence (``revisit_site``). ``HeuristicCritic``
(critic "heuristic") needs no model: keyword rules on the form plus the target
pack's keywords.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from classifiers.context_features import OTHER, lexicon_text
from classifiers.form_signals import (
    STRUCTURE_FEATURES,
    FormSample,
    keyword_box,
    structure_vector,
)
from classifiers.lexicon import lexicon_scores
from classifiers.linear_inference import ContextScorer, FormScorer, load_scorer
from classifiers.persist import model_info, model_path
from classifiers.text import page_text
from formhunter.exceptions import ModelError, UsageError
from formhunter.model import Form, Page, Verdict

if TYPE_CHECKING:
    from classifiers.context import ContextBundle
    from classifiers.fast_inference import Checked

__all__ = ["FormCritic", "HeuristicCritic"]

_IX = {n: i for i, n in enumerate(STRUCTURE_FEATURES)}


def _samples(forms: Sequence[Form], page: Page | None) -> list[FormSample]:
    if page is None:
        return [FormSample(f) for f in forms]
    url = page.final_url or page.url
    return [FormSample(f, page.title, url, page.site_name, page.nav) for f in forms]


class FormCritic:
    """Judges forms with the trained searchable and domain models.

    ``models_dir`` holds ``searchable/`` and ``domain/`` model directories
    (default: the user model directory where it has them, else data/models/;
    ``classifiers.persist.model_path``); ``model`` names the domain model to use (the
    newest by default; ``formhunter models list``). ModelError when a model is missing
    or incompatible, or when the domain model does not know ``domain``. ``domain=""`` means no
    target: verdicts are filled but nothing is relevant.
    """

    def __init__(
        self,
        domain: str,
        models_dir: Path | str | None = None,
        searchable_threshold: float = 0.5,
        model: str | None = None,
    ) -> None:
        searchable_dir = model_path("searchable", models_dir)
        domain_dir = model_path("domain", models_dir, model)
        self.model_dirs = {"searchable": searchable_dir, "domain": domain_dir}
        base = domain_dir.parent
        self.domain = domain
        self.searchable_threshold = searchable_threshold
        # the models' inference files when they stand for them (numpy and scipy.sparse
        # alone, the same floats: classifiers.linear_inference), else scikit-learn
        self.searchable_model, self.searchable_manifest = load_scorer(searchable_dir,
                                                                      "searchable")
        self.domain_model, self.domain_manifest = load_scorer(domain_dir, "domain")
        self.classes_ = [str(c) for c in self.domain_model.classes_]
        self._checked: dict[str, Checked] = {}
        context_dir = model_path("context", models_dir)
        self.context: ContextBundle | ContextScorer | None = None
        if (context_dir / "manifest.json").is_file():
            self.context, self.context_manifest = load_scorer(context_dir, "context")
            if {str(c) for c in self.context.classes_} != set(self.classes_):
                # trained beside another domain model (e.g. a user's with a new domain):
                # the form model alone decides until `formhunter train context` is rerun
                self.context = None
        #: searchable forms not of the target domain, per site, that site evidence may
        #: still make relevant: signature -> (domain probabilities, page topics, keyword
        #: box, searchable score, lexicon scores)
        self._pending: dict[str, dict[str, tuple[np.ndarray, np.ndarray, bool, float,
                                                 np.ndarray]]] = {}  # fmt: skip
        if domain and (domain not in self.classes_ or domain == OTHER):
            known = ", ".join(c for c in self.classes_ if c != OTHER)
            raise ModelError(
                f"the domain model in {base / 'domain'} does not know domain {domain!r} "
                f"(known: {known}). Add labelled forms to domains/{domain}/forms.jsonl and "
                f"retrain: formhunter train domain --domain {domain} --out {base / 'domain'}"
            )

    def models(self) -> dict[str, dict[str, Any]]:
        """The searchable and domain models, as ``model_info`` describes them."""
        return {role: model_info(d) for role, d in self.model_dirs.items()}

    def _proba(self, which: str, samples: list[FormSample]) -> np.ndarray:
        """``predict_proba`` of the searchable or domain model: its inference file's scorer,
        else through the compiled path (``classifiers.fast_inference``: same floats, no
        per-call validation)."""
        model = self.searchable_model if which == "searchable" else self.domain_model
        if isinstance(model, FormScorer):
            return model.predict_proba(samples)
        from classifiers.fast_inference import Checked

        checked = self._checked.get(which)
        if checked is None or checked.est is not model:
            checked = self._checked[which] = Checked(model, which)
        return checked(samples)

    @property
    def topic_domains(self) -> list[str]:
        """The domains ``page_topics`` scores, in column order (none without a context model)."""
        return list(self.context.topics.domains_) if self.context is not None else []

    def page_topics(self, pages: Sequence[Page]) -> np.ndarray:
        """Topic score of each page (rows) for each of ``topic_domains`` (columns): the
        page's own ``topics`` where they name every domain, else scored from its title and
        whole text (``classifiers.page_classifier.page_text``)."""
        if self.context is None:
            return np.zeros((len(pages), 0))
        cols = self.topic_domains
        out = np.zeros((len(pages), len(cols)))
        known = [i for i, p in enumerate(pages) if p.topics and all(d in p.topics for d in cols)]
        for i in known:
            topics = pages[i].topics or {}
            out[i] = [topics[d] for d in cols]
        todo = sorted(set(range(len(pages))) - set(known))
        if todo:
            out[todo] = self.context.topics.scores([page_text(pages[i]) for i in todo])
        return out

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        """One verdict per form, in order; all forms of a page are scored in one batch."""
        return self.judge_many([(forms, page)])[0]

    def judge_many(
        self, batch: Sequence[tuple[Sequence[Form], Page]], topics: np.ndarray | None = None
    ) -> list[list[Verdict]]:
        """``judge`` over many pages: one list of verdicts per (forms, page), in order.

        All forms of the batch go through each model in one ``predict_proba`` call
        (the models' per-call overhead dwarfs their per-form cost); every verdict
        equals the one ``judge`` gives for its page alone. ``topics``: the pages'
        ``page_topics`` when already computed (rows in batch order).
        """
        samples = [s for forms, page in batch for s in _samples(forms, page)]
        if not samples:
            return [[] for _ in batch]
        s_score = self._proba("searchable", samples)[:, 1]
        searchable = s_score >= self.searchable_threshold
        domains = [""] * len(samples)
        d_score = np.zeros(len(samples))
        read: list[dict[str, float] | None] = [None] * len(samples)
        idx = np.flatnonzero(searchable)
        if len(idx):
            proba = self._proba("domain", [samples[i] for i in idx])
            classes = self.classes_
            if self.context is not None:
                if topics is None:
                    topics = self.page_topics([page for _, page in batch])
                row = np.repeat(np.arange(len(batch)), [len(forms) for forms, _ in batch])
                boxes = np.array([keyword_box(samples[i].form) for i in idx])
                page_t = topics[row[idx]]
                form_p = proba
                lex = lexicon_scores([lexicon_text(samples[i]) for i in idx], self.topic_domains)
                proba = self.context.proba(form_p, classes, page_t, boxes, lex)
                classes = [str(c) for c in self.context.classes_]
                self._remember(batch, row, idx, form_p, page_t, boxes, lex, proba, classes,
                               s_score)  # fmt: skip
                cols = self.topic_domains
                by_page = [dict(zip(cols, map(float, t), strict=True)) for t in topics]
                read = [by_page[r] for r in row]
            best = np.argmax(proba, axis=1)
            for j, i in enumerate(idx):
                domains[i] = classes[best[j]]
                d_score[i] = proba[j, best[j]]
        verdicts = [
            Verdict(
                searchable=bool(searchable[i]),
                searchable_score=round(float(s_score[i]), 4),
                domain=domains[i],
                domain_score=round(float(d_score[i]), 4),
                relevant=bool(searchable[i]) and bool(self.domain) and domains[i] == self.domain,
                page_topics=read[i],
            )
            for i in range(len(samples))
        ]
        out: list[list[Verdict]] = []
        start = 0
        for forms, _ in batch:
            out.append(verdicts[start:start + len(forms)])
            start += len(forms)
        return out

    #: pending forms kept per site, and sites kept (oldest dropped first)
    PENDING_PER_SITE = 8
    PENDING_SITES = 20_000

    def _remember(self, batch: Sequence[tuple[Sequence[Form], Page]], row: np.ndarray,
                  idx: np.ndarray, form_p: np.ndarray, page_t: np.ndarray, boxes: np.ndarray,
                  lex: np.ndarray, proba: np.ndarray, classes: list[str],
                  s_score: np.ndarray) -> None:  # fmt: skip
        """Keep the searchable forms not judged of the target domain for ``revisit_site``."""
        if not self.domain:
            return
        forms = [f for fs, _ in batch for f in fs]
        best = np.argmax(proba, axis=1)
        for j, i in enumerate(idx):
            if classes[best[j]] == self.domain:
                continue
            site = batch[row[i]][1].site
            kept = self._pending.setdefault(site, {})
            if len(kept) < self.PENDING_PER_SITE:
                kept[forms[i].signature] = (form_p[j], page_t[j], bool(boxes[j]),
                                            round(float(s_score[i]), 4), lex[j])  # fmt: skip
        while len(self._pending) > self.PENDING_SITES:
            del self._pending[next(iter(self._pending))]

    def revisit_site(self, site: str, share_on_topic: float) -> list[tuple[str, Verdict]]:
        """The site's earlier forms that its evidence now makes relevant: (signature, verdict).

        ``share_on_topic``: the share of the site's fetched pages on the target's topic.
        Each pending form of the site is judged again with its page's topic score for the
        target raised to that share (the site says what its database holds, as the page
        does); forms now of the target domain are returned and forgotten.
        """
        kept = self._pending.get(site)
        if not kept or self.context is None or not self.domain:
            return []
        cols = self.topic_domains
        if self.domain not in cols:
            return []
        k = cols.index(self.domain)
        sigs = list(kept)
        form_p = np.array([kept[s][0] for s in sigs])
        topics = np.array([kept[s][1] for s in sigs])
        topics[:, k] = np.maximum(topics[:, k], share_on_topic)
        boxes = np.array([kept[s][2] for s in sigs])
        lex = np.array([kept[s][4] for s in sigs])
        proba = self.context.proba(form_p, self.classes_, topics, boxes, lex)
        classes = [str(c) for c in self.context.classes_]
        out = []
        for j, sig in enumerate(sigs):
            b = int(np.argmax(proba[j]))
            if classes[b] == self.domain:
                read = dict(zip(cols, map(float, topics[j]), strict=True))
                out.append((sig, Verdict(True, kept[sig][3], self.domain,
                                         round(float(proba[j, b]), 4), True, read)))  # fmt: skip
                del kept[sig]
        return out


class HeuristicCritic:
    """Keyword rules, no model: a cheap baseline and a fallback.

    Searchable: a search cue (search word on a button, in the form's id/class,
    a query-named text box, a search-like action) and no password box nor
    login/sign-up/subscribe/contact/cart wording dominating. Domain: the pack
    whose keywords occur most often in the form's text and page title.
    """

    def __init__(
        self, domain: str, domains_dir: Path | str | None = None, strict: bool = True
    ) -> None:
        from classifiers.datasets import domains_root, iter_packs, load_pack

        root = domains_root(domains_dir)
        names = iter_packs(root)
        if (strict or domain) and domain not in names:
            raise UsageError(
                f"no domain pack {domain!r} in {root} (known: {', '.join(names) or 'none'})"
            )
        self.domain = domain
        self.keywords_: dict[str, re.Pattern[str]] = {}
        for name in names:
            words = load_pack(name, root, with_data=False).keywords or [name]
            alts = "|".join(re.escape(w.lower()) for w in sorted(set(words), key=len, reverse=True))
            self.keywords_[name] = re.compile(alts)

    def _searchable(self, v: np.ndarray) -> float:
        cues = sum(
            v[_IX[k]] > 0
            for k in ("submit_search", "attr_search", "query_name", "action_search",
                      "label_search", "role_search", "name_search")
        )  # fmt: skip
        negative = sum(
            v[_IX[k]]
            for k in ("neg_login", "neg_register", "neg_subscribe", "neg_contact", "neg_recover")
        )
        if v[_IX["has_password"]] or v[_IX["n_textarea"]] or v[_IX["n_visible"]] == 0:
            return 0.0
        score = min(1.0, 0.3 * cues) - 0.15 * min(negative, 4)
        return float(min(max(score, 0.0), 1.0))

    def judge(self, forms: Sequence[Form], page: Page) -> list[Verdict]:
        out = []
        for s in _samples(forms, page):
            score = self._searchable(structure_vector(s))
            searchable = score >= 0.5
            domain, d_score = "", 0.0
            if searchable:
                f = s.form
                text = " ".join(
                    [f.text, f.context, s.title, " ".join(x.label for x in f.fields),
                     " ".join(o for x in f.fields for o in x.options[:30])]
                ).lower()  # fmt: skip
                hits = {n: len(rx.findall(text)) for n, rx in self.keywords_.items()}
                best = max(hits, key=lambda n: hits[n])
                total = sum(hits.values())
                domain = best if hits[best] else OTHER
                d_score = hits[best] / total if total else 0.0
            out.append(
                Verdict(searchable, round(score, 4), domain, round(d_score, 4),
                        searchable and bool(self.domain) and domain == self.domain)
            )  # fmt: skip
        return out

    def models(self) -> dict[str, dict[str, Any]]:
        """None: rules."""
        return {}

    def judge_many(self, batch: Sequence[tuple[Sequence[Form], Page]]) -> list[list[Verdict]]:
        """``judge`` per (forms, page), in order (rules have no per-call overhead)."""
        return [self.judge(forms, page) for forms, page in batch]

